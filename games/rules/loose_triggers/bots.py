"""Bots: ``random`` (any legal command, uniformly among a few) and ``sensible``.

A sensible Bagman deals to keep guns down: each card to the living player with the fewest Loot cards (its Pal,
then itself, first among equals). A sensible player shoots whoever holds what it needs: when it holds a BANG!
and a non-Pal holds more Loot cards than it does (the likeliest holder of the cash or relics it needs), it
aims at the one holding most; it aims back at whoever aims at it; it plays DUCK! or CROSSFIRE! when shot at,
IN THE FIRE! when one Wound from death, BANG! when it has a target, and picks, claims and grabs the best Loot
it can see.

In LT2.5's aim window a bot has no command of its own but an ``Aim`` (the sensible bot's reasons above, the
random bot's chance, or a random bot's ``BurnLoot``): when it sends none, the table raises its ready flag
(``Table.bot_command``: a pass), so bots and seats on autopilot pass at once unless they aim; a bot Bagman
waits for the window to close.

A bot is a pure function of the state, its seat and ``salt`` (a local SplitMix64, never the global random). It
only sends legal commands; Discussions stay bounded by LT3.2/LT3.6, so bot games end.

Speed (bench/engine.py): a bot is asked for every seat after every command, so :func:`bot_command` works out
what ``waiting.legal_commands`` would list from a few fields (the step's own command is at most one: the steps
exclude each other) and draws its SplitMix64 only when it needs a number. The choices and the draws are the
same as ever: ``tests/rules/loose_triggers/test_bot_regression.py`` hashes the logs of 200 bot games.
"""

from __future__ import annotations

from .cards import ACTION_RANGES, BANG, CROSSFIRE, DUCK, FIRST_RELIC, GRAB, IN_THE_FIRE, loot_value
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
from .state import CHOOSE, CLAIM, COUNTDOWN, ELECT, GIVE, GRAB_STEP, NO_CARD, PICK, PLAY, State
from .waiting import legal_commands, voters

_MASK = (1 << 64) - 1
_BANG_MAX = ACTION_RANGES[BANG][-1]  # Action cards are their numbers 1..40: BANG! are the lowest (1..12)
_FIRE_MIN = ACTION_RANGES[IN_THE_FIRE][0]  # and IN THE FIRE! the highest (36..40)
_FIRE_MAX = ACTION_RANGES[IN_THE_FIRE][-1]
_SUB_STEPS = {PICK: PickLoot.TYPE, CLAIM: ClaimSpoils.TYPE, GRAB_STEP: Grab.TYPE}


def _mix64(z: int) -> int:
    z &= _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class Mix:
    """SplitMix64 seeded from a few integers; seeded on the first draw (most bots asked draw nothing)."""

    __slots__ = ("parts", "x")

    def __init__(self, *parts: int) -> None:
        self.parts = parts
        self.x: int | None = None

    def below(self, n: int) -> int:
        x = self.x
        if x is None:
            # the hash of a tuple of ints does not depend on PYTHONHASHSEED: deterministic across runs
            x = _mix64(hash(self.parts) + 0x2545F4914F6CDD1D)
        x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        self.x = x
        # _mix64 written out (this runs for nearly every bot move)
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return (z ^ (z >> 31)) % n

    def chance(self, percent: int) -> bool:
        return self.below(100) < percent


def _is_fire(card: int) -> bool:
    return _FIRE_MIN <= card <= _FIRE_MAX


def bot_command(state: State, seat: int, *, strategy: str, salt: int) -> Command | None:
    """A legal command for the bot in ``seat`` or None when it has nothing to do now."""
    if strategy == "random":
        random = True
    elif strategy == "sensible":
        random = False
    else:
        if legal_commands(state, seat):
            raise ValueError(f"unknown bot strategy {strategy!r}")
        return None
    flags = legal_flags(state, seat, burn_too=random)
    if flags is None:
        return None
    main, aim, burn = flags
    mix = Mix(salt, seat, state.step_no, len(state.loot_deck), state.commit_no)
    if random:
        return _random(state, seat, main, aim, burn, mix)
    return _sensible(state, seat, main, aim, mix)


def legal_flags(state: State, seat: int, *, burn_too: bool = True) -> tuple[str | None, bool, bool] | None:
    """What ``waiting.legal_commands(state, seat)`` lists, as (the step's own command or None, Aim, BurnLoot);
    None when it lists nothing. The step's own command is at most one (the steps exclude each other).
    ``burn_too=False`` skips the BurnLoot check (reported False): the sensible bot never burns.
    ``tests/rules/loose_triggers/test_bot_regression.py`` checks it against ``legal_commands``."""
    if state.phase != PLAY or not 0 <= seat < state.n or not state.alive[seat]:
        return None
    step = state.step
    free = not state.resigned[seat]
    main: str | None = None
    if step == GIVE:
        if seat == state.bagman:
            main = GiveLoot.TYPE
    elif step == CHOOSE:
        if state.aims[seat] is not None and state.hands[seat]:
            main = ChooseAction.TYPE
    elif step == ELECT:
        if free and state.votes[seat] is None:
            main = ElectBagman.TYPE
    elif step in _SUB_STEPS and seat == state.pending_seat:
        main = _SUB_STEPS[step]
    # waiting.can_aim
    if not free:
        aim = False
    elif state.discussion is None:
        aim = not state.opened[seat]
    elif step != COUNTDOWN:
        aim = False
    elif state.aims[seat] is None:
        aim = True
    else:
        aim = seat != state.counter and state.retargets[seat] < state.options.max_retargets
    aim = aim and state.alive.count(True) > 1
    burn = False
    if burn_too:
        hand = state.hands[seat]
        # Action cards are 1..40: an IN THE FIRE! (36..40) is in hand when the highest card is one
        burn = (
            free
            and state.discussion is None
            and len(state.stacks[seat]) >= 2
            and bool(hand)
            and max(hand) >= _FIRE_MIN
        )
    if main is None and not aim and not burn:
        return None
    return main, aim, burn


