"""A pure driver for whole bot games (tests, the benchmark): it plays the table's part (bots for the seats,
``CloseStep`` once a simultaneous step is done or a Countdown has run, default commands when a bot has
nothing to say) and returns every event."""

from __future__ import annotations

from collections.abc import Sequence

from .bots import bot_command
from .commands import CloseStep, Command
from .decide import decide
from .events import Event
from .evolve import evolve
from .game import GAME
from .hooks import CLOSED_BY_TABLE, default_command, waiting
from .options import Options
from .state import INITIAL_STATE, State

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
        new = decide(state, command)
        for event in new:
            state = evolve(state, event)
        events.extend(new)
        nxt = next_command(state, strategies, salt + turn)
        if nxt is None:
            return events, state
        command = nxt
    raise RuntimeError("the game did not end")


def next_command(state: State, strategies: Sequence[str], salt: int) -> Command | None:
    """What the table would send next: a bot's command, else a close or a default."""
    w = waiting(state)
    if w is None:
        return None
    n = state.n
    for seat in [(salt + i) % n for i in range(n)]:
        command = bot_command(state, seat, strategy=strategies[seat], salt=salt)
        if command is not None:
            return command
    if w.step in CLOSED_BY_TABLE:
        return CloseStep(seat=None, step_no=w.step_no)
    for seat in sorted(w.seats):
        command = default_command(state, seat, "timeout")
        if command is not None:
            return command
    raise RuntimeError(f"stuck at {w}")
