"""Play a game to its end through the public HTTP API: every human seat's command is what a bot would choose
(``ruleset.bot_command`` on the server's state), sent by that seat's player over HTTP; bots and autopilot
seats are played by the service (``bots_play``, what the worker runs); when nobody can move, the clock jumps
past the step's deadline (the sweeper's timer)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from games import deadlines, loading, roster
from games.api.commands import kebab
from games.models import Game, GameStatus, Seat
from games.services import bots
from tests.conftest import Api


def play_to_end(game_id: int, apis: dict[int, Api], *, max_commands: int = 5_000, salt: int = 0) -> Game:
    """Play game ``game_id`` until it is over. ``apis`` maps player ids to their API clients; a human seat
    whose player has no client here is left to its deadlines (without one it must not block)."""
    for _ in range(max_commands):
        bots.bots_play(game_id, max_steps=100_000)
        game = Game.objects.get(pk=game_id)
        if game.status == GameStatus.OVER:
            return game
        rs = loading.ruleset_for(game)
        state = loading.load_state(game, rs)
        machines = roster.machine_seats(game, rs, state)
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
    raise AssertionError(f"game {game_id} did not end in {max_commands} commands")
