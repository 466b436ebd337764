"""Absence: resignation (R7.4, LT7.3, WC4.3), the autopilot and taking a seat back, and handing a seat over
(an abandoned one, or a stalled one: ruling 13)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from . import commands as cmd
from . import events as ev
from .base import Run, TableBase, utc
from .errors import fail
from .pause import count_pause_votes, resume
from .state import TableState

STALL_SECONDS: Final = 7 * 24 * 3600  # ruling 13: a seat a step without a deadline waited on this long


class Absence(TableBase):
    """What the service asks of absent seats."""

    def autopilot_seats(self, state: TableState) -> frozenset[int]:
        return frozenset(s for s in range(state.n) if state.autopilot[s] and not state.resigned[s])

    def stalled_seats(self, state: TableState) -> frozenset[int]:
        """The seats a step without a deadline waits on (owing a play, or not ready), not on autopilot and not
        resigned, while the game is not paused: those the creator may hand over once idle ``STALL_SECONDS``
        (ruling 13)."""
        if not state.opened or state.paused_at is not None or self.game.is_terminal(state.game):
            return frozenset()
        w = self._waiting(state.game)
        if w is None or w.step_no != state.step_no or self.step_seconds_of(state, w) is not None:
            return frozenset()
        return frozenset(s for s in self._acting(state, w) if not state.autopilot[s])


def resign(table: TableBase, run: Run, seat: int, command: cmd.Resign) -> None:
    """R7.4, LT7.3, WC4.3: from now on the seat plays the game's defaults, at once."""
    run.emit(ev.PlayerResigned(seat=seat))
    consequence = table.game.resign_command(seat)
    if consequence is not None:
        run.play(consequence)
    state = run.state
    if not state.pause_limit:  # without R7.6 the pause and its votes stay as they are (ruling 32)
        pass
    elif state.paused_at is not None and all(state.resigned):
        resume(run, "resigned")  # R7.6: no seat is left that could resume the pause (ruling 31)
    else:
        count_pause_votes(run)  # one voter fewer: the votes cast may be a majority (ruling 28)
    table._settle(run)


def take_back(table: TableBase, run: Run, seat: int, command: cmd.TakeBackSeat) -> None:
    if not run.state.autopilot[seat]:
        fail("not_on_autopilot", "your seat is not on autopilot")
    run.emit(ev.AutopilotReleased(seat=seat, reason="taken_back"))


def _check_target(state: TableState, command: cmd.HandOverSeat) -> None:
    if type(command.target) is not int or not 0 <= command.target < state.n:
        fail("invalid_hand_over", "no such seat in this game")
    if command.to not in ("bot", "player") or not command.player or command.player in state.players:
        fail("invalid_hand_over", "a seat goes to a bot or to a player new to this game")


def _hand_over_abandoned(run: Run, command: cmd.HandOverSeat) -> None:
    """An abandoned seat (on autopilot, not resigned) goes to a bot or to a player new to the game."""
    state = run.state
    _check_target(state, command)
    if not state.autopilot[command.target] or state.resigned[command.target]:
        fail("not_on_autopilot", "only an abandoned seat (on autopilot) can be handed over")
    run.emit(ev.AutopilotReleased(seat=command.target, reason="handed_over"))
    run.emit(ev.SeatHandedOver(seat=command.target, to=command.to, player=command.player))


def hand_over(table: Absence, run: Run, command: cmd.HandOverSeat) -> None:
    """An abandoned seat (on autopilot), or a stalled one (ruling 13: a step without a deadline has waited
    on it, and on nobody's move of it, for ``STALL_SECONDS``: R7.6, a game can always go on)."""
    state = run.state
    if command.idle_since is None or (
        type(command.target) is int and 0 <= command.target < state.n and state.autopilot[command.target]
    ):
        _hand_over_abandoned(run, command)
        return
    _check_target(state, command)
    try:
        since = utc(datetime.fromisoformat(command.idle_since))
    except (TypeError, ValueError):
        fail("invalid_hand_over", "idle_since is an ISO date and time")
    if command.target not in table.stalled_seats(state):
        fail("not_stalled", "the game does not wait on that seat in a step without a deadline")
    if utc(run.ctx.now) - since < timedelta(seconds=STALL_SECONDS):
        fail("not_stalled", f"a seat can be handed over after {STALL_SECONDS // 86400} days without a move")
    run.emit(ev.SeatHandedOver(seat=command.target, to=command.to, player=command.player))
    table._settle(run)
