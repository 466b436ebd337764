"""Wake-up hints for live streams: a Redis publish after commit, and per ASGI process one subscriber (a
pattern subscription) plus one poller that wake the streams waiting on a game.

A hint is only a hint (its content is never trusted: it only makes the streams of that game read the log
again), and a lost hint (Redis down, a publish that
failed after the commit) delays a stream by at most ``STREAM_POLL_SECONDS``, because the poller reads the
versions of every watched game from PostgreSQL in one query per interval. Streams always read the events
themselves from the log, so a hint can never make them skip or repeat one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
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
    generation: int = 0  # bumped by every hint, and by the poller when a stream is behind
    changed: asyncio.Event = field(default_factory=asyncio.Event)


def _read_versions(game_ids: list[int]) -> dict[int, int]:
    """game → version; a cancelled game (it never gets another event, and cancelling appends none) as a
    version no stream has reached, so that its streams look at it and end."""
    from games.models import Game, GameStatus

    close_old_connections()
    try:
        rows = Game.objects.filter(pk__in=game_ids).values_list("pk", "version", "status")
        return {pk: (2**62 if status == GameStatus.CANCELLED else version) for pk, version, status in rows}
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

    def start(self) -> None:
        if not self.tasks:
            self.tasks = [
                self.loop.create_task(self._subscribe(), name="stream-hints"),
                self.loop.create_task(self._poll(), name="stream-poll"),
            ]

    # --- watching -----------------------------------------------------------------------------------
    def watch(self, game_id: int, last: int) -> int:
        """Register a stream of ``game_id`` that has delivered everything up to ``last``; returns its key."""
        self.start()
        self.keys += 1
        self.watches.setdefault(game_id, _Watch()).lasts[self.keys] = last
        return self.keys

    def saw(self, game_id: int, key: int, last: int) -> None:
        self.watches[game_id].lasts[key] = last

    def unwatch(self, game_id: int, key: int) -> None:
        w = self.watches.get(game_id)
        if w is not None:
            w.lasts.pop(key, None)
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
            try:
                versions = await read(list(self.watches))
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("stream poller could not read versions", exc_info=True)
                continue
            self.polls += 1
            for game_id, version in versions.items():
                w = self.watches.get(game_id)
                if w is not None and w.lasts and version > min(w.lasts.values()):
                    self.bump(game_id)  # a stream is behind (its hint was lost, or is still coming)


_hubs: dict[int, Hub] = {}


def hub() -> Hub:
    """The hub of the running event loop (one per ASGI process)."""
    loop = asyncio.get_running_loop()
    h = _hubs.get(id(loop))
    if h is None or h.loop is not loop:
        h = _hubs[id(loop)] = Hub(loop)
    return h
