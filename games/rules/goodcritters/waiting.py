"""What the table (``games.rules.table``) asks the game: ``waiting``, ``default_command``,
``legal_commands``."""

from __future__ import annotations

from games.rules.core import Step

from . import commands as cmd
from .state import CHOOSE, DISTRIBUTE, OVER, SETUP, State


def waiting(state: State) -> Step | None:
    if state.phase == DISTRIBUTE:  # Step 2: the Boss deals (R2.2)
        return Step(state.step_no, DISTRIBUTE, frozenset((state.boss,)), DISTRIBUTE)
    if state.phase == CHOOSE:  # Step 3: everyone at once, with ready flags (R2.3, R2.4)
        seats = frozenset(range(state.n))
        return Step(state.step_no, CHOOSE, seats, CHOOSE, closes=True, ready=True)
    return None


def default_command(state: State, seat: int, reason: str) -> cmd.PlayDefault | None:
    """R7.2: the Boss's Loot is dealt for it (timed out or resigned). R7.3: a seat without a choice when the
    time is up plays ``timeout_action`` at the reveal. R7.4: a resigned seat counts as done in Step 3 (it
    plays ``timeout_action`` too, unless it chose)."""
    if state.phase == DISTRIBUTE and seat == state.boss:
        return cmd.PlayDefault(seat=seat, reason=reason)
    if state.phase == CHOOSE and reason == "timeout" and state.actions[seat] is None:
        return cmd.PlayDefault(seat=seat, reason=reason)
    return None


def legal_commands(state: State, seat: int) -> list[str]:
    """The game's command ``TYPE`` names ``seat`` may send now (each may still be refused for its
    arguments); the table adds its own (ready flags, resignation, messages, the pause) and says when none
    of these are (a resigned seat, one on autopilot, a pause)."""
    if state.phase in (SETUP, OVER) or not 0 <= seat < state.n or state.resigned[seat]:
        return []
    out: list[str] = []
    payoffs = state.options.payoffs
    if state.phase == DISTRIBUTE and seat == state.boss:
        out.append(cmd.DistributeLoot.TYPE)
    if state.phase == CHOOSE:
        out += [cmd.ChooseAction.TYPE, cmd.PlaceThreat.TYPE]
        if state.threats[seat] is not None:
            out.append(cmd.RemoveThreat.TYPE)
        if payoffs:
            if (
                state.stashes[seat]
                or state.payoff_cards[seat]
                or any(state.bundle(seat, t) is not None for t in (0, 1))
            ):
                out.append(cmd.OfferPayoff.TYPE)
            if any(state.bundle(seat, t) is not None for t in (0, 1)):
                out.append(cmd.WithdrawPayoff.TYPE)
    if payoffs and state.phase in (DISTRIBUTE, CHOOSE):
        if state.stashes[seat] or state.payoff_cards[seat]:
            out += [cmd.GiveGift.TYPE, cmd.OfferTrade.TYPE]
        if any(t.to == seat for t in state.trades):
            out += [cmd.AcceptTrade.TYPE, cmd.DeclineTrade.TYPE]
        if any(t.seat == seat for t in state.trades):
            out.append(cmd.WithdrawTrade.TYPE)
    return out
