"""The creator's hand on a running game: pause, resume, and handing an abandoned seat to a bot or a new
player. (A player's own vote to pause and taking back a seat from the autopilot are ruleset commands, with
their endpoints under ``/commands/``.) Every change is an event in the game's log (R7.5)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from critters_api.problems import Problem
from critters_api.serializers import StrictCharField, StrictChoiceField, StrictSerializer
from games import selectors
from games.models import Game, SeatOffer
from games.services import control
from games.services.lobby import BOT_STRATEGIES
from players.models import Player

from . import examples
from .serializers import EmptyInput, GameOutput
from .views import ETAG, GAME_ID, GameView, _player, _with_etag

SEAT = OpenApiParameter(
    "seat", OpenApiTypes.INT, OpenApiParameter.PATH, description="The seat number in the running game."
)


class HandOverInput(StrictSerializer):
    """Who takes the seat: a bot (``to: "bot"``, with ``strategy``) or a player (``to: "player"``, with
    ``player``, the username of someone not yet in this game)."""

    to = StrictChoiceField(choices=["bot", "player"])
    strategy = StrictChoiceField(choices=list(BOT_STRATEGIES), default="sensible", required=False)
    player = StrictCharField(required=False, max_length=150)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["to"] == "player" and not attrs.get("player"):
            raise serializers.ValidationError({"player": ["Required when the seat goes to a player."]})
        if attrs["to"] == "bot" and attrs.get("player"):
            raise serializers.ValidationError({"player": ["Only when the seat goes to a player."]})
        return attrs


def _pause_schema(pause: bool) -> Any:
    word = "pause" if pause else "resume"
    description = (
        (
            'The game\'s creator pauses a running game (game option `pause_by = "creator"`, the default). '
            "A `GamePaused` event goes into the log; while paused no deadline runs and only `SendMessage`, "
            "`Resign`, `TakeBackSeat` and `VotePause` are accepted (else 409 `paused`). In a game with "
            '`pause_by = "vote"` the players vote with `POST .../commands/vote-pause` instead (409 '
            "`pause_by_vote` here)."
        )
        if pause
        else (
            "The game's creator resumes a paused game: a `GameResumed` event moves the current deadline by "
            "the time the game was paused (`paused_seconds`). 409 `not_paused` when it is not paused."
        )
    )
    return extend_schema(
        operation_id=f"games_{word}",
        summary=f"{word.capitalize()} a game (creator)",
        description=description + " Only the creator (or an operator) may do this: 403 `not_creator`.",
        parameters=[GAME_ID, ETAG],
        request=EmptyInput,
        responses={200: GameOutput},
        examples=[OpenApiExample("no body", value={}, request_only=True), examples.GAME],
        tags=["deadlines"],
    )


class _PauseView(GameView):
    problem_statuses = {"POST": (409,)}
    pause = True

    def post(self, request: Request, game_id: int) -> Response:
        data = EmptyInput(data=request.data)
        data.is_valid(raise_exception=True)
        game = control.game_pause(game_id=game_id, by=_player(request), pause=self.pause)
        game.refresh_from_db()
        return _with_etag(Response(selectors.game_public(game, player=_player(request))), game)


class PauseView(_PauseView):
    pause = True

    @_pause_schema(True)
    def post(self, request: Request, game_id: int) -> Response:
        return super().post(request, game_id)


class ResumeView(_PauseView):
    pause = False

    @_pause_schema(False)
    def post(self, request: Request, game_id: int) -> Response:
        return super().post(request, game_id)


class SeatOfferOutput(serializers.Serializer):
    """An offer of a running game's seat to a player (issue #28, item 13): nothing of the game changes, and
    the player gets nothing of it, until they accept (``POST /me/offers/{offer_id}/accept``)."""

    id = serializers.IntegerField()
    game = serializers.IntegerField(help_text="The game's id.")
    game_name = serializers.CharField()
    ruleset = serializers.CharField()
    seat = serializers.IntegerField(help_text="The seat number in the running game.")
    player = serializers.CharField(help_text="Who is offered the seat (username).")
    offered_by = serializers.CharField(help_text="Who offers it: the game's creator (or an operator).")
    reason = serializers.ChoiceField(
        choices=["autopilot", "stalled"],
        help_text="`autopilot`: the seat's player missed too many deadlines; `stalled`: a step without a "
        "deadline has waited on the seat for 7 days without a move (the table's ruling 13).",
    )
    created_at = serializers.DateTimeField()


class SeatOfferPage(serializers.Serializer):
    results = SeatOfferOutput(many=True)


def _offer_json(offer: SeatOffer, game: Game) -> dict[str, Any]:
    return {
        "id": offer.pk,
        "game": game.pk,
        "game_name": game.name,
        "ruleset": game.ruleset,
        "seat": offer.seat,
        "player": offer.player.username,
        "offered_by": offer.offered_by.username,
        "reason": "stalled" if offer.stalled else "autopilot",
        "created_at": offer.created_at,
    }


OFFER_EXAMPLE = OpenApiExample(
    "an offer",
    value={
        "id": 7,
        "game": 42,
        "game_name": "Friday heist",
        "ruleset": "goodcritters",
        "seat": 1,
        "player": "carol",
        "offered_by": "alice",
        "reason": "autopilot",
        "created_at": "2026-05-01T12:00:00Z",
    },
    response_only=True,
    status_codes=["202"],
)


class HandOverView(GameView):
    problem_statuses = {"POST": (409,)}

    @extend_schema(
        operation_id="games_seats_hand_over",
        summary="Hand an abandoned or stalled seat to a bot, or offer it to another player (creator)",
        description=(
            "A seat whose player missed too many deadlines runs on autopilot (`AutopilotEngaged`); a seat a "
            "step without a deadline has waited on for 7 days without a move is stalled (the table's ruling "
            "12: a game can always go on, R7.6). The game's creator may give such a seat for good to a bot: "
            "200, `SeatHandedOver` (after `AutopilotReleased` for a seat on autopilot) goes into the log and "
            "the previous player no longer has the seat (they see the game as a spectator, if spectators "
            "are allowed). To another player (who must not have a seat in this game yet) the seat is only "
            "offered: 202 with the offer, and nothing changes until that player accepts it "
            "(`POST /me/offers/{offer_id}/accept`; they may decline it, the creator withdraw it with "
            "`DELETE .../seats/{seat}/offer`). An offer lapses when the seat changes first (its player "
            "takes it back or plays, it is handed over or resigned, the game ends); a new offer of the seat "
            "replaces the last. "
            "403 `not_creator`; 404 `seat_not_found` / `player_not_found`; 409 `not_on_autopilot` for a "
            "seat that is neither on autopilot nor stalled, `not_stalled` for one stalled less than 7 days, "
            "`already_seated` for a player who already plays here."
        ),
        parameters=[GAME_ID, SEAT, ETAG],
        request=HandOverInput,
        responses={200: GameOutput, 202: SeatOfferOutput},
        examples=[
            OpenApiExample("to a bot", value={"to": "bot", "strategy": "sensible"}, request_only=True),
            OpenApiExample("to a player", value={"to": "player", "player": "carol"}, request_only=True),
            examples.GAME,
            OFFER_EXAMPLE,
        ],
        tags=["deadlines"],
    )
    def post(self, request: Request, game_id: int, seat: int) -> Response:
        data = HandOverInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        newcomer: Player | None = None
        if v["to"] == "player":
            newcomer = Player.objects.filter(username=v["player"], is_active=True).first()
            if newcomer is None:
                raise Problem(404, "player_not_found", "No such player.")
        result = control.game_hand_over(
            game_id=game_id,
            by=_player(request),
            seat=seat,
            to=v["to"],
            strategy=v.get("strategy", "sensible"),
            player=newcomer,
        )
        if isinstance(result, SeatOffer):
            body = SeatOfferOutput(_offer_json(result, result.game)).data
            return Response(body, status=status.HTTP_202_ACCEPTED)
        result.refresh_from_db()
        return _with_etag(Response(selectors.game_public(result, player=_player(request))), result)


class SeatOfferView(GameView):
    @extend_schema(
        operation_id="games_seats_offer_delete",
        summary="Withdraw the offer of a seat (creator)",
        description="The creator takes back the standing offer of a seat (issue #28, item 13); the seat "
        "stays as it is. 403 `not_creator`; 404 `offer_not_found` when no offer of the seat stands.",
        parameters=[GAME_ID, SEAT],
        request=None,
        responses={204: None},
        tags=["deadlines"],
    )
    def delete(self, request: Request, game_id: int, seat: int) -> Response:
        control.offer_withdraw(game_id=game_id, by=_player(request), seat=seat)
        return Response(status=status.HTTP_204_NO_CONTENT)


OFFER_ID = OpenApiParameter(
    "offer_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="An offer to you (`GET /me/offers`)."
)


class MyOffersView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_offers_list",
        summary="Seats offered to you",
        description="The seats of running games that their creators offer you and that still stand (issue "
        "#28, item 13), newest first (at most 100). Until you accept one you have no seat in that game and "
        "get nothing of it (no state, no webhook deliveries).",
        responses={200: SeatOfferPage},
        examples=[
            OpenApiExample(
                "one offer",
                value={"results": [dict(OFFER_EXAMPLE.value)]},
                response_only=True,
                status_codes=["200"],
            )
        ],
        tags=["deadlines"],
    )
    def get(self, request: Request) -> Response:
        offers = control.offers_to(_player(request))
        return Response({"results": SeatOfferOutput([_offer_json(o, g) for o, g in offers], many=True).data})


class OfferAcceptView(APIView):
    permission_classes = [IsAuthenticated]
    problem_statuses = {"POST": (409,)}

    @extend_schema(
        operation_id="me_offers_accept",
        summary="Accept a seat offered to you",
        description="You take the seat: `SeatHandedOver` goes into the game's log (after "
        "`AutopilotReleased` for a seat on autopilot) and the game is yours to play (`/me/games`, its "
        "state, webhooks). 404 `offer_not_found`; 409 `offer_lapsed` when the seat changed since it was "
        "offered (the offer is then void), `already_seated`, `too_many_running_games`.",
        parameters=[OFFER_ID],
        request=EmptyInput,
        responses={200: GameOutput},
        examples=[OpenApiExample("no body", value={}, request_only=True), examples.GAME],
        tags=["deadlines"],
    )
    def post(self, request: Request, offer_id: int) -> Response:
        EmptyInput(data=request.data).is_valid(raise_exception=True)
        game = control.offer_accept(offer_id=offer_id, player=_player(request))
        game.refresh_from_db()
        return Response(selectors.game_public(game, player=_player(request)))


class OfferDeclineView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_offers_decline",
        summary="Decline a seat offered to you",
        description="The offer is gone; the seat stays as it is. 404 `offer_not_found`.",
        parameters=[OFFER_ID],
        request=EmptyInput,
        responses={204: None},
        examples=[OpenApiExample("no body", value={}, request_only=True)],
        tags=["deadlines"],
    )
    def post(self, request: Request, offer_id: int) -> Response:
        EmptyInput(data=request.data).is_valid(raise_exception=True)
        control.offer_decline(offer_id=offer_id, player=_player(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
