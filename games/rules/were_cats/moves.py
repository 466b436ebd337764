"""Were-cats' legal moves with their arguments (issue #24, ``games.rules.moves``): for each command a seat
may send now (``waiting.legal_commands``), the values each field may take, from the checks ``decide`` makes
(WC1.3, WC2.1-WC2.3): coins as ``counts`` of penny, nickel and dime; a cat's meal weighted by each victim's
claw (WC1.4) where the action needs a stronger claw than the cat's own; tests/rules/test_moves.py plays every
one of them through ``decide``."""

from __future__ import annotations

from games.rules.moves import Choice, Counts, Move

from .coins import CAT_CLAW, INDEX, KINDS, SLOTS, VILLAGER_CLAW, Coins, make_cat_need, victim_claw
from .commands import (
    ChooseStartingCoins,
    FinishPlacing,
    MakeCat,
    Pass,
    PlaceVictims,
    PopulateCity,
    Repopulate,
    TakeVictim,
)
from .decide import available_starting_kinds
from .state import State
from .waiting import legal_commands

_WEIGHTS = tuple(VILLAGER_CLAW[k] for k in KINDS)


def _meal(eats: Coins, claw: int, need: int) -> Counts | None:
    """The victims the cat may eat first (WC2.3) so that its claw reaches ``need``; ``None`` when even the
    whole eat area is not enough."""
    short = need - claw
    if short > victim_claw(eats):
        return None
    if short <= 0:
        return Counts("eat", "victims eaten first", KINDS, eats, required=False)
    return Counts(
        "eat", "victims eaten first", KINDS, eats, weights=_WEIGHTS, min_weight=short, required=False
    )


def moves(state: State, seat: int) -> list[Move]:
    out: list[Move] = []
    names = legal_commands(state, seat)
    for name in names:
        if name == ChooseStartingCoins.TYPE:  # WC1.3: a kind of which two remain
            out.append(Move(name, (Choice("kind", "coin kind", tuple(available_starting_kinds(state))),)))
        elif name == PlaceVictims.TYPE:  # WC2.1: eat and scare areas together hold at most the seat's victims
            held = state.victims(seat)
            out.append(
                Move(
                    name,
                    (
                        Counts("eat", "eat area", KINDS, held, pool="victims"),
                        Counts("scare", "scare area", KINDS, held, pool="victims"),
                    ),
                )
            )
        elif name in (FinishPlacing.TYPE, Pass.TYPE):
            out.append(Move(name))
        elif name == PopulateCity.TYPE:  # WC2.2: a kind the supply holds
            kinds = tuple(k for k in KINDS if state.supply[INDEX[k]] > 0)
            out.append(Move(name, (Choice("kind", "coin kind", kinds),)))
        elif name in (TakeVictim.TYPE, MakeCat.TYPE, Repopulate.TYPE):
            out.extend(_cat_moves(state, seat, name))
    return out


def _cat_moves(state: State, seat: int, name: str) -> list[Move]:
    """WC2.3: the acting cat's actions, each with the meal that makes its claw strong enough."""
    slot = state.slot
    cat = state.cat(seat, slot) if slot is not None else None
    if cat is None:
        return []
    claw = CAT_CLAW[cat.kind]
    eats = state.eats[seat]
    out: list[Move] = []
    if name == Repopulate.TYPE:
        meal = _meal(eats, claw, 0)
        assert meal is not None
        return [Move(name, (meal,))]
    for kind in KINDS:
        if state.city[INDEX[kind]] == 0:
            continue
        if name == TakeVictim.TYPE:
            meal = _meal(eats, claw, VILLAGER_CLAW[kind])
            if meal is not None:
                out.append(Move(name, (Choice("kind", "villager", (kind,)), meal)))
            continue
        by_need: dict[int, list[int]] = {}
        for new_slot in SLOTS:
            if state.cat(seat, new_slot) is None:
                by_need.setdefault(make_cat_need(kind, new_slot), []).append(new_slot)
        for need, slots in sorted(by_need.items()):
            meal = _meal(eats, claw, need)
            if meal is not None:
                out.append(
                    Move(
                        name,
                        (
                            Choice("kind", "villager", (kind,)),
                            Choice("slot", "empty slot", tuple(slots)),
                            meal,
                        ),
                    )
                )
    return out


__all__ = ["moves"]
