"""Django's PostgreSQL backend, with a cheaper check of a reused connection and prepared statements for the
few statements every request runs.

**Health check.** With ``CONN_HEALTH_CHECKS`` Django asks a persistent connection ``SELECT 1`` at the start
of every request: a round trip on every request, more than a state read's own queries cost. An idle
connection has nothing to say, though: when the server ends it (a restart, a crash, an administrator) the
socket becomes readable (an error message, then end of file). So a connection that is idle with nothing to
read is taken as usable without asking; one with anything waiting, or not idle, is asked ``SELECT 1`` as
before. A connection that dies unseen (a silent network partition) fails its first query instead: that
request gets the 503 of :class:`critters_api.problems.DatabaseUnavailableMiddleware`, and Django closes the
connection so the next request reconnects.

**Prepared statements.** Django binds parameters on the client and sends every statement as new text, so
PostgreSQL parses and plans it again each time: for the hot statements (the token lookup, the game with
its roster, the append) that was about 40% of PostgreSQL's time per command (pgbench, the command's own
statements: 1,300 transactions/s as text, 2,150 prepared). :meth:`DatabaseWrapper.prepared_cursor` gives a
cursor that binds on the server and prepares each statement once per connection (psycopg keeps the last
100 per connection). Only the plain-SQL statements of the request path use it; the ORM keeps Django's
client-side binding, which some ORM queries need. ``DB_PREPARED_STATEMENTS=false`` turns it off (behind a
connection pooler in transaction mode that cannot keep prepared statements).

**Pool.** With ``OPTIONS["pool"]`` (``DB_POOL_MAX_SIZE`` > 0, settings.py) each process keeps a psycopg pool:
Django borrows a connection at a request's (or task's) first query and gives it back at its end. The pooled
connections live on, so their prepared statements do too: a request prepares nothing its connection has
prepared before. The pool's check of a connection it hands out is the same cheap check as above (no round
trip for an idle connection with nothing to read), where Django's would ask every borrowed connection a
query. A connection given back inside a transaction (a failed request) is rolled back by the pool, which
with psycopg also drops its prepared statements (they are prepared again on use). A request that waits
``DB_POOL_TIMEOUT`` for a connection gets psycopg_pool's ``PoolTimeout``, an ``OperationalError``: the
503 ``database_unavailable`` with ``Retry-After`` (critters_api/problems.py), as when the database is down.

**Outages.** A pool whose server is down would make every request wait the whole ``DB_POOL_TIMEOUT`` for
a connection that cannot come (the pool retries in the background), where a plain connect is refused at
once. So once a connection attempt of the pool has failed, and until one succeeds, a request that finds no
idle connection fails at once (the same 503), except for one request a second per process that tries a
connection of its own: when that works, requests go back to the pool, which then connects again at once.
"""

from __future__ import annotations

import select
import threading
import time
from typing import Any

import psycopg
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db.backends.base.base import NO_DB_ALIAS
from django.db.backends.postgresql import base
from django.db.backends.postgresql.psycopg_any import register_tzloader  # type: ignore[import-untyped]
from django.db.backends.utils import CursorWrapper
from django.utils.asyncio import async_unsafe
from psycopg import adapters
from psycopg.pq import Format, TransactionStatus

TIMESTAMPTZ_OID = adapters.types["timestamptz"].oid


class PreparingCursor(base.ServerBindingCursor):  # type: ignore[name-defined]
    """psycopg's server-binding cursor that prepares every statement it runs (Django turns psycopg's
    automatic preparation off, ``prepare_threshold=None``, for the sake of connection poolers).

    A migration that changes the type of a column a prepared statement returns makes PostgreSQL refuse to
    run that statement again ("cached plan must not change result type"), and nothing else would ever drop
    it from a persistent connection. Outside a transaction the cursor drops the connection's prepared
    statements (``DEALLOCATE ALL``, which psycopg follows) and runs the statement again, prepared afresh.
    Inside one, the transaction is lost: the request gets the retryable 503 of the database being
    unavailable (an ``OperationalError``), and the rollback drops the prepared statements for the retry."""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: Any = None
    ) -> Any:
        prepare = True if prepare is None else prepare
        try:
            return super().execute(query, params, prepare=prepare, binary=binary)
        except psycopg.errors.FeatureNotSupported as exc:
            if "cached plan must not change result type" not in str(exc):
                raise
            if self.connection.info.transaction_status != TransactionStatus.IDLE:
                raise psycopg.OperationalError(
                    "A schema change outdated this connection's prepared statements; retry."
                ) from exc
            super().execute("DEALLOCATE ALL", prepare=False)
            return super().execute(query, params, prepare=prepare, binary=binary)


