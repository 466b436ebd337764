"""Wake-up hints for live streams: a Redis publish after commit, and per ASGI process one subscriber (a
pattern subscription) plus one poller that wake the streams waiting on a game.

A hint is only a hint (its content is never trusted: it only makes the streams of that game read the log
again), and a lost hint (Redis down, a publish that
failed after the commit) delays a stream by at most ``STREAM_POLL_SECONDS``, because the poller reads the
versions of every watched game from PostgreSQL in one query per interval. Streams always read the events
themselves from the log, so a hint can never make them skip or repeat one.

The poller also checks, in the same interval and one more statement, that the API tokens the open streams
were opened with are still live: a stream whose token was revoked is woken, so that it ends within one
interval even when its game is idle (``notifications.stream`` checks again before every batch it sends).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import redis
import redis.asyncio as aioredis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections

from critters_api.celery import redis_health

logger = logging.getLogger(__name__)

T = TypeVar("T")


def _namespace() -> str:
    """Channels are per database too: processes of another deployment (or test run) sharing the Redis server
    never wake these streams."""
    from django.db import connection

    return f"{settings.STREAM_CHANNEL_PREFIX}:{connection.settings_dict['NAME']}:stream:game:"


def channel_for(game_id: int) -> str:
    return f"{_namespace()}{game_id}"


def _pattern() -> str:
    return f"{_namespace()}*"


_publisher: redis.Redis | None = None
PUBLISH_TIMEOUT = 0.5  # seconds: a hint is published from the request that committed


def publish(game_id: int, version: int) -> None:
    """Publish "game ``game_id`` is at ``version``" (call it after commit). Never raises, and never waits
    long: a lost hint only delays streams until the next poll. While this process knows Redis is down
    (``critters_api.celery.redis_health``: a failed publish marks it, a background probe clears it) hints
    are skipped at once."""
    global _publisher
    if redis_health.down():
        return
    try:
        if _publisher is None:
            _publisher = redis.Redis.from_url(
                settings.REDIS_URL, socket_timeout=PUBLISH_TIMEOUT, socket_connect_timeout=PUBLISH_TIMEOUT
            )
        _publisher.publish(channel_for(game_id), str(version))
    except Exception:
        logger.warning("stream hint for game %s (version %s) not published", game_id, version, exc_info=True)
        _publisher = None
        redis_health.failed()


@dataclass
class _Watch:
    lasts: dict[int, int] = field(default_factory=dict)  # stream key → the last seq it delivered
    tokens: dict[int, int] = field(default_factory=dict)  # stream key → the API token it was opened with
    generation: int = 0  # bumped by every hint, and by the poller when a stream is behind
    changed: asyncio.Event = field(default_factory=asyncio.Event)


def live_tokens(token_ids: Collection[int]) -> dict[int, bool]:
    """Of ``token_ids``, the tokens still live (not revoked, their player active): token → its player's
    ``is_staff`` now. One statement however many tokens (the caller manages the connection)."""
    from players.models import ApiToken

    if not token_ids:
        return {}
    rows = ApiToken.objects.filter(
        pk__in=list(token_ids), revoked_at__isnull=True, player__is_active=True
    ).values_list("pk", "player__is_staff")
    return dict(rows)


def _read_versions(game_ids: list[int], token_ids: list[int]) -> tuple[dict[int, int], dict[int, bool]]:
    """game → version, and which of the streams' tokens are still live (:func:`live_tokens`). A cancelled
    game (it never gets another event, and cancelling appends none) reads as a version no stream has
    reached, so that its streams look at it and end."""
    from games.models import Game, GameStatus

    close_old_connections()
    try:
        rows = Game.objects.filter(pk__in=game_ids).values_list("pk", "version", "status")
        versions = {pk: (2**62 if st == GameStatus.CANCELLED else version) for pk, version, st in rows}
        return versions, live_tokens(token_ids)
    finally:
        close_old_connections()


class Hub:
    """Per event loop: which games are watched, one subscriber, one poller.

    A stream takes the game's ``generation`` before it reads the log and then waits for the generation to
    move: a hint arriving while it reads is never missed, and a hint (even a wrong one) costs at most one
    extra read, never a busy loop, because the stream never trusts a hint's content, only the log."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.watches: dict[int, _Watch] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.hints_received = 0
        self.polls = 0
        self.keys = 0
        self.reads: dict[int, tuple[int, int, asyncio.Future[Any]]] = {}  # game → (generation, after, read)
        self.dead_tokens: set[int] = set()  # tokens of open streams the poller found revoked

    def start(self) -> None:
        if not self.tasks:
            self.tasks = [
                self.loop.create_task(self._subscribe(), name="stream-hints"),
                self.loop.create_task(self._poll(), name="stream-poll"),
            ]

    # --- watching -----------------------------------------------------------------------------------
    def watch(self, game_id: int, last: int, token: int | None = None) -> int:
        """Register a stream of ``game_id`` that has delivered everything up to ``last``, opened with the API
        token ``token`` (the poller checks it is still live); returns its key."""
        self.start()
        self.keys += 1
        w = self.watches.setdefault(game_id, _Watch())
        w.lasts[self.keys] = last
        if token is not None:
            w.tokens[self.keys] = token
        return self.keys

    def tokens(self, game_id: int) -> frozenset[int]:
        """The tokens the streams of ``game_id`` were opened with."""
        w = self.watches.get(game_id)
        return frozenset(w.tokens.values()) if w is not None else frozenset()

    def saw(self, game_id: int, key: int, last: int) -> None:
        self.watches[game_id].lasts[key] = last

    def unwatch(self, game_id: int, key: int) -> None:
        w = self.watches.get(game_id)
        if w is not None:
            w.lasts.pop(key, None)
            w.tokens.pop(key, None)
            if not w.lasts:
                del self.watches[game_id]
                self.reads.pop(game_id, None)

    def generation(self, game_id: int) -> int:
        return self.watches[game_id].generation

    def bump(self, game_id: int) -> None:
        w = self.watches.get(game_id)
        if w is not None:
            w.generation += 1
            w.changed.set()
            w.changed = asyncio.Event()

    async def shared_read(
        self, game_id: int, after: int, seen: int, read: Callable[[int, int], Coroutine[Any, Any, T]]
    ) -> tuple[int, T]:
        """``read(game_id, after)`` done once for all the streams of a game that need it now: a read already
        started at generation ``seen`` or later (so after every commit whose hint a stream had seen when it
        took ``seen``) from the same cursor serves this stream too (streams that are caught up share their
        cursor; one catching up reads alone). Returns the read's cursor and result."""
        current = self.reads.get(game_id)
        if current is None or current[0] < seen or current[1] != after:
            task: asyncio.Task[T] = self.loop.create_task(read(game_id, after))
            entry: tuple[int, int, asyncio.Future[Any]] = (self.generation(game_id), after, task)
            self.reads[game_id] = entry
            current = entry

            def forget(_task: asyncio.Future[Any]) -> None:
                self._forget(game_id, entry)

            task.add_done_callback(forget)
        result: T = await asyncio.shield(current[2])
        return current[1], result

    def _forget(self, game_id: int, entry: tuple[int, int, asyncio.Future[Any]]) -> None:
        """A failed read is not reused; a finished one stays until a newer one replaces it (or no stream
        watches the game any more)."""
        if self.reads.get(game_id) is entry and (entry[2].cancelled() or entry[2].exception() is not None):
            del self.reads[game_id]

    async def wait_changed(self, game_id: int, seen: int, timeout: float) -> bool:
        """Wait until the game's generation moves past ``seen`` (True) or ``timeout`` passes (False)."""
        w = self.watches[game_id]
        if w.generation > seen:
            return True
        changed = w.changed
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(changed.wait(), timeout)
        return w.generation > seen

    # --- sources ------------------------------------------------------------------------------------
    async def _subscribe(self) -> None:
        backoff = 0.5
        while True:
            client: Any = None
            try:
                client = aioredis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2)
                pubsub = client.pubsub()
                await pubsub.psubscribe(_pattern())
                backoff = 0.5
                async for message in pubsub.listen():
                    if message.get("type") != "pmessage":
                        continue
                    self.hints_received += 1
                    channel = message["channel"].decode() if isinstance(message["channel"], bytes) else ""
                    with contextlib.suppress(ValueError, IndexError):
                        self.bump(int(channel.rsplit(":", 1)[1]))
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("stream hint subscriber lost Redis; retrying in %.1fs", backoff, exc_info=True)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 30.0)
            finally:
                if client is not None:
                    with contextlib.suppress(Exception):
                        await client.aclose()

    async def _poll(self) -> None:
        read = sync_to_async(_read_versions, thread_sensitive=False)
        while True:
            await asyncio.sleep(settings.STREAM_POLL_SECONDS)
            if not self.watches:
                continue
            tokens = {t for w in self.watches.values() for t in w.tokens.values()}
            try:
                versions, live = await read(list(self.watches), sorted(tokens))
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("stream poller could not read versions", exc_info=True)
                continue
            self.polls += 1
            dead = tokens - set(live)
            self.dead_tokens = dead  # only tokens of open streams: the set never outgrows them
            for game_id, version in versions.items():
                w = self.watches.get(game_id)
                if w is None or not w.lasts:
                    continue
                if version > min(w.lasts.values()) or dead.intersection(w.tokens.values()):
                    # a stream is behind (its hint was lost, or is still coming), or one was opened with a
                    # token revoked since: it reads again, sees that, and ends (notifications.stream)
                    self.bump(game_id)


_hubs: dict[int, Hub] = {}


def hub() -> Hub:
    """The hub of the running event loop (one per ASGI process)."""
    loop = asyncio.get_running_loop()
    h = _hubs.get(id(loop))
    if h is None or h.loop is not loop:
        h = _hubs[id(loop)] = Hub(loop)
    return h
