"""The cross-game inbox: the caller's running games that wait on them now (R7.1 steps, R7.5 deadlines), with
an ETag that makes polling cheap."""

from __future__ import annotations

from typing import Any

import pytest

from games import loading
from games.models import Game
from games.rules.registry import get_ruleset
from tests.conftest import Api, make_api

from .test_webhooks import SHORT, new_game

RULESET = get_ruleset("goodcritters")


def waits_on(game_id: int) -> set[int]:
    waiting = RULESET.waiting(loading.load_state(Game.objects.get(pk=game_id)))
    return set(waiting.seats) if waiting else set()


def seat_of(api: Api, game_id: int) -> int:
    state: dict[str, Any] = api.get(f"/api/v1/games/{game_id}/state").json()
    seat: int = state["viewer"]
    return seat


@pytest.mark.django_db
def test_the_inbox_lists_the_games_waiting_on_you_with_their_deadlines_r7_1() -> None:
    apis = [make_api() for _ in range(4)]
    timed = new_game(apis, {**SHORT, "deadlines": {"distribute": 600, "choose": 600}})
    untimed = new_game([apis[3], apis[2], apis[1], apis[0]])
    outsider = make_api()
    assert outsider.get("/api/v1/me/inbox").json() == {"games": []}
    listed: dict[int, set[int]] = {timed: set(), untimed: set()}
    for api in apis:
        r = api.get("/api/v1/me/inbox")
        assert r.status_code == 200, r.content
        items = r.json()["games"]
        for item in items:
            game = Game.objects.get(pk=item["game_id"])
            waiting = RULESET.waiting(loading.load_state(game))
            assert waiting is not None
            assert item["seat"] == seat_of(api, game.pk)
            assert (item["step_no"], item["step"]) == (waiting.step_no, waiting.step)
            assert item["legal_commands"]
            assert (item["due_at"] is not None) == (game.pk == timed)
            listed[game.pk].add(item["seat"])
        dues = [item["due_at"] is None for item in items]
        assert dues == sorted(dues)  # soonest deadline first, games without one last
    assert listed == {timed: waits_on(timed), untimed: waits_on(untimed)}
    assert listed[timed]
    assert listed[untimed]


@pytest.mark.django_db
def test_the_inbox_etag_gives_304_until_one_of_your_games_changes() -> None:
    apis = [make_api() for _ in range(4)]
    game_id = new_game(apis)
    me = apis[0]
    first = me.get("/api/v1/me/inbox")
    etag = first["ETag"]
    again = me.get("/api/v1/me/inbox", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    # a game of someone else changing changes nothing for me
    new_game([make_api() for _ in range(4)])
    assert me.get("/api/v1/me/inbox", headers={"If-None-Match": etag}).status_code == 304
    # a move in my game does
    assert me.command(game_id, "send-message", {"text": "hi"}).status_code == 200
    changed = me.get("/api/v1/me/inbox", headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    # someone else's inbox has another ETag
    assert apis[1].get("/api/v1/me/inbox")["ETag"] != changed["ETag"]


@pytest.mark.django_db
def test_the_inbox_needs_a_token(client: Any) -> None:
    r = client.get("/api/v1/me/inbox")
    assert r.status_code == 401
    assert r["Content-Type"].startswith("application/problem+json")
