"""The table's commands that need nothing from a game: messages, taking a seat back, handing a seat over,
the pause (by the creator or by vote, ruling 28), the resume (R7.6) and the outage extension: the table's own
commands (:mod:`.ruleset`), for every game.

``run`` is a running decision (``state``, ``ctx``, ``emit``); ``state`` has the seats' fields the table keeps
(``n``, ``players``, ``resigned``, ``autopilot``, ``pause_votes``, ``paused_at``, ``step_no``, ``due_at``).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Protocol

from games.rules.core import Context

from . import commands as cmd
from . import events as ev
from .errors import fail

MAX_MESSAGE_LENGTH: Final = 2000
MAX_EXTENSION_SECONDS: Final = 30 * 24 * 3600


class Run(Protocol):
    state: Any
    ctx: Context

    def emit(self, event: Any) -> None: ...


def utc(now: datetime) -> datetime:
    return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)


def send_message(run: Run, seat: int, command: cmd.SendMessage) -> None:
    """Talk is part of the record (R6.5): 1 to 2000 characters, public or to other seats, each once."""
    state = run.state
    text = command.text
    if not text.strip() or len(text) > MAX_MESSAGE_LENGTH:
        fail("invalid_message", f"a message has 1 to {MAX_MESSAGE_LENGTH} characters")
    to = command.to
    if to is not None:
        if not to or len(set(to)) != len(to) or seat in to or any(not 0 <= s < state.n for s in to):
            fail("invalid_message", "a private message goes to one or more other seats, each once")
        to = tuple(sorted(to))
    run.emit(ev.MessageSent(seat=seat, text=text, to=to))


def take_back(run: Run, seat: int) -> None:
    if not run.state.autopilot[seat]:
        fail("not_on_autopilot", "your seat is not on autopilot")
    run.emit(ev.AutopilotReleased(seat=seat, reason="taken_back"))


def check_hand_over_target(state: Any, command: cmd.HandOverSeat) -> None:
    if type(command.target) is not int or not 0 <= command.target < state.n:
        fail("invalid_hand_over", "no such seat in this game")
    if command.to not in ("bot", "player") or not command.player or command.player in state.players:
        fail("invalid_hand_over", "a seat goes to a bot or to a player new to this game")


def hand_over(run: Run, command: cmd.HandOverSeat) -> None:
    """An abandoned seat (on autopilot, not resigned) goes to a bot or to a player new to the game."""
    state = run.state
    check_hand_over_target(state, command)
    if not state.autopilot[command.target] or state.resigned[command.target]:
        fail("not_on_autopilot", "only an abandoned seat (on autopilot) can be handed over")
    run.emit(ev.AutopilotReleased(seat=command.target, reason="handed_over"))
    run.emit(ev.SeatHandedOver(seat=command.target, to=command.to, player=command.player))


def voters(state: Any) -> tuple[int, ...]:
    """The seats that vote on a pause: not resigned, not on autopilot."""
    return tuple(s for s in range(state.n) if not state.resigned[s] and not state.autopilot[s])


def count_pause_votes(run: Run, pause_by: str) -> None:
    """``pause_by = "vote"``: pause (or, while paused, resume) once the votes cast are a strict majority of
    the seats still playing (ruling 28)."""
    state = run.state
    if pause_by != "vote" or not state.pause_votes:
        return
    seats = voters(state)
    if len(state.pause_votes & set(seats)) * 2 > len(seats):
        if state.paused_at is None:
            pause(run, "vote")
        else:
            resume(run, "vote")


def pause(run: Run, by: str) -> None:
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


def pause_by_creator(run: Run, command: cmd.PauseGame | cmd.ResumeGame, pause_by: str) -> None:
    if pause_by != "creator":
        fail("pause_by_vote", "in this game the players pause and resume by vote (VotePause)")
    if isinstance(command, cmd.PauseGame):
        pause(run, "creator")
    else:
        resume(run, "creator")


def vote_pause(run: Run, seat: int, command: cmd.VotePause, pause_by: str) -> None:
    state = run.state
    if pause_by != "vote":
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
    count_pause_votes(run, pause_by)


def extend_for_outage(run: Run, command: cmd.ExtendDeadline, step: str) -> None:
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
            step=step,
            due_at=due.isoformat(),
            previous_due_at=state.due_at,
            reason="outage",
            seats=(),
            unready=(),
        )
    )
