"""Ruling 32 through the public HTTP API: a game created in the lobby before R7.6 (its stored options have
no ``max_pause``) and started after it plays under rules 3, and its record still verifies."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.conftest import make_api

pytestmark = pytest.mark.django_db


def test_a_game_created_before_r7_6_and_started_after_verifies() -> None:
    apis = [make_api() for _ in range(4)]
    r = apis[0].post("/api/v1/games", {"seats": 4, "options": {"payoffs": True}})
    assert r.status_code == 201, r.content
    game_id = r.json()["id"]
    for api in apis[1:3]:
        assert api.post(f"/api/v1/games/{game_id}/join").status_code == 200
    game = Game.objects.get(pk=game_id)
    del game.options["max_pause"]  # as the server before R7.6 stored them
    game.save(update_fields=["options"])
    assert apis[3].post(f"/api/v1/games/{game_id}/join").status_code == 200  # the game starts
    for api in apis:
        assert api.post(f"/api/v1/games/{game_id}/commands/resign", {}).status_code == 200
    record = apis[0].get(f"/api/v1/games/{game_id}/record")
    assert record.status_code == 200, record.content
    assert record.json()["game"]["ruleset_version"] == "3"
    assert record.json()["events"][0]["data"]["rules"] == 3
    verdict = apis[0].get(f"/api/v1/games/{game_id}/verify").json()
    assert verdict["ok"] is True, verdict["error"]
