"""The web server of ``scripts/serve`` keeps an idle connection open longer than its clients do (issue #26,
keep-alive remark): common HTTP clients close an idle kept-alive connection after 5 s, and so did the
server, so a client reusing a connection at the moment the server closed it got a connection reset. The
server must be the one that waits longer.

The web program's command line is taken from ``scripts/supervisord.conf`` as supervisor runs it (gunicorn,
uvicorn workers), on a free port; a raw socket sends a request, stays idle for 6 s, and sends another on the
same connection."""

from __future__ import annotations

import configparser
import os
import shlex
import socket
import time
from pathlib import Path

import pytest

from tests.processes import REPO_ROOT, ManagedProcess, free_port, http_ok

pytestmark = [pytest.mark.slow]

IDLE = 6.0  # longer than the 5 s after which common clients drop an idle connection


def web_command(port: int, var_dir: Path) -> list[str]:
    parser = configparser.RawConfigParser()
    parser.read(REPO_ROOT / "scripts" / "supervisord.conf")
    line = " ".join(parser.get("program:web", "command").split())
    values = {
        "here": str(REPO_ROOT / "scripts"),
        "ENV_PORT": str(port),
        "ENV_WEB_CONCURRENCY": "1",
        "ENV_CRITTERS_VAR_DIR": str(var_dir),
    }
    return shlex.split(line % values)


def _request(sock: socket.socket) -> bytes:
    """One request and its whole response (headers, then the body its ``Content-Length`` says), so that
    nothing of it is left on the connection to be read as the next response."""
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def test_an_idle_kept_alive_connection_outlives_the_clients_5_seconds(tmp_path: Path) -> None:
    """Any answer will do (the database is not this test's business): what counts is that the second
    request on the connection is answered, not reset."""
    port = free_port()
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="critters_api.settings_test", PYTHONUNBUFFERED="1")
    server = ManagedProcess("gunicorn", tmp_path / "web.log", stop_timeout=15)
    server.start(web_command(port, tmp_path), env=env)
    try:
        server.wait_until(
            lambda: http_ok(f"http://127.0.0.1:{port}/healthz", timeout=5, ok=lambda status: status > 0),
            60,
            interval=0.1,
        )
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            first = _request(sock)
            assert first.startswith(b"HTTP/1.1 "), first[:200]
            time.sleep(IDLE)
            try:
                second = _request(sock)
            except ConnectionResetError:
                second = b"(reset)"
            assert second.startswith(b"HTTP/1.1 "), (
                f"the server closed the idle connection within {IDLE} s: {second[:200]!r}"
            )
    finally:
        server.stop()
