"""``decide``: every rule of Loose Triggers (RULES-loose-triggers.md, LT numbers) and every check.

A command is decided by emitting events one at a time onto a running copy of the state (``_Run``), so each
rule reads the state as the previous facts left it. Randomness only ever comes from the game's seed through
:mod:`games.rules.rng`, one label per purpose:

* ``setup/seats`` (LT1.1, ``shuffle_seats``), ``setup/aliases`` (LT1.2), ``setup/pals`` (LT1.3, shuffles
  until a derangement), ``setup/bagman`` (LT1.4), ``setup/loot`` (LT1.5), ``setup/deal`` (LT1.7);
* ``remake/{k}``: the k-th remake of the Action deck (LT4.6);
* ``random/{k}``: the k-th random Loot card taken from a stack (LT4.1);
* ``salt/{k}``: the salt of the k-th face-down Action choice's commitment (LT3.3, LT7.2).
"""

from __future__ import annotations

from games.rules import rng
from games.rules.core import Context

from .cards import (
    ACTION_RANGES,
    ALIASES,
    BANG,
    CROSSFIRE,
    DUCK,
    GRAB,
    IN_THE_FIRE,
    LOOT_CARDS,
    is_kind,
    kind_of,
    loot_value,
)
from .commands import (
    Aim,
    BurnLoot,
    ChooseAction,
    ClaimSpoils,
    CloseStep,
    Command,
    ElectBagman,
    GiveLoot,
    Grab,
    PickLoot,
    Resign,
    StartGame,
)
from .errors import fail
from .events import (
    ActionChosen,
    ActionDeckRemade,
    ActionDiscarded,
    ActionsRevealed,
    Aimed,
    AimWindowClosed,
    BagmanChanged,
    BagmanElected,
    BangFired,
    CardGrabbed,
    CardsDrawn,
    CountdownEnded,
    Died,
    DiscussionEnded,
    Event,
    GameEnded,
    GameStarted,
    LootBurned,
    LootDisplayed,
    LootGiven,
    LootTaken,
    SeatResigned,
    SpoilsClaimed,
    StepOpened,
    VoteCast,
    Wounded,
)
from .evolve import HANDLERS
from .options import RULES_2, RULES_KNOWN
from .state import (
    AIM,
    CHOOSE,
    CLAIM,
    COUNTDOWN,
    ELECT,
    GIVE,
    GRAB_STEP,
    NO_CARD,
    OVER,
    PICK,
    SETUP,
    State,
)

MIN_PLAYERS, MAX_PLAYERS = 4, 8
WOUNDS_TO_DIE = 4  # LT5.1
GRAB_COUNT = 3  # LT4.2
GRAB_SOURCES = ("loot", "action", "discard")


