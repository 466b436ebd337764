"""Real servers on loopback for the notification tests: a webhook receiver (a threaded HTTP server that can
be told to fail its first requests) and a uvicorn ASGI server on the test database."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.processes import ManagedProcess, free_port, http_ok
from tests.worker import database_url_for

UVICORN = Path(sys.executable).with_name("uvicorn")


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    answered: int
    at: float = field(default_factory=time.monotonic)
    """When it arrived (``time.monotonic``)."""


@dataclass
class Receiver:
    """POSTs are recorded; the first ``fail_first`` answer 500 (then 204); ``always_fail`` answers 503;
    ``fail_for(seconds)`` answers 500 to everything for that long (an outage in time)."""

    fail_first: int = 0
    always_fail: bool = False
    fail_until: float = 0.0
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                with receiver.lock:
                    failing = (
                        receiver.always_fail
                        or len(receiver.requests) < receiver.fail_first
                        or time.monotonic() < receiver.fail_until
                    )
                    status = (503 if receiver.always_fail else 500) if failing else 204
                    receiver.requests.append(Received(dict(self.headers.items()), body, status))
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def fail_for(self, seconds: float) -> None:
        with self.lock:
            self.fail_until = time.monotonic() + seconds

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def accepted(self) -> list[Received]:
        with self.lock:
            return [r for r in self.requests if r.answered == 204]


@contextlib.contextmanager
def receiver(**kwargs: Any) -> Iterator[Receiver]:
    r = Receiver(**kwargs).start()
    try:
        yield r
    finally:
        r.stop()


def wait_for(predicate: Callable[[], Any], timeout: float = 20.0, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        time.sleep(interval)


class AsgiServer:
    """``uvicorn critters_api.asgi:application`` on 127.0.0.1:<free port>, on the test database.

    It can be started again after ``stop`` (same address; the log starts over)."""

    def __init__(self, log_path: Path, extra_env: dict[str, str] | None = None) -> None:
        from django.db import connection

        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        env = dict(os.environ)
        env.update(
            DATABASE_URL=database_url_for(dict(connection.settings_dict)),
            DJANGO_SETTINGS_MODULE="critters_api.settings_test",
            PYTHONUNBUFFERED="1",
        )
        env.update(extra_env or {})
        self.env = env
        self.process = ManagedProcess("uvicorn", log_path, stop_timeout=10)

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        return self.process.proc

    def start(self) -> AsgiServer:
        command = [
            str(UVICORN),
            "critters_api.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
        ]
        self.process.start(command, env=self.env)
        self.process.wait_until(
            lambda: http_ok(f"{self.base_url}/healthz", ok=lambda status: status < 500), 30, interval=0.05
        )
        return self

    def log(self) -> str:
        return self.process.log()

    def stop(self) -> None:
        self.process.stop()


def parse_sse(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """SSE messages as dicts ``{event, id, data}``; a comment line (keep-alive) as ``{"comment": text}``."""
    message: dict[str, Any] = {}
    data: list[str] = []
    for line in lines:
        if line == "":
            if data or message:
                if data:
                    message["data"] = "\n".join(data)
                yield message
            message, data = {}, []
            continue
        if line.startswith(":"):
            yield {"comment": line[1:].strip()}
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        else:
            message[name] = value
