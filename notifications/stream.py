"""The live stream of one game (Server-Sent Events), served by the ASGI process.

``GET /api/v1/games/{id}/stream``: first the viewer's full state (``event: state``, ``id`` = the version it
reflects), then every later event redacted for the viewer (``event: game_event``, ``id`` = its seq), a
comment line as keep-alive every ``STREAM_KEEPALIVE_SECONDS``, and ``event: end`` once the game is over and
everything was sent. A reconnect with ``Last-Event-ID`` (or ``?after=``) resumes after that seq with no
snapshot: nothing is skipped or repeated, because events are always read from the log by ``(game, seq)``.

A plain Django async view (DRF has no async views): the Bearer token is checked with
:class:`players.auth.BearerTokenAuthentication` in a worker thread, access with ``roster.viewer_for``, and
every byte out passes through the same selectors (and so the same redaction) as the REST reads.

Who the stream speaks for is decided again before every batch it sends, not once at the start (R8.3): the
batch's read of the game carries the roster as of the last event read (the game row and its seats in one
statement, the events up to that row's version), and the tokens of the game's streams are checked live in
the same read, after the events. When the token was revoked (or its player deactivated), or the player no
longer holds the seat the stream was opened for (a hand-over), or no longer may see the game, the stream
sends ``event: end`` with the ``reason`` and closes, without that batch: nothing committed after the change
is ever redacted for the old viewer. An idle stream notices a revoked token within ``STREAM_POLL_SECONDS``
(the hub's poller checks every open stream's token in one statement).
"""

from __future__ import annotations

import json
import math
import time
import uuid
from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass
from typing import Any, cast

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.utils.encoders import JSONEncoder

from critters_api.problems import PROBLEM_CONTENT_TYPE, Problem, as_problem, problem_body
from critters_api.throttling import TokenRateThrottle
from games import roster, selectors, store
from games.errors import Refused
from games.models import Event, Game, GameStatus
from players.auth import BearerTokenAuthentication
from players.models import Player

from . import hints, presence

MEDIA_TYPE = "text/event-stream"
PAGE = 200
RETRY_MS = 1000
SNAPSHOT_TRIES = 10


def _problem(request: HttpRequest, problem: Problem) -> HttpResponse:
    body = problem_body(problem.status_code, problem.code, str(problem.detail), request.path, **problem.extra)
    response = HttpResponse(json.dumps(body), status=problem.status_code, content_type=PROBLEM_CONTENT_TYPE)
    if problem.status_code == 401:
        response["WWW-Authenticate"] = 'Bearer realm="api"'
    for name, value in problem.headers.items():
        response[name] = value
    return response


def _cursor(raw: str | None, name: str) -> int | None:
    if raw is None or raw == "":
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 10:
        raise Problem(400, "invalid_cursor", f"{name} must be an event seq (a whole number ≥ 0).")
    return int(raw)


def _sse(event: str | None, data: Any, ident: int | None = None) -> bytes:
    lines = []
    if ident is not None:
        lines.append(f"id: {ident}")
    if event is not None:
        lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, cls=JSONEncoder, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


class _ThrottleSubject:
    """What :class:`critters_api.throttling.TokenRateThrottle` reads of a request (the same bucket per token
    as the REST API)."""

    def __init__(self, request: HttpRequest, player: Any, token: Any) -> None:
        self.user = player if player is not None else AnonymousUser()
        self.auth = token
        self.META = request.META
        self.headers = request.headers


def _throttle(request: HttpRequest, player: Any, token: Any) -> None:
    throttle = TokenRateThrottle()
    if not throttle.allow_request(cast(Request, _ThrottleSubject(request, player, token)), None):
        wait = math.ceil(throttle.wait() or 1)
        problem = Problem(429, "throttled", f"Request was throttled. Expected available in {wait} seconds.")
        problem.headers["Retry-After"] = str(wait)
        raise problem


# why a stream ends (the ``reason`` of ``event: end``)
OVER = "game_over"  # the game is over and everything was sent
CANCELLED = "game_cancelled"  # cancelled before it started: nothing will come
TOKEN_REVOKED = "token_revoked"  # noqa: S105 (a reason, not a secret): the token was revoked or its player deactivated
SEAT_CHANGED = "viewer_changed"  # the player lost (or got) a seat: reconnect without Last-Event-ID
ACCESS_LOST = "game_not_visible"  # the player may no longer see the game (a private game, no seat)


@dataclass(slots=True)
class Audience:
    """Who a stream speaks for: the player and token it was opened with, the lobby seat it speaks for
    (``None``: a spectator), and the viewer its events are redacted for (the seat's position once the game
    has started)."""

    player: Player
    token_id: int
    seat: int | None
    viewer: int | None
    verified_at: float  # time.monotonic() before the last query that found the token live


