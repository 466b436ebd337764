"""The table's state: the game's own state plus what the table keeps per seat and per step."""

from __future__ import annotations

from typing import Any, NamedTuple

from .options import Settings


class TableState(NamedTuple):
    game: Any  # the game's own state
    opened: bool = False  # TableOpened seen (the game has started)
    n: int = 0
    players: tuple[str, ...] = ()  # the seats' holders now
    settings: Settings | None = None
    resigned: tuple[bool, ...] = ()
    autopilot: tuple[bool, ...] = ()
    misses: tuple[int, ...] = ()  # deadlines missed in a row
    extensions_left: tuple[int, ...] = ()
    ready: tuple[bool, ...] = ()  # ready flags of the current step (steps with ready flags)
    step_no: int = -1  # the step whose deadline the table keeps (DeadlineSet)
    step: str | None = None
    due_at: str | None = None
    warned: str | None = None  # the deadline a warning was given for
    paused_at: str | None = None
    pause_votes: frozenset[int] = frozenset()
    pause_limit: bool = True  # R7.6 applies (not in GoodCritters' rules 2, ruling 32)


def setitem(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])
