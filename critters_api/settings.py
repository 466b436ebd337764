"""Settings, all from the environment (django-environ) with safe defaults. No secrets in the repo.

Environment: DATABASE_URL, REDIS_URL (Celery broker and Django cache), SECRET_KEY (required unless DEBUG),
DEBUG (default false), ALLOWED_HOSTS (comma-separated), DB_POOL_MAX_SIZE / DB_POOL_MIN_SIZE / DB_POOL_TIMEOUT
(the connection pool), CONN_MAX_AGE (seconds, without a pool), THROTTLE_USER_RATE / THROTTLE_ANON_RATE (e.g.
``600/min``), TRUSTED_PROXY_COUNT, CACHE_KEY_PREFIX, DATA_UPLOAD_MAX_MEMORY_SIZE (bytes), and the rest below.
"""

from __future__ import annotations

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from critters_api.enum_names import EnumNames

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG: bool = env.bool("DEBUG", default=False)

_secret = env.str("SECRET_KEY", default="")
if not _secret:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set (a development default exists only with DEBUG=true)"
        )
    _secret = "django-insecure-dev-only-never-in-production"  # noqa: S105 - DEBUG only
SECRET_KEY: str = _secret
# The Ed25519 key that signs finished games' records (docs/AUDIT.md, "The signature"): its 32-byte seed as 64
# hex digits. Empty: derived from SECRET_KEY (HKDF-SHA256), so it is stable as long as SECRET_KEY is.
RECORD_SIGNING_KEY: str = env.str("RECORD_SIGNING_KEY", default="")
if RECORD_SIGNING_KEY:
    try:
        if len(bytes.fromhex(RECORD_SIGNING_KEY)) != 32:
            raise ValueError
    except ValueError:
        raise ImproperlyConfigured(
            "RECORD_SIGNING_KEY must be 64 hex digits (a 32-byte Ed25519 key)"
        ) from None

ALLOWED_HOSTS: list[str] = env.list(
    "ALLOWED_HOSTS",
    default=["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else ["localhost", "127.0.0.1"],
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "players",
    "games",
    "notifications",
]

MIDDLEWARE = [
    "critters_api.problems.RefuseNulBytesMiddleware",
    "critters_api.problems.DatabaseUnavailableMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "critters_api.throttling.AdminLoginThrottleMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "critters_api.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "critters_api.wsgi.application"
ASGI_APPLICATION = "critters_api.asgi.application"

DATABASES = {"default": env.db("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/critters")}
# A pool of connections per process (psycopg_pool, Django's built-in ``OPTIONS["pool"]``): a request or task
# borrows one for its life and gives it back. Under ASGI every request runs on its own executor thread, so
# persistent connections per thread (CONN_MAX_AGE) piled up until PostgreSQL refused clients; a pool bounds
# them: at most DB_POOL_MAX_SIZE per process. Connections are opened on demand (DB_POOL_MIN_SIZE kept open
# always; 0: none) and closed after 10 minutes idle. A Celery worker process runs one task at a time: it
# uses one connection (at its first use, one more than DB_POOL_MIN_SIZE may open at once). Size it so that
# (web + stream processes) x DB_POOL_MAX_SIZE + Celery worker processes x (DB_POOL_MIN_SIZE + 1) stays under
# PostgreSQL's max_connections (100 by default, a few reserved for superusers).
# A request that waits DB_POOL_TIMEOUT seconds for a free connection gets the 503 database_unavailable
# (Retry-After). DB_POOL_MAX_SIZE=0: no pool, one persistent connection per thread (CONN_MAX_AGE), for WSGI
# servers with a fixed number of threads.
DB_POOL_MAX_SIZE: int = env.int("DB_POOL_MAX_SIZE", default=10)
DB_POOL_MIN_SIZE: int = min(env.int("DB_POOL_MIN_SIZE", default=0), max(DB_POOL_MAX_SIZE, 0))
DB_POOL_TIMEOUT: float = env.float("DB_POOL_TIMEOUT", default=5.0)
if DB_POOL_MAX_SIZE > 0:
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections (Django requires 0)
    DATABASES["default"]["OPTIONS"] = {
        **DATABASES["default"].get("OPTIONS", {}),
        "pool": {
            "min_size": DB_POOL_MIN_SIZE,
            "max_size": DB_POOL_MAX_SIZE,
            "timeout": DB_POOL_TIMEOUT,
            # a connection attempt retried in the background (backoff 1 s, 2 s, ...) is given up this soon, so
            # that after an outage the next request starts a fresh one at once (critters_api/db/base.py)
            "reconnect_timeout": max(DB_POOL_TIMEOUT, 1.0),
            # a connection lives this long, then the pool replaces it (its prepared statements with it)
            "max_lifetime": env.float("DB_POOL_MAX_LIFETIME", default=3600.0),
            "name": "critters",
        },
    }
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# PostgreSQL only; the same backend with a health check that needs no round trip (critters_api/db/base.py)
DATABASES["default"]["ENGINE"] = "critters_api.db"
# The request path's plain-SQL statements are prepared once per connection (critters_api/db/base.py); turn
# off behind a connection pooler in transaction mode that cannot keep prepared statements.
DB_PREPARED_STATEMENTS: bool = env.bool("DB_PREPARED_STATEMENTS", default=True)

REDIS_URL: str = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env.str("CACHE_KEY_PREFIX", default="critters"),
    }
}

