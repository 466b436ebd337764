"""Bots: ``random`` (any legal move) and ``sensible`` (a simple greedy player). Deterministic given the
state, the seat and ``salt``; they keep no memory and only send legal commands."""

from __future__ import annotations

from .coins import (
    CAT_CLAW,
    CAT_POINTS,
    INDEX,
    KINDS,
    NO_COINS,
    SLOTS,
    VILLAGER_CLAW,
    Coins,
    add,
    make_cat_need,
    one,
    victim_claw,
    victim_points,
)
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
from .decide import available_starting_kinds
from .state import ACT, CHOOSE, PLACE, POPULATE, State

_TURNS = frozenset({CHOOSE, POPULATE, ACT})  # one seat after another: the game waits on ``state.turn``


class Mix:
    """SplitMix64 seeded from a few integers: small, fast, deterministic, local. Seeded on the first draw
    (a sensible bot mostly draws nothing)."""

    __slots__ = ("parts", "x")

    def __init__(self, *parts: int) -> None:
        self.parts = parts
        self.x: int | None = None

    def below(self, n: int) -> int:
        # SplitMix64 written out (this runs for nearly every bot move)
        x = self.x
        if x is None:
            x = 0x2545F4914F6CDD1D
            for part in self.parts:
                z = ((x ^ (part & 0xFFFFFFFFFFFFFFFF)) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
                z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
                x = z ^ (z >> 31)
        x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        self.x = x
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return (z ^ (z >> 31)) % n

    def chance(self, p: float) -> bool:
        return self.below(1_000_000) < p * 1_000_000


def bot_command(state: State, seat: int, *, strategy: str, salt: int) -> Command | None:
    """A legal command for the bot in ``seat``, or None when the game does not wait on it."""
    if strategy not in ("random", "sensible"):
        raise ValueError(f"unknown bot strategy {strategy!r}")
    # ``seat in waiting(state).seats``, without building the Step
    phase = state.phase
    if phase == PLACE:
        if not 0 <= seat < state.n or state.done[seat]:
            return None
    elif phase not in _TURNS or state.turn != seat:
        return None
    mix = Mix(salt, seat, state.step_no, state.round)
    if strategy == "random":
        return _random(state, seat, mix)
    return _sensible(state, seat, mix)


def _kinds_in(coins: Coins) -> list[str]:
    return [k for k in KINDS if coins[INDEX[k]] > 0]


def _acting_claw(state: State, seat: int) -> int:
    assert state.slot is not None
    cat = state.cat(seat, state.slot)
    assert cat is not None
    return CAT_CLAW[cat.kind]


# --------------------------------------------------------------------------------------------------
def _random(state: State, seat: int, mix: Mix) -> Command:
    if state.phase == CHOOSE:
        kinds = available_starting_kinds(state)
        return ChooseStartingCoins(seat=seat, kind=kinds[mix.below(len(kinds))])
    if state.phase == PLACE:
        placed = add(state.eats[seat], state.scares[seat])
        held = state.victims(seat)
        if placed == NO_COINS and held != NO_COINS and mix.chance(0.7):
            eat = tuple(mix.below(c + 1) for c in held)
            scare = tuple(mix.below(h - e + 1) for h, e in zip(held, eat, strict=True))
            if eat != NO_COINS or scare != NO_COINS:
                return PlaceVictims(
                    seat=seat, eat=(eat[0], eat[1], eat[2]), scare=(scare[0], scare[1], scare[2])
                )
        return FinishPlacing(seat=seat)
    if state.phase == POPULATE:
        kinds = _kinds_in(state.supply)
        return PopulateCity(seat=seat, kind=kinds[mix.below(len(kinds))])
    assert state.phase == ACT
    # one of the sub-multisets of the eat area, in the order (pennies, nickels, dimes) counts up: drawn as
    # its index in mixed radix, without listing them
    food = state.eats[seat]
    index = mix.below((food[0] + 1) * (food[1] + 1) * (food[2] + 1))
    index, d = divmod(index, food[2] + 1)
    p, n = divmod(index, food[1] + 1)
    eat = (p, n, d)
    claw = _acting_claw(state, seat) + victim_claw(eat)
    # the moves as (kind, slot): Pass, Repopulate, then per kind in the city TakeVictim (slot 0) and MakeCat;
    # only the one drawn is made
    moves: list[tuple[str, int]] = [("", -1), ("", 0)]
    empty = [slot for slot in SLOTS if state.cats[seat][slot - 1] is None]
    for kind in _kinds_in(state.city):
        if VILLAGER_CLAW[kind] <= claw:
            moves.append((kind, 0))
        for slot in empty:
            if make_cat_need(kind, slot) <= claw:
                moves.append((kind, slot))
    kind, slot = moves[mix.below(len(moves))]
    if slot == -1:
        return Pass(seat=seat)
    if not kind:
        return Repopulate(seat=seat, eat=eat)
    if slot == 0:
        return TakeVictim(seat=seat, kind=kind, eat=eat)
    return MakeCat(seat=seat, kind=kind, slot=slot, eat=eat)


# --------------------------------------------------------------------------------------------------
def _best_cat(state: State, seat: int, claw: int, food: Coins) -> tuple[int, str, int, Coins] | None:
    """The most valuable cat the seat can make now: (points, kind, slot, what to eat, least claw first)."""
    best: tuple[int, str, int, Coins] | None = None
    for kind in _kinds_in(state.city):
        for slot in SLOTS:
            if state.cat(seat, slot) is not None:
                continue
            need = make_cat_need(kind, slot) - claw
            eat = _cheapest_meal(food, need)
            if eat is None:
                continue
            score = CAT_POINTS[kind] * 10 - sum(eat)
            if best is None or score > best[0]:
                best = (score, kind, slot, eat)
    return best


def _cheapest_meal(food: Coins, need: int) -> Coins | None:
    """The fewest victims of ``food`` whose claw reaches ``need``, least overshoot first (None: none)."""
    if need <= 0:
        return NO_COINS
    best: Coins | None = None
    for d in range(min(food[2], -(-need // 3)) + 1):
        for n in range(min(food[1], -(-(need - 3 * d) // 2) if need > 3 * d else 0) + 1):
            p = max(0, need - 3 * d - 2 * n)
            if p > food[0]:
                continue
            meal = (p, n, d)
            if best is None or (sum(meal), victim_claw(meal)) < (sum(best), victim_claw(best)):
                best = meal
    return best


def _feed(state: State, seat: int) -> Coins:
    """Phase 1: the cheapest meal that lets the seat's sharpest cat make a cat this round (of a kind in the
    city or the supply, on an empty slot); nothing when no meal of its victims reaches (eat-area victims not
    eaten are lost in Phase 3)."""
    claws = [CAT_CLAW[c.kind] for c in state.cats[seat] if c is not None]
    kinds = _kinds_in(add(state.city, state.supply))
    needs = [
        make_cat_need(kind, slot) - max(claws)
        for kind in kinds
        for slot in SLOTS
        if state.cat(seat, slot) is None
    ]
    if not needs:
        return NO_COINS
    return _cheapest_meal(state.victims(seat), min(needs)) or NO_COINS


def _sensible(state: State, seat: int, mix: Mix) -> Command:
    if state.phase == CHOOSE:
        kinds = available_starting_kinds(state)
        return ChooseStartingCoins(seat=seat, kind=kinds[0])  # a penny cat has the sharpest claw
    if state.phase == PLACE:
        eat = NO_COINS if state.round >= state.options.max_rounds else _feed(state, seat)
        if eat != NO_COINS and add(state.eats[seat], state.scares[seat]) == NO_COINS:
            return PlaceVictims(seat=seat, eat=eat, scare=NO_COINS)
        return FinishPlacing(seat=seat)
    if state.phase == POPULATE:
        kinds = _kinds_in(state.supply)
        return PopulateCity(seat=seat, kind=max(kinds, key=lambda k: (state.supply[INDEX[k]], -INDEX[k])))
    claw = _acting_claw(state, seat)
    food = state.eats[seat]
    cat = _best_cat(state, seat, claw, food)
    if cat is not None:
        _score, kind, slot, eat = cat
        return MakeCat(seat=seat, kind=kind, slot=slot, eat=eat)
    victims = state.victims(seat)
    takeable = [k for k in _kinds_in(state.city) if VILLAGER_CLAW[k] <= claw + victim_claw(food)]
    if takeable:
        kind = max(takeable, key=lambda k: (victim_points(add(victims, one(k))), VILLAGER_CLAW[k]))
        eat = _cheapest_meal(food, VILLAGER_CLAW[kind] - claw) or NO_COINS
        return TakeVictim(seat=seat, kind=kind, eat=eat)
    if sum(state.supply) > 0 and mix.chance(0.8):
        return Repopulate(seat=seat)
    return Pass(seat=seat)
