"""The browser client's tests run the real service: uvicorn (ASGI, for the stream) on the test database, a
real Celery worker with beat (deadlines, the Countdown's timers), and Debian's Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.notifications.helpers import AsgiServer

DIST = Path(__file__).resolve().parents[2] / "web" / "dist" / "app.js"


@pytest.fixture(scope="module")
def web_server(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AsgiServer]:
    if not DIST.exists():
        pytest.fail(
            "web/dist/app.js is missing: build the browser client first (scripts/web; scripts/test does)"
        )
    server = AsgiServer(
        tmp_path_factory.mktemp("web-asgi") / "uvicorn.log",
        {"STREAM_KEEPALIVE_SECONDS": "2", "STREAM_POLL_SECONDS": "0.5"},
    ).start()
    try:
        yield server
    finally:
        server.stop()