AUTH_USER_MODEL = "players.Player"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
# The browser client's bundle (built by scripts/web from web/, not committed), served as /static/web/
# (left out until it is built, so that a checkout without Node.js runs the API without a warning).
STATICFILES_DIRS = [("web", BASE_DIR / "web" / "dist")] if (BASE_DIR / "web" / "dist").is_dir() else []
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Requests: a command is a few hundred bytes; refuse anything much bigger (413 problem).
DATA_UPLOAD_MAX_MEMORY_SIZE: int = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=64 * 1024)

SESSION_COOKIE_SECURE = not DEBUG and env.bool("SECURE_COOKIES", default=False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# --- REST framework ----------------------------------------------------------------------------
THROTTLE_USER_RATE: str = env.str("THROTTLE_USER_RATE", default="1200/min")
THROTTLE_ANON_RATE: str = env.str("THROTTLE_ANON_RATE", default="120/min")
# Anonymous limits are keyed on the client's address: the TCP peer (REMOTE_ADDR), unless this many proxies
# that you run stand in front of the service and each appends the address it saw to X-Forwarded-For; then the
# address the outermost trusted proxy saw (the N-th from the right). Any other X-Forwarded-For is the
# client's say-so and is ignored (anyone could send a new one with every request).
TRUSTED_PROXY_COUNT: int = env.int("TRUSTED_PROXY_COUNT", default=0)
# Django admin's login form (/admin/login/): failed and successful attempts alike, per client address and
# per username tried, in the same Redis fixed windows as the API's limits.
THROTTLE_ADMIN_LOGIN_RATE: str = env.str("THROTTLE_ADMIN_LOGIN_RATE", default="10/min")
# POST /api/v1/auth/tokens: wrong passwords per username tried, from any address (a right one is not counted);
# beyond, 429 `too_many_failed_logins` until the window that began with the first failure ends. "5/10min" =
# 5 in 10 minutes: an account is never locked for longer than one window.
THROTTLE_LOGIN_FAILURE_RATE: str = env.str("THROTTLE_LOGIN_FAILURE_RATE", default="5/10min")
# Failed authentications per client address: unknown/revoked/malformed bearer tokens and wrong passwords.
# Beyond: 429 (`too_many_failed_authentications` for a failing token, `too_many_failed_logins` at login) until
# the window ends; valid tokens are never refused by it.
THROTTLE_AUTH_FAILURE_RATE: str = env.str("THROTTLE_AUTH_FAILURE_RATE", default="30/min")
# The replay page (/games/{id}/replay) keeps a finished game's verdict this long (its record never changes).
REPLAY_VERDICT_CACHE_SECONDS: int = env.int("REPLAY_VERDICT_CACHE_SECONDS", default=86400)
# Live (unrevoked) API tokens per player; issuing one more revokes the least recently used ones.
MAX_TOKENS_PER_PLAYER: int = env.int("MAX_TOKENS_PER_PLAYER", default=20)
# One account cannot fill the worker (issue #28, item 12): games a player may have at once (0: no cap; staff
# are never capped). Open: the open games they created or sit in; running: the running games they created or
# hold a seat in. A game whose every seat is a bot plays itself on the worker's time: staff only, by default.
MAX_OPEN_GAMES_PER_PLAYER: int = env.int("MAX_OPEN_GAMES_PER_PLAYER", default=10)
MAX_RUNNING_GAMES_PER_PLAYER: int = env.int("MAX_RUNNING_GAMES_PER_PLAYER", default=30)
BOT_ONLY_GAMES_STAFF_ONLY: bool = env.bool("BOT_ONLY_GAMES_STAFF_ONLY", default=True)

REST_FRAMEWORK = {
    # The token class first: an unauthenticated request gets 401 with a Bearer challenge, not 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "players.auth.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["critters_api.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["critters_api.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "critters_api.negotiation.ContentNegotiation",
    "DEFAULT_THROTTLE_CLASSES": ["critters_api.throttling.TokenRateThrottle"],
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,  # DRF's own get_ident, should anything use it (ours: throttling.py)
    "DEFAULT_SCHEMA_CLASS": "critters_api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "critters_api.problems.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "URL_FORMAT_OVERRIDE": None,
    "FORMAT_SUFFIX_KWARG": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "GoodCritters play-by-web API",
    # {games}: the registered games, named from the registry by games.api.schema.add_components
    "DESCRIPTION": (
        "Event-sourced REST API for playing divide-the-loot games by web: {games}; a game's `ruleset` "
        "says which (`POST /games` takes it). Every error is `application/problem+json` (RFC 9457) with a "
        "stable machine `code`. Authenticate with `Authorization: Bearer <token>`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": EnumNames(
        {  # and each registered game's own (its enum_names)
            "BotStrategyEnum": "games.services.lobby.BOT_STRATEGIES",
            "GameStatusEnum": "games.models.GameStatus",
            "NotificationTypeEnum": "notifications.models.NotificationType",
            "EndpointKindEnum": "notifications.models.EndpointKind",
            "MailKindEnum": "notifications.models.MailKind",
            "MailDeliveryEnum": "notifications.models.DeliveryMode",
        }
    ),
    "APPEND_COMPONENTS": {},
    "AUTHENTICATION_WHITELIST": ["players.auth.BearerTokenAuthentication"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema.add_components",
        "notifications.schema.add_stream_path",
        "games.api.contract.one_contract",  # last: narrowing by ruleset, markup, rule links (issue #24)
    ],
}

# --- Celery (broker on Redis, JSON only, late acks; deadlines live in PostgreSQL) ---------------
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
# Fail fast when the broker is down: the request path never waits on Redis (deadlines live in PostgreSQL).
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 5}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker rides out a broker outage of any length: it reconnects forever (Celery's default gives up after
# 100 attempts and exits), through a Redis transport that survives losing the connection with messages
# unacked (critters_api/celery.py says why kombu's own did not).
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_TRANSPORT = "critters_api.celery:RedisTransport"
# A task running when the connection is lost finishes its work in PostgreSQL (only its ack is lost; the
# message comes back after the visibility timeout and is a no-op: tasks are idempotent).
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# Workers keep their database connection between tasks, recycled as a web request's is
# (critters_api/celery.py); Celery's Django fix-up would close it around every task. It still does so every
# this many tasks.
CELERY_DB_REUSE_MAX: int = env.int("CELERY_DB_REUSE_MAX", default=1000)

# --- deadlines (games/deadlines.py): a static sweep on the beat, short ETA tasks for punctuality ---------
DEADLINE_SWEEP_INTERVAL: float = env.float("DEADLINE_SWEEP_INTERVAL", default=1.0)  # seconds between sweeps
DEADLINE_ETA_HORIZON: float = env.float("DEADLINE_ETA_HORIZON", default=300.0)  # ETA tasks only this close
DEADLINE_SWEEP_BATCH: int = env.int("DEADLINE_SWEEP_BATCH", default=500)  # games per sweep, at most
DEADLINE_OUTAGE_AFTER: float = env.float("DEADLINE_OUTAGE_AFTER", default=60.0)  # no sweep this long: outage
DEADLINE_OUTAGE_GRACE: int = env.int("DEADLINE_OUTAGE_GRACE", default=600)  # seconds given after an outage
BOT_TASK_DELAY: float = env.float("BOT_TASK_DELAY", default=0.2)  # bots act this soon after they may
BOT_SWEEP_GRACE: float = env.float("BOT_SWEEP_GRACE", default=10.0)  # sweeper re-runs bots not run by then

# Timers never wait behind notifications (issue #26, item 3): each kind of task has its queue, and
# scripts/supervisord.conf and docker-compose.yml run a worker for the timers and another for the
# notifications. `sweeps` holds only the deadline sweep, so that a burst of expiry or bot tasks never stands
# in front of it either (a worker polls its queues in turn). A worker started without -Q consumes them all.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_QUEUES = {
    "sweeps": {"routing_key": "sweeps"},
    "timers": {"routing_key": "timers"},
    "notifications": {"routing_key": "notifications"},
    "celery": {"routing_key": "celery"},
}
CELERY_TASK_ROUTES = {
    "games.tasks.sweep_deadlines": {"queue": "sweeps"},
    "games.tasks.*": {"queue": "timers"},
    "notifications.*": {"queue": "notifications"},
}
TIMER_QUEUES = "sweeps,timers,celery"  # what the timers worker consumes (-Q)
NOTIFICATION_QUEUES = "notifications"  # what the notifications worker consumes (-Q)

CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "sweep-deadlines": {
        "task": "games.tasks.sweep_deadlines",
        "schedule": DEADLINE_SWEEP_INTERVAL,
        # a sweep that could not run in time is useless: the next one does the same work
        "options": {"expires": max(DEADLINE_SWEEP_INTERVAL * 5, 5.0)},
    },
}

