"""Bots: ``random`` (any legal command, uniformly among a few) and ``sensible``.

A sensible Bagman deals to keep guns down: each card to the living player with the fewest Loot cards (its Pal,
then itself, first among equals). A sensible player shoots whoever holds what it needs: when it holds a BANG!
and a non-Pal holds more Loot cards than it does (the likeliest holder of the cash or relics it needs), it
aims at the one holding most; it aims back at whoever aims at it; it plays DUCK! or CROSSFIRE! when shot at,
IN THE FIRE! when one Wound from death, BANG! when it has a target, and picks, claims and grabs the best Loot
it can see.

A bot is a pure function of the state, its seat and ``salt`` (a local SplitMix64, never the global random). It
only sends legal commands; Discussions stay bounded by LT3.2/LT3.6, so bot games end.
"""

from __future__ import annotations

from .cards import BANG, CROSSFIRE, DUCK, GRAB, IN_THE_FIRE, is_kind, loot_value, relic_of
from .commands import (
    Aim,
    BurnLoot,
    ChooseAction,
    ClaimSpoils,
    Command,
    ElectBagman,
    GiveLoot,
    Grab,
    PickLoot,
)
from .hooks import legal_commands, voters
from .state import CHOOSE, CLAIM, ELECT, GIVE, GRAB_STEP, NO_CARD, PICK, State

_MASK = (1 << 64) - 1


class Mix:
    """SplitMix64 seeded from a few integers."""

    __slots__ = ("x",)

    def __init__(self, *parts: int) -> None:
        # the hash of a tuple of ints does not depend on PYTHONHASHSEED: deterministic across runs
        self.x = self._mix(hash(parts) + 0x2545F4914F6CDD1D)

    @staticmethod
    def _mix(z: int) -> int:
        z &= _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        self.x = (self.x + 0x9E3779B97F4A7C15) & _MASK
        return self._mix(self.x) % n

    def chance(self, percent: int) -> bool:
        return self.below(100) < percent


def bot_command(state: State, seat: int, *, strategy: str, salt: int) -> Command | None:
    """A legal command for the bot in ``seat`` or None when it has nothing to do now."""
    legal = legal_commands(state, seat)
    if not legal:
        return None
    mix = Mix(salt, seat, state.step_no, len(state.loot_deck), state.commit_no)
    if strategy == "random":
        return _random(state, seat, legal, mix)
    if strategy == "sensible":
        return _sensible(state, seat, legal, mix)
    raise ValueError(f"unknown bot strategy {strategy!r}")


def _others(state: State, seat: int) -> list[int]:
    return [s for s in state.living() if s != seat]


def _aim_targets(state: State, seat: int) -> list[int]:
    current = state.aims[seat]
    return [s for s in _others(state, seat) if s != current]


def _random(state: State, seat: int, legal: list[str], mix: Mix) -> Command | None:
    # the step's own command first, an aim or a burn now and then
    main = [t for t in legal if t not in (Aim.TYPE, BurnLoot.TYPE)]
    chance = 25 if state.discussion is not None else 4  # join a running Discussion more readily
    if Aim.TYPE in legal and mix.chance(chance) and _aim_targets(state, seat):
        targets = _aim_targets(state, seat)
        return Aim(seat=seat, target=targets[mix.below(len(targets))])
    if BurnLoot.TYPE in legal and (not main or mix.chance(5)):
        fire = [c for c in state.hands[seat] if is_kind(c, IN_THE_FIRE)]
        stack = list(state.stacks[seat])
        first = stack.pop(mix.below(len(stack)))
        return BurnLoot(seat=seat, card=fire[0], loot=(first, stack[mix.below(len(stack))]))
    if not main:
        return None
    kind = main[mix.below(len(main))]
    if kind == GiveLoot.TYPE:
        living = state.living()
        return GiveLoot(seat=seat, slot=mix.below(len(state.display)), to=living[mix.below(len(living))])
    if kind == ChooseAction.TYPE:
        if state.chosen[seat] is not None:
            return None
        hand = [NO_CARD, *state.hands[seat]]
        return ChooseAction(seat=seat, card=hand[mix.below(len(hand))])
    if kind == PickLoot.TYPE:
        assert state.pending_target is not None
        stack = [NO_CARD, *state.stacks[state.pending_target]]
        return PickLoot(seat=seat, card=stack[mix.below(len(stack))])
    if kind == ClaimSpoils.TYPE:
        slot = mix.below(len(state.display) + 1) - 1
        return ClaimSpoils(seat=seat, slot=slot, bagman=mix.chance(50))
    if kind == Grab.TYPE:
        pool = ["loot", "action", "discard", *(f"display:{i}" for i in range(len(state.display)))]
        sources: list[str] = []
        while len(sources) < 3:
            source = pool[mix.below(len(pool))]
            if source.startswith("display:"):
                pool.remove(source)
            sources.append(source)
        return Grab(seat=seat, sources=tuple(sources))
    if kind == ElectBagman.TYPE:
        candidates = voters(state)
        return ElectBagman(seat=seat, candidate=candidates[mix.below(len(candidates))])
    return None


