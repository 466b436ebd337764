"""What every part of the table shares: the running decision (:class:`Run`), the clock's UTC, and
:class:`TableBase`, what each concern of the :class:`~.ruleset.Table` (deadlines, absence, pause, ready flags,
views, moves) reads of the others."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from games.rules.core import Context, Step

from .evolve import with_game
from .game import Game
from .state import TableState

if TYPE_CHECKING:
    from .facts import FactsWriter


def utc(now: datetime) -> datetime:
    return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)


class TableBase:
    """The table's members its concerns share (set up by :class:`~.ruleset.Table`)."""

    game: Game[Any]
    slug: str
    facts: FactsWriter  # how this game's table facts are written (chosen once, when the table is built)
    _last: tuple[Any, Step | None]

    def evolve(self, state: TableState, event: Any) -> TableState:
        raise NotImplementedError

    def _settle(self, run: Run) -> None:
        raise NotImplementedError

    def _waiting(self, state: Any) -> Step | None:
        """``game.waiting(state)``, asked once per game state (the table asks it several times a command).
        One (state, step) pair, replaced whole: safe across threads."""
        last = self._last
        if last[0] is state:
            return last[1]
        w = self.game.waiting(state)
        self._last = (state, w)
        return w

    def step_seconds_of(self, state: TableState, w: Step) -> int | None:
        if w.seconds is not None:
            return w.seconds
        assert state.settings is not None
        return state.settings.deadline(w.deadline)

    def _owing(self, state: TableState, w: Step) -> tuple[int, ...]:
        """The seats that still owe the step something (a default would be played for them now)."""
        game = self.game
        return tuple(s for s in sorted(w.seats) if game.default_command(state.game, s, "timeout") is not None)

    def _acting(self, state: TableState, w: Step) -> tuple[int, ...]:
        """The seats the step still waits on: owing a play, or (ready flags) not ready yet."""
        owing = set(self._owing(state, w))
        return tuple(
            s
            for s in sorted(w.seats)
            if not state.resigned[s] and (s in owing or (w.ready and not state.ready[s]))
        )


class Run:
    """A running decision: the events so far and the state they lead to."""

    __slots__ = ("ctx", "events", "state", "table")

    def __init__(self, table: TableBase, state: TableState, ctx: Context) -> None:
        self.table = table
        self.state = state
        self.ctx = ctx
        self.events: list[Any] = []

    def emit(self, event: Any) -> None:
        self.events.append(event)
        self.state = self.table.evolve(self.state, event)

    def play(self, command: Any) -> None:
        """The game decides ``command`` (a player's, or one the table sends for a seat or a step); its events
        go into the log as the table writes this game's facts (``facts.record``)."""
        table = self.table
        events, state = table.game.step(self.state.game, command, self.ctx)  # folded by the game: not twice
        table.facts.record(self, events)
        self.state = with_game(self.state, state)
