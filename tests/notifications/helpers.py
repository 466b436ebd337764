"""Real servers on loopback for the notification tests: a webhook receiver (a threaded HTTP server that can
be told to fail its first requests) and a uvicorn ASGI server on the test database."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from tests.worker import database_url_for

REPO_ROOT = Path(__file__).resolve().parents[2]
UVICORN = Path(sys.executable).with_name("uvicorn")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    answered: int


@dataclass
class Receiver:
    """POSTs are recorded; the first ``fail_first`` answer 500 (then 204); ``always_fail`` answers 503."""

    fail_first: int = 0
    always_fail: bool = False
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
                    failing = receiver.always_fail or len(receiver.requests) < receiver.fail_first
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
    """``uvicorn critters_api.asgi:application`` on 127.0.0.1:<free port>, on the test database."""

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
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> AsgiServer:
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [
                    str(UVICORN),
                    "critters_api.asgi:application",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                cwd=REPO_ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"uvicorn exited:\n{self.log()[-3000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base_url}/healthz", timeout=1).status_code < 500:
                    return self
            time.sleep(0.05)
        raise TimeoutError(f"uvicorn not ready:\n{self.log()[-3000:]}")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


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
