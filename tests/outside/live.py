"""The real service as a subprocess (gunicorn, gthread workers) on 127.0.0.1 and a free port, pointed at a
database by URL: the pytest-django test database (tests need ``django_db(transaction=True)``, the server is
another process and only sees committed rows), or a private throwaway PostgreSQL (fault tests), or the real
one (benchmarks). Every access-log line is kept, so a test can assert the server never answered 500."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.processes import REPO_ROOT as REPO_ROOT  # tests/outside/private.py imports it from here
from tests.processes import ManagedProcess, free_port, http_ok

GUNICORN = Path(sys.executable).with_name("gunicorn")
READY_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
# access log: status, then the request line (the format is ours, see ACCESS_FORMAT)
ACCESS_FORMAT = '%(s)s "%(r)s" %(L)s'
_ACCESS_RE = re.compile(r'^(\d{3}) "([^"]*)" ([0-9.]+)$', re.MULTILINE)


class LiveServer:
    """``gunicorn critters_api.wsgi`` in its own process group; ``url`` is its base URL."""

    def __init__(
        self,
        workdir: Path,
        database_url: str,
        *,
        redis_url: str | None = None,
        workers: int = 2,
        threads: int = 4,
        extra_env: dict[str, str] | None = None,
        settings_module: str = "critters_api.settings_test",
        keepalive: int | None = None,
    ) -> None:
        self.workdir = workdir
        self.database_url = database_url
        self.redis_url = redis_url
        self.workers = workers
        self.threads = threads
        self.extra_env = dict(extra_env or {})
        self.settings_module = settings_module
        self.keepalive = keepalive  # gunicorn's --keep-alive in seconds (None: gunicorn's default, 2 s)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / f"gunicorn-{self.port}.log"
        self.access_path = workdir / f"access-{self.port}.log"
        self.process = ManagedProcess("gunicorn", self.log_path, stop_timeout=STOP_TIMEOUT)

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        return self.process.proc

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DATABASE_URL=self.database_url,
            DJANGO_SETTINGS_MODULE=self.settings_module,
            PYTHONUNBUFFERED="1",
        )
        if self.redis_url is not None:
            env["REDIS_URL"] = self.redis_url
        env.update(self.extra_env)
        return env

    def command(self) -> list[str]:
        keepalive = [] if self.keepalive is None else ["--keep-alive", str(self.keepalive)]
        return [
            str(GUNICORN),
            "critters_api.wsgi:application",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            str(self.workers),
            "--worker-class",
            "gthread",
            "--threads",
            str(self.threads),
            "--timeout",
            "60",
            "--graceful-timeout",
            "5",
            "--access-logfile",
            str(self.access_path),
            "--access-logformat",
            ACCESS_FORMAT,
            "--error-logfile",
            "-",
            *keepalive,
        ]

    def start(self) -> None:
        self.process.start(self.command(), env=self.env(), append=True)
        self.wait_ready()

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> None:
        self.process.wait_until(lambda: http_ok(f"{self.url}/api/schema/", timeout=5), timeout)

    def stop(self) -> None:
        """SIGTERM to the process group, SIGKILL after ``STOP_TIMEOUT``; returns when none of it is left."""
        self.process.stop()

    def log(self) -> str:
        return self.process.log()

    def access_lines(self) -> list[tuple[int, str, float]]:
        """(status, request line, seconds) of every request served so far."""
        try:
            text = self.access_path.read_text(errors="replace")
        except FileNotFoundError:
            return []
        return [(int(m.group(1)), m.group(2), float(m.group(3))) for m in _ACCESS_RE.finditer(text)]

    def server_errors(self, since: int = 0) -> list[str]:
        """Request lines the server answered with 500 (a 500 is a bug), from access line ``since`` on."""
        return [line for status, line, _ in self.access_lines()[since:] if status == 500]
