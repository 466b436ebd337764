"""What the table asks the game: which step waits on whom, what a timed-out or resigned seat plays (WC4.1),
which commands a seat may send."""

from __future__ import annotations

from games.rules.core import Step

from .coins import INDEX, KINDS
from .commands import (
    ChooseStartingCoins,
    Command,
    FinishPlacing,
    MakeCat,
    Pass,
    PlaceVictims,
    PopulateCity,
    Repopulate,
    TakeVictim,
)
from .state import ACT, CHOOSE, PLACE, POPULATE, State

STEPS = {CHOOSE: "setup", PLACE: "place", POPULATE: "populate", ACT: "act"}


def waiting(state: State) -> Step | None:
    """The step open in ``state`` (its deadline: the table option of the same name, WC4.1), or None when none
    is: before the start, once over, and at the positions inside one command between a turn's end and the
    next turn's start (no seat has the turn there; the step-through of a game shows those positions too,
    ruling 16)."""
    step = STEPS.get(state.phase)
    if step is None:
        return None
    if state.phase == PLACE:
        seats = frozenset(s for s in range(state.n) if not state.done[s])
        return Step(state.step_no, step, seats, step)
    if state.turn is None:
        return None
    return Step(state.step_no, step, frozenset({state.turn}), step)


def default_command(state: State, seat: int, reason: str) -> Command | None:
    """WC4.1: what the table plays for a seat that timed out or resigned, or None when nothing is due from
    it. Placing says done as things are; populating takes the first kind in the supply (penny, nickel, dime);
    a cat passes; the setup choice takes the first kind of which two remain (ruling 1)."""
    w = waiting(state)
    if w is None or seat not in w.seats:
        return None
    # A position inside one command (the step-through shows them, ruling 16) can have the turn with nothing
    # left to take (the coin just placed emptied the supply, the step ends at the command's next event):
    # nothing is due there.
    if state.phase == CHOOSE:
        kind = next((k for k in KINDS if state.supply[INDEX[k]] >= 2), None)
        return None if kind is None else ChooseStartingCoins(seat=seat, kind=kind, reason=reason)
    if state.phase == PLACE:
        return FinishPlacing(seat=seat, reason=reason)
    if state.phase == POPULATE:
        kind = next((k for k in KINDS if state.supply[INDEX[k]] > 0), None)
        return None if kind is None else PopulateCity(seat=seat, kind=kind, reason=reason)
    return Pass(seat=seat, reason=reason)


def legal_commands(state: State, seat: int) -> list[str]:
    """The command types ``seat`` may send now (the arguments may still be refused)."""
    w = waiting(state)
    if w is None or seat not in w.seats:
        return []
    if state.phase == CHOOSE:
        return [ChooseStartingCoins.TYPE]
    if state.phase == PLACE:
        return [PlaceVictims.TYPE, FinishPlacing.TYPE]
    if state.phase == POPULATE:
        return [PopulateCity.TYPE]
    return [TakeVictim.TYPE, MakeCat.TYPE, Repopulate.TYPE, Pass.TYPE]
