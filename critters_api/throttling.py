"""Per-token throttling on the shared Redis (rates from the environment, read at request time), and the
throttle of Django admin's login form.

A fixed window per bucket, counted by one Lua script (``INCR``, and ``PEXPIRE`` on the window's first
request): one round trip per request, atomic across every web process. DRF's ``SimpleRateThrottle`` keeps a
list of every request's timestamp in the cache and reads and rewrites it on each request (two round trips and
a pickle of up to the whole rate's worth of floats), which cost more than the rest of a state read.

**Who the client is.** Anonymous requests are counted per client address: the TCP peer (``REMOTE_ADDR``),
unless ``TRUSTED_PROXY_COUNT`` proxies run in front of the service, each appending the address it saw to
``X-Forwarded-For``; then the address the outermost trusted proxy saw. A client can put anything in that
header, so without trusted proxies it is ignored (keyed on it, every request with a new value got a fresh
bucket: a login could be brute-forced). The servers must not rewrite the peer from the header themselves
(uvicorn does for loopback peers unless ``--forwarded-allow-ips`` is empty; ``scripts/serve`` sets it).
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

import redis
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from redis.exceptions import RedisError
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from critters_api.celery import redis_health

logger = logging.getLogger(__name__)

_COUNT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}
"""

# The per-token limit reserves several requests of a window at once when the window is far from its limit
# (:func:`count_leased`): ``INCRBY k``, and ``PEXPIRE`` when this reservation opened the window.
_RESERVE = """
local n = redis.call('INCRBY', KEYS[1], ARGV[2])
if n == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}
"""

_REFUND = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = redis.call('DECR', KEYS[1])
if n <= 0 then redis.call('DEL', KEYS[1]) end
return n
"""

_client: redis.Redis | None = None
_script: Any = None
_refund_script: Any = None
_reserve_script: Any = None


def _counter() -> Any:
    """The registered Lua script on a process-wide client (made on first use; its pool reconnects)."""
    global _client, _script
    if _script is None:
        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
        _script = _client.register_script(_COUNT)
    return _script


def _reserver() -> Any:
    global _reserve_script
    if _reserve_script is None:
        _counter()
        assert _client is not None  # made by _counter
        _reserve_script = _client.register_script(_RESERVE)
    return _reserve_script


def _refunder() -> Any:
    global _refund_script
    if _refund_script is None:
        _counter()
        assert _client is not None  # made by _counter
        _refund_script = _client.register_script(_REFUND)
    return _refund_script


def client_address(meta: Any) -> str:
    """The client's address from a request's ``META``: the peer, or with ``TRUSTED_PROXY_COUNT`` = N > 0 the
    N-th address from the right of ``X-Forwarded-For`` (what the outermost trusted proxy saw), the leftmost
    when the header has fewer. A proxy that sent no header: the peer."""
    peer = str(meta.get("REMOTE_ADDR") or "")
    trusted = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0))
    forwarded = meta.get("HTTP_X_FORWARDED_FOR")
    if trusted <= 0 or not forwarded:
        return peer
    hops = [hop.strip() for hop in str(forwarded).split(",") if hop.strip()]
    if not hops:
        return peer
    return hops[-min(trusted, len(hops))][:64]


def count(bucket: str, period: int) -> tuple[int, int] | None:
    """Count one request in ``bucket``'s current window of ``period`` seconds: (requests in the window, ms
    until it ends). ``None`` when Redis is unavailable (callers serve rather than fail): the first failure
    marks Redis down for this process (``critters_api.celery.redis_health``, shared with publishing), and
    requests skip it at once until its probe sees Redis answer again, so a hung Redis costs one timeout per
    process, not one per request."""
    if redis_health.down():  # found unreachable moments ago: do not wait on it again (a probe watches it)
        return None
    key = f"{settings.CACHES['default'].get('KEY_PREFIX', '')}:throttle:{period}:{bucket}"
    try:
        n, ttl_ms = _counter()(keys=[key], args=[period * 1000])
    except RedisError:
        logger.warning("throttling skipped: Redis is unavailable")
        redis_health.failed()
        return None
    return int(n), int(ttl_ms)


@dataclass(slots=True)
class _Lease:
    """Requests of one bucket's current window reserved in Redis by this process and not yet used."""

    limit: int
    left: int
    ends: float  # time.monotonic() at the end of the window it was reserved in
    count: int  # the window's count in Redis after the reservation


_leases: dict[str, _Lease] = {}
_leases_lock = threading.Lock()
LEASE_MAX = 16
"""At most this many requests of a bucket are reserved at once by one process."""
LEASE_SHARE = 64
"""...and at most 1/LEASE_SHARE of what is left of the window's limit: near the limit (and for any limit
under 2 x LEASE_SHARE) every request is counted in Redis one by one, exactly as :func:`count` does."""


