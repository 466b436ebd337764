"""Settings for the test suite: the real settings, plus test-only safety nets (real PostgreSQL and Redis)."""

from __future__ import annotations

import os
import uuid
from urllib.parse import urlsplit

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-used-anywhere-else-0123456789")
# One cache namespace per run, so throttling buckets never leak between runs or xdist workers.
os.environ.setdefault("CACHE_KEY_PREFIX", f"test-{uuid.uuid4().hex[:12]}")
os.environ.setdefault("THROTTLE_USER_RATE", "100000/min")
os.environ.setdefault("THROTTLE_ANON_RATE", "100000/min")
# every test client is 127.0.0.1, and many tests send bad tokens and passwords: tests of these limits set them
os.environ.setdefault("THROTTLE_LOGIN_FAILURE_RATE", "100000/min")
os.environ.setdefault("THROTTLE_AUTH_FAILURE_RATE", "100000/min")
# The lobby's caps (issue #28, item 12) are off for the suite, which opens many games and bot-only games from
# few accounts; tests/api/test_lobby_limits.py sets the production values it checks.
os.environ.setdefault("MAX_OPEN_GAMES_PER_PLAYER", "0")
os.environ.setdefault("MAX_RUNNING_GAMES_PER_PLAYER", "0")
os.environ.setdefault("BOT_ONLY_GAMES_STAFF_ONLY", "false")

# pytest-xdist (``scripts/test`` runs two workers): each worker its own Redis database (broker, cache, stream
# hints), also in the environment so the servers and Celery workers a test starts use it. Applied once: a
# process a worker starts inherits both variables and must not move again.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER.startswith("gw") and os.environ.get("TEST_REDIS_WORKER") != _WORKER:
    _redis = urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    _db = (int(_redis.path.strip("/") or 0) + int(_WORKER[2:])) % 16
    os.environ["REDIS_URL"] = _redis._replace(path=f"/{_db}").geturl()
    os.environ["TEST_REDIS_WORKER"] = _WORKER

from critters_api.settings import *  # noqa: E402, F403
from critters_api.settings import DATABASES, MIDDLEWARE  # noqa: E402

# Django flushes the test database with TRUNCATE between transactional tests: allow exactly that
# (UPDATE and DELETE stay refused; the trigger test switches this off to prove TRUNCATE is refused too).
DATABASES["default"]["OPTIONS"] = {
    **DATABASES["default"].get("OPTIONS", {}),
    "options": "-c goodcritters.allow_event_truncate=on",
}
# Every request and task closes its connection, unless a test runs a process the way production does. No
# connection pool either (tests that are about the pool turn it on: tests/api/test_db_pool.py; servers started
# with the production settings have it).
DATABASES["default"]["OPTIONS"].pop("pool", None)
DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("TEST_CONN_MAX_AGE", "0"))

MIDDLEWARE = ["critters_api.testing.Record500Middleware", *MIDDLEWARE]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
FEED_POLL_INTERVAL = 0.05
# webhook receivers in tests run on loopback; retries are fast
os.environ.setdefault("WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128")
WEBHOOK_ALLOWED_NETWORKS = os.environ["WEBHOOK_ALLOWED_NETWORKS"].split(",")
os.environ.setdefault("WEBHOOK_RETRY_BASE_SECONDS", "0.2")
WEBHOOK_RETRY_BASE_SECONDS = float(os.environ["WEBHOOK_RETRY_BASE_SECONDS"])
os.environ.setdefault("STREAM_POLL_SECONDS", "0.5")
STREAM_POLL_SECONDS = float(os.environ["STREAM_POLL_SECONDS"])
# Tests never run collectstatic: let WhiteNoise find static files in the apps (as DEBUG would) instead of
# warning on every request that STATIC_ROOT does not exist.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True
# mail goes to a real SMTP server started by the mail tests; elsewhere it must not leave the process
os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.locmem.EmailBackend")
EMAIL_BACKEND = os.environ["EMAIL_BACKEND"]
