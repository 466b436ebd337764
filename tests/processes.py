"""A subprocess that a test or benchmark harness starts and stops: a server, a worker.

``ManagedProcess`` runs one command at a time in its own process group (so the whole tree it spawns can be
signalled at once) with stdout and stderr going to a log file. ``wait_until`` polls a readiness check and
fails fast, with the log tail, if the process exits meanwhile; ``stop`` sends SIGTERM to the group, waits
(bounded), then SIGKILLs the group and waits until no process of it is left. The same handle can be started
again after a stop. Importable without Django or pytest (the benchmarks use it too).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import httpx

T = TypeVar("T")

REPO_ROOT = Path(__file__).resolve().parents[1]
LOG_TAIL = 4000  # characters of the log quoted in an error


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def http_ok(
    url: str, *, timeout: float = 1.0, ok: Callable[[int], bool] = lambda status: status == 200
) -> bool:
    """Whether a GET of ``url`` is answered with a status ``ok`` accepts (False on any transport error)."""
    try:
        return ok(httpx.get(url, timeout=timeout).status_code)
    except httpx.HTTPError:
        return False


class ManagedProcess:
    """One command at a time in its own process group, stdout and stderr to ``log_path``.

    ``name`` ("gunicorn", "the celery worker", ...) names it in errors. ``log_path`` may be changed between
    runs (the next ``start`` writes there). ``stop_timeout`` bounds each wait of ``stop`` and ``kill``.
    """

    def __init__(self, name: str, log_path: Path, *, stop_timeout: float = 15.0) -> None:
        self.name = name
        self.log_path = log_path
        self.stop_timeout = stop_timeout
        self.proc: subprocess.Popen[bytes] | None = None

    def start(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path = REPO_ROOT,
        append: bool = False,
    ) -> None:
        """Start ``command`` (``env`` None: this process's environment); the log is truncated unless
        ``append``. Does not wait: follow with ``wait_until``."""
        assert not self.running, f"{self.name} is already running"
        with self.log_path.open("ab" if append else "wb") as log:
            self.proc = subprocess.Popen(
                list(command),
                cwd=cwd,
                env=None if env is None else dict(env),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_until(
        self, check: Callable[[], T], timeout: float, what: str = "ready", interval: float = 0.1
    ) -> T:
        """Poll ``check`` until it returns something truthy (returned); fail at once with the log tail if the
        process exits first (RuntimeError), or after ``timeout`` seconds (TimeoutError)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with {self.proc.returncode} before it was {what}:\n{self.log_tail()}"
                )
            value = check()
            if value:
                return value
            time.sleep(interval)
        raise TimeoutError(f"{self.name} was not {what} within {timeout}s:\n{self.log_tail()}")

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self) -> int:
        assert self.proc is not None, f"{self.name} was never started"
        return self.proc.pid

    def group_alive(self) -> bool:
        """Whether any process of the process group is still alive."""
        if self.proc is None:
            return False
        try:
            os.killpg(self.proc.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def stop(self) -> None:
        """SIGTERM to the group and wait (bounded) for the process to exit; then ``kill`` what is left."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=self.stop_timeout)
        self.kill()

    def kill(self) -> None:
        """SIGKILL to the group, reap the process, and wait (bounded) until no process of the group is left
        (an orphaned child would keep serving or consuming tasks)."""
        if self.proc is None:
            return
        pgid = self.proc.pid
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        self.proc.wait(timeout=self.stop_timeout)
        deadline = time.monotonic() + self.stop_timeout
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        raise RuntimeError(f"process group {pgid} of {self.name} would not die")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, chars: int = LOG_TAIL) -> str:
        return self.log()[-chars:]
