"""Run by ``test_fourth_game.py`` in a process where a toy game (``pebbles``, copied into a temporary folder)
is registered by ``CRITTERS_EXTRA_GAMES`` and by nothing else: it is hosted end to end. Not collected on its
own (its name is not ``test_*``): without the toy game registered it fails."""

from __future__ import annotations

from typing import Any

import pytest

from games.audit import signature
from games.audit.verify import verify_record
from games.rules.registry import HOSTED, RULESETS
from tests.audit.play import play_to_end
from tests.conftest import make_api

pytestmark = pytest.mark.django_db

SLUG = "pebbles"


def test_the_toy_game_is_registered_from_outside_the_repository() -> None:
    assert SLUG in RULESETS, sorted(RULESETS)
    assert "tests" not in type(HOSTED[SLUG]).__module__  # the copy in the temporary folder, not the source


def test_the_toy_game_is_offered_documented_and_served_its_rules_page() -> None:
    api = make_api()
    spec = api.client.get("/api/schema/?format=json").json()
    assert "Pebbles (`pebbles`)" in spec["info"]["description"]
    assert SLUG in spec["components"]["schemas"]["RulesetEnum"]["enum"]
    assert "PebblesView" in spec["components"]["schemas"], sorted(spec["components"]["schemas"])
    paths = [p for p in spec["paths"] if p.endswith(("/take", "/skip-turn"))]
    assert paths, "no endpoint for the toy game's commands"
    page = api.client.get(f"/rules/{SLUG}")
    assert page.status_code == 200
    assert "Pebbles" in page.content.decode()


@pytest.mark.parametrize(("humans", "bots", "options"), [(2, ["random"], {"most": 3}), (1, ["sensible"], {})])
def test_the_toy_game_is_created_played_by_bots_over_http_to_its_end_and_its_record_verifies(
    humans: int, bots: list[str], options: dict[str, Any]
) -> None:
    apis = [make_api() for _ in range(humans)]
    r = apis[0].post(
        "/api/v1/games", {"ruleset": SLUG, "seats": humans + len(bots), "options": options, "bots": bots}
    )
    assert r.status_code == 201, r.content
    game_id = r.json()["id"]
    for api in apis[1:]:
        assert api.post(f"/api/v1/games/{game_id}/join").status_code == 200
    body = apis[0].get(f"/api/v1/games/{game_id}/state").json()
    assert body["state"]["ruleset"] == SLUG
    assert 30 <= body["state"]["pile"] <= 35  # PB1.2
    assert body["state"]["seed"] is None

    # the humans send what the sensible bot would, over HTTP; the machine seats are played by the bot service
    game = play_to_end(game_id, {api.player.pk: api for api in apis})
    assert game.status == "over"

    state = apis[0].get(f"/api/v1/games/{game_id}/state").json()["state"]
    assert state["over"]
    assert state["pile"] == 0
    assert sorted(state["scores"]) == [0] * (humans + len(bots) - 1) + [1]
    record = apis[0].get(f"/api/v1/games/{game_id}/record")
    assert record.status_code == 200, record.content
    assert record.json()["game"]["ruleset"] == SLUG
    verdict = apis[0].get(f"/api/v1/games/{game_id}/verify")
    assert verdict.status_code == 200, verdict.content
    assert verdict.json()["ok"] is True, verdict.json()
    # the offline verifier (games.audit), on the exported record alone
    published = apis[0].client.get("/.well-known/goodcritters-record-key").content.decode()
    keys = signature.public_keys_from(published)
    offline = verify_record(record.json(), keys=keys)
    assert offline.ok, offline
    # and a record tampered with does not verify
    bad = record.json()
    bad["events"][-2]["data"]["count"] = 3 - bad["events"][-2]["data"]["count"]
    assert not verify_record(bad, keys=keys).ok
