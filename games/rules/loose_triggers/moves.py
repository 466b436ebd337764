"""Loose Triggers' legal moves with their arguments (issue #24, ``games.rules.moves``): for each command a
seat may send now (``waiting.legal_commands``), the values each field may take, from the checks ``decide``
makes (LT2.2, LT3.1-LT3.3, LT4.1, LT4.2, LT4.5, LT5.4), under either rules version (LT2.5's aim window in
rules 2: ``Aim`` is offered in it, ``GiveLoot`` only once it closed); tests/rules/test_moves.py plays every
one of them through ``decide``."""

from __future__ import annotations

from games.rules.moves import Choice, Move, Sequence, Subset

from .cards import IN_THE_FIRE, is_kind
from .commands import Aim, BurnLoot, ChooseAction, ClaimSpoils, ElectBagman, GiveLoot, Grab, PickLoot
from .decide import GRAB_COUNT, GRAB_SOURCES
from .state import COUNTDOWN, NO_CARD, State
from .waiting import legal_commands, voters


def _slots(state: State) -> tuple[int, ...]:
    return tuple(range(len(state.display)))


def moves(state: State, seat: int) -> list[Move]:
    out: list[Move] = []
    for name in legal_commands(state, seat):
        if name == GiveLoot.TYPE:  # LT2.2: a displayed card to any living seat
            out.append(
                Move(
                    name,
                    (
                        Choice("slot", "displayed card", _slots(state)),
                        Choice("to", "to", tuple(state.living())),
                    ),
                )
            )
        elif name == Aim.TYPE:  # LT3.1, LT3.2: a living other seat; a retarget changes the target
            current = state.aims[seat] if state.discussion == COUNTDOWN else None
            targets = tuple(t for t in state.living() if t != seat and t != current)
            if targets:
                out.append(Move(name, (Choice("target", "Target", targets),)))
        elif name == ChooseAction.TYPE:  # LT3.3: a card of the hand, or none (-1)
            out.append(Move(name, (Choice("card", "Action card (-1: none)", (*state.hands[seat], NO_CARD)),)))
        elif name == PickLoot.TYPE:  # LT4.1: a card of the Sitting Duck's stack, or a random one (-1)
            target = state.pending_target
            stack = state.stacks[target] if target is not None else ()
            out.append(Move(name, (Choice("card", "Loot card (-1: a random one)", (*stack, NO_CARD)),)))
        elif name == ClaimSpoils.TYPE:  # LT4.1: a displayed card or none (-1), and/or the Bagman card
            out.append(
                Move(
                    name,
                    (
                        Choice("slot", "displayed card (-1: none)", (*_slots(state), NO_CARD)),
                        Choice("bagman", "the Bagman card", (True, False)),
                    ),
                )
            )
        elif name == Grab.TYPE:  # LT4.2: three sources, a displayed card at most once
            display = tuple(f"display:{slot}" for slot in _slots(state))
            out.append(
                Move(
                    name,
                    (Sequence("sources", "three sources", (*GRAB_SOURCES, *display), GRAB_COUNT, display),),
                )
            )
        elif name == BurnLoot.TYPE:  # LT4.5: an IN THE FIRE! card and two Loot cards of one's stack
            fire = tuple(c for c in state.hands[seat] if is_kind(c, IN_THE_FIRE))
            out.append(
                Move(
                    name,
                    (
                        Choice("card", "IN THE FIRE! card", fire),
                        Subset("loot", "two Loot cards of your stack", tuple(state.stacks[seat]), 2, 2),
                    ),
                )
            )
        elif name == ElectBagman.TYPE:  # LT5.4: a living seat that has not resigned
            out.append(Move(name, (Choice("candidate", "new Bagman", tuple(voters(state))),)))
    return out


__all__ = ["moves"]
