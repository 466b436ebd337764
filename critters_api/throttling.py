"""Per-token throttling on the shared Redis cache (rates from the environment, read at request time)."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)


class TokenRateThrottle(SimpleRateThrottle):
    """One bucket per API token (per session user without a token; per client address when anonymous)."""

    scope = "token"

    def __init__(self) -> None:  # rates are looked up per request (see allow_request), not at import
        pass

    def allow_request(self, request: Request, view: Any) -> bool:
        rate = settings.THROTTLE_USER_RATE if request.user.is_authenticated else settings.THROTTLE_ANON_RATE
        self.rate = rate
        self.num_requests, self.duration = self.parse_rate(rate)
        try:
            return super().allow_request(request, view)
        except RedisError:  # the shared cache is down: serve rather than fail (throttling is not security)
            logger.warning("throttling skipped: the Redis cache is unavailable")
            return True

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        token = request.auth
        token_id = getattr(token, "pk", None)
        if token_id is not None:
            ident = f"t{token_id}"
        elif request.user.is_authenticated:
            ident = f"u{request.user.pk}"
        else:
            ident = f"a{self.get_ident(request)}"
        return f"throttle:{ident}"
