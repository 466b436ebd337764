"""The creator's hand on a running game: pause, resume, and handing an abandoned seat to a bot or a new
player. (A player's own vote to pause and taking back a seat from the autopilot are ruleset commands, with
their endpoints under ``/commands/``.) Every change is an event in the game's log (R7.5)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from critters_api.problems import Problem
from critters_api.serializers import StrictCharField, StrictChoiceField, StrictSerializer
from games import selectors
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


class HandOverView(GameView):
    problem_statuses = {"POST": (409,)}

    @extend_schema(
        operation_id="games_seats_hand_over",
        summary="Hand an abandoned seat to a bot or another player (creator)",
        description=(
            "A seat whose player missed too many deadlines runs on autopilot (`AutopilotEngaged`). The "
            "game's creator may give such a seat for good to a bot or to another player (who must not have "
            "a seat in this game yet): `AutopilotReleased` and `SeatHandedOver` go into the log, and the "
            "previous player no longer has the seat (they see the game as a spectator, if spectators are "
            "allowed). "
            "403 `not_creator`; 404 `seat_not_found` / `player_not_found`; 409 `not_on_autopilot` for a "
            "seat that is not abandoned, `already_seated` for a player who already plays here."
        ),
        parameters=[GAME_ID, SEAT, ETAG],
        request=HandOverInput,
        responses={200: GameOutput},
        examples=[
            OpenApiExample("to a bot", value={"to": "bot", "strategy": "sensible"}, request_only=True),
            OpenApiExample("to a player", value={"to": "player", "player": "carol"}, request_only=True),
            examples.GAME,
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
        game = control.game_hand_over(
            game_id=game_id,
            by=_player(request),
            seat=seat,
            to=v["to"],
            strategy=v.get("strategy", "sensible"),
            player=newcomer,
        )
        game.refresh_from_db()
        return _with_etag(Response(selectors.game_public(game, player=_player(request))), game)
