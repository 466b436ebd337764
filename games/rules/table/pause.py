"""The pause: by the creator or by vote (ruling 28), its end by itself after the longest pause (R7.6) and the
resume, which moves the step's deadline by the time paused."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from . import commands as cmd
from . import events as ev
from .base import Run, TableBase, utc
from .errors import fail
from .state import TableState


def pause_end(state: TableState) -> datetime | None:
    """When the pause ends by itself (R7.6), or ``None`` when the game is not paused (or plays without
    R7.6: a game of GoodCritters started under its rules 2, ruling 32)."""
    if state.paused_at is None or state.settings is None or not state.pause_limit:
        return None
    return datetime.fromisoformat(state.paused_at) + timedelta(seconds=state.settings.max_pause)


def _pause_by(run: Run) -> str:
    assert run.state.settings is not None
    return run.state.settings.pause_by


def voters(state: TableState) -> tuple[int, ...]:
    """The seats that vote on a pause: not resigned, not on autopilot."""
    return tuple(s for s in range(state.n) if not state.resigned[s] and not state.autopilot[s])


def _count_votes(run: Run) -> None:
    """``pause_by = "vote"``: pause (or, while paused, resume) once the votes cast are a strict majority of
    the seats still playing (ruling 28)."""
    state = run.state
    if _pause_by(run) != "vote" or not state.pause_votes:
        return
    seats = voters(state)
    if len(state.pause_votes & set(seats)) * 2 > len(seats):
        if state.paused_at is None:
            _pause(run, "vote")
        else:
            resume(run, "vote")


def count_pause_votes(run: Run) -> None:
    """The votes cast, counted again when fewer seats vote (ruling 28); no pause after the end."""
    if not run.table.game.is_terminal(run.state.game):
        _count_votes(run)


def _pause(run: Run, by: str) -> None:
    if run.state.paused_at is not None:
        fail("already_paused", "the game is already paused")
    run.emit(ev.GamePaused(at=utc(run.ctx.now).isoformat(), by=by))


def resume(run: Run, by: str) -> None:
    """The pause ends; the step's deadline moves by the time paused."""
    state = run.state
    if state.paused_at is None:
        fail("not_paused", "the game is not paused")
    paused = utc(run.ctx.now) - datetime.fromisoformat(state.paused_at)
    due = (datetime.fromisoformat(state.due_at) + paused).isoformat() if state.due_at is not None else None
    run.emit(ev.GameResumed(by=by, paused_seconds=max(0, math.ceil(paused.total_seconds())), due_at=due))


def pause_by_creator(table: TableBase, run: Run, command: cmd.PauseGame | cmd.ResumeGame) -> None:
    if _pause_by(run) != "creator":
        fail("pause_by_vote", "in this game the players pause and resume by vote (VotePause)")
    if isinstance(command, cmd.PauseGame):
        _pause(run, "creator")
    else:
        resume(run, "creator")


def vote_pause(table: TableBase, run: Run, seat: int, command: cmd.VotePause) -> None:
    state = run.state
    if _pause_by(run) != "vote":
        fail("pause_by_creator", "in this game only the creator pauses and resumes")
    if state.autopilot[seat]:
        fail("not_on_autopilot", "take your seat back first (TakeBackSeat)")
    if command.pause and state.paused_at is not None:
        fail("already_paused", "the game is already paused: vote to resume (pause: false)")
    if not command.pause and state.paused_at is None:
        fail("not_paused", "the game is not paused: vote to pause (pause: true)")
    if seat in state.pause_votes:
        fail("no_change", "you have already voted")
    run.emit(ev.PauseVoted(seat=seat, pause=command.pause))
    _count_votes(run)
