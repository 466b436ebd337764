"""Per-token throttling on the shared Redis (rates from the environment, read at request time).

A fixed window per bucket, counted by one Lua script (``INCR``, and ``PEXPIRE`` on the window's first
request): one round trip per request, atomic across every web process. DRF's ``SimpleRateThrottle`` keeps a
list of every request's timestamp in the cache and reads and rewrites it on each request (two round trips and
a pickle of up to the whole rate's worth of floats), which cost more than the rest of a state read.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import redis
from django.conf import settings
from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

logger = logging.getLogger(__name__)

_COUNT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}
"""

_client: redis.Redis | None = None
_script: Any = None


def _counter() -> Any:
    """The registered Lua script on a process-wide client (made on first use; its pool reconnects)."""
    global _client, _script
    if _script is None:
        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
        _script = _client.register_script(_COUNT)
    return _script


def parse_rate(rate: str) -> tuple[int, int]:
    """``"1200/min"`` → (1200 requests, 60 seconds); the period is s, sec, m, min, h, hour, d or day."""
    count, period = rate.split("/")
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}[period.strip()[0]]
    return int(count), seconds


class TokenRateThrottle(BaseThrottle):
    """One bucket per API token (per session user without a token; per client address when anonymous)."""

    def __init__(self) -> None:
        self.retry_after: float | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        rate = settings.THROTTLE_USER_RATE if request.user.is_authenticated else settings.THROTTLE_ANON_RATE
        limit, period = parse_rate(rate)
        key = f"{settings.CACHES['default'].get('KEY_PREFIX', '')}:throttle:{period}:{self.ident(request)}"
        try:
            count, ttl_ms = _counter()(keys=[key], args=[period * 1000])
        except RedisError:  # the shared Redis is down: serve rather than fail (throttling is not security)
            logger.warning("throttling skipped: Redis is unavailable")
            return True
        if int(count) <= limit:
            return True
        ttl = int(ttl_ms)
        self.retry_after = max(1, math.ceil(ttl / 1000)) if ttl > 0 else period
        return False

    def wait(self) -> float | None:
        return self.retry_after

    def ident(self, request: Request) -> str:
        token_id = getattr(request.auth, "pk", None)
        if token_id is not None:
            return f"t{token_id}"
        if request.user.is_authenticated:
            return f"u{request.user.pk}"
        return f"a{self.get_ident(request)}"
