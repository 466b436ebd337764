"""LT7.2 on the live stream (Server-Sent Events, a real uvicorn server on the test database): while the game
runs, each seat's snapshot and every event it is sent hide what the feed hides (another seat's Pal, hand,
choice, stack, a face-down card, the deck orders, the seed); the spectator's too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from games.models import Event
from tests.conftest import Api, make_api
from tests.notifications.helpers import AsgiServer, parse_sse
from tests.table.helpers import Seated, drive, open_game
from tests.table.test_loose_triggers_secrets import (
    OPTIONS,
    _check_event,
    _check_view,
    _later,
    _no_order_or_seed,
    _server,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def server(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AsgiServer]:
    s = AsgiServer(tmp_path_factory.mktemp("asgi") / "uvicorn.log", {"STREAM_KEEPALIVE_SECONDS": "0.5"})
    s.start()
    try:
        yield s
    finally:
        s.stop()


def _stream(
    server: AsgiServer, t: Seated, api: Api, count: int
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The snapshot and the first ``count`` events the stream sends to ``api``'s player."""
    snapshot: dict[str, Any] | None = None
    events: list[dict[str, Any]] = []
    with httpx.stream(
        "GET",
        f"{server.base_url}{t.url}/stream",
        headers={"Authorization": f"Bearer {api.token}"},
        timeout=10,
    ) as r:
        assert r.status_code == 200, r.read()
        for message in parse_sse(r.iter_lines()):
            if message.get("event") == "state":
                snapshot = json.loads(message["data"])
                break
    with httpx.stream(
        "GET",
        f"{server.base_url}{t.url}/stream?after=0",
        headers={"Authorization": f"Bearer {api.token}"},
        timeout=10,
    ) as r:
        assert r.status_code == 200, r.read()
        for message in parse_sse(r.iter_lines()):
            if message.get("event") == "game_event":
                events.append(json.loads(message["data"]))
                if len(events) == count:
                    break
    assert snapshot is not None
    return snapshot, events


def test_the_live_stream_keeps_loose_triggers_secrets_lt7_2(server: AsgiServer) -> None:
    t = open_game("loose_triggers", 5, [], OPTIONS)
    drive(t, t.by_seat, until=_later(t, 80))
    assert t.game().status == "running"
    g = _server(t)
    version = t.version()
    reveals = list(
        Event.objects.filter(game_id=t.game_id, type="ActionsRevealed").values_list("seq", flat=True)
    )
    viewers: list[tuple[int | None, Api]] = [*sorted(t.by_seat.items()), (None, make_api())]
    for viewer, api in viewers:
        where = f"stream of {viewer}"
        snapshot, events = _stream(server, t, api, version)
        assert snapshot["viewer"] == viewer
        _no_order_or_seed(snapshot, g, where)
        _check_view(snapshot["state"], viewer, g, where)
        assert [e["seq"] for e in events] == list(range(1, version + 1))
        for item in events:
            _no_order_or_seed(item, g, where)
            later = any(seq > item["seq"] for seq in reveals)
            _check_event(item["event"], viewer, later, f"{where}: {item['seq']}")
