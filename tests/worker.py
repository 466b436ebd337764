"""A REAL Celery worker (with embedded beat) as a subprocess, on pytest-django's test database.

Use the ``celery_worker_process`` fixture from a test marked ``@pytest.mark.django_db(transaction=True)``
(the worker is another process: it only sees committed rows). The handle can ``kill()`` the worker with
SIGKILL (the whole process group: the main process, its prefork children and the embedded beat, like a
machine losing power), ``restart()`` it, and it is stopped at teardown. ``wait_for(predicate)`` polls
with a bounded timeout instead of sleeping.

The worker inherits this process's environment (so ``REDIS_URL``, ``CACHE_KEY_PREFIX`` and the
throttling rates match the test process), with ``DATABASE_URL`` rewritten to the test database and
``DJANGO_SETTINGS_MODULE=critters_api.settings_test``. Extra variables can be given with
``start(extra_env=...)`` / ``restart(extra_env=...)``; they stay in force for later restarts.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import pytest

from tests.processes import REPO_ROOT as REPO_ROOT  # tests/deadlines/test_redis_down.py imports it from here
from tests.processes import ManagedProcess

T = TypeVar("T")

READY_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
CELERY_BIN = Path(sys.executable).with_name("celery")


def database_url_for(settings_dict: dict[str, Any]) -> str:
    """A ``postgres://`` URL for a Django connection's settings (pytest-django's test database)."""
    user = quote(str(settings_dict.get("USER") or ""), safe="")
    password = quote(str(settings_dict.get("PASSWORD") or ""), safe="")
    host = str(settings_dict.get("HOST") or "127.0.0.1")
    port = str(settings_dict.get("PORT") or "5432")
    name = quote(str(settings_dict["NAME"]), safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    return f"postgres://{auth}{host}:{port}/{name}"


class CeleryWorkerProcess:
    """One ``celery -A critters_api worker --beat`` subprocess in its own process group."""

    def __init__(self, workdir: Path, database_url: str, extra_env: dict[str, str] | None = None) -> None:
        self.workdir = workdir
        self.schedule_file = workdir / "celerybeat-schedule"
        self.database_url = database_url
        self.extra_env: dict[str, str] = dict(extra_env or {})
        self.nodename = f"critters-test-{uuid.uuid4().hex[:8]}@%h"
        self.starts = 0
        self.process = ManagedProcess(
            "the celery worker", workdir / "worker-0.log", stop_timeout=STOP_TIMEOUT
        )

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        return self.process.proc

    @property
    def log_path(self) -> Path:
        """This run's log (``worker-<n>.log`` for the n-th start)."""
        return self.process.log_path

    # --- lifecycle ---------------------------------------------------------------------------------
    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DATABASE_URL=self.database_url,
            DJANGO_SETTINGS_MODULE="critters_api.settings_test",
            PYTHONUNBUFFERED="1",
        )
        env.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
        env.update(self.extra_env)
        return env

    def command(self) -> list[str]:
        return [
            str(CELERY_BIN),
            "-A",
            "critters_api",
            "worker",
            "--beat",
            "-l",
            "INFO",
            "--concurrency=2",
            "--schedule",
            str(self.schedule_file),
            "-n",
            self.nodename,
            "--without-mingle",
            "--without-gossip",
        ]

    def start(self, extra_env: dict[str, str] | None = None) -> None:
        """Start the worker and wait (bounded) until it logs that it is ready."""
        assert not self.running, "the worker is already running"
        if extra_env:
            self.extra_env.update(extra_env)
        self.starts += 1
        self.process.log_path = self.workdir / f"worker-{self.starts}.log"
        self.process.start(self.command(), env=self.env())
        self.wait_ready()

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> None:
        self.process.wait_until(
            lambda: " ready." in (text := self.log()) and "beat: Starting..." in text, timeout, interval=0.05
        )

    @property
    def running(self) -> bool:
        return self.process.running

    def group_alive(self) -> bool:
        """Whether any process of the worker's process group is still alive."""
        return self.process.group_alive()

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL the whole process group (worker, pool children, embedded beat): no warm shutdown; returns
        when no process of the group is left (orphaned pool processes would keep consuming tasks)."""
        self.process.kill()

    def stop(self) -> None:
        """Warm shutdown (SIGTERM), bounded; SIGKILL if it does not finish in time."""
        self.process.stop()

    def restart(self, extra_env: dict[str, str] | None = None) -> None:
        """Kill -9 if still running, then start again (same beat schedule file, same node name)."""
        self.kill()
        self.start(extra_env)

    # --- observation -------------------------------------------------------------------------------
    def log(self) -> str:
        return self.process.log()

    def wait_for(self, predicate: Callable[[], T], timeout: float = 20.0, interval: float = 0.05) -> T:
        """Poll ``predicate`` until it returns something truthy (returned), else fail with the log tail."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() >= deadline:
                raise AssertionError(
                    f"condition not met within {timeout}s; worker running={self.running}; log tail:\n"
                    f"{self.log()[-3000:]}"
                )
            time.sleep(interval)


@pytest.fixture
def celery_worker_process(
    django_db_setup: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CeleryWorkerProcess]:
    """A real Celery worker + beat on the test database and the REDIS_URL of this run; stopped at teardown.

    The test using it needs ``@pytest.mark.django_db(transaction=True)``.
    """
    from django.db import connection

    from critters_api.celery import app

    app.control.purge()  # messages left in this run's broker db by an earlier run are not this test's
    worker = CeleryWorkerProcess(
        tmp_path_factory.mktemp("celery-worker"), database_url_for(dict(connection.settings_dict))
    )
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()
