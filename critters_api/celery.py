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
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "critters_api.settings")

app = Celery("critters_api")
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
