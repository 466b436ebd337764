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

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import pytest

T = TypeVar("T")

READY_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
CELERY_BIN = Path(sys.executable).with_name("celery")
REPO_ROOT = Path(__file__).resolve().parent.parent


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
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.log_path = workdir / "worker-0.log"

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
        self.log_path = self.workdir / f"worker-{self.starts}.log"
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                self.command(),
                cwd=REPO_ROOT,
                env=self.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.wait_ready()

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log()
            if " ready." in text and "beat: Starting..." in text:
                return
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"the celery worker exited with {self.proc.returncode}:\n{text[-4000:]}")
            time.sleep(0.05)
        raise TimeoutError(f"the celery worker was not ready within {timeout}s:\n{self.log()[-4000:]}")

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def group_alive(self) -> bool:
        """Whether any process of the worker's process group is still alive."""
        if self.proc is None:
            return False
        try:
            os.killpg(self.proc.pid, 0)
        except ProcessLookupError:
            return False
        return True

    @property
    def pid(self) -> int:
        assert self.proc is not None, "the worker was never started"
        return self.proc.pid

    def kill(self) -> None:
        """SIGKILL the whole process group (worker, pool children, embedded beat): no warm shutdown."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=STOP_TIMEOUT)
        self._reap_group()

    def stop(self) -> None:
        """Warm shutdown (SIGTERM), bounded; SIGKILL if it does not finish in time."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=STOP_TIMEOUT)
        self.kill()

    def restart(self, extra_env: dict[str, str] | None = None) -> None:
        """Kill -9 if still running, then start again (same beat schedule file, same node name)."""
        self.kill()
        self.start(extra_env)

    def _reap_group(self) -> None:
        """Make sure no child of the group survives (orphaned pool processes would keep consuming tasks)."""
        assert self.proc is not None
        pgid = self.proc.pid
        deadline = time.monotonic() + STOP_TIMEOUT
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        raise RuntimeError(f"process group {pgid} of the celery worker would not die")

    # --- observation -------------------------------------------------------------------------------
    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

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