def _speaks_for(game: Game, player: Player) -> tuple[int | None, int | None]:
    """(lobby seat index or None, viewer) of ``player`` in ``game`` as read (its roster attached: no query);
    a 404 problem when the player may not see the game."""
    viewer = roster.viewer_for(game, player)
    seat = roster.seat_of(game, player)
    return (seat.index if seat is not None else None), viewer


def recheck(audience: Audience, game: Game, live: dict[int, bool]) -> str | None:
    """Is the stream still entitled to what ``game`` (as read with the batch, roster included) holds? None
    if so (``audience.viewer`` follows the seat's position, which the start assigns), else why not.
    ``live``: the live tokens among those checked (token → is_staff)."""
    if audience.token_id not in live:
        return TOKEN_REVOKED
    audience.player.is_staff = live[audience.token_id]
    try:
        seat, viewer = _speaks_for(game, audience.player)
    except Refused:
        return ACCESS_LOST
    if seat != audience.seat:
        return SEAT_CHANGED
    audience.viewer = viewer
    return None


def _open(
    request: HttpRequest, game_id: int, after: int | None
) -> tuple[Audience, int, dict[str, Any] | None]:
    """Authenticate, check access, and (without a cursor) take a consistent snapshot. Returns
    ``(audience, after, snapshot)``."""
    close_old_connections()
    try:
        verified_at = time.monotonic()
        try:
            auth = BearerTokenAuthentication().authenticate(cast(Request, request))
        except exceptions.AuthenticationFailed as exc:
            _throttle(request, None, None)
            raise Problem(401, "authentication_failed", str(exc.detail)) from None
        if auth is None:
            _throttle(request, None, None)
            raise Problem(401, "not_authenticated", "Authentication credentials were not provided.")
        player, token = auth
        _throttle(request, player, token)
        game = roster.get_game(game_id)
        seat, viewer = _speaks_for(game, player)
        if after is not None:
            if after > game.version:
                raise Problem(
                    400,
                    "invalid_cursor",
                    f"There is no event {after} in this game yet (its version is {game.version}).",
                )
            return Audience(player, token.pk, seat, viewer, verified_at), after, None
        for _attempt in range(SNAPSHOT_TRIES):  # a snapshot whose state and version agree
            snapshot = selectors.game_state(game, viewer)
            version = Game.objects.filter(pk=game.pk).values_list("version", flat=True).first()
            if version == game.version:  # no append committed while the state was read
                body = json.loads(json.dumps(snapshot, cls=JSONEncoder))
                return Audience(player, token.pk, seat, viewer, verified_at), game.version, body
            game = roster.get_game(game_id)
            seat, viewer = _speaks_for(game, player)
        raise Problem(503, "game_busy", "The game changed during every snapshot attempt: try again.")
    finally:
        close_old_connections()


@dataclass(frozen=True, slots=True)
class Batch:
    """One read for every stream of a game: the game row with its roster, the events after the cursor up
    to that row's version, and which of the streams' tokens (``checked``) are live (``live``: token →
    its player's ``is_staff``), checked after the events were read."""

    game: Game
    rows: list[Event]
    checked: frozenset[int]
    live: dict[int, bool]
    read_at: float  # time.monotonic() once the events were read (before the tokens were checked)


def _read(game_id: int, after: int, tokens: Collection[int]) -> Batch:
    """The game row (with its roster), then the events after ``after`` up to the version that row says (in
    this order, as the feed does: a game that ends meanwhile is redacted as still running, the safe side;
    and an event past the row, a hand-over say, never meets a roster from before it), then the tokens."""
    close_old_connections()
    try:
        game = roster.get_game(game_id)
        rows = [row for row in store.load_stream(game_id, after=after, limit=PAGE) if row.seq <= game.version]
        read_at = time.monotonic()
        return Batch(game, rows, frozenset(tokens), hints.live_tokens(tokens), read_at)
    finally:
        close_old_connections()


def _check_token(token_id: int) -> dict[int, bool]:
    close_old_connections()
    try:
        return hints.live_tokens([token_id])
    finally:
        close_old_connections()


def _end(
    last: int, reason: str, head_hash: str | None = None, public_head: dict[str, Any] | None = None
) -> bytes:
    """The ``end`` event: why the stream ends, and, when it ends with the game (over or cancelled), the heads
    of both chains (the public one is a checkpoint a watcher keeps, docs/AUDIT.md). A stream that ends
    because its viewer lost the right to it says no more about the game (``public_head`` null)."""
    end = {"version": last, "head_hash": head_hash, "public_head": public_head, "reason": reason}
    return _sse("end", end)


