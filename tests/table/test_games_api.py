"""Loose Triggers and Were-cats played over HTTP on the table: humans' tokens and bots, to the end; their
record and its verification pass (issues 15 and 16)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.audit.play import play_to_end
from tests.conftest import Api, make_api

__all__ = ["play_to_end"]  # the table tests' helpers import it from here

pytestmark = pytest.mark.django_db


def _open(ruleset: str, humans: int, bots: list[str], options: dict[str, Any]) -> tuple[int, list[Api]]:
    apis = [make_api() for _ in range(humans)]
    seats = humans + len(bots)
    r = apis[0].post("/api/v1/games", {"ruleset": ruleset, "seats": seats, "options": options, "bots": bots})
    assert r.status_code == 201, r.content
    game_id = r.json()["id"]
    for api in apis[1:]:
        assert api.post(f"/api/v1/games/{game_id}/join").status_code == 200, game_id
    return game_id, apis


@pytest.mark.parametrize(
    ("ruleset", "humans", "bots"),
    [
        ("loose_triggers", 3, ["sensible", "random", "sensible"]),
        ("loose_triggers", 8, []),
        ("were_cats", 2, ["random"]),
        ("were_cats", 5, []),
    ],
)
def test_a_game_is_played_to_its_end_and_verifies(ruleset: str, humans: int, bots: list[str]) -> None:
    game_id, apis = _open(ruleset, humans, bots, {})
    state = apis[0].get(f"/api/v1/games/{game_id}/state")
    assert state.status_code == 200, state.content
    body = state.json()
    assert body["state"]["ruleset"] == ruleset
    assert body["state"]["play"]["step_no"] >= 0
    game = play_to_end(game_id, {api.player.pk: api for api in apis})
    assert game.status == "over"
    record = apis[0].get(f"/api/v1/games/{game_id}/record")
    assert record.status_code == 200, record.content
    verdict = apis[0].get(f"/api/v1/games/{game_id}/verify")
    assert verdict.status_code == 200, verdict.content
    assert verdict.json()["ok"] is True, verdict.json()