def _aim_targets(state: State, seat: int) -> list[int]:
    current = state.aims[seat]
    return [s for s, alive in enumerate(state.alive) if alive and s != seat and s != current]


def _random(state: State, seat: int, main: str | None, aim: bool, burn: bool, mix: Mix) -> Command | None:
    # the step's own command first, an aim or a burn now and then
    chance = 25 if state.discussion is not None else 4  # join a running Discussion more readily
    if aim and mix.chance(chance):
        targets = _aim_targets(state, seat)
        if targets:
            return Aim(seat=seat, target=targets[mix.below(len(targets))])
    if burn and (main is None or mix.chance(5)):
        fire = [c for c in state.hands[seat] if _is_fire(c)]
        stack = list(state.stacks[seat])
        first = stack.pop(mix.below(len(stack)))
        return BurnLoot(seat=seat, card=fire[0], loot=(first, stack[mix.below(len(stack))]))
    if main is None:
        return None
    mix.below(1)  # the draw that picked the step's command among the one listed
    kind = main
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
    hand = state.hands[seat]
    if not hand or min(hand) > _BANG_MAX:  # no BANG!
        return None
    stacks = state.stacks
    mine = len(stacks[seat])
    pal = state.pals[seat]
    relics = any(c >= FIRST_RELIC for c in stacks[seat])
    wounds = state.wounds
    best, best_size = None, mine
    for other, alive in enumerate(state.alive):
        if not alive or other in (seat, pal):
            continue
        size = len(stacks[other])
        # more Loot than this seat: the likeliest holder of the cash or relics it needs
        if size > best_size or (relics and size == best_size and best is not None and wounds[other] < 3):
            best, best_size = other, size
    return best


def _first(hand: tuple[int, ...], kind: str) -> int | None:
    cards = ACTION_RANGES[kind]
    return next((c for c in hand if c in cards), None)


def _sensible(state: State, seat: int, main: str | None, aim: bool, mix: Mix) -> Command | None:
    if aim and state.aims[seat] is None:
        if state.discussion is not None:
            shooter = next((g for g, target in enumerate(state.aims) if target == seat), None)
            if shooter is not None:
                return Aim(seat=seat, target=shooter)  # aim back
        target = _wanted(state, seat)
        if target is not None and mix.chance(30):
            return Aim(seat=seat, target=target)
    if main is None:
        return None
    if main == GiveLoot.TYPE:
        pal = state.pals[seat]
        stacks = state.stacks
        to = min(state.living(), key=lambda s: (len(stacks[s]), s != pal, s != seat, s))
        return GiveLoot(seat=seat, slot=0, to=to)
    if main == ChooseAction.TYPE:
        if state.chosen[seat] is not None:
            return None
        hand = state.hands[seat]
        shot_at = state.aims.count(seat)
        options: list[int | None] = []
        if shot_at and state.wounds[seat] >= 3:
            options.append(_first(hand, IN_THE_FIRE))
        if shot_at >= 2:
            options.append(_first(hand, CROSSFIRE))
        if shot_at:
            options.append(_first(hand, DUCK))
        if state.aims[seat] is not None and state.aims[seat] != state.pals[seat]:
            options.append(_first(hand, BANG))
        options.extend((_first(hand, GRAB), _first(hand, DUCK)))
        card = next((c for c in options if c is not None), NO_CARD)
        return ChooseAction(seat=seat, card=card)
    if main == PickLoot.TYPE:
        assert state.pending_target is not None
        mine = state.stacks[seat]
        card = max(state.stacks[state.pending_target], key=lambda c: (_gain(mine, c), c))
        return PickLoot(seat=seat, card=card)
    if main == ClaimSpoils.TYPE:
        slots = [i for i, down in enumerate(state.display_down) if not down] or list(
            range(len(state.display))
        )
        mine = state.stacks[seat]
        slot = max(slots, key=lambda i: _gain(mine, state.display[i])) if slots else NO_CARD
        return ClaimSpoils(seat=seat, slot=slot, bagman=True)
    if main == Grab.TYPE:
        mine = state.stacks[seat]
        up = sorted(
            (i for i, down in enumerate(state.display_down) if not down),
            key=lambda i: -_gain(mine, state.display[i]),
        )
        sources = [f"display:{i}" for i in up[:3]]
        while len(sources) < 3:
            sources.append("loot" if state.loot_deck and len(sources) < 2 else "action")
        return Grab(seat=seat, sources=tuple(sources))
    if main == ElectBagman.TYPE:
        eligible = voters(state)
        pal = state.pals[seat]
        return ElectBagman(seat=seat, candidate=pal if pal in eligible else seat)
    return None