def _gain(stack: tuple[int, ...], card: int) -> int:
    return loot_value((*stack, card)) - loot_value(stack)


def _wanted(state: State, seat: int) -> int | None:
    """Whom to shoot: a non-Pal holding much more Loot, or a face-up relic this seat collects."""
    if not any(is_kind(c, BANG) for c in state.hands[seat]):
        return None
    mine = len(state.stacks[seat])
    pal = state.pals[seat]
    relics = {relic_of(c) for c in state.stacks[seat]} - {None}
    best, best_size = None, mine
    for other in _others(state, seat):
        if other == pal:
            continue
        size = len(state.stacks[other])
        # more Loot than this seat: the likeliest holder of the cash or relics it needs
        if size > best_size or (
            relics and size == best_size and best is not None and state.wounds[other] < 3
        ):
            best, best_size = other, size
    return best


def _sensible(state: State, seat: int, legal: list[str], mix: Mix) -> Command | None:
    step = state.step
    hand = state.hands[seat]
    if Aim.TYPE in legal:
        shooters = [g for g in range(state.n) if state.aims[g] == seat]
        if state.discussion is not None and state.aims[seat] is None and shooters:
            return Aim(seat=seat, target=shooters[0])  # aim back
        target = _wanted(state, seat)
        if target is not None and state.aims[seat] is None and mix.chance(30):
            return Aim(seat=seat, target=target)
    if step == GIVE and GiveLoot.TYPE in legal:
        pal = state.pals[seat]
        living = state.living()
        to = min(living, key=lambda s: (len(state.stacks[s]), s != pal, s != seat, s))
        return GiveLoot(seat=seat, slot=0, to=to)
    if step == CHOOSE and ChooseAction.TYPE in legal:
        if state.chosen[seat] is not None:
            return None
        shot_at = sum(1 for g in range(state.n) if state.aims[g] == seat)

        def first(kind: str) -> int | None:
            return next((c for c in hand if is_kind(c, kind)), None)

        options: list[int | None] = []
        if shot_at and state.wounds[seat] >= 3:
            options.append(first(IN_THE_FIRE))
        if shot_at >= 2:
            options.append(first(CROSSFIRE))
        if shot_at:
            options.append(first(DUCK))
        if state.aims[seat] is not None and state.aims[seat] != state.pals[seat]:
            options.append(first(BANG))
        options.extend((first(GRAB), first(DUCK)))
        card = next((c for c in options if c is not None), NO_CARD)
        return ChooseAction(seat=seat, card=card)
    if step == PICK and PickLoot.TYPE in legal:
        assert state.pending_target is not None
        mine = state.stacks[seat]
        card = max(state.stacks[state.pending_target], key=lambda c: (_gain(mine, c), c))
        return PickLoot(seat=seat, card=card)
    if step == CLAIM and ClaimSpoils.TYPE in legal:
        slots = [i for i, down in enumerate(state.display_down) if not down] or list(
            range(len(state.display))
        )
        mine = state.stacks[seat]
        slot = max(slots, key=lambda i: _gain(mine, state.display[i])) if slots else NO_CARD
        return ClaimSpoils(seat=seat, slot=slot, bagman=True)
    if step == GRAB_STEP and Grab.TYPE in legal:
        mine = state.stacks[seat]
        up = sorted(
            (i for i, down in enumerate(state.display_down) if not down),
            key=lambda i: -_gain(mine, state.display[i]),
        )
        sources = [f"display:{i}" for i in up[:3]]
        while len(sources) < 3:
            sources.append("loot" if state.loot_deck and len(sources) < 2 else "action")
        return Grab(seat=seat, sources=tuple(sources))
    if step == ELECT and ElectBagman.TYPE in legal:
        eligible = voters(state)
        pal = state.pals[seat]
        return ElectBagman(seat=seat, candidate=pal if pal in eligible else seat)
    return None
