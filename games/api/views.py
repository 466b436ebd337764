"""The games API: lobby, state, event feed and one endpoint per player command. Views are thin: parse, call
one service or selector, serialize. A base class resolves the game and the caller's seat once."""

from __future__ import annotations

from datetime import UTC
from typing import Any

from django.db.models import Count, F, Q, QuerySet
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from critters_api import throttling
from critters_api.problems import Problem
from games import deadlines, loading, roster, selectors
from games.models import Game, GameStatus, Seat
from games.services import commands, lobby
from players.auth import BearerTokenAuthentication, GameCheckedTokenAuthentication, forget_token
from players.models import ApiToken, Player

from . import examples
from .serializers import (
    BotInput,
    EmptyInput,
    FeedOutput,
    FeedQuery,
    GameCreateInput,
    GameListQuery,
    GameOutput,
    GamePageOutput,
    JoinInput,
    ViewerStateOutput,
)

GAME_ID = OpenApiParameter("game_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The game's id.")
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "pattern": "^[!-~]{1,255}$", "minLength": 1, "maxLength": 255},
    OpenApiParameter.HEADER,
    required=False,
    description="A unique key (1-255 printable ASCII characters) per intended command. What is stored under "
    "the key is the command's outcome once it reached the rules: the 200 (applied) or the rule's refusal "
    "(403, 409 or 422 with the rule's `code`, e.g. `wrong_step`, `autopilot_on`). A retry with the same key "
    "and body gets that answer again (same status and body, `Idempotent-Replayed: true`) with no second "
    "effect, whatever its `If-Match`. Answers given before the command reached the rules are not stored, "
    "and nothing was applied: 400/422 for a bad body or key, 401, 404, 403 `not_seated`, 409 "
    "`not_started`/`game_over`, 412 `precondition_failed`, 409 `idempotency_key_in_use`, 429, 503. A "
    "retry with the same key after one of those runs as a new request (after a 412: send it again with "
    "the current ETag and it is applied). The same key with another body is a 422 "
    "`idempotency_key_reused`; while the first request is still running, 409 `idempotency_key_in_use`. A "
    "key is scoped to its game: on another game it is another command.",
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="The game's ETag: apply the command only if the game has not changed since (compared under "
    "the game's lock); else 412 `precondition_failed` with nothing applied.",
)
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="The ETag you have: 304 Not Modified (no body) when the game has not changed.",
)
ETAG = OpenApiParameter(
    "ETag",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    response=[200, 201],
    description="The game's entity tag: it changes with every change to the game.",
)


CURSOR = OpenApiParameter(
    "cursor",
    {"type": "string", "pattern": "^[A-Za-z0-9+/=_-]*$", "maxLength": 1000},
    description="The pagination cursor, as given in `next` or `previous` (opaque; anything else is a 400 "
    "`invalid_cursor`).",
)


PAGE_SIZE = OpenApiParameter(
    "page_size",
    {"type": "integer", "minimum": 1, "maximum": 100},
    description="1 to 100 (default 20); anything else is a 400 `invalid_query`.",
)


def _player(request: Request) -> Player:
    user = request.user
    assert isinstance(user, Player)
    return user


def _with_etag(response: Response, game: Game) -> Response:
    response["ETag"] = game.etag
    response["Vary"] = "Authorization, Cookie"
    response["Cache-Control"] = "private, no-cache"
    return response


INVALID_CURSOR = ("invalid_cursor", "The cursor is not valid: use the `next` or `previous` link of a page.")
MAX_CURSOR_LENGTH = 200  # the cursors this API hands out are about 60 characters


class GameCursorPagination(CursorPagination):
    """DRF's cursor pagination over ``-created_at, -id``. A cursor is opaque to clients, but it is only
    base64 of ``o=<offset>&r=<0|1>&p=<position>``: anything else a client sends (not base64, too long, a
    position that is not the timestamp this ordering puts there) is a 400 ``invalid_cursor`` before it
    reaches the database (DRF passes the position to the query as it is: ``p=x`` was a 500)."""

    ordering = ("-created_at", "-id")
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
    invalid_cursor_message = "Invalid cursor."

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param or "page_size")
        if raw is None:
            return self.page_size
        if not (raw.isascii() and raw.isdigit() and 1 <= int(raw) <= self.max_page_size):
            raise Problem(
                400,
                "invalid_query",
                "Invalid query parameters.",
                errors={"page_size": [f"A whole number from 1 to {self.max_page_size}."]},
            )
        return int(raw)

    def decode_cursor(self, request: Request) -> Any:
        raw = request.query_params.get(self.cursor_query_param)
        if raw is not None and len(raw) > MAX_CURSOR_LENGTH:
            raise Problem(400, *INVALID_CURSOR)
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            raise Problem(400, *INVALID_CURSOR) from None
        if cursor is not None and cursor.position is not None and not _is_timestamp(str(cursor.position)):
            raise Problem(400, *INVALID_CURSOR)
        return cursor