# --- the service ---------------------------------------------------------------------------------
FEED_MAX_WAIT_SECONDS: int = 30  # long-poll bound on ?wait= (a WSGI worker thread is held meanwhile)
FEED_POLL_INTERVAL: float = env.float("FEED_POLL_INTERVAL", default=0.25)
BOTS_MAX_STEPS: int = 5000  # bound on bot commands applied by one bots_play call

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.request": {"level": "ERROR"}},
}
STATE_CACHE_SIZE: int = env.int("STATE_CACHE_SIZE", default=256)  # folded states kept per process (0: off)

# --- notifications: live stream, inbox, webhooks (docs/NOTIFICATIONS.md) -------------------------
STREAM_KEEPALIVE_SECONDS: float = env.float("STREAM_KEEPALIVE_SECONDS", default=15.0)
STREAM_POLL_SECONDS: float = env.float("STREAM_POLL_SECONDS", default=2.0)  # fallback if a hint is lost
STREAM_CHANNEL_PREFIX: str = env.str(
    "STREAM_CHANNEL_PREFIX", default=env.str("CACHE_KEY_PREFIX", default="critters")
)  # Redis channels
WEBHOOK_TIMEOUT_SECONDS: float = env.float("WEBHOOK_TIMEOUT_SECONDS", default=10.0)
WEBHOOK_MAX_ATTEMPTS: int = env.int("WEBHOOK_MAX_ATTEMPTS", default=12)  # per delivery (~14.5 h of retries)
WEBHOOK_RETRY_BASE_SECONDS: float = env.float("WEBHOOK_RETRY_BASE_SECONDS", default=30.0)  # doubles per try
WEBHOOK_RETRY_MAX_SECONDS: float = env.float("WEBHOOK_RETRY_MAX_SECONDS", default=6 * 3600.0)
# a failing endpoint is probed (one delivery) at least this often: a receiver that is back hears from us soon
WEBHOOK_PROBE_MAX_SECONDS: float = env.float("WEBHOOK_PROBE_MAX_SECONDS", default=60.0)
# deliveries to one endpoint queued or in flight at once: a recovered receiver is drained at its own pace
WEBHOOK_ENDPOINT_CONCURRENCY: int = env.int("WEBHOOK_ENDPOINT_CONCURRENCY", default=4)
# a queued delivery's claim lapses after this long (its task was lost: Redis restarted, a worker killed, a
# task failed with the database down): the sweeper enqueues it again. Longer than a task waits in the queue
WEBHOOK_QUEUED_LEASE_SECONDS: float = env.float("WEBHOOK_QUEUED_LEASE_SECONDS", default=60.0)
# an endpoint is disabled once every attempt to it failed for this long (a burst of failures is not enough)
WEBHOOK_DISABLE_AFTER_SECONDS: float = env.float("WEBHOOK_DISABLE_AFTER_SECONDS", default=5 * 86400.0)
# SSRF guard: destinations in private/loopback/link-local/reserved ranges are refused unless listed here
WEBHOOK_ALLOWED_NETWORKS: list[str] = env.list("WEBHOOK_ALLOWED_NETWORKS", default=[])
WEBHOOK_SWEEP_SECONDS: float = env.float("WEBHOOK_SWEEP_SECONDS", default=10.0)  # enqueue unqueued due ones
CELERY_BEAT_SCHEDULE["notifications-sweep"] = {
    "task": "notifications.sweep",
    "schedule": WEBHOOK_SWEEP_SECONDS,
    "options": {"expires": max(WEBHOOK_SWEEP_SECONDS * 3, 5.0)},
}

