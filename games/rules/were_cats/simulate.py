"""A pure driver for whole bot games (tests, the benchmark): it plays the table's part (a bot for each seat
the game waits on, in a seat order that turns with every command) and returns every event."""

from __future__ import annotations

from collections.abc import Sequence

from .bots import bot_command
from .commands import Command
from .decide import step
from .events import Event
from .game import GAME
from .options import Options
from .state import INITIAL_STATE, OVER, PLACE, State

MAX_COMMANDS = 20_000


def play(
    n: int, seed: bytes, strategies: Sequence[str], options: Options | None = None, salt: int = 0
) -> tuple[list[Event], State]:
    """A whole game of ``n`` bots (``strategies[seat]``); raises if it does not end."""
    players = [f"p{i}" for i in range(n)]
    command: Command = GAME.start_command(players, options or GAME.options.parse({}), seed)
    state = INITIAL_STATE
    events: list[Event] = []
    for turn in range(MAX_COMMANDS):
        new, state = step(state, command)  # decide folds its events as it makes them
        events.extend(new)
        if state.phase == OVER:
            return events, state
        nxt = next_command(state, strategies, salt + turn)
        if nxt is None:
            raise RuntimeError(f"no bot moves in phase {state.phase}")
        command = nxt
    raise RuntimeError("the game did not end")


def next_command(state: State, strategies: Sequence[str], salt: int) -> Command | None:
    """The first bot command of the seats the game waits on, from seat ``salt % n`` clockwise: in Phase 1
    the first seat not done, else the seat whose turn it is (a bot answers for a seat the game waits on)."""
    n = state.n
    if state.phase == PLACE:
        done = state.done
        for i in range(n):
            seat = (salt + i) % n
            if not done[seat]:
                return bot_command(state, seat, strategy=strategies[seat], salt=salt)
        return None
    if state.turn is None:
        return None
    return bot_command(state, state.turn, strategy=strategies[state.turn], salt=salt)
