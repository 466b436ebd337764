"""Issue #28, item 12 ("one account can fill the worker"): caps on the games one player may have open and
running, and games whose every seat is a bot for operators only, each refused with its own problem code and
nothing changed. The suite's settings turn the caps off (settings_test); these tests set them."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from games.models import Game, GameStatus, Seat
from tests.conftest import Api, assert_problem, make_api

pytestmark = pytest.mark.django_db


@pytest.fixture
def capped(settings: Any) -> Any:
    settings.MAX_OPEN_GAMES_PER_PLAYER = 3
    settings.MAX_RUNNING_GAMES_PER_PLAYER = 2
    settings.BOT_ONLY_GAMES_STAFF_ONLY = True
    return settings


def _full(creator: Api, seats: int = 4) -> int:
    r = creator.post("/api/v1/games", {"seats": seats})
    assert r.status_code == 201, r.content
    gid: int = r.json()["id"]
    for _ in range(seats - 1):
        assert make_api().post(f"/api/v1/games/{gid}/join").status_code == 200
    assert Game.objects.get(pk=gid).status == GameStatus.RUNNING
    return gid


def test_item12_open_games_per_player_are_capped_on_create_and_join(capped: Any) -> None:
    alice = make_api()
    for i in range(3):
        assert alice.post("/api/v1/games", {"seats": 4, "name": f"g{i}"}).status_code == 201
    before = Game.objects.count()
    assert_problem(alice.post("/api/v1/games", {"seats": 4}), 409, "too_many_open_games")
    assert Game.objects.count() == before  # nothing made
    other = make_api().post("/api/v1/games", {"seats": 4}).json()["id"]
    assert_problem(alice.post(f"/api/v1/games/{other}/join"), 409, "too_many_open_games")
    assert not Seat.objects.filter(game_id=other, player=alice.player).exists()
    # games joined count too, and a cancelled one frees its place
    mine = Game.objects.filter(creator=alice.player).first()
    assert mine is not None
    assert alice.post(f"/api/v1/games/{mine.pk}/cancel").status_code == 200
    assert alice.post(f"/api/v1/games/{other}/join").status_code == 200
    assert_problem(alice.post("/api/v1/games", {"seats": 4}), 409, "too_many_open_games")


def test_item12_running_games_per_player_are_capped(capped: Any) -> None:
    alice = make_api()
    _full(alice)
    _full(alice)
    assert_problem(alice.post("/api/v1/games", {"seats": 4}), 409, "too_many_running_games")
    other = make_api().post("/api/v1/games", {"seats": 4}).json()["id"]
    assert_problem(alice.post(f"/api/v1/games/{other}/join"), 409, "too_many_running_games")
    # a game that no longer runs no longer counts
    Game.objects.filter(creator=alice.player, status=GameStatus.RUNNING).update(status=GameStatus.CANCELLED)
    assert alice.post(f"/api/v1/games/{other}/join").status_code == 200


def test_item12_operators_have_no_cap(capped: Any) -> None:
    staff = make_api(staff=True)
    for _ in range(4):
        assert staff.post("/api/v1/games", {"seats": 4}).status_code == 201


def test_item12_a_bot_only_game_is_for_operators_only(capped: Any) -> None:
    alice = make_api()
    before = Game.objects.count()
    r = alice.post("/api/v1/games", {"seats": 4, "join": False, "bots": ["random"] * 4})
    assert_problem(r, 403, "bot_only_game")
    assert Game.objects.count() == before
    # filling the last seats with bots, or starting with only bots seated: refused the same way
    gid = alice.post("/api/v1/games", {"seats": 5, "join": False, "bots": ["random"] * 4}).json()["id"]
    assert_problem(alice.post(f"/api/v1/games/{gid}/bots", {"strategy": "random"}), 403, "bot_only_game")
    assert Seat.objects.filter(game_id=gid).count() == 4
    assert_problem(alice.post(f"/api/v1/games/{gid}/start"), 403, "bot_only_game")
    assert Game.objects.get(pk=gid).status == GameStatus.OPEN
    # a human seat makes it a game
    assert make_api().post(f"/api/v1/games/{gid}/join").json()["status"] == "running"
    staff = make_api(staff=True)
    r = staff.post("/api/v1/games", {"seats": 4, "join": False, "bots": ["random"] * 4})
    assert r.status_code == 201, r.content
    assert r.json()["status"] == "running"


def test_item12_the_caps_are_in_the_spec_as_codes_of_their_operations() -> None:
    from critters_api.error_codes import SERVICE_ERRORS
    from critters_api.schema import OPERATION_SCOPES

    scopes = {e.code: e.scope for e in SERVICE_ERRORS if e.scope in ("caps", "bot_only")}
    assert scopes == {
        "too_many_open_games": "caps",
        "too_many_running_games": "caps",
        "bot_only_game": "bot_only",
    }
    assert {"caps", "bot_only"} <= set(OPERATION_SCOPES["games_create"])
    assert "caps" in OPERATION_SCOPES["games_join"]
    assert "bot_only" in OPERATION_SCOPES["games_bots_create"]


def test_item12_production_defaults_cap_open_and_running_games_and_bot_only_games() -> None:
    """The suite turns the caps off: the production settings, without those variables, have them on."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("MAX_OPEN_GAMES_PER_PLAYER", "MAX_RUNNING_GAMES_PER_PLAYER", "BOT_ONLY_GAMES_STAFF_ONLY")
    }
    env["SECRET_KEY"] = "x" * 60
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import critters_api.settings as s; print(s.MAX_OPEN_GAMES_PER_PLAYER, "
            "s.MAX_RUNNING_GAMES_PER_PLAYER, s.BOT_ONLY_GAMES_STAFF_ONLY)",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["10", "30", "True"]
