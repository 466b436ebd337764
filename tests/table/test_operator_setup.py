"""An operator's setup over HTTP for the table games: each game's own setup keys (its ``Setup`` type) beside
the seed and the seat order; a key of another game is refused; the game is then not fair (R8.2, LT7.2)."""

from __future__ import annotations

import pytest

from games import loading
from games.models import Game
from tests.conftest import assert_problem, make_api

pytestmark = pytest.mark.django_db


def test_an_operator_fixes_the_loot_deck_and_the_bagman_of_a_loose_triggers_game() -> None:
    op = make_api(staff=True)
    deck = list(range(55, -1, -1))
    body = {
        "ruleset": "loose_triggers",
        "seats": 4,
        "bots": ["sensible"] * 3,
        "setup": {"seed": "ab" * 32, "loot_deck": deck, "bagman": 2},
    }
    r = op.post("/api/v1/games", body)
    assert r.status_code == 201, r.content
    game = Game.objects.get(pk=r.json()["id"])
    state = loading.load_state(game, loading.ruleset_for(game)).game
    assert state.bagman == 2
    assert state.fair is False
    assert op.get(f"/api/v1/games/{game.pk}/state").json()["state"]["fair"] is False


def test_an_operator_fixes_the_first_seat_of_a_were_cats_game() -> None:
    op = make_api(staff=True)
    body = {"ruleset": "were_cats", "seats": 3, "bots": ["random"] * 2, "setup": {"first_seat": 2}}
    r = op.post("/api/v1/games", body)
    assert r.status_code == 201, r.content
    game = Game.objects.get(pk=r.json()["id"])
    assert loading.load_state(game, loading.ruleset_for(game)).game.first_seat == 2


def test_another_games_setup_key_is_refused_and_nothing_is_made() -> None:
    op = make_api(staff=True)
    before = Game.objects.count()
    r = op.post("/api/v1/games", {"ruleset": "were_cats", "seats": 3, "setup": {"pile": [1, 2, 3]}})
    assert_problem(r, 422, "invalid_setup")
    r = op.post("/api/v1/games", {"ruleset": "loose_triggers", "seats": 4, "setup": {"bagman": 9}})
    assert r.status_code == 422, r.content  # no seat 9 (checked when the setup is given)
    assert Game.objects.count() == before


def test_only_operators_set_a_game_up() -> None:
    player = make_api()
    r = player.post("/api/v1/games", {"ruleset": "were_cats", "seats": 3, "setup": {"first_seat": 1}})
    assert_problem(r, 403, "operators_only")