# --- mail and chat notifications (issue #23, docs/NOTIFICATIONS.md "Mail") -------------------------------
# Django's email framework: SMTP by default (EMAIL_HOST, EMAIL_PORT, ...); scripts/serve writes files instead.
EMAIL_BACKEND: str = env.str("EMAIL_BACKEND", default="django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST: str = env.str("EMAIL_HOST", default="localhost")
EMAIL_PORT: int = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER: str = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD: str = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS: bool = env.bool("EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL: bool = env.bool("EMAIL_USE_SSL", default=False)
EMAIL_TIMEOUT: float = env.float("EMAIL_TIMEOUT", default=10.0)
EMAIL_FILE_PATH: str = env.str("EMAIL_FILE_PATH", default=str(BASE_DIR / "var" / "mail"))
DEFAULT_FROM_EMAIL: str = env.str("DEFAULT_FROM_EMAIL", default="GoodCritters <noreply@localhost>")
# where players open the game: links in mail and chat are PUBLIC_BASE_URL + /play/games/<id>
PUBLIC_BASE_URL: str = env.str("PUBLIC_BASE_URL", default="http://localhost:8000").rstrip("/")
MAIL_MIN_INTERVAL_SECONDS: float = env.float("MAIL_MIN_INTERVAL_SECONDS", default=60.0)  # per player
MAIL_RECENT_ACTION_SECONDS: float = env.float("MAIL_RECENT_ACTION_SECONDS", default=300.0)  # no turn mail
MAIL_RETRY_BASE_SECONDS: float = env.float("MAIL_RETRY_BASE_SECONDS", default=30.0)  # doubles per attempt
MAIL_RETRY_MAX_SECONDS: float = env.float("MAIL_RETRY_MAX_SECONDS", default=600.0)
MAIL_MAX_ATTEMPTS: int = env.int("MAIL_MAX_ATTEMPTS", default=300)  # about two days at the longest wait
MAIL_VERIFY_HOURS: float = env.float("MAIL_VERIFY_HOURS", default=48.0)  # a verification link's life
MAIL_SEND_LEASE_SECONDS: float = env.float("MAIL_SEND_LEASE_SECONDS", default=60.0)  # a lost send is retried