async def _stream(
    game_id: int, audience: Audience, after: int, snapshot: dict[str, Any] | None
) -> AsyncIterator[bytes]:
    hub = hints.hub()
    key = hub.watch(game_id, after, audience.token_id)
    sync_read = sync_to_async(_read, thread_sensitive=False)
    # a seated player with the stream open is at the table: no "your turn" mail (notifications.presence)
    seated = audience.seat is not None
    here = sync_to_async(presence.touch, thread_sensitive=False)
    stream_id = uuid.uuid4().hex
    if seated:
        await here(audience.player.pk, game_id, stream_id)

    async def read(game_id: int, after: int) -> Batch:
        # the tokens of the game's streams as this read starts (a stream that joins it later checks its own)
        return await sync_read(game_id, after, hub.tokens(game_id))

    try:
        yield f"retry: {RETRY_MS}\n\n".encode()
        if snapshot is not None:
            yield _sse("state", snapshot, after)
        last = after
        while True:
            seen = hub.generation(game_id)  # before reading: a hint that arrives meanwhile is not missed
            _cursor, batch = await hub.shared_read(game_id, last, seen, read)
            live = batch.live
            if audience.token_id in batch.checked:
                audience.verified_at = max(audience.verified_at, batch.read_at)
            elif batch.read_at > audience.verified_at or audience.token_id in hub.dead_tokens:
                # a read this stream joined late, of events read after its token was last found live
                checked_at = time.monotonic()
                live = await sync_to_async(_check_token, thread_sensitive=False)(audience.token_id)
                audience.verified_at = checked_at
            else:  # events read before the token was last found live (at the open): nothing to add
                live = {audience.token_id: audience.player.is_staff}
            reason = recheck(audience, batch.game, live)  # who this batch may be redacted for, if anyone
            if reason is not None:
                yield _end(last, reason)
                return
            game = batch.game
            feed = selectors.feed_page(game, batch.rows, audience.viewer, after=last)  # for this viewer
            for item in feed["events"]:
                yield _sse("game_event", item, item["seq"])
                last = item["seq"]
            hub.saw(game_id, key, last)
            if feed["more"]:
                continue
            if game.status == GameStatus.CANCELLED:  # cancelled before it started: nothing will come
                yield _end(last, CANCELLED, None, feed["public_head"])
                return
            if feed["over"] and last >= feed["version"]:
                yield _end(last, OVER, feed["head_hash"], feed["public_head"])
                return
            # an idle stream only sends keep-alives: it reads the log again only when a hint or the poller
            # says the game moved (the poller sees every change within STREAM_POLL_SECONDS)
            while not await hub.wait_changed(game_id, seen, settings.STREAM_KEEPALIVE_SECONDS):
                yield b": keep-alive\n\n"
                if seated:
                    await here(audience.player.pk, game_id, stream_id)
            if seated:
                await here(audience.player.pk, game_id, stream_id)
    finally:
        hub.unwatch(game_id, key)
        if seated:
            presence.leave(audience.player.pk, game_id, stream_id)  # quick (its own timeout), never raises


@csrf_exempt  # Bearer tokens only (no cookie session): CSRF does not apply; a POST gets a 405 problem
async def game_stream(request: HttpRequest, game_id: int) -> HttpResponse | StreamingHttpResponse:
    """The view (see the module docstring; documented in the OpenAPI schema by ``notifications.schema``)."""
    try:
        if request.method != "GET":
            raise Problem(405, "method_not_allowed", f'Method "{request.method}" not allowed.')
        if not isinstance(request, ASGIRequest):
            raise Problem(503, "stream_needs_asgi", "The live stream is served by the ASGI process only.")
        after = _cursor(request.headers.get("Last-Event-ID"), "Last-Event-ID")
        if after is None:
            after = _cursor(request.GET.get("after"), "after")
        opened = await sync_to_async(_open, thread_sensitive=False)(request, game_id, after)
        audience, after, snapshot = opened
    except (Problem, Refused) as refused:
        problem = as_problem(refused)
        response = _problem(request, problem)
        if problem.status_code == 405:
            response["Allow"] = "GET"
        return response
    stream = StreamingHttpResponse(_stream(game_id, audience, after, snapshot), content_type=MEDIA_TYPE)
    stream["Cache-Control"] = "no-cache, no-store"
    stream["X-Accel-Buffering"] = "no"  # proxies (nginx) must not buffer the stream
    stream["Vary"] = "Authorization"
    return stream