def idle_and_quiet(conn: psycopg.Connection[Any]) -> bool:
    """Whether an open connection is idle with nothing to read: then it is usable without asking (see the
    module's docstring). A connection the server ended has its goodbye waiting on the socket."""
    if conn.info.transaction_status != TransactionStatus.IDLE:
        return False
    try:
        readable, _, _ = select.select([conn.fileno()], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


class _Reachability:
    """Whether the pool's last connection attempt failed (this process), and the probes made since."""

    PROBE_INTERVAL = 1.0  # seconds between probes of an unreachable server, per process
    PROBE_TIMEOUT = 2  # connect_timeout of a probe, seconds

    def __init__(self) -> None:
        self.failing = False
        self.probed_at = 0.0
        self.lock = threading.Lock()

    def reachable(self, pool: Any) -> bool:
        """False when the last attempt failed and no probe may be made yet or the probe fails."""
        if not self.failing:
            return True
        if not self.lock.acquire(blocking=False):  # another thread probes right now
            return False
        try:
            now = time.monotonic()
            if now - self.probed_at < self.PROBE_INTERVAL:
                return False
            self.probed_at = now
            try:
                psycopg.connect(
                    pool.conninfo, **{**pool.kwargs, "connect_timeout": self.PROBE_TIMEOUT}
                ).close()
            except psycopg.Error:
                return False
            self.failing = False
            return True
        finally:
            self.lock.release()


reachability = _Reachability()


class TrackedConnection(psycopg.Connection[Any]):
    """The pool's connections: each attempt to open one tells :data:`reachability` how it went."""

    @classmethod
    def connect(cls, conninfo: str = "", **kwargs: Any) -> Any:
        try:
            conn = super().connect(conninfo, **kwargs)
        except psycopg.OperationalError:
            reachability.failing = True
            raise
        reachability.failing = False
        return conn


def check_pooled_connection(conn: psycopg.Connection[Any]) -> None:
    """The pool's check of a connection before it hands it out: raises if it is not usable (the pool then
    discards it and tries another, or opens a new one)."""
    if conn.closed or conn.broken:
        raise psycopg.OperationalError("the connection is closed")
    if idle_and_quiet(conn):
        return
    from psycopg_pool import ConnectionPool

    ConnectionPool.check_connection(conn)


FIRST_WAIT = 0.25  # seconds a borrow waits before it asks whether the server is down (see _pool_class)


def _pool_class() -> Any:
    """psycopg_pool's ``ConnectionPool``, whose ``getconn`` fails fast when the server is down.

    A crashed server leaves the pool's idle connections broken: a borrow discards them (the check fails)
    and waits for the pool to open a new one, which is refused at once, and again, until the pool's
    ``timeout``: every request that met the crash first waited the whole timeout (5 s) for its 503, longer
    than many clients wait. Here a borrow first waits ``FIRST_WAIT``; if by then the pool's last attempt to
    connect failed (:data:`reachability`) and a probe of the server fails too, it gives up at once (the
    caller answers 503); else the server is only busy, or back, and it waits the rest of the timeout, as
    before (losing its place in the queue once)."""
    from psycopg_pool import ConnectionPool, PoolTimeout

    class FailFastPool(ConnectionPool):
        def getconn(self, timeout: float | None = None) -> Any:
            total = self.timeout if timeout is None else timeout
            started = time.monotonic()
            try:
                return super().getconn(timeout=min(FIRST_WAIT, total))
            except PoolTimeout:
                left = total - (time.monotonic() - started)
                # the pool's last attempt was refused: ask the server itself (one probe a second per
                # process) rather than wait out the pool's reconnection backoff
                if left <= 0 or (reachability.failing and not reachability.reachable(self)):
                    raise
            return super().getconn(timeout=left)

    return FailFastPool


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self) -> Any:
        """Django's pool (``OPTIONS["pool"]``: psycopg_pool's ``ConnectionPool`` arguments), made as Django
        makes it, but checked with :func:`check_pooled_connection` instead of a query per borrow."""
        pool_options = self.settings_dict["OPTIONS"].get("pool")
        if self.alias == NO_DB_ALIAS or not pool_options:
            return None
        pools: dict[str, Any] = self._connection_pools  # type: ignore[attr-defined]
        if self.alias not in pools:
            if self.settings_dict.get("CONN_MAX_AGE", 0) != 0:
                raise ImproperlyConfigured("Pooling doesn't support persistent connections.")
            options = {} if pool_options is True else dict(pool_options)
            options.setdefault("connection_class", TrackedConnection)
            connect_kwargs = self.get_connection_params()
            connect_kwargs["autocommit"] = True  # Django sets it as it wants when it borrows one
            pool = _pool_class()(
                kwargs=connect_kwargs,
                open=False,
                configure=self._configure_connection,  # type: ignore[attr-defined]
                check=check_pooled_connection if self.settings_dict["CONN_HEALTH_CHECKS"] else None,
                **options,
            )
            pools.setdefault(self.alias, pool)
        return pools[self.alias]

    def get_connection_params(self) -> dict[str, Any]:
        params: dict[str, Any] = super().get_connection_params()
        if getattr(settings, "DB_PREPARED_STATEMENTS", True) and params.get("prepare_threshold") is None:
            # psycopg prepares nothing at all with a threshold of None (Django's default). With this one it
            # prepares only what asks for it: Django's own cursors bind on the client and never prepare.
            params["prepare_threshold"] = 2**31 - 1
        return params

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        pool = self.pool
        if (
            pool is not None
            and reachability.failing
            and not pool.get_stats().get("pool_available", 0)
            and not reachability.reachable(pool)
        ):
            raise psycopg.OperationalError("The database refused the last connection attempts.")
        return super().get_new_connection(conn_params)

    def is_usable(self) -> bool:
        conn = self.connection
        if conn is None or conn.closed or conn.broken:
            return False
        if idle_and_quiet(conn):
            return True
        return bool(super().is_usable())

    @async_unsafe
    def prepared_cursor(self) -> CursorWrapper:
        """A cursor (Django's wrapper: error translation, query logging, execute wrappers) whose statements
        are bound on the server and prepared once per connection. For fixed plain SQL with ``%s``
        placeholders only; with ``DB_PREPARED_STATEMENTS`` off, the ordinary cursor."""
        if not getattr(settings, "DB_PREPARED_STATEMENTS", True):
            return self.cursor()
        self.close_if_health_check_failed()
        self.ensure_connection()
        with self.wrap_database_errors:
            cursor = PreparingCursor(self.connection)
            loader = self.connection.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)
            if self.timezone != getattr(loader, "timezone", None):  # as Django's create_cursor does
                register_tzloader(self.timezone, cursor)
            return self._prepare_cursor(cursor)  # type: ignore[attr-defined]


def prepared_cursor(connection: Any) -> CursorWrapper:
    """``connection.prepared_cursor()``, typed (``django.db.connection`` is a proxy of this backend)."""
    cursor: CursorWrapper = connection.prepared_cursor()
    return cursor


def release_idle_connection(connection: Any) -> None:
    """Give a pooled connection back to the pool between a request's queries when it is about to wait (a
    long-poll sleeping between looks), so that waiting requests do not hold the pool's connections; outside
    a transaction only. Without a pool, nothing: the thread keeps its persistent connection."""
    if connection.pool is not None and connection.connection is not None and not connection.in_atomic_block:
        connection.close()


def forget_inherited_pools() -> None:
    """In a process just forked from one that may have made a pool (a Celery prefork child): drop the
    inherited pool objects without closing them (their connections and threads belong to the parent); this
    process makes its own pool at its first query."""
    pools: dict[str, Any] = base.DatabaseWrapper._connection_pools  # type: ignore[attr-defined]
    pools.clear()
