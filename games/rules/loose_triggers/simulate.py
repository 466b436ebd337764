"""A pure driver for whole bot games (tests, the benchmark): it plays the table's part (bots for the seats,
``CloseStep`` once a simultaneous step is done or a Countdown has run, default commands when a bot has
nothing to say) and returns every event."""

from __future__ import annotations

from collections.abc import Sequence

from .bots import bot_command
from .commands import CloseStep, Command
from .decide import step
from .events import Event
from .game import GAME
from .options import Options
from .state import INITIAL_STATE, PLAY, State
from .waiting import CLOSED_BY_TABLE, default_command, waiting

MAX_COMMANDS = 20_000


def play(
    n: int, seed: bytes, strategies: Sequence[str], options: Options | None = None, salt: int = 0
) -> tuple[list[Event], State]:
    """A whole game of ``n`` bots (``strategies[seat]``); raises if it does not end."""
    players = [f"p{i}" for i in range(n)]
    command: Command = GAME.start_command(players, options or Options(), seed)
    state = INITIAL_STATE
    events: list[Event] = []
    for turn in range(MAX_COMMANDS):
        new, state = step(state, command)  # decide folds its events as it makes them
        events.extend(new)
        nxt = next_command(state, strategies, salt + turn)
        if nxt is None:
            return events, state
        command = nxt
    raise RuntimeError("the game did not end")


def next_command(state: State, strategies: Sequence[str], salt: int) -> Command | None:
    """What the table would send next: a bot's command, else a close or a default."""
    if state.phase != PLAY or state.step is None:  # waiting(state) is None: the game is over
        return None
    n = state.n
    for i in range(n):
        seat = (salt + i) % n
        command = bot_command(state, seat, strategy=strategies[seat], salt=salt)
        if command is not None:
            return command
    w = waiting(state)
    assert w is not None
    if w.step in CLOSED_BY_TABLE:
        return CloseStep(seat=None, step_no=w.step_no)
    for seat in sorted(w.seats):
        command = default_command(state, seat, "timeout")
        if command is not None:
            return command
    raise RuntimeError(f"stuck at {w}")