def count_leased(bucket: str, period: int, limit: int) -> tuple[int, int] | None:
    """:func:`count` for a bucket that many processes share with a high limit (the per-token limit): a
    process reserves up to ``LEASE_MAX`` requests of the current window in one round trip (``INCRBY``) and
    serves the next ones from what it reserved, while the window lasts. Nothing is ever served beyond the
    limit (every request served was counted in Redis before it was served); a reservation left unused when
    its window ends only counts against that window (a client near its limit may be refused a few requests
    early, at most the unused reservations of the other processes, each under 1/``LEASE_SHARE`` of what the
    window had left when it was made). Returns (a count in the window that is over ``limit`` exactly when
    this request is refused, ms until the window ends); ``None`` when Redis is unavailable."""
    key = f"{settings.CACHES['default'].get('KEY_PREFIX', '')}:throttle:{period}:{bucket}"
    now = time.monotonic()
    with _leases_lock:
        lease = _leases.get(key)
        if lease is not None and lease.left > 0 and lease.limit == limit and now < lease.ends:
            lease.left -= 1
            return lease.count - lease.left, max(1, int((lease.ends - now) * 1000))
        known = lease.count if lease is not None and lease.limit == limit and now < lease.ends else 0
    size = max(1, min(LEASE_MAX, (limit - known) // LEASE_SHARE))
    if size == 1:
        return count(bucket, period)
    if redis_health.down():
        return None
    try:
        n, ttl_ms = _reserver()(keys=[key], args=[period * 1000, size])
    except RedisError:
        logger.warning("throttling skipped: Redis is unavailable")
        redis_health.failed()
        return None
    n, ttl_ms = int(n), int(ttl_ms)
    first = n - size + 1  # this request's place in the window
    if first > limit:
        return first, ttl_ms
    left = min(size, limit - first + 1) - 1  # never more than the limit
    with _leases_lock:
        _leases[key] = _Lease(limit, left, time.monotonic() + max(ttl_ms, 0) / 1000, first + left)
        if len(_leases) > 10_000:  # tokens seen once: forget the oldest
            for stale in list(_leases)[:1000]:
                _leases.pop(stale, None)
    return first, ttl_ms


def _retry_after(ttl_ms: int, period: int) -> int:
    return max(1, math.ceil(ttl_ms / 1000)) if ttl_ms > 0 else period


def refund(bucket: str, period: int) -> None:
    """Take back one request counted in ``bucket``'s current window (an attempt that turned out not to be
    one the bucket limits, e.g. a login with the right password); a window left with nothing in it ends, so
    that the next window begins with the next counted request. Nothing when Redis is unavailable."""
    if redis_health.down():
        return
    key = f"{settings.CACHES['default'].get('KEY_PREFIX', '')}:throttle:{period}:{bucket}"
    try:
        _refunder()(keys=[key])
    except RedisError:
        logger.warning("throttling refund skipped: Redis is unavailable")
        redis_health.failed()


_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([a-z]+)\s*$")


def parse_rate(rate: str) -> tuple[int, int]:
    """``"1200/min"`` → (1200 requests, 60 seconds); ``"5/10min"`` → (5, 600). The period is s, sec, m, min,
    h, hour, d or day, optionally after a number of them."""
    found = _RATE.match(rate)
    if found is None:
        raise ValueError(f"not a rate: {rate!r} (e.g. 120/min or 5/10min)")
    count, times, unit = found.groups()
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}[unit[0]]
    return int(count), seconds * int(times or 1)


def _refused(code: str, detail: str, wait: int) -> Any:
    from critters_api.problems import Problem

    problem = Problem(429, code, f"{detail} Expected available in {wait} seconds.", retry_after=wait)
    problem.headers["Retry-After"] = str(wait)
    return problem


def _username_bucket(username: str) -> str:
    """A login bucket per account tried, whatever its case (no raw user input in Redis keys)."""
    digest = hashlib.sha256(username[:150].casefold().encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"login-fail:u{digest}"


def login_attempt(request: Request, username: str) -> None:
    """Count one password attempt at ``POST /auth/tokens`` before its password is hashed, per username
    (``THROTTLE_LOGIN_FAILURE_RATE``, across every address) and per client address
    (``THROTTLE_AUTH_FAILURE_RATE``, shared with failed bearer tokens). Over either limit: 429 problem
    ``too_many_failed_logins`` with ``Retry-After``, and the password is not checked. A login that succeeds is
    taken back (:func:`login_succeeded`), so only wrong passwords (and attempts in flight) use the budget,
    and a lock lasts to the end of its window at most (the window starts at the first failure): nobody can
    lock an account for longer than one window at a time, and tokens already issued keep working."""
    user_limit, user_period = parse_rate(settings.THROTTLE_LOGIN_FAILURE_RATE)
    addr_limit, addr_period = parse_rate(settings.THROTTLE_AUTH_FAILURE_RATE)
    buckets = [
        (_username_bucket(username), user_limit, user_period),
        (f"auth-fail:a{client_address(request.META)}", addr_limit, addr_period),
    ]
    wait = 0
    for bucket, limit, period in buckets:
        counted = count(bucket, period)
        if counted is not None and counted[0] > limit:
            wait = max(wait, _retry_after(counted[1], period))
    if wait:
        raise _refused(
            "too_many_failed_logins", "Too many failed logins for this username or from this address.", wait
        )


def login_succeeded(request: Request, username: str) -> None:
    """The attempt :func:`login_attempt` counted had the right password: take it back."""
    refund(_username_bucket(username), parse_rate(settings.THROTTLE_LOGIN_FAILURE_RATE)[1])
    refund(f"auth-fail:a{client_address(request.META)}", parse_rate(settings.THROTTLE_AUTH_FAILURE_RATE)[1])


def authentication_failed(request: Request) -> None:
    """Count one failed bearer authentication (unknown, revoked or malformed token) against the client
    address (``THROTTLE_AUTH_FAILURE_RATE``). Over the limit the answer is a 429 problem
    ``too_many_failed_authentications`` with ``Retry-After`` instead of the 401 (a request with a failing
    credential never reaches the per-token or anonymous limits). Valid tokens are never counted nor refused,
    from that address or any other."""
    limit, period = parse_rate(settings.THROTTLE_AUTH_FAILURE_RATE)
    counted = count(f"auth-fail:a{client_address(request.META)}", period)
    if counted is not None and counted[0] > limit:
        raise _refused(
            "too_many_failed_authentications",
            "Too many failed authentications from this address.",
            _retry_after(counted[1], period),
        )


class TokenRateThrottle(BaseThrottle):
    """One bucket per API token (per session user without a token; per client address when anonymous)."""

    def __init__(self) -> None:
        self.retry_after: float | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        rate = settings.THROTTLE_USER_RATE if request.user.is_authenticated else settings.THROTTLE_ANON_RATE
        limit, period = parse_rate(rate)
        ident = self.ident(request)
        # a token's (or a user's) requests are counted in reservations of several while far from the limit
        counted = count(ident, period) if ident[0] == "a" else count_leased(ident, period, limit)
        if counted is None:  # the shared Redis is down: serve rather than fail
            return True
        n, ttl_ms = counted
        if n <= limit:
            return True
        self.retry_after = _retry_after(ttl_ms, period)
        return False

    def get_ident(self, request: Request) -> str:
        return client_address(request.META)

    def wait(self) -> float | None:
        return self.retry_after

    def ident(self, request: Request) -> str:
        token_id = getattr(request.auth, "pk", None)
        if token_id is not None:
            return f"t{token_id}"
        if request.user.is_authenticated:
            return f"u{request.user.pk}"
        return f"a{self.get_ident(request)}"


def throttle_page(request: HttpRequest) -> HttpResponse | None:
    """The API's limits for a plain Django page (outside DRF, e.g. the replay page): per logged-in user
    (``THROTTLE_USER_RATE``, the bucket a session's API requests use) or per client address when anonymous
    (``THROTTLE_ANON_RATE``, the anonymous API's bucket). Over it: the 429 problem ``throttled`` with
    ``Retry-After``; ``None`` to serve."""
    from critters_api.problems import problem_http_response

    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        rate, bucket = settings.THROTTLE_USER_RATE, f"u{user.pk}"
    else:
        rate, bucket = settings.THROTTLE_ANON_RATE, f"a{client_address(request.META)}"
    limit, period = parse_rate(rate)
    counted = count(bucket, period)
    if counted is None or counted[0] <= limit:
        return None
    wait = _retry_after(counted[1], period)
    response = problem_http_response(
        429, "throttled", f"Request was throttled. Expected available in {wait} seconds.", request
    )
    response["Retry-After"] = str(wait)
    return response


class AdminLoginThrottleMiddleware:
    """Django admin's login form (``POST /admin/login/``, a plain Django view outside DRF) is throttled like
    the API: every attempt counts, per client address and per username tried (``THROTTLE_ADMIN_LOGIN_RATE``
    each), so neither many passwords from one address nor one account from many addresses can be tried
    faster. Over the limit: 429 problem ``throttled`` with ``Retry-After``, and the form is not processed."""

    def __init__(self, get_response: Any) -> None:
        from django.urls import reverse

        self.get_response = get_response
        self._reverse = reverse
        self._path: str | None = None

    def login_path(self) -> str:
        if self._path is None:
            self._path = self._reverse("admin:login")
        return self._path

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.path == self.login_path():
            refused = self.check(request)
            if refused is not None:
                return refused
        response: HttpResponse = self.get_response(request)
        return response

    def check(self, request: HttpRequest) -> HttpResponse | None:
        from critters_api.problems import problem_http_response

        limit, period = parse_rate(settings.THROTTLE_ADMIN_LOGIN_RATE)
        username = str(request.POST.get("username", ""))[:150].casefold()
        buckets = [f"admin-login:a{client_address(request.META)}"]
        if username:
            buckets.append(f"admin-login:u{username}")
        wait = 0
        for bucket in buckets:
            counted = count(bucket, period)
            if counted is not None and counted[0] > limit:
                wait = max(wait, _retry_after(counted[1], period))
        if not wait:
            return None
        response = problem_http_response(
            429, "throttled", f"Too many login attempts. Expected available in {wait} seconds.", request
        )
        response["Retry-After"] = str(wait)
        return response
