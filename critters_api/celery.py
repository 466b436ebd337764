"""The Celery app (wiring only): broker on REDIS_URL, JSON only, late acks. Tasks live in the apps.

Database connections: Celery's Django fix-up closes every connection around every task, so each task used
to open a new PostgreSQL connection (about a third of a short task's time: a deadline or a bot move).
``CELERY_DB_REUSE_MAX`` keeps the fix-up from doing that; instead, around every task, Django's own
``close_old_connections`` does what it does around every web request: it drops a connection that is past
``CONN_MAX_AGE`` or that errored and is no longer usable, and arms the health check
(``critters_api/db/base.py``) for the task's first query, so a connection PostgreSQL ended (a restart) is
replaced before the task uses it.

With the connection pool of the production settings (``DB_POOL_MAX_SIZE``), "close" gives the connection
back to the process's pool and the next task borrows it again: one connection per worker process (one task
at a time; closed after 10 minutes idle), its prepared statements kept. A prefork child never
uses a pool inherited from its parent (``forget_inherited_pools``).

Broker outages (docs/DECISIONS.md, "Failures"): the worker rides them out and reconnects. Celery 5.7 /
kombu 5.7 on Redis used to die instead ("Unrecoverable error: AttributeError('NoneType' object has no
attribute 'hostname')") whenever it held unacknowledged messages when Redis went away, which with late acks
and our short ETA tasks (bots, deadlines) is always: on the connection error the consumer first
``collect()``s the connection, which closes the transport (``transport.client = None``) but keeps the
default channel, whose attempt to put the unacked messages back failed (Redis is down) and so is not marked
done; then it ``close()``s the connection, which closes that channel again, which tries the restore again,
which builds a Redis pool from ``transport.client``: ``None.hostname``, an AttributeError, not one of the
connection errors the consumer ignores there. ``RedisTransport`` (``CELERY_BROKER_TRANSPORT``) makes that
second attempt fail as what it is, a connection error, so the consumer goes on to reconnect. The messages it
could not put back stay in Redis's unacked set and come back after the visibility timeout; nothing depends
on them (the sweeper finds every due deadline and bot in PostgreSQL, and the tasks are idempotent).

Pool processes ask the kernel to kill them when the worker's main process dies (``PR_SET_PDEATHSIG``), so a
worker killed with SIGKILL leaves no orphaned child behind to run tasks alongside its replacement.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from typing import Any

import redis
from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_process_init
from kombu.exceptions import OperationalError
from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "critters_api.settings")


class RedisChannel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> Any:
        if self.connection.client is None:  # the connection was closed: nothing left to connect with
            raise RedisConnectionError("the broker connection is closed")
        return super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]


class RedisTransport(kombu_redis.Transport):
    """kombu's Redis transport whose closed channels fail with a connection error (module docstring)."""

    Channel = RedisChannel


class RedisHealth:
    """Whether this process last found Redis unreachable, and a probe that notices when it is back.

    Every message we publish to Redis has a fallback that needs no Redis (the sweepers find due deadlines,
    bots and webhook deliveries in PostgreSQL; streams poll), and some are published from a request (a
    webhook delivery and a stream hint after a command's commit). With Redis down each publish would hold
    the request for the connection's timeouts and retries (measured: 0.6 s when refused, 5 s when nothing
    answers). So the first failure marks Redis down for this process; publishing is skipped at once from
    then on; a background thread pings Redis every ``PROBE_INTERVAL`` seconds (short timeouts) and clears the
    mark when it answers. Nobody's request waits on the probe."""

    PROBE_INTERVAL = 1.0
    PROBE_TIMEOUT = 0.5

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._down_in: int | None = None  # the pid that found Redis down (a forked child starts afresh)

    def down(self) -> bool:
        return self._down_in == os.getpid()

    def failed(self) -> None:
        with self._lock:
            if self.down():
                return
            self._down_in = os.getpid()
        threading.Thread(target=self._probe, name="redis-probe", daemon=True).start()

    def _probe(self) -> None:
        from django.conf import settings

        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=self.PROBE_TIMEOUT, socket_connect_timeout=self.PROBE_TIMEOUT
        )
        try:
            while True:
                time.sleep(self.PROBE_INTERVAL)
                with contextlib.suppress(Exception):
                    if client.ping():
                        break
        finally:
            client.close()
            self._down_in = None


redis_health = RedisHealth()


class CrittersCelery(Celery):
    """Publishing fails at once while this process knows Redis is down (``RedisHealth``); callers fall back
    on the sweepers, as for any failed publish."""

    def send_task(self, *args: Any, **kwargs: Any) -> Any:
        if redis_health.down():
            raise OperationalError("Redis was unreachable moments ago; not publishing")
        try:
            return super().send_task(*args, **kwargs)
        except OperationalError:
            redis_health.failed()
            raise


app = CrittersCelery("critters_api")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def recycle_database_connections(task: Any = None, **kwargs: Any) -> None:
    """Around a task run by a worker (not an eager call inside someone's transaction): keep the connection
    unless it is too old or broken, as around a web request."""
    if task is not None and getattr(task.request, "is_eager", False):
        return
    from django.db import close_old_connections, connection

    if connection.in_atomic_block:  # never close a connection inside a transaction
        return
    close_old_connections()


@worker_process_init.connect
def fresh_pool_in_child(**kwargs: Any) -> None:
    from critters_api.db.base import forget_inherited_pools

    forget_inherited_pools()


PR_SET_PDEATHSIG = 1  # prctl(2)
_MAIN_PID = os.getpid()  # the worker's main process imports this module before it forks its pool


@worker_process_init.connect
def die_with_the_worker(**kwargs: Any) -> None:
    """In each pool process: be killed (SIGKILL) when the main process that forked us dies (Linux)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != _MAIN_PID:  # the main process died before we asked: do not outlive it
        os._exit(1)
