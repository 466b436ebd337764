"""Ready flags (GoodCritters R2.4, LT2.5, LT3.3): a seat raises its flag once its choice is made; any change
by a seat, or to it, lowers it again (the table, or a game's own events, ``facts``); a step with ready flags
closes once every seat in it is ready (the table's settling)."""

from __future__ import annotations

from . import commands as cmd
from . import events as ev
from .base import Run, TableBase
from .errors import fail


def set_ready(table: TableBase, run: Run, seat: int, command: cmd.SetReady) -> None:
    state = run.state
    w = table._waiting(state.game)
    if w is None or not w.ready or seat not in w.seats:
        fail("wrong_step", "no step with ready flags waits on you now")
    if command.ready == state.ready[seat]:
        fail("no_change", "you are already ready" if command.ready else "you are not ready")
    if command.ready and table.game.default_command(state.game, seat, "timeout") is not None:
        fail("action_not_chosen", "make your choice before you are ready (R2.4, LT3.3)")
    run.emit(ev.ReadySet(seat=seat, ready=command.ready))
    table._settle(run)