def _is_timestamp(text: str) -> bool:
    """What DRF writes as the position of a ``created_at`` ordering: ``str()`` of an aware datetime that
    PostgreSQL can hold."""
    try:
        moment = parse_datetime(text)
        if moment is None or moment.tzinfo is None:
            return False
        moment.astimezone(UTC)  # an offset that moves it out of range is refused too
        return True
    except (ValueError, OverflowError):
        return False


def still_authenticated(request: Request) -> Player:
    """The caller, read again (one statement): its token not revoked (or its session not ended) and the
    player still active; else 401 ``authentication_failed``. For a request that waited (the long-poll): it
    answers as a request made now would be answered, not with the rights it had when it started."""
    auth = request.auth
    player: Player | None = None
    if isinstance(auth, ApiToken):
        live = ApiToken.objects.filter(pk=auth.pk, revoked_at__isnull=True, player__is_active=True)
        token = live.select_related("player").first()
        player = token.player if token is not None else None
    else:  # a session (the browsable admin's login): still there, and its user still active
        session = request._request.session
        if session.session_key is not None and session.exists(session.session_key):
            player = Player.objects.filter(pk=_player(request).pk, is_active=True).first()
    if player is None:
        problem = Problem(
            401,
            "authentication_failed",
            "Your token was revoked (or your session ended) while the request waited.",
        )
        problem.headers["WWW-Authenticate"] = 'Bearer realm="api"'
        raise problem
    return player


may_know_of = roster.may_know_of


def game_not_found() -> Problem:
    """The one answer for a game that does not exist or that the caller may not know of."""
    return Problem(404, "game_not_found", "No such game.")


class MyGamesPagination(GameCursorPagination):
    ordering = ("-listed_at", "-id")  # games.selectors.my_games


class GameView(APIView):
    """Base for views on one game: resolves the game and the caller's view of it (a seat or spectator).

    Before any handler runs (whatever the method, even one the view does not have), a caller who may not
    know of the game gets 404 ``game_not_found``, the answer for a missing id: no check a handler or a
    service makes later (who created the game, its status, the body) can tell a hidden game from a missing
    one. Views whose handlers all resolve access first themselves (:meth:`game_and_viewer`, or the command
    service under the game's lock) set ``access_checked_by_handler`` to save that read."""

    permission_classes = [IsAuthenticated]
    access_checked_by_handler = False
    known_game: Game | None = None  # the game ``initial`` read, when it checked access itself
    # The methods whose handler reads the game with the caller's token checked in the same statement
    # (:meth:`game_and_viewer`, the command service): their bearer tokens come from the process's cache
    # (players.auth.GameCheckedTokenAuthentication), one statement less per request. Any other method
    # (OPTIONS, say) authenticates with a statement of its own, as every other view does.
    token_checked_with_game: tuple[str, ...] = ()

    def get_authenticators(self) -> list[Any]:
        authenticators = super().get_authenticators()
        if not self._checks_token():
            return authenticators
        return [
            GameCheckedTokenAuthentication() if type(a) is BearerTokenAuthentication else a
            for a in authenticators
        ]

    def _checks_token(self) -> bool:
        if getattr(self, "swagger_fake_view", False):  # the schema documents the scheme, one class
            return False
        request = getattr(self, "request", None)  # Django's request (View.setup), before DRF wraps it
        return request is not None and request.method in self.token_checked_with_game

    def credential(self, request: Request) -> int | None:
        """The API token to check in the statement that reads the game (``None``: nothing to check, the
        request was authenticated by a statement of its own)."""
        auth = request.auth
        return (
            auth.pk if isinstance(auth, ApiToken) and request.method in self.token_checked_with_game else None
        )

    def check_caller(self, request: Request, game: Game) -> None:
        """The caller's token as of ``game``'s read (:meth:`credential`): refused as authentication refuses
        it (401 ``authentication_failed``, counted as a failed authentication) when it was revoked or its
        player deactivated; else the player's username and staff flag as read now."""
        found = roster.caller(game)
        if found is None:
            return
        auth = request.auth
        assert isinstance(auth, ApiToken)
        assert auth.pk == found.token_id
        if not found.live:
            forget_token(auth.digest)
            throttling.authentication_failed(request)
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        player = _player(request)
        player.username, player.is_staff = found.username, found.is_staff

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # authentication, permissions, throttling
        handler = getattr(self, (request.method or "").lower(), None)
        self.known_game = None
        if "game_id" in kwargs and not (self.access_checked_by_handler and handler is not None):
            game = roster.get_game(kwargs["game_id"])
            if not may_know_of(game, _player(request)):
                raise game_not_found()
            self.known_game = game  # the caller may know of it (read before any handler ran)

    def game_and_viewer(self, request: Request, game_id: int) -> tuple[Game, int | None]:
        credential = self.credential(request)
        game = roster.get_game(game_id, tail_after=loading.cached_version(game_id), credential=credential)
        self.check_caller(request, game)
        if deadlines.is_due(game):  # a passed deadline is applied before anyone reads the game
            deadlines.apply_due(game_id)
            game = roster.get_game(game_id, tail_after=loading.cached_version(game_id), credential=credential)
            self.check_caller(request, game)
        viewer = roster.viewer_for(game, _player(request))
        return game, viewer


