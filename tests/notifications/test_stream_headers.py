"""The stream's 200 declares, in the spec, every header the stream sends (issue #28 item 19:
``X-Accel-Buffering`` was sent and not declared), over a real ASGI server."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import yaml
from django.test import Client

from tests.conftest import make_api

from .helpers import AsgiServer

pytestmark = pytest.mark.django_db(transaction=True)

FRAMING = {"content-type", "date", "server", "transfer-encoding", "connection", "content-length"}
"""HTTP's own, sent by the server with any response (the media type is the response's content key)."""


@pytest.fixture(scope="module")
def server(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AsgiServer]:
    s = AsgiServer(tmp_path_factory.mktemp("asgi") / "uvicorn.log")
    s.start()
    try:
        yield s
    finally:
        s.stop()


def test_issue28_item19_the_spec_declares_every_header_the_stream_sends(server: AsgiServer) -> None:
    creator = make_api()
    game_id = creator.post("/api/v1/games", {"seats": 4}).json()["id"]
    with httpx.stream(
        "GET",
        f"{server.base_url}/api/v1/games/{game_id}/stream",
        headers={"Authorization": f"Bearer {creator.token}"},
        timeout=10,
    ) as r:
        assert r.status_code == 200
        sent = {name.lower(): value for name, value in r.headers.items()}
    assert sent.get("x-accel-buffering") == "no"
    # the site's own headers, on every response of the service (Django's security middleware), not the
    # stream's: those a plain 404 carries with the same value
    other = httpx.get(f"{server.base_url}/api/v1/no-such-thing", timeout=10)
    site = {name.lower() for name, value in other.headers.items() if sent.get(name.lower()) == value}
    spec = yaml.safe_load(Client().get("/api/schema/").content)
    declared = spec["paths"]["/api/v1/games/{game_id}/stream"]["get"]["responses"]["200"].get("headers", {})
    missing = sorted(set(sent) - FRAMING - site - {name.lower() for name in declared})
    assert not missing, f"sent by the stream, not in the spec: {missing} (sent: {sent})"
    for name, header in declared.items():
        assert header.get("description"), name
        assert name.lower() in sent, f"declared but not sent: {name}"
