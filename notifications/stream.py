"""The live stream of one game (Server-Sent Events), served by the ASGI process.

``GET /api/v1/games/{id}/stream``: first the viewer's full state (``event: state``, ``id`` = the version it
reflects), then every later event redacted for the viewer (``event: game_event``, ``id`` = its seq), a
comment line as keep-alive every ``STREAM_KEEPALIVE_SECONDS``, and ``event: end`` once the game is over and
everything was sent. A reconnect with ``Last-Event-ID`` (or ``?after=``) resumes after that seq with no
snapshot: nothing is skipped or repeated, because events are always read from the log by ``(game, seq)``.

A plain Django async view (DRF has no async views): the Bearer token is checked with
:class:`players.auth.BearerTokenAuthentication` in a worker thread, access with ``services.viewer_for``, and
every byte out passes through the same selectors (and so the same redaction) as the REST reads.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator
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

from critters_api.problems import PROBLEM_CONTENT_TYPE, Problem, problem_body
from critters_api.throttling import TokenRateThrottle
from games import selectors, services, store
from games.models import Event, Game, GameStatus
from players.auth import BearerTokenAuthentication

from . import hints

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


def _open(
    request: HttpRequest, game_id: int, after: int | None
) -> tuple[int | None, int, dict[str, Any] | None]:
    """Authenticate, check access, and (without a cursor) take a consistent snapshot. Returns
    ``(viewer, after, snapshot)``."""
    close_old_connections()
    try:
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
        game = services.get_game(game_id)
        viewer = services.viewer_for(game, player)
        if after is not None:
            if after > game.version:
                raise Problem(
                    400,
                    "invalid_cursor",
                    f"There is no event {after} in this game yet (its version is {game.version}).",
                )
            return viewer, after, None
        for _attempt in range(SNAPSHOT_TRIES):  # a snapshot whose state and version agree
            snapshot = selectors.game_state(game, viewer)
            version = Game.objects.filter(pk=game.pk).values_list("version", flat=True).first()
            if version == game.version:  # no append committed while the state was read
                return viewer, game.version, json.loads(json.dumps(snapshot, cls=JSONEncoder))
            game = services.get_game(game_id)
        raise Problem(503, "game_busy", "The game changed during every snapshot attempt: try again.")
    finally:
        close_old_connections()


def _read(game_id: int, after: int) -> tuple[Game, list[Event]]:
    """One read of the log for every stream of the game: the game row, then the events after ``after`` (in
    this order, as the feed does: a game that ends meanwhile is redacted as still running, the safe side)."""
    close_old_connections()
    try:
        game = services.get_game(game_id)
        return game, store.load_stream(game_id, after=after, limit=PAGE)
    finally:
        close_old_connections()


async def _stream(
    game_id: int, viewer: int | None, after: int, snapshot: dict[str, Any] | None
) -> AsyncIterator[bytes]:
    hub = hints.hub()
    key = hub.watch(game_id, after)
    read = sync_to_async(_read, thread_sensitive=False)
    try:
        yield f"retry: {RETRY_MS}\n\n".encode()
        if snapshot is not None:
            yield _sse("state", snapshot, after)
        last = after
        while True:
            seen = hub.generation(game_id)  # before reading: a hint that arrives meanwhile is not missed
            _cursor, (game, rows) = await hub.shared_read(game_id, last, seen, read)
            feed = selectors.feed_page(game, rows, viewer, after=last)  # redacted for this viewer
            for item in feed["events"]:
                yield _sse("game_event", item, item["seq"])
                last = item["seq"]
            hub.saw(game_id, key, last)
            if feed["more"]:
                continue
            if game.status == GameStatus.CANCELLED:  # cancelled before it started: nothing will come
                yield _sse("end", {"version": last, "head_hash": None, "public_head": feed["public_head"]})
                return
            if feed["over"] and last >= feed["version"]:
                end = {"version": last, "head_hash": feed["head_hash"], "public_head": feed["public_head"]}
                yield _sse("end", end)
                return
            # an idle stream only sends keep-alives: it reads the log again only when a hint or the poller
            # says the game moved (the poller sees every change within STREAM_POLL_SECONDS)
            while not await hub.wait_changed(game_id, seen, settings.STREAM_KEEPALIVE_SECONDS):
                yield b": keep-alive\n\n"
    finally:
        hub.unwatch(game_id, key)


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
        viewer, after, snapshot = await sync_to_async(_open, thread_sensitive=False)(request, game_id, after)
    except Problem as problem:
        response = _problem(request, problem)
        if problem.status_code == 405:
            response["Allow"] = "GET"
        return response
    stream = StreamingHttpResponse(_stream(game_id, viewer, after, snapshot), content_type=MEDIA_TYPE)
    stream["Cache-Control"] = "no-cache, no-store"
    stream["X-Accel-Buffering"] = "no"  # proxies (nginx) must not buffer the stream
    stream["Vary"] = "Authorization"
    return stream