# --------------------------------------------------------------------------------------------------
# lobby
# --------------------------------------------------------------------------------------------------
class GamesView(APIView):
    query_params_documented = True
    permission_classes = [IsAuthenticated]
    pagination_class = GameCursorPagination
    problem_statuses = {"POST": (403,)}
    problem_examples = {400: INVALID_CURSOR}

    @extend_schema(
        operation_id="games_list",
        summary="List games",
        description="Games by status (default `open`: waiting for players), newest first, with cursor "
        "pagination (`cursor` from `next`/`previous`). Filter by `ruleset`; `free_seats=true` keeps games "
        "with a free seat. A bad query parameter is a 400 `invalid_query`, a cursor this API did not hand "
        "out a 400 `invalid_cursor`.",
        parameters=[
            GameListQuery,
            CURSOR,
            PAGE_SIZE,
        ],
        responses={200: GamePageOutput},
        examples=[examples.GAME_LIST],
        tags=["lobby"],
    )
    def get(self, request: Request) -> Response:
        query = GameListQuery(data=request.query_params)
        if not query.is_valid():
            raise Problem(400, "invalid_query", "Invalid query parameters.", errors=query.errors)
        qs: QuerySet[Game] = Game.objects.filter(status=query.validated_data["status"])
        if "ruleset" in query.validated_data:
            qs = qs.filter(ruleset=query.validated_data["ruleset"])
        if query.validated_data["free_seats"]:
            qs = qs.annotate(n_taken=Count("seats")).filter(n_taken__lt=F("seat_count"))
        if query.validated_data["status"] == GameStatus.RUNNING and not _player(request).is_staff:
            # a semi-join, not a join with DISTINCT: the newest page is read down the (status, created_at)
            # index and stops after a page, however many games run (bench/bigdb.py)
            mine = Seat.objects.filter(player=_player(request)).order_by().values("game_id")
            qs = qs.filter(Q(allow_spectators=True) | Q(pk__in=mine))
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(qs, request, view=self) or []
        roster.attach_rosters(page)
        data = [selectors.game_public(g, player=_player(request)) for g in page]
        return paginator.get_paginated_response(GameOutput(data, many=True).data)

    @extend_schema(
        operation_id="games_create",
        summary="Create a game",
        description="Open a new game. You take seat 0 unless `join` is false; `bots` adds bot seats. "
        "The game "
        "starts by itself when every seat is taken, or when you call `start`. Options the ruleset "
        "refuses are a "
        "422 `invalid_options`. Operators (staff) may pass `setup` (seed, deal, seat order): such a "
        "game says "
        "`fair: false`.",
        request=GameCreateInput,
        parameters=[ETAG],
        responses={201: GameOutput},
        examples=[examples.GAME_CREATE, *examples.GAME_CREATE_TABLE, examples.GAME],
        tags=["lobby"],
    )
    def post(self, request: Request) -> Response:
        data = GameCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        setup = None
        if "setup" in v:
            s = v["setup"]
            deck = {k: v for k, v in s.items() if k not in ("seed", "seat_order")}  # the game's own keys
            setup = lobby.OperatorSetup(
                seed=bytes.fromhex(s["seed"]) if "seed" in s else None,
                seat_order=tuple(s["seat_order"]) if "seat_order" in s else None,
                deck=deck,
            )
        game = lobby.game_create(
            creator=_player(request),
            ruleset=v["ruleset"],
            seats=v["seats"],
            options=v["options"],
            name=v["name"],
            allow_spectators=v["allow_spectators"],
            join=v["join"],
            bots=v["bots"],
            setup=setup,
        )
        # bots act through Celery tasks published when this commits (games.deadlines), never in the request
        return _with_etag(Response(selectors.game_public(game, player=_player(request)), status=201), game)


