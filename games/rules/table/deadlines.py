"""Deadlines: a step's deadline when it opens (R7.1, R7.5; during a pause from the pause's start, R7.6), the
timer that expires it (extensions, autopilot, the defaults: R7.1-R7.5 and the absent-player policy), its
warning, and the outage extension (R7.7)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from games.rules.core import Step

from . import commands as cmd
from . import events as ev
from .base import Run, TableBase, utc
from .errors import fail
from .pause import count_pause_votes, pause_end, resume
from .state import TableState

MAX_EXTENSION_SECONDS: Final = 30 * 24 * 3600


def due_at(state: TableState, seconds: int | None, now: datetime) -> str | None:
    """The deadline of a step opening now (R7.1). While paused no deadline runs: a step that opens during a
    pause opens as if at the pause's start, so that the resume, which moves the deadline by the time paused,
    gives it its full duration from the resume, not more (R7.6; without R7.6 it opens now)."""
    if seconds is None:
        return None
    start = utc(now)
    if state.paused_at is not None and state.pause_limit:
        start = datetime.fromisoformat(state.paused_at)
    return (start + timedelta(seconds=seconds)).isoformat()


class Deadlines(TableBase):
    """What the service asks of a step's deadline."""

    def warn_at(self, state: TableState) -> datetime | None:
        if state.due_at is None or state.paused_at is not None or state.warned == state.due_at:
            return None
        w = self._waiting(state.game) if state.opened else None
        if w is None or w.step_no != state.step_no or not self._unwarned(state, w):
            return None
        seconds = self.step_seconds_of(state, w)
        assert state.settings is not None
        before = state.settings.warn_before
        if before is None:
            before = (seconds or 0) // 4
        if before <= 0:
            return None
        return datetime.fromisoformat(state.due_at) - timedelta(seconds=before)

    def _unwarned(self, state: TableState, w: Step) -> tuple[int, ...]:
        return tuple(s for s in self._acting(state, w) if not state.autopilot[s])

    def step_seconds(self, state: TableState) -> int | None:
        w = self._waiting(state.game) if state.opened else None
        return None if w is None else self.step_seconds_of(state, w)


def expire(table: TableBase, run: Run, command: cmd.ExpireDeadline) -> None:
    """R7.1-R7.5 and the absent-player policy. A stale or early timer yields no events; while paused it is
    the pause's timer (R7.6: at or after the pause's end the game resumes)."""
    state = run.state
    game = table.game
    w = table._waiting(state.game)
    if w is None or command.step_no != state.step_no or w.step_no != state.step_no:
        return
    now = utc(run.ctx.now)
    if state.paused_at is not None:  # the timer of a pause is its end (R7.6; without R7.6, nothing)
        end = pause_end(state)
        if end is not None and now >= end:
            resume(run, "limit")
        return
    if state.due_at is None or now < datetime.fromisoformat(state.due_at):
        return
    settings = state.settings
    assert settings is not None
    missed = tuple(s for s in table._owing(state, w) if not state.resigned[s] and not state.autopilot[s])
    if missed:
        run.emit(ev.DeadlineMissed(step_no=state.step_no, step=w.step, seats=missed))
    extend = tuple(s for s in missed if state.extensions_left[s] > 0)
    seconds = table.step_seconds_of(state, w)
    if extend and seconds is not None:
        run.emit(
            ev.DeadlineExtended(
                step_no=state.step_no,
                step=w.step,
                due_at=(now + timedelta(seconds=seconds)).isoformat(),
                previous_due_at=state.due_at,
                reason="absence",
                seats=extend,
                unready=tuple(s for s in range(state.n) if run.state.ready[s]),
            )
        )
        return
    run.emit(ev.DeadlinePassed(step_no=state.step_no, step=w.step, due_at=state.due_at))
    engaged = False
    if settings.autopilot_after is not None:
        for seat in missed:
            if run.state.misses[seat] >= settings.autopilot_after and not run.state.autopilot[seat]:
                run.emit(ev.AutopilotEngaged(seat=seat, reason="absent"))
                engaged = True
    for seat in sorted(w.seats):  # the defaults, while the step is still this one
        current = game.waiting(run.state.game)
        if current is None or current.step_no != w.step_no:
            break
        default = game.default_command(run.state.game, seat, "timeout")
        if default is not None:
            run.play(default)
    current = None if game.is_terminal(run.state.game) else game.waiting(run.state.game)
    if w.closes and current is not None and current.step_no == w.step_no:
        close = game.close_command(w.step_no, "deadline")
        if close is not None:
            run.play(close)
    if engaged and run.state.pause_limit:
        count_pause_votes(run)  # fewer seats vote now (ruling 28)
    table._settle(run)


def warn(table: Deadlines, run: Run, command: cmd.WarnDeadline) -> None:
    state = run.state
    if command.step_no != state.step_no:
        return
    at = table.warn_at(state)
    if at is None or utc(run.ctx.now) < at or state.due_at is None or state.step is None:
        return
    w = table._waiting(state.game)
    assert w is not None
    run.emit(
        ev.DeadlineNear(
            step_no=state.step_no, step=state.step, due_at=state.due_at, seats=table._unwarned(state, w)
        )
    )


def extend(table: TableBase, run: Run, command: cmd.ExtendDeadline) -> None:
    """The timers were down when the deadline fell due (or it falls due soon after): extend it to ``seconds``
    from now instead of playing (no budget spent). An extension never brings a deadline earlier (R7.7):
    when ``seconds`` from now is not later than the step's deadline, nothing changes."""
    state = run.state
    if command.reason != "outage":
        fail("invalid_command", "the only system extension is for an outage")
    if type(command.seconds) is not int or not 1 <= command.seconds <= MAX_EXTENSION_SECONDS:
        fail("invalid_command", f"an extension is 1 to {MAX_EXTENSION_SECONDS} seconds")
    if command.step_no != state.step_no or state.due_at is None or state.paused_at is not None:
        return
    due = utc(run.ctx.now) + timedelta(seconds=command.seconds)
    if due <= datetime.fromisoformat(state.due_at):
        return
    run.emit(
        ev.DeadlineExtended(
            step_no=state.step_no,
            step=state.step or "",
            due_at=due.isoformat(),
            previous_due_at=state.due_at,
            reason="outage",
            seats=(),
            unready=(),
        )
    )
