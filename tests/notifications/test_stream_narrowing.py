"""The live stream's items say their game (issue #24): every `game_event` message carries `ruleset` and
validates as that game's member of `FeedItemOutput` (its event one of `{Name}Event`), for every ruleset;
streamed from a real uvicorn server (ASGI) on the test database."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
import yaml
from django.test import Client

from games.rules.registry import RULESETS
from tests.audit.play import play_to_end
from tests.conftest import make_api
from tests.spec_tools import Spec

from .helpers import AsgiServer, parse_sse

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
NAMES = {"goodcritters": "GoodCritters", "loose_triggers": "LooseTriggers", "were_cats": "WereCats"}
OPTIONS = {"goodcritters": {"fuzz_depth": [0.06, 0.08]}, "loose_triggers": {}, "were_cats": {"max_rounds": 1}}
SEATS = {"goodcritters": 4, "loose_triggers": 4, "were_cats": 3}


@pytest.fixture(scope="module")
def server(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AsgiServer]:
    s = AsgiServer(tmp_path_factory.mktemp("asgi") / "uvicorn.log", {"STREAM_KEEPALIVE_SECONDS": "0.5"})
    s.start()
    try:
        yield s
    finally:
        s.stop()


def test_every_streamed_item_says_its_game(server: AsgiServer) -> None:
    spec = Spec(yaml.safe_load(Client(HTTP_HOST="localhost").get("/api/schema/").content))
    for slug, name in NAMES.items():
        me = make_api()
        seats = SEATS[slug]
        r = me.post(
            "/api/v1/games",
            {"ruleset": slug, "seats": seats, "options": OPTIONS[slug], "bots": ["sensible"] * (seats - 1)},
        )
        assert r.status_code == 201, r.content
        game_id = r.json()["id"]
        game = play_to_end(game_id, {me.player.pk: me})
        items = []
        with httpx.stream(
            "GET",
            f"{server.base_url}/api/v1/games/{game_id}/stream?after=0",
            headers={"Authorization": f"Bearer {me.token}"},
            timeout=30,
        ) as response:
            assert response.status_code == 200
            for message in parse_sse(response.iter_lines()):
                if message.get("event") == "game_event":
                    items.append(json.loads(message["data"]))
                if message.get("event") == "end":
                    break
        assert len(items) == game.version
        for item in items:
            assert item["ruleset"] == slug
            assert not spec.errors({"$ref": f"#/components/schemas/{name}FeedItem"}, item), item
            assert not spec.errors({"$ref": "#/components/schemas/FeedItemOutput"}, item)
    assert set(NAMES) == set(RULESETS)
