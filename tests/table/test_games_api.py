"""Loose Triggers and Were-cats played over HTTP on the table: humans' tokens and bots, to the end; their
record and its verification pass (issues 15 and 16)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from games import deadlines, services
from games.api.commands import kebab
from games.models import Game, GameStatus, Seat
from tests.conftest import Api, make_api

pytestmark = pytest.mark.django_db


def play_to_end(game_id: int, apis: dict[int, Api], *, max_steps: int = 5_000, salt: int = 0) -> Game:
    """Every human seat sends what the sensible bot would choose, over HTTP; bots and autopilot seats are
    played by the service; when nobody can move, the clock jumps to the step's deadline (the sweeper)."""
    for _ in range(max_steps):
        services.bots_play(game_id, max_steps=100_000)
        game = Game.objects.get(pk=game_id)
        if game.status == GameStatus.OVER:
            return game
        rs = services.ruleset_for(game)
        state = services.load_state(game, rs)
        machines = services.machine_seats(game, rs, state)
        moved = False
        for seat in Seat.objects.filter(game=game, position__isnull=False).order_by("position"):
            if seat.position is None or seat.position in machines or seat.player_id not in apis:
                continue
            command: Any = rs.bot_command(state, seat.position, strategy="sensible", salt=salt)
            if command is None:
                continue
            # the request form: no type (the path names it), no default's reason (the table's alone)
            body = {k: v for k, v in rs.command_to_json(command).items() if k not in ("type", "reason")}
            response = apis[seat.player_id].command(game_id, kebab(command.TYPE), body)
            assert response.status_code == 200, (command, response.content)
            moved = True
            break
        if not moved:
            assert game.deadline_at is not None, f"game {game_id}: nobody can move and no deadline runs"
            deadlines.sweep(now=game.deadline_at + timedelta(seconds=1))
    raise AssertionError(f"game {game_id} did not end in {max_steps} steps")


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
