"""Who is at the table: a player with a game's live stream open. Each open stream of a seated player keeps a
member in a Redis sorted set per (player, game), scored with when it lapses, refreshed while the stream runs
(at every batch and keep-alive) and removed when it closes; a stream whose process died simply lapses.

Used by the mail pacing (``notifications.mail``): no "your turn" mail to a player who has the game open.
Redis down: nobody is present (the mail is sent; a mail too many is better than a turn missed)."""

from __future__ import annotations

import logging
import time

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

_client: redis.Redis | None = None


def _redis() -> redis.Redis:
    global _client
    if _client is None:
        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5)
    return _client


def _key(player_id: int, game_id: int) -> str:
    from django.db import connection

    return (
        f"{settings.STREAM_CHANNEL_PREFIX}:{connection.settings_dict['NAME']}:presence:{player_id}:{game_id}"
    )


def ttl_seconds() -> float:
    """How long a stream counts as open without a refresh: two keep-alive intervals and some slack."""
    return 2 * float(settings.STREAM_KEEPALIVE_SECONDS) + 5.0


def touch(player_id: int, game_id: int, stream: str) -> None:
    """The stream ``stream`` of ``player_id`` on ``game_id`` is open (for another ``ttl_seconds``)."""
    global _client
    try:
        ttl = ttl_seconds()
        key = _key(player_id, game_id)
        pipe = _redis().pipeline()
        pipe.zadd(key, {stream: time.time() + ttl})
        pipe.expire(key, int(ttl) + 1)
        pipe.execute()
    except Exception:
        logger.info("presence of %s in game %s not recorded", player_id, game_id, exc_info=True)
        _client = None


def leave(player_id: int, game_id: int, stream: str) -> None:
    global _client
    try:
        _redis().zrem(_key(player_id, game_id), stream)
    except Exception:
        logger.info("presence of %s in game %s not removed (it lapses)", player_id, game_id, exc_info=True)
        _client = None


def present(player_id: int, game_id: int) -> bool:
    """Whether ``player_id`` has a stream of ``game_id`` open now (False when Redis does not answer)."""
    global _client
    try:
        key = _key(player_id, game_id)
        pipe = _redis().pipeline()
        pipe.zremrangebyscore(key, "-inf", time.time())
        pipe.zcard(key)
        _removed, count = pipe.execute()
        return bool(count)
    except Exception:
        logger.info("presence of %s in game %s unknown", player_id, game_id, exc_info=True)
        _client = None
        return False