class GameDetailView(GameView):
    access_checked_by_handler = True  # game_and_viewer

    @extend_schema(
        operation_id="games_retrieve",
        summary="A game's public data",
        description="Lobby data: seats and who sits there, options, status, `fair`, version.",
        parameters=[GAME_ID, ETAG],
        responses={200: GameOutput},
        examples=[examples.GAME],
        tags=["lobby"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game, _viewer = self.game_and_viewer(request, game_id)
        return _with_etag(Response(selectors.game_public(game, player=_player(request))), game)


def _lobby_action(
    operation_id: str,
    summary: str,
    description: str,
    request_serializer: type[serializers.Serializer],
    request_examples: list[OpenApiExample] | None = None,
) -> Any:
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=description,
        parameters=[GAME_ID, ETAG],
        request=request_serializer,
        responses={200: GameOutput},
        examples=[*(request_examples or []), examples.GAME],
        tags=["lobby"],
    )


class LobbyActionView(GameView):
    problem_statuses = {"POST": (409,)}
    input_class: type[serializers.Serializer] = EmptyInput

    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        raise NotImplementedError

    def post(self, request: Request, game_id: int) -> Response:
        data = self.input_class(data=request.data)
        data.is_valid(raise_exception=True)
        game = self.act(request, game_id, dict(data.validated_data))
        game.refresh_from_db()
        return _with_etag(Response(selectors.game_public(game, player=_player(request))), game)


class JoinView(LobbyActionView):
    input_class = JoinInput

    @_lobby_action(
        "games_join",
        "Join a game",
        "Take a free seat (`seat`) or the first free one. The game starts when the last seat is taken.",
        JoinInput,
        request_examples=[OpenApiExample("first free seat", value={}, request_only=True)],
    )
    def post(self, request: Request, game_id: int) -> Response:
        return super().post(request, game_id)

    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return lobby.game_join(game_id=game_id, player=_player(request), seat=data.get("seat"))


class LeaveView(LobbyActionView):
    @_lobby_action("games_leave", "Leave a game", "Give up your seat before the game starts.", EmptyInput)
    def post(self, request: Request, game_id: int) -> Response:
        return super().post(request, game_id)

    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return lobby.game_leave(game_id=game_id, player=_player(request))


class BotsView(LobbyActionView):
    input_class = BotInput

    @_lobby_action(
        "games_bots_create",
        "Add a bot seat",
        "The creator adds a bot (strategy `random` or `sensible`) in a free seat (or the first free one).",
        BotInput,
        request_examples=[OpenApiExample("sensible bot", value={"strategy": "sensible"}, request_only=True)],
    )
    def post(self, request: Request, game_id: int) -> Response:
        return super().post(request, game_id)

    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return lobby.game_add_bot(
            game_id=game_id,
            by=_player(request),
            strategy=data.get("strategy", "sensible"),
            seat=data.get("seat"),
        )


class StartView(LobbyActionView):
    @_lobby_action(
        "games_start",
        "Start a game",
        "The creator starts the game with the seats taken now (at least the ruleset's minimum). The seed is "
        "drawn now; only its commitment is public until the game ends.",
        EmptyInput,
    )
    def post(self, request: Request, game_id: int) -> Response:
        return super().post(request, game_id)

    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return lobby.game_start(game_id=game_id, by=_player(request))


class CancelView(LobbyActionView):
    @_lobby_action(
        "games_cancel", "Cancel a game", "The creator cancels a game that has not started.", EmptyInput
    )
    def post(self, request: Request, game_id: int) -> Response:
        return super().post(request, game_id)

    def act(self, request: Request, game_id: int, data: dict[str, Any]) -> Game:
        return lobby.game_cancel(game_id=game_id, by=_player(request))


# --------------------------------------------------------------------------------------------------
# reads
# --------------------------------------------------------------------------------------------------
class StateView(GameView):
    access_checked_by_handler = True  # game_and_viewer
    token_checked_with_game = ("GET", "HEAD")  # game_and_viewer

    @extend_schema(
        operation_id="games_state_retrieve",
        summary="The game as you see it",
        description="Your view of the game (your secrets only; spectators see the public facts; everything "
        "once it is over), the commands you may send now, what the game waits on and its deadline, "
        "the seat → "
        "player mapping and the version. Send the ETag back as `If-None-Match` to get 304 when "
        "nothing changed, "
        "or as `If-Match` on a command.",
        parameters=[GAME_ID, IF_NONE_MATCH, ETAG],
        responses={
            200: OpenApiResponse(ViewerStateOutput, description="The viewer's state."),
            304: OpenApiResponse(description="Not modified (your ETag is current)."),
        },
        examples=examples.VIEWER_STATES,
        tags=["play"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game, viewer = self.game_and_viewer(request, game_id)
        inm = request.headers.get("If-None-Match")
        if inm is not None and commands.etag_matches(inm, game.etag):
            return _with_etag(Response(status=304), game)
        return _with_etag(Response(selectors.game_state(game, viewer)), game)


class EventsView(GameView):
    access_checked_by_handler = True  # game_and_viewer
    query_params_documented = True

    @extend_schema(
        operation_id="games_events_list",
        summary="The game's event feed",
        description="The game's events after `after` (a seq; 0 = from the start), at most `limit`, each "
        "redacted for you (fields you may not see are null; nothing is skipped, so seqs have no gaps). With "
        "`wait` (seconds, up to 30) and nothing new, the request waits for the next event instead of "
        "returning "
        "at once (long-poll; it holds a server thread, so keep waits short and repeat). A request that "
        "waited answers as one made when it answers: a token revoked meanwhile is a 401, a seat handed to "
        "someone else gives the spectator's view (a 404 for a game without spectators). Continue with "
        "`after=next_after`.",
        parameters=[GAME_ID, FeedQuery],
        responses={200: FeedOutput},
        examples=[examples.FEED],
        tags=["play"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        query = FeedQuery(data=request.query_params)
        if not query.is_valid():
            raise Problem(400, "invalid_query", "Invalid query parameters.", errors=query.errors)
        game, viewer = self.game_and_viewer(request, game_id)
        q = query.validated_data
        waited = selectors.wait_for_events(game, after=q["after"], wait=q["wait"])
        if waited is not None:  # answer as a request made now would be answered (R8.3)
            game, viewer = waited, roster.viewer_for(waited, still_authenticated(request))
        return _with_etag(Response(selectors.feed(game, viewer, after=q["after"], limit=q["limit"])), game)


class MyGamesView(APIView):
    query_params_documented = True  # a bad `cursor` is a documented 400 `invalid_cursor`
    permission_classes = [IsAuthenticated]
    pagination_class = MyGamesPagination
    problem_examples = {400: INVALID_CURSOR}

    @extend_schema(
        operation_id="me_games_list",
        summary="Your games",
        description="Games you have a seat in (any status), newest first, cursor-paginated. A cursor this "
        "API did not hand out is a 400 `invalid_cursor`.",
        parameters=[
            CURSOR,
            PAGE_SIZE,
        ],
        responses={200: GamePageOutput},
        examples=[examples.GAME_LIST],
        tags=["play"],
    )
    def get(self, request: Request) -> Response:
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(selectors.my_games(_player(request)), request, view=self) or []
        roster.attach_rosters(page)
        data = [selectors.game_public(g, player=_player(request)) for g in page]
        return paginator.get_paginated_response(GameOutput(data, many=True).data)
