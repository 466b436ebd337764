"""What the table (``games.rules.table``) asks the game: ``waiting``, ``default_command``,
``legal_commands``.

Steps and the deadline each maps to (LT7.1): aim -> the game's own ``deadlines.aim`` (LT2.5, the aim
window before each give; its seats are every other living, not resigned player, with ready flags: a raised
flag is a pass; nobody owes it a play, so nobody misses it), give -> ``deadlines.give`` (per card, LT2.3),
countdown -> the game option ``countdown`` (LT3.1; each aim opens it anew with a new ``step_no``), choose ->
``deadlines.choose`` (LT3.3), pick/claim/grab -> ``deadlines.pick`` (LT4.1, LT4.2), elect ->
``deadlines.give`` (LT5.4). The table closes an aim, countdown, choose or elect step with
``CloseStep(step_no)`` (at its deadline, after playing each seat's ``default_command``; an aim or choose step
also when every seat in it is ready); every other step closes by its player's command, which
``default_command`` supplies on a timeout.
"""

from __future__ import annotations

from typing import Final

from games.rules.core import Step

from .cards import IN_THE_FIRE, is_kind
from .commands import Aim, BurnLoot, ChooseAction, ClaimSpoils, Command, ElectBagman, GiveLoot, Grab, PickLoot
from .decide import choosers, default_grab, next_living
from .state import AIM, CHOOSE, CLAIM, COUNTDOWN, ELECT, GIVE, GRAB_STEP, NO_CARD, PICK, PLAY, State

DEADLINES: Final[dict[str, str]] = {  # the keys of ``deadlines`` (the Countdown's: its own ``seconds``)
    AIM: "aim",
    GIVE: "give",
    COUNTDOWN: "countdown",
    CHOOSE: "choose",
    PICK: "pick",
    CLAIM: "pick",
    GRAB_STEP: "pick",
    ELECT: "give",
}
CLOSED_BY_TABLE: Final[frozenset[str]] = frozenset({AIM, COUNTDOWN, CHOOSE, ELECT})
READY_FLAGS: Final[frozenset[str]] = frozenset({AIM, CHOOSE})  # LT2.5 (a pass), LT3.3


def voters(state: State) -> list[int]:
    return [s for s in range(state.n) if state.alive[s] and not state.resigned[s]]


def waiting(state: State) -> Step | None:
    """The step the game waits on. ``seats``: who still has to act (empty for the Countdown: anyone living
    may aim, nobody must); ``seconds``: the game's own duration (the aim window, the Countdown), else None
    (the table's deadline option)."""
    if state.phase != PLAY or state.step is None:
        return None
    step = state.step
    seconds = None
    if step == GIVE:
        assert state.bagman is not None
        seats = frozenset({state.bagman})
    elif step == AIM:  # LT2.5: every other living, not resigned player passes (or aims)
        seats = frozenset(v for v in voters(state) if v != state.bagman)
        seconds = state.options.aim
    elif step == COUNTDOWN:
        seats = frozenset()
        seconds = state.options.countdown
    elif step == CHOOSE:
        seats = frozenset(choosers(state))
    elif step == ELECT:
        seats = frozenset(v for v in voters(state) if state.votes[v] is None)
    else:
        assert state.pending_seat is not None
        seats = frozenset({state.pending_seat})
    return Step(
        state.step_no,
        step,
        seats,
        DEADLINES[step],
        seconds,
        closes=step in CLOSED_BY_TABLE,
        ready=step in READY_FLAGS,
    )


def default_command(state: State, seat: int, reason: str) -> Command | None:
    """What the table plays for a seat that timed out (``reason="timeout"``) or resigned (LT7.3)."""
    if state.phase != PLAY or not state.alive[seat]:
        return None
    step = state.step
    if step == GIVE and seat == state.bagman:  # LT2.3: round-robin from after the last receiver
        return GiveLoot(seat=seat, slot=0, to=next_living(state, state.give_after))
    if step == CHOOSE and seat in choosers(state):  # LT3.3: none; a resigned seat plays none (LT7.3)
        if state.chosen[seat] is None or (reason == "resigned" and state.chosen[seat] != NO_CARD):
            return ChooseAction(seat=seat, card=NO_CARD)
        return None
    if seat != state.pending_seat:
        return None
    if step == PICK:  # LT4.1: a random card
        return PickLoot(seat=seat, card=NO_CARD)
    if step == CLAIM:  # LT4.1: neither
        return ClaimSpoils(seat=seat, slot=NO_CARD, bagman=False)
    if step == GRAB_STEP:  # LT4.2
        return Grab(seat=seat, sources=default_grab(state))
    return None


def can_aim(state: State, seat: int) -> bool:
    if state.discussion is None:
        return not state.opened[seat]
    if state.step != COUNTDOWN:
        return False
    if state.aims[seat] is None:
        return True
    return seat != state.counter and state.retargets[seat] < state.options.max_retargets


def legal_commands(state: State, seat: int) -> list[str]:
    if state.phase != PLAY or not 0 <= seat < state.n or not state.alive[seat]:
        return []
    out: list[str] = []
    step = state.step
    free = not state.resigned[seat]  # LT7.3: a resigned seat only plays the defaults
    if step == GIVE and seat == state.bagman:
        out.append(GiveLoot.TYPE)
    if free and can_aim(state, seat) and state.alive.count(True) > 1:
        out.append(Aim.TYPE)
    if step == CHOOSE and seat in choosers(state):
        out.append(ChooseAction.TYPE)
    if seat == state.pending_seat:
        if step == PICK:
            out.append(PickLoot.TYPE)
        elif step == CLAIM:
            out.append(ClaimSpoils.TYPE)
        elif step == GRAB_STEP:
            out.append(Grab.TYPE)
    if (
        free
        and state.discussion is None
        and len(state.stacks[seat]) >= 2
        and any(is_kind(c, IN_THE_FIRE) for c in state.hands[seat])
    ):
        out.append(BurnLoot.TYPE)
    if step == ELECT and free and state.votes[seat] is None:
        out.append(ElectBagman.TYPE)
    return out