class _Run:
    __slots__ = ("events", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.state = HANDLERS[event.TYPE](self.state, event)  # evolve, one call less


def decide(state: State, command: Command, ctx: Context | None = None) -> list[Event]:
    """The events ``command`` causes, or a ``RuleError``. ``ctx`` is unused: no rule of LT reads the time."""
    return _run(state, command).events


def step(state: State, command: Command, ctx: Context | None = None) -> tuple[list[Event], State]:
    """``decide`` and the state after its events (the fold ``decide`` has already made, not made again)."""
    run = _run(state, command)
    return run.events, run.state


def _run(state: State, command: Command) -> _Run:
    run = _Run(state)
    if isinstance(command, StartGame):
        if state.phase != SETUP:
            fail("already_started", "the game has already started")
        _start(run, command)
        return run
    if state.phase == SETUP:
        fail("not_started", "the game has not started")
    if state.phase == OVER:
        fail("game_over", "the game is over")
    if isinstance(command, Resign | CloseStep):
        if command.seat is not None:
            fail("system_only", f"{command.TYPE} is a system command")
        if isinstance(command, Resign):
            _resign(run, command)
        else:
            _close_step(run, command)
        return run
    seat = command.seat
    if seat is None:
        fail("player_only", f"{command.TYPE} needs a seated player")
    if type(seat) is not int or not 0 <= seat < state.n:
        fail("not_seated", "no such seat")
    if not state.alive[seat]:
        fail("dead", "a dead player takes no part")
    if state.resigned[seat] and isinstance(command, Aim | BurnLoot | ElectBagman):
        fail("resigned", "a resigned seat only plays the defaults (LT7.3)")
    if isinstance(command, GiveLoot):
        _give(run, seat, command)
    elif isinstance(command, Aim):
        _aim(run, seat, command)
    elif isinstance(command, ChooseAction):
        _choose(run, seat, command)
    elif isinstance(command, PickLoot):
        _pick(run, seat, command)
    elif isinstance(command, ClaimSpoils):
        _claim(run, seat, command)
    elif isinstance(command, Grab):
        _grab(run, seat, command)
    elif isinstance(command, BurnLoot):
        _burn(run, seat, command)
    elif isinstance(command, ElectBagman):
        _vote(run, seat, command)
    else:  # pragma: no cover - every command type is handled above
        fail("invalid_command", f"unknown command {command!r}")
    return run


# --- setup (LT1) -------------------------------------------------------------------------------------------


def derangement(seed: bytes, n: int) -> tuple[int, ...]:
    """LT1.3: a uniform derangement by rejection sampling of shuffles of ``setup/pals``."""
    stream = rng.Stream(seed, "setup/pals")
    while True:
        perm = stream.shuffle(list(range(n)))
        if all(perm[i] != i for i in range(n)):
            return tuple(perm)


def deal(seed: bytes, n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """LT1.7 from ``setup/deal``: one random BANG!, DUCK! and GRAB! each (in that order, shuffling each
    kind), the rest shuffled into the Action deck, then one more card each from the top, seat order."""
    stream = rng.Stream(seed, "setup/deal")
    hands: list[list[int]] = [[] for _ in range(n)]
    rest: list[int] = []
    for kind in (BANG, DUCK, GRAB):
        cards = stream.shuffle(list(ACTION_RANGES[kind]))
        for seat in range(n):
            hands[seat].append(cards[seat])
        rest.extend(cards[n:])
    rest.extend(ACTION_RANGES[CROSSFIRE])
    rest.extend(ACTION_RANGES[IN_THE_FIRE])
    deck = stream.shuffle(sorted(rest))
    for seat in range(n):
        hands[seat].append(deck[seat])
    return tuple(tuple(sorted(h)) for h in hands), tuple(deck[n:])


def _start(run: _Run, command: StartGame) -> None:
    players = command.players
    n = len(players)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS or len(set(players)) != n:
        fail("invalid_players", f"Loose Triggers needs {MIN_PLAYERS} to {MAX_PLAYERS} different players")
    if command.rules not in RULES_KNOWN:
        fail("invalid_command", f"unknown rules {command.rules!r}")
    seed = command.seed
    fair = (
        command.seats is None
        and command.loot_deck is None
        and command.bagman is None
        and not command.fixed_seed
    )
    if command.seats is not None:
        if sorted(command.seats) != sorted(players):
            fail("invalid_setup", "'seats' must list every player once")
        seats = tuple(command.seats)
    elif command.options.shuffle_seats:
        seats = tuple(rng.Stream(seed, "setup/seats").shuffle(list(players)))
    else:
        seats = tuple(players)
    aliases = tuple(rng.Stream(seed, "setup/aliases").shuffle(list(ALIASES))[:n])
    pals = derangement(seed, n)
    if command.bagman is not None:
        if not 0 <= command.bagman < n:
            fail("invalid_setup", "'bagman' must be a seat")
        bagman = command.bagman
    else:
        bagman = rng.Stream(seed, "setup/bagman").below(n)
    if command.loot_deck is not None:
        if sorted(command.loot_deck) != list(LOOT_CARDS):
            fail("invalid_setup", "'loot_deck' must list every Loot card id 0..55 once")
        loot_deck = tuple(command.loot_deck)
    else:
        loot_deck = tuple(rng.Stream(seed, "setup/loot").shuffle(list(LOOT_CARDS)))
    hands, action_deck = deal(seed, n)
    run.emit(
        GameStarted(
            players=seats,
            aliases=aliases,
            pals=pals,
            bagman=bagman,
            options=command.options,
            fair=fair,
            seed=seed.hex(),
            seed_commitment=rng.seed_commitment(seed),
            loot_deck=loot_deck,
            action_deck=action_deck,
            hands=hands,
            rules=command.rules,
        )
    )
    _settle(run)


# --- what comes next outside a Discussion -------------------------------------------------------------------


def _open(run: _Run, step: str, seat: int = NO_CARD, target: int = NO_CARD, claim: bool = False) -> None:
    run.emit(StepOpened(step_no=run.state.step_no + 1, step=step, seat=seat, target=target, claim=claim))


def _settle(run: _Run) -> None:
    """No Discussion runs: end the game (LT6.1), elect a Bagman (LT5.4), display Loot (LT2.1), then the aim
    window (LT2.5, rules 2: before each give) or the give."""
    s = run.state
    living = s.living()
    if len(living) <= 1 or (not s.display and not s.loot_deck):
        _end(run, living)
        return
    if s.bagman is None:
        if not _voters(s):
            _tally(run)
        else:
            _open(run, ELECT)
        return
    if not s.display:
        count = min(len(living), len(s.loot_deck))
        down = min(count, 2 if len(living) >= 4 else 1)
        cards = s.loot_deck[:count]
        run.emit(
            LootDisplayed(
                bagman=s.bagman,
                cards=cards,
                face_down=tuple(i >= count - down for i in range(count)),
            )
        )
    _open(run, AIM if s.options.aim_window else GIVE)


def next_living(state: State, after: int, *, skip_resigned: bool = False) -> int:
    """The next living seat clockwise after ``after`` (``after`` itself last)."""
    n = state.n
    for i in range(1, n + 1):
        seat = (after + i) % n
        if state.alive[seat] and not (skip_resigned and state.resigned[seat]):
            return seat
    return after


def _voters(state: State) -> list[int]:
    return [s for s in range(state.n) if state.alive[s] and not state.resigned[s]]


# --- the deal (LT2) -----------------------------------------------------------------------------------------


def _need_step(state: State, step: str) -> None:
    if state.step != step:
        fail("wrong_step", f"the game is not waiting for {step} now")


def _need_living(state: State, seat: int) -> None:
    if type(seat) is not int or not 0 <= seat < state.n or not state.alive[seat]:
        fail("invalid_seat", "no such living seat")


def _need_slot(state: State, slot: int) -> None:
    if not 0 <= slot < len(state.display):
        fail("invalid_slot", "no displayed card at that slot")


def _give(run: _Run, seat: int, command: GiveLoot) -> None:
    s = run.state
    if s.step == AIM:  # LT2.5: the give waits until the window closes
        if seat != s.bagman:
            fail("not_bagman", "only the Bagman gives Loot")
        fail(
            "aim_window", "the aim window is open: you give once every other player passed or its time is up"
        )
    _need_step(s, GIVE)
    if seat != s.bagman:
        fail("not_bagman", "only the Bagman gives Loot")
    _need_slot(s, command.slot)
    _need_living(s, command.to)
    run.emit(
        LootGiven(
            bagman=seat,
            to=command.to,
            slot=command.slot,
            card=s.display[command.slot],
            face_down=s.display_down[command.slot],
        )
    )
    _settle(run)


# --- Discussions (LT3) --------------------------------------------------------------------------------------


def _aim(run: _Run, seat: int, command: Aim) -> None:
    s = run.state
    target = command.target
    # the order every command keeps (issue #24, the spec's "Order of checks"): the step, then what the seat
    # may do now, then the arguments
    if s.discussion is not None and s.discussion != COUNTDOWN:
        fail("wrong_step", "the Discussion has locked")
    current = s.aims[seat] if s.discussion == COUNTDOWN else None
    if s.discussion is None and s.opened[seat]:
        fail("already_opened", "you opened a Discussion during this display already")
    if current is not None and seat == s.counter:
        fail("counter_locked", "the Counter cannot change target")
    if current is not None and s.retargets[seat] >= s.options.max_retargets:
        fail("too_many_retargets", "you have changed target as often as you may")
    _need_living(s, target)
    if target == seat:
        fail("invalid_target", "a player cannot aim at themselves")
    if current is not None and target == current:
        fail("invalid_target", "that is already your target")
    how = "open" if s.discussion is None else "join" if current is None else "retarget"
    run.emit(Aimed(seat=seat, target=target, how=how))
    if s.step == AIM:  # LT2.5: the aim closes the window; the deal resumes after the Discussion (ruling 25)
        run.emit(AimWindowClosed(step_no=s.step_no, reason="aimed"))
    _open(run, COUNTDOWN)


def _close_step(run: _Run, command: CloseStep) -> None:
    s = run.state
    if command.step_no != s.step_no:
        fail("stale_step", "that step is not the current one")
    if command.reason not in (None, "ready", "deadline"):
        fail("invalid_command", "a step closes for 'ready' or 'deadline'")
    if s.step == AIM:  # LT2.5: every other player passed, or the window's time is up
        run.emit(
            AimWindowClosed(step_no=s.step_no, reason="passed" if command.reason == "ready" else "deadline")
        )
        _open(run, GIVE)
    elif s.step == COUNTDOWN:
        run.emit(CountdownEnded())
        _open_choose(run)
    elif s.step == CHOOSE:
        _reveal(run)
    elif s.step == ELECT:
        _tally(run)
    else:
        fail("wrong_step", "this step closes by its player's command (or the table's default_command)")


def choosers(state: State) -> list[int]:
    """LT3.3: the Gunners who hold cards."""
    return [g for g in range(state.n) if state.aims[g] is not None and state.hands[g]]


def _open_choose(run: _Run) -> None:
    if choosers(run.state):
        _open(run, CHOOSE)
    else:
        _reveal(run)


def _choose(run: _Run, seat: int, command: ChooseAction) -> None:
    s = run.state
    _need_step(s, CHOOSE)
    if s.aims[seat] is None or not s.hands[seat]:
        fail("not_a_gunner", "only a Gunner with cards chooses an Action")
    card = command.card
    if card != NO_CARD and card not in s.hands[seat]:
        fail("card_not_in_hand", "that card is not in your hand")
    _commit(run, seat, card)


def _commit(run: _Run, seat: int, card: int) -> None:
    """LT3.3, LT7.2: the face-down choice, published as its commitment with a fresh salt."""
    s = run.state
    salt = rng.salt(s.seed, f"salt/{s.commit_no}")
    run.emit(ActionChosen(seat=seat, commit_no=s.commit_no, commitment=rng.commitment(salt, card), card=card))


def _reveal(run: _Run) -> None:
    s = run.state
    cards = tuple(
        NO_CARD if s.aims[seat] is None or s.chosen[seat] is None else s.chosen[seat] for seat in range(s.n)
    )
    run.emit(ActionsRevealed(cards=tuple(NO_CARD if c is None else c for c in cards)))
    _resolve(run)


# --- resolving (LT4, LT5) -----------------------------------------------------------------------------------


def _resolve(run: _Run) -> None:
    """Resolve the played cards in number order until a sub-choice is needed or all are done (LT3.4)."""
    while run.state.queue:
        s = run.state
        card = s.queue[0]
        owner = s.in_play.index(card)
        kind = kind_of(card)
        if kind == BANG:
            if _bang(run, owner, card):
                return
            continue
        if not s.alive[owner]:  # README ruling 4: a dead player's other cards do nothing
            run.emit(ActionDiscarded(seat=owner, card=card))
        elif kind == GRAB:
            _open(run, GRAB_STEP, seat=owner)
            return
        elif kind == DUCK:  # LT4.3
            run.emit(ActionDiscarded(seat=owner, card=card))
            _draw(run, owner, 2)
        elif kind == CROSSFIRE:  # LT4.4
            run.emit(ActionDiscarded(seat=owner, card=card))
            _draw(run, owner, 1)
        else:  # LT4.5: IN THE FIRE! of a living player is simply discarded
            run.emit(ActionDiscarded(seat=owner, card=card))
    _finish_discussion(run)


def _bang(run: _Run, gunner: int, card: int) -> bool:
    """LT4.1. True when a sub-choice (PickLoot, ClaimSpoils) now waits. Under rules 1 ``BangFired`` discards
    the BANG! at once; from rules 2 it stays in play until its effects are over (``_bang_done``)."""
    if _fire(run, gunner, card):
        return True
    _bang_done(run, gunner)
    return False


def _bang_done(run: _Run, gunner: int) -> None:
    """LT4.1 "Then the BANG! is discarded" (rules 2): after the DUCK!'s draws, the crossfire, the Wound, the
    Loot and the spoils, so a deck remade meanwhile (LT4.6) cannot hold it and the discard pile's top is
    it."""
    s = run.state
    if s.rules >= RULES_2:
        card = s.in_play[gunner]
        assert card is not None
        assert is_kind(card, BANG)
        run.emit(ActionDiscarded(seat=gunner, card=card))


def _fire(run: _Run, gunner: int, card: int) -> bool:
    s = run.state
    target = s.aims[gunner]
    assert target is not None
    if not s.alive[target]:
        run.emit(BangFired(gunner=gunner, target=target, card=card, outcome="dead_target"))
        return False
    held = s.in_play[target]
    if is_kind(held, DUCK):
        assert held is not None
        run.emit(BangFired(gunner=gunner, target=target, card=card, outcome="ducked"))
        run.emit(ActionDiscarded(seat=target, card=held))
        _draw(run, target, 2)
        return False
    if is_kind(s.played[target], CROSSFIRE) and held is not None:
        run.emit(BangFired(gunner=gunner, target=target, card=card, outcome="crossfire"))
        if sum(1 for aim in s.aims if aim == target) >= 2:
            _wound(run, gunner, by=target, cause="crossfire")
        return False
    bagman_hit = s.bagman == target
    run.emit(BangFired(gunner=gunner, target=target, card=card, outcome="hit"))
    _wound(run, target, by=gunner, cause="bang")
    s = run.state
    if not s.alive[gunner]:  # LT5.2: a dead Gunner takes nothing
        return False
    if s.stacks[target]:
        if s.in_play[target] is None:  # a Sitting Duck (LT3.5): the Gunner chooses
            _open(run, PICK, seat=gunner, target=target, claim=bagman_hit)
            return True
        _take_random(run, gunner, target)
    if bagman_hit:
        _open(run, CLAIM, seat=gunner, target=target)
        return True
    return False


def _take_random(run: _Run, gunner: int, victim: int) -> None:
    s = run.state
    stack = s.stacks[victim]
    card = stack[rng.Stream(s.seed, f"random/{s.random_no}").below(len(stack))]
    run.emit(LootTaken(seat=gunner, victim=victim, card=card, chosen=False))


def _wound(run: _Run, seat: int, *, by: int, cause: str) -> bool:
    """One Wound (LT4.1); the fourth kills (LT5.1). README ruling 5: the dead take no more Wounds."""
    s = run.state
    if not s.alive[seat]:
        return False
    wounds = s.wounds[seat] + 1
    run.emit(Wounded(seat=seat, by=by, cause=cause, wounds=wounds))
    if wounds >= WOUNDS_TO_DIE:
        _kill(run, seat, killer=by, cause=cause)
        return True
    return False


def _kill(run: _Run, dead: int, *, killer: int, cause: str) -> None:
    """LT5.1-LT5.3 and LT4.5."""
    s = run.state
    if is_kind(s.played[dead], IN_THE_FIRE):
        loot_to = "fire"
    elif s.alive[killer]:
        loot_to = "killer"
    else:
        loot_to = "discard"
    run.emit(Died(seat=dead, killer=killer, hand=s.hands[dead], loot=s.stacks[dead], loot_to=loot_to))
    if s.bagman == dead:
        if s.alive[killer]:
            run.emit(BagmanChanged(seat=killer, cause="crossfire" if cause == "crossfire" else "killed"))
        else:
            run.emit(BagmanChanged(seat=NO_CARD, cause="vacant"))


def _pick(run: _Run, seat: int, command: PickLoot) -> None:
    s = run.state
    _need_step(s, PICK)
    if seat != s.pending_seat:
        fail("not_your_choice", "another player picks now")
    victim = s.pending_target
    assert victim is not None
    if command.card == NO_CARD:
        _take_random(run, seat, victim)
    elif command.card not in s.stacks[victim]:
        fail("card_not_in_stack", "that card is not in the Target's Loot stack")
    else:
        run.emit(LootTaken(seat=seat, victim=victim, card=command.card, chosen=True))
    if s.pending_claim:
        _open(run, CLAIM, seat=seat, target=victim)
        return
    _bang_done(run, seat)
    _resolve(run)


def _claim(run: _Run, seat: int, command: ClaimSpoils) -> None:
    s = run.state
    _need_step(s, CLAIM)
    if seat != s.pending_seat:
        fail("not_your_choice", "another player claims now")
    slot = command.slot
    if slot != NO_CARD:
        _need_slot(s, slot)
    from_bagman = s.pending_target
    assert from_bagman is not None
    run.emit(
        SpoilsClaimed(
            seat=seat,
            from_bagman=from_bagman,
            slot=slot,
            card=NO_CARD if slot == NO_CARD else s.display[slot],
            face_down=slot != NO_CARD and s.display_down[slot],
            bagman=command.bagman,
        )
    )
    if command.bagman and s.bagman != seat:
        run.emit(BagmanChanged(seat=seat, cause="claimed"))
    _bang_done(run, seat)
    _resolve(run)


def parse_sources(state: State, sources: tuple[str, ...]) -> list[tuple[str, int]]:
    """LT4.2: exactly three of loot | action | discard | display:<slot> (a slot at most once), the slot in
    ASCII digits (rules 2; rules 1 read any digits ``int`` reads, ruling 32: a stored Arabic-Indic one was a
    slot)."""
    if len(sources) != GRAB_COUNT:
        fail("invalid_sources", "a Grab takes exactly three sources")
    out: list[tuple[str, int]] = []
    slots: set[int] = set()
    for source in sources:
        if source in GRAB_SOURCES:
            out.append((source, NO_CARD))
            continue
        kind, _, rest = source.partition(":")
        slot = _slot(rest, ascii_only=state.rules >= RULES_2) if kind == "display" else None
        if slot is None or slot >= len(state.display) or slot in slots:
            fail("invalid_sources", f"bad Grab source {source!r}")
        slots.add(slot)
        out.append(("display", state.display[slot]))
    return out


def _slot(text: str, *, ascii_only: bool) -> int | None:
    """A display slot written in digits, or None. ``str.isdigit`` also says yes to "²" (which ``int`` refuses)
    and to other scripts' digits (which it reads): only ASCII digits from rules 2 (issue #28)."""
    if not text.isdigit() or (ascii_only and not text.isascii()):
        return None
    try:
        return int(text)
    except ValueError:  # "²": a digit to isdigit, not to int
        return None


def default_grab(state: State) -> tuple[str, ...]:
    """LT4.2's default: three from the Action deck (remade as LT4.6), the Loot deck once both are empty."""
    deck, discard = len(state.action_deck), len(state.action_discard)
    out: list[str] = []
    for _ in range(GRAB_COUNT):
        if deck == 0 and discard:
            deck, discard = discard, 0
        if deck:
            deck -= 1
            out.append("action")
        else:
            out.append("loot")
    return tuple(out)


def _grab(run: _Run, seat: int, command: Grab) -> None:
    s = run.state
    _need_step(s, GRAB_STEP)
    if seat != s.pending_seat:
        fail("not_your_choice", "another player grabs now")
    sources = parse_sources(s, command.sources)
    for source, card in sources:
        s = run.state
        bagman = NO_CARD if s.bagman is None else s.bagman
        if source == "loot":
            got = s.loot_deck[0] if s.loot_deck else NO_CARD
            run.emit(
                CardGrabbed(seat=seat, source=source, slot=NO_CARD, card=got, face_down=False, bagman=bagman)
            )
        elif source == "display":
            slot = s.display.index(card)
            run.emit(
                CardGrabbed(
                    seat=seat,
                    source=source,
                    slot=slot,
                    card=card,
                    face_down=s.display_down[slot],
                    bagman=bagman,
                )
            )
        elif source == "action":
            if not s.action_deck and s.action_discard:
                _remake(run)
                s = run.state
            got = s.action_deck[0] if s.action_deck else NO_CARD
            run.emit(
                CardGrabbed(seat=seat, source=source, slot=NO_CARD, card=got, face_down=False, bagman=bagman)
            )
        else:
            got = s.action_discard[-1] if s.action_discard else NO_CARD
            run.emit(
                CardGrabbed(seat=seat, source=source, slot=NO_CARD, card=got, face_down=False, bagman=bagman)
            )
    grab = run.state.in_play[seat]
    assert grab is not None
    run.emit(ActionDiscarded(seat=seat, card=grab))
    _resolve(run)


def _remake(run: _Run) -> None:
    s = run.state
    deck = rng.Stream(s.seed, f"remake/{s.remakes}").shuffle(list(s.action_discard))
    run.emit(ActionDeckRemade(deck=tuple(deck)))


def _draw(run: _Run, seat: int, count: int) -> None:
    """LT4.6: draw from the Action deck, remade from the discard pile when empty; what there is."""
    s = run.state
    take = min(count, len(s.action_deck))
    if take:
        run.emit(CardsDrawn(seat=seat, cards=s.action_deck[:take]))
    rest = count - take
    if rest and run.state.action_discard:
        _remake(run)
        s = run.state
        take = min(rest, len(s.action_deck))
        run.emit(CardsDrawn(seat=seat, cards=s.action_deck[:take]))


def _finish_discussion(run: _Run) -> None:
    """LT4.6: empty-handed living players draw 2, in seat order from the Bagman; then the deal resumes."""
    s = run.state
    start = s.bagman if s.bagman is not None else s.last_bagman
    for i in range(s.n):
        seat = (start + i) % s.n
        if run.state.alive[seat] and not run.state.hands[seat]:
            _draw(run, seat, 2)
    run.emit(DiscussionEnded())
    _settle(run)


# --- outside a Discussion: BurnLoot (LT4.5), resigning (LT7.3), the Bagman election (LT5.4) ---------------


def _burn(run: _Run, seat: int, command: BurnLoot) -> None:
    s = run.state
    if s.discussion is not None:
        fail("discussion_running", "not while a Discussion runs")
    if command.card not in s.hands[seat]:
        fail("card_not_in_hand", "that card is not in your hand")
    if not is_kind(command.card, IN_THE_FIRE):
        fail("not_in_the_fire", "BurnLoot needs an IN THE FIRE! card")
    loot = command.loot
    if len(loot) != 2 or loot[0] == loot[1] or any(c not in s.stacks[seat] for c in loot):
        fail("invalid_loot", "name two different Loot cards of your own stack")
    run.emit(LootBurned(seat=seat, card=command.card, loot=tuple(loot)))
    _draw(run, seat, 2)


def _resign(run: _Run, command: Resign) -> None:
    s = run.state
    if type(command.target) is not int or not 0 <= command.target < s.n:
        fail("not_seated", "no such seat")
    if s.resigned[command.target]:
        fail("already_resigned", "the seat has already resigned")
    run.emit(SeatResigned(seat=command.target))
    s = run.state
    if s.rules >= RULES_2 and s.step == CHOOSE and command.target in choosers(s):
        # LT7.3, LT7.2 (R8.3): a resigned Gunner plays no card, and resigning shows the same public facts
        # whatever they had chosen: always one new commitment, to "no card" (rules 1 played it only over a
        # card or no choice, and nothing over an explicit "no card": a leak of the face-down choice)
        _commit(run, command.target, NO_CARD)
    if run.state.step == ELECT and all(run.state.votes[v] is not None for v in _voters(run.state)):
        _tally(run)


def _vote(run: _Run, seat: int, command: ElectBagman) -> None:
    s = run.state
    _need_step(s, ELECT)
    if s.votes[seat] is not None:
        fail("already_voted", "you have voted already")
    c = command.candidate
    if type(c) is not int or not 0 <= c < s.n or not s.alive[c] or s.resigned[c]:
        fail("invalid_candidate", "vote for a living player who has not resigned")
    run.emit(VoteCast(seat=seat, candidate=c))
    if all(run.state.votes[v] is not None for v in _voters(run.state)):
        _tally(run)


def _tally(run: _Run) -> None:
    """LT5.4: most votes wins; a tie or no vote: the next living (not resigned) seat clockwise from the dead
    Bagman. Votes for a seat that resigned since count for nobody."""
    s = run.state
    counts = [0] * s.n
    for voter in _voters(s):
        c = s.votes[voter]
        if c is not None and s.alive[c] and not s.resigned[c]:
            counts[c] += 1
    best = max(counts)
    leaders = [seat for seat in range(s.n) if counts[seat] == best]
    tie = best == 0 or len(leaders) > 1
    if tie:
        seat = next_living(s, s.last_bagman, skip_resigned=True)
        if s.resigned[seat] or not s.alive[seat]:
            seat = next_living(s, s.last_bagman)
    else:
        seat = leaders[0]
    run.emit(BagmanElected(seat=seat, votes=tuple(counts), tie=tie))
    _settle(run)


# --- the end (LT6) ------------------------------------------------------------------------------------------


def final_ranks(state: State) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """LT6.2: (values, ranks, bonus) per seat."""
    n = state.n
    values = tuple(loot_value(stack) for stack in state.stacks)
    ranks = [0] * n
    for i, seat in enumerate(state.deaths):
        ranks[seat] = i + 1
    survivors = [s for s in range(n) if state.alive[s]]
    for seat in survivors:
        ranks[seat] = n - sum(1 for o in survivors if values[o] > values[seat])
    bonus = [0] * n
    if survivors:
        top = max(values[s] for s in survivors)
        for seat in survivors:
            if values[seat] == top:
                bonus[seat] = 1
    return values, tuple(ranks), tuple(bonus)


def _end(run: _Run, living: list[int]) -> None:
    """LT6.1-LT6.3 (LT7.3: a resigned seat cannot win)."""
    s = run.state
    values, ranks, bonus = final_ranks(s)
    scores = tuple(ranks[seat] + bonus[seat] + ranks[s.pals[seat]] for seat in range(s.n))
    reason = "none_alive" if not living else "last_alive" if len(living) == 1 else "loot_gone"
    candidates = [seat for seat in range(s.n) if not s.resigned[seat]]
    if len(living) == 1 and not s.resigned[living[0]]:
        winners: tuple[int, ...] = (living[0],)
    elif candidates:
        best = max((scores[seat], values[seat]) for seat in candidates)
        winners = tuple(seat for seat in candidates if (scores[seat], values[seat]) == best)
    else:
        winners = ()
    run.emit(
        GameEnded(
            reason=reason,
            values=values,
            ranks=ranks,
            bonus=bonus,
            scores=scores,
            winners=winners,
            seed=s.seed.hex(),
        )
    )
