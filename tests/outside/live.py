"""The real service as a subprocess (gunicorn, gthread workers) on 127.0.0.1 and a free port, pointed at a
database by URL: the pytest-django test database (tests need ``django_db(transaction=True)``, the server is
another process and only sees committed rows), or a private throwaway PostgreSQL (fault tests), or the real
one (benchmarks). Every access-log line is kept, so a test can assert the server never answered 500."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO_ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")
READY_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
# access log: status, then the request line (the format is ours, see ACCESS_FORMAT)
ACCESS_FORMAT = '%(s)s "%(r)s" %(L)s'
_ACCESS_RE = re.compile(r'^(\d{3}) "([^"]*)" ([0-9.]+)$', re.MULTILINE)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


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
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = workdir / f"gunicorn-{self.port}.log"
        self.access_path = workdir / f"access-{self.port}.log"

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
        assert self.proc is None or self.proc.poll() is not None, "already running"
        with self.log_path.open("ab") as log:
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
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}:\n{self.log()[-4000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/api/schema/", timeout=5).status_code == 200:
                    return
            time.sleep(0.1)
        raise TimeoutError(f"gunicorn was not ready within {timeout}s:\n{self.log()[-4000:]}")

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=STOP_TIMEOUT)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

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
