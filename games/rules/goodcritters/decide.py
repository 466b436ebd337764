"""``decide(state, command, ctx)``: every rule and every check of GoodCritters (RULES.md).

The play-by-web table (``games.rules.table``) hosts the game: deadlines, absences, pauses, hand-overs,
messages, resignations and the ready flags are its. It plays what the rules say a seat plays when its time is
up or it resigned (``PlayDefault``: R7.2, R7.3, R7.4), closes Step 3 (``CloseChoice``) and lapses a
resigned seat's trades (``LapseTrades``).

A command yields a list of events. Steps that need nobody (Step 1 Show the Loot, Step 4 Resolve) run inside
``decide`` right after the step before them closes, so one command can yield a whole round's worth of
events. Every random outcome is drawn here, from the game's seed (:mod:`games.rules.rng`), and written
into the events.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from games.rules import rng
from games.rules.core import Context, RuleError

from . import events as ev
from .cards import (
    ACTIONS,
    BUNDLE_VISIBILITIES,
    FUZZ,
    GUARD,
    LOOT_COUNT,
    LOOT_TYPES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PAYOFF_CARD_VALUE,
    PAYOFF_SIDES,
    PILE_SPLIT,
    ROB,
    SKIM,
    STARTING_VALUES,
    VALUES,
    VOTE_NO,
    VOTE_YES,
    stash_value,
)
from .commands import (
    AcceptTrade,
    ChooseAction,
    CloseChoice,
    Command,
    DeclineTrade,
    DistributeLoot,
    GiveGift,
    LapseTrades,
    OfferPayoff,
    OfferTrade,
    PlaceThreat,
    PlayDefault,
    RemoveThreat,
    StartGame,
    WithdrawPayoff,
    WithdrawTrade,
)
from .errors import fail, rule_error
from .evolve import evolve
from .options import MAX_PAUSE_KEY, RULES_KNOWN, RULES_R7_6, Options
from .state import CHOOSE, DISTRIBUTE, OVER, SETUP, State, Trade

MAX_OPEN_TRADES = 10  # open offers per player
SIDES = PAYOFF_SIDES
VISIBILITIES = BUNDLE_VISIBILITIES
SEED_BYTES = 32


# --------------------------------------------------------------------------------------------------
# the running decision: events so far and the state they lead to
# --------------------------------------------------------------------------------------------------
class _Run:
    __slots__ = ("ctx", "events", "state")

    def __init__(self, state: State, ctx: Context) -> None:
        self.state = state
        self.ctx = ctx
        self.events: list[ev.Event] = []

    def emit(self, event: ev.Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def _r7_6(state: State) -> bool:
    """The game plays under rules with R7.6 (rules 3 and later); a game keeps the rules it started with
    (ruling 32): under rules 2 the Boss's job went on as it did before (``_next_boss``)."""
    return state.rules >= RULES_R7_6


def _ready_seats(state: State, *seats: int | None) -> tuple[int, ...]:
    """The seats among ``seats`` whose ready flag is up (and so gets cleared, R2.4), in seat order."""
    ready = state.ready
    return tuple(sorted({s for s in seats if s is not None and ready[s]}))


def _salt(state: State, commit_no: int) -> bytes:
    return rng.salt(state.seed, f"salt/{commit_no}")


def _random_card(state: State, stash: frozenset[int], label: str) -> int | None:
    """R3.6: a uniformly random card of ``stash`` (sorted by id), or None if it is empty."""
    if not stash:
        return None
    cards = sorted(stash)
    return cards[rng.Stream(state.seed, label).below(len(cards))]


# --------------------------------------------------------------------------------------------------
# setup (§1)
# --------------------------------------------------------------------------------------------------
def _check_players(command: StartGame) -> None:
    players = command.players
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        fail("invalid_players", f"GoodCritters needs {MIN_PLAYERS} to {MAX_PLAYERS} players (R1.1)")
    if len(set(players)) != len(players) or not all(isinstance(p, str) and p for p in players):
        fail("invalid_players", "players must be distinct non-empty ids")
    if len(command.seed) != SEED_BYTES:
        fail("invalid_command", f"the seed must be {SEED_BYTES} bytes")


def _seat_order(command: StartGame) -> tuple[str, ...]:
    """R1.1: join order, shuffled with ``shuffle_seats``, or fixed by an operator."""
    if command.seats is not None:
        if sorted(command.seats) != sorted(command.players):
            fail("invalid_setup", "setup 'seats' must be the players in seat order")
        return tuple(command.seats)
    if command.options.shuffle_seats:
        return tuple(rng.Stream(command.seed, "setup/seats").shuffle(list(command.players)))
    return tuple(command.players)


def _card_types(seed: bytes) -> tuple[str, ...]:
    """R1.2: equal numbers of each type, shuffled onto the card ids."""
    per_type = LOOT_COUNT // len(LOOT_TYPES)
    types = [t for t in LOOT_TYPES for _ in range(per_type)]
    return tuple(rng.Stream(seed, "setup/types").shuffle(types))


def fuzz_position(seed: bytes, n: int, pile_cards: int, options: Options) -> int:
    """R1.4/R1.5: where The Fuzz! goes, as the number of Loot cards above it."""
    m = pile_cards
    stream = rng.Stream(seed, "setup/fuzz")
    span = options.fuzz_span()
    if span is None:
        parts, part = PILE_SPLIT[n]
        sizes = [m // parts + (1 if j < m % parts else 0) for j in range(parts)]
        start = sum(sizes[: part - 1])
        return start + stream.below(sizes[part - 1] + 1)
    low = min(max(math.ceil(span[0] * m), 0), m)
    high = min(max(math.floor(span[1] * m), low), m)
    return low + stream.below(high - low + 1)


def _deal(seed: bytes, n: int, options: Options) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """R1.3/R1.4: starting Stashes (one of each value, first cards of each value in the shuffled deck, by
    seat) and the pile (the rest in shuffled order, The Fuzz! placed)."""
    deck = rng.Stream(seed, "setup/deck").shuffle(list(range(LOOT_COUNT)))
    by_value: dict[int, list[int]] = {v: [] for v in STARTING_VALUES}
    for card in deck:
        by_value[VALUES[card]].append(card)
    stashes = tuple(tuple(by_value[v][seat] for v in STARTING_VALUES) for seat in range(n))
    dealt = {c for stash in stashes for c in stash}
    rest = [c for c in deck if c not in dealt]
    at = fuzz_position(seed, n, len(rest), options)
    return stashes, (*rest[:at], FUZZ, *rest[at:])


def _operator_deal(command: StartGame, n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    stashes, pile = command.stashes, command.pile
    if stashes is None or pile is None:
        fail("invalid_setup", "setup 'stashes' and 'pile' go together")
    if len(stashes) != n:
        fail("invalid_setup", "setup 'stashes' needs one list per seat")
    cards = [c for stash in stashes for c in stash] + list(pile)
    if sorted(cards) != list(range(LOOT_COUNT + 1)) or FUZZ not in pile:
        fail(
            "invalid_setup",
            "setup must place each of the 140 Loot cards once and The Fuzz! (140) in the pile",
        )
    return tuple(tuple(s) for s in stashes), tuple(pile)


def _start(run: _Run, command: StartGame) -> None:
    if run.state.phase != SETUP:
        fail("already_started", "the game has already started")
    if command.rules not in RULES_KNOWN:
        known = ", ".join(map(str, RULES_KNOWN))
        fail("invalid_command", f"unknown rules {command.rules!r} (known: {known})")
    _check_players(command)
    seats = _seat_order(command)
    n = len(seats)
    operator = command.stashes is not None or command.pile is not None
    stashes, pile = _operator_deal(command, n) if operator else _deal(command.seed, n, command.options)
    if command.boss is not None:
        if not 0 <= command.boss < n:
            fail("invalid_setup", "setup 'boss' must be a seat")
        boss = command.boss
    else:  # R1.6
        boss = seats.index(command.creator) if command.creator in seats else 0
    options = command.options
    if command.rules < RULES_R7_6:  # the options of a game under rules 2 never had R7.6's limit
        options = dataclasses.replace(
            options, table=tuple(kv for kv in options.table if kv[0] != MAX_PAUSE_KEY)
        )
    run.emit(
        ev.GameStarted(
            players=seats,
            boss=boss,
            options=options,
            # fair: nothing an operator fixed (the seed, the deal, the seats or the first Boss)
            fair=not operator and command.seats is None and command.boss is None and not command.fixed_seed,
            seed=command.seed.hex(),
            seed_commitment=rng.seed_commitment(command.seed),
            stashes=stashes,
            pile=pile,
            types=_card_types(command.seed),
            pile_size=len(pile),
            rules=command.rules,
        )
    )
    _begin_round(run)


# --------------------------------------------------------------------------------------------------
# the round (§2): Step 1 and the steps' openings
# --------------------------------------------------------------------------------------------------
def _reveal(run: _Run, count: int, *, extra: bool) -> bool:
    """Turn over up to ``count`` cards one at a time (R2.1, R4.3); True when The Fuzz! turned up (R5.1)."""
    state = run.state
    cards: list[int] = []
    fuzz = False
    for i in range(count):
        card = state.next_card(i)
        if card is None:
            break
        if card == FUZZ:
            fuzz = True
            break
        cards.append(card)
    if cards:
        run.emit(ev.LootRevealed(round=state.round, cards=tuple(cards), extra=extra))
    if fuzz:
        run.emit(ev.FuzzRevealed(cause="extra" if extra else "reveal", seat=None))
    elif run.state.next_card() is None and len(cards) < count:
        fuzz = True  # cannot happen (The Fuzz! is in the pile until it turns up); end rather than hang
    return fuzz


def _begin_round(run: _Run) -> None:
    """A new round starting at Step 1 (R2.1)."""
    state = run.state
    run.emit(ev.RoundStarted(round=state.round + 1, boss=state.boss))
    if _reveal(run, state.n + 2, extra=False):
        _end_game(run, "fuzz_reveal")
    else:
        _open_distribute(run)


def _open_distribute(run: _Run) -> None:
    state = run.state
    # the table writes the deadline in (R7.1), and plays R7.2 at once for a resigned Boss (R7.4)
    run.emit(ev.StepOpened(step_no=state.step_no + 1, step=DISTRIBUTE, round=state.round, due_at=None))


def _auto_distribute(run: _Run, why: str) -> None:
    """R7.2: one at a time in the order turned over, from the player after the Boss, clockwise."""
    state = run.state
    n, boss = state.n, state.boss
    shares: list[list[int]] = [[] for _ in range(n)]
    for i, card in enumerate(state.table):
        shares[(boss + 1 + i) % n].append(card)
    run.emit(ev.LootDistributed(boss=boss, shares=tuple(tuple(s) for s in shares), auto=why))
    _after_distribute(run)


def _lapse_trades(run: _Run) -> None:
    if run.state.trades:
        run.emit(ev.TradesLapsed(trade_ids=tuple(t.trade_id for t in run.state.trades)))


def _after_distribute(run: _Run) -> None:
    _lapse_trades(run)
    state = run.state
    # the table writes the deadline in (R7.1), and closes the step once every seat is ready (R2.4)
    run.emit(ev.StepOpened(step_no=state.step_no + 1, step=CHOOSE, round=state.round, due_at=None))


def _close_choose(run: _Run, reason: str) -> None:
    run.emit(ev.StepClosed(step_no=run.state.step_no, step=CHOOSE, reason=reason))
    _lapse_trades(run)
    _resolve(run)


# --------------------------------------------------------------------------------------------------
# Step 4 (§3), the vote (§4), the end (§5)
# --------------------------------------------------------------------------------------------------
def _effective_action(state: State, seat: int) -> tuple[str | None, bool]:
    """The card a seat plays: its choice, else the game's ``timeout_action`` (R7.3/R7.4)."""
    action = state.actions[seat]
    if action is not None:
        return action, False
    default = state.options.timeout_action
    return (None if default == "none" else default), True


def _reveal_action(run: _Run, seat: int, *, early: bool) -> None:
    state = run.state
    action, defaulted = _effective_action(state, seat)
    commit = state.action_commits[seat]
    salt = _salt(state, commit).hex() if not defaulted and commit >= 0 else None
    run.emit(ev.ActionRevealed(seat=seat, action=action, salt=salt, early=early, defaulted=defaulted))


def _resolve_payoffs(run: _Run, target: int) -> None:
    """R3.2/R6.3: the bundles in front of ``target`` resolve at its reveal (givers in seat order)."""
    state = run.state
    action = state.actions[target]
    for bundle in state.bundles:
        if bundle is None or bundle.target != target:
            continue
        wanted = VOTE_YES if bundle.side == "yes" else VOTE_NO
        salt = _salt(state, bundle.commit_no).hex() if bundle.commit_no is not None else None
        run.emit(
            ev.PayoffResolved(
                seat=bundle.giver,
                token=bundle.token,
                target=target,
                side=bundle.side,
                visibility=bundle.visibility,
                taken=action == wanted,
                loot=bundle.loot,
                loot_count=len(bundle.loot),
                payoff_cards=bundle.payoff_cards,
                salt=salt,
            )
        )


def _skim(run: _Run, seat: int) -> None:
    """R3.3 (and R5.2 when the top card is The Fuzz!)."""
    if run.state.skimmed:
        return
    if run.state.next_card() == FUZZ:
        run.emit(ev.FuzzRevealed(cause="skim", seat=seat))
    run.emit(ev.LootSkimmed(seat=seat, card=run.state.next_card()))


def _rob(run: _Run, robber: int) -> None:
    """R3.4/R3.5/R3.6."""
    state = run.state
    victim = state.threats[robber]
    if victim is None:
        return
    if _effective_action(state, victim)[0] == GUARD:
        if not state.revealed[victim]:
            _reveal_action(run, victim, early=True)
        state = run.state
        label = f"round/{state.round}/guard/{robber}"
        card = _random_card(state, state.stashes[robber], label)
        run.emit(ev.RobGuarded(robber=robber, guard=victim, card=card))
    else:
        card = _random_card(state, state.stashes[victim], f"round/{state.round}/rob/{robber}")
        run.emit(ev.RobSucceeded(robber=robber, victim=victim, card=card))


def _next_boss(state: State, boss: int) -> int:
    """The next player clockwise, skipping resigned players (R4.2, R7.4); the Boss when there is none: with
    every other player resigned, or every player (R7.6), nobody can take the job (ruling 13). Under rules 2,
    with every player resigned, the job went to the next seat clockwise."""
    n = state.n
    for i in range(1, n):
        seat = (boss + i) % n
        if not state.resigned[seat]:
            return seat
    if _r7_6(state):
        return boss
    return boss if not state.resigned[boss] else (boss + 1) % n


def _first_no_voter(state: State, boss: int) -> int:
    """R4.3: the first player clockwise from the Boss, not counting the Boss, who revealed Vote No
    (resigned players skipped, R7.4; if none is left, the next player clockwise who has not resigned, and
    the Boss when there is none, R7.6)."""
    n = state.n
    for i in range(1, n):
        seat = (boss + i) % n
        if state.actions[seat] == VOTE_NO and not state.resigned[seat]:
            return seat
    return _next_boss(state, boss)


def _vote_outcome(state: State, yes: int, no: int) -> str:
    if yes > no:
        return "pass"  # R4.1
    if yes == no:
        return "tie"  # R4.2
    if state.options.no_vote_rule == "russian":  # R4.5
        return "boss_keeps" if no == 1 else "fail"
    if no == 1 and yes == 0 and state.actions[state.boss] == VOTE_NO:  # R4.4
        return "boss_keeps"
    return "fail"  # R4.3


def _boss_bonus(run: _Run, seat: int) -> bool:
    """R5.4: the former Boss takes the top card; True when it was The Fuzz! (the game ends at once)."""
    fuzz = run.state.next_card() == FUZZ
    if fuzz:
        run.emit(ev.FuzzRevealed(cause="bonus", seat=seat))
    run.emit(ev.BossBonus(seat=seat, card=run.state.next_card()))
    return fuzz


def _resolve(run: _Run) -> None:
    """Step 4: reveal from the Boss clockwise, carry out each card (R3.1), then the vote (§4)."""
    state = run.state
    n, boss = state.n, state.boss
    for i in range(n):
        seat = (boss + i) % n
        if not run.state.revealed[seat]:
            _reveal_action(run, seat, early=False)
        _resolve_payoffs(run, seat)
        action = run.state.actions[seat]
        if action == SKIM:
            _skim(run, seat)
        elif action == ROB:
            _rob(run, seat)
    state = run.state
    yes = sum(1 for a in state.actions if a == VOTE_YES)
    no = sum(1 for a in state.actions if a == VOTE_NO)
    outcome = _vote_outcome(state, yes, no)
    run.emit(ev.VoteResolved(yes=yes, no=no, outcome=outcome))
    if outcome in ("pass", "tie"):
        if _award(run, outcome):
            return
    else:
        _reject(run, outcome)
    state = run.state
    run.emit(ev.RoundEnded(round=state.round))
    if state.fuzz_skimmed:  # R5.2
        _end_game(run, "fuzz_skim")
    elif outcome in ("pass", "tie"):
        _begin_round(run)
    elif _reveal(run, 2, extra=True):  # R4.3/R4.4/R4.5: two more cards, R5.1 applies
        _end_game(run, "fuzz_extra")
    else:
        run.emit(ev.RoundStarted(round=state.round + 1, boss=run.state.boss))
        _open_distribute(run)


def _award(run: _Run, outcome: str) -> bool:
    """R4.1/R4.2 and R5.4; True when the game ended at once (The Fuzz! as the Boss-term bonus)."""
    state = run.state
    assert state.shares is not None
    run.emit(ev.LootAwarded(shares=state.shares))
    boss = state.boss
    limit = state.options.boss_term_limit
    nxt = _next_boss(run.state, boss)
    if limit is not None and run.state.boss_rounds >= limit and nxt != boss:
        run.emit(ev.BossChanged(boss=nxt, previous=boss, reason="term_limit"))
        if _boss_bonus(run, boss):
            run.emit(ev.RoundEnded(round=run.state.round))
            _end_game(run, "fuzz_bonus")
            return True
    elif outcome == "tie" and nxt != boss:
        run.emit(ev.BossChanged(boss=nxt, previous=boss, reason="tie"))
    return False


def _reject(run: _Run, outcome: str) -> None:
    """R4.3/R4.4/R4.5: the cards return to the middle; maybe a new Boss."""
    state = run.state
    run.emit(ev.LootReturned(cards=state.table))
    if outcome == "boss_keeps":
        return
    boss = state.boss
    if state.options.no_vote_rule == "russian":
        new_boss = _next_boss(state, boss)
    else:
        new_boss = _first_no_voter(state, boss)
    if new_boss != boss:
        run.emit(ev.BossChanged(boss=new_boss, previous=boss, reason="vote_failed"))


def final_scores(state: State) -> tuple[int, ...]:
    """R5.3: the Stash's value plus $1,000 per Payoff card."""
    return tuple(
        stash_value(state.stashes[s]) + PAYOFF_CARD_VALUE * state.payoff_cards[s] for s in range(state.n)
    )


def _end_game(run: _Run, reason: str) -> None:
    """§5: the table's cards are confiscated; equal highest scores share the win (R5.3, R7.4)."""
    state = run.state
    if state.table:
        run.emit(ev.LootConfiscated(cards=state.table))
    scores = final_scores(run.state)
    eligible = [s for s in range(state.n) if not state.resigned[s]]
    best = max((scores[s] for s in eligible), default=None)
    winners = tuple(s for s in eligible if scores[s] == best)
    run.emit(ev.GameEnded(reason=reason, scores=scores, winners=winners, seed=state.seed.hex()))


# --------------------------------------------------------------------------------------------------
# player commands
# --------------------------------------------------------------------------------------------------
def _need_phase(state: State, *phases: str) -> None:
    if state.phase not in phases:
        names = {DISTRIBUTE: "Step 2 (distribute)", CHOOSE: "Step 3 (choose actions)"}
        wanted = " or ".join(names.get(p, p) for p in phases)
        fail("wrong_step", f"this can only be done in {wanted}", step=state.phase)


def _need_seat(state: State, seat: int) -> None:
    if type(seat) is not int or not 0 <= seat < state.n:
        fail("invalid_seat", "no such seat in this game")


def _need_payoffs(state: State) -> None:
    if not state.options.payoffs:
        fail("payoffs_off", "this game is played without the Payoff rules")


def _need_distinct(cards: tuple[int, ...]) -> None:
    if len(set(cards)) != len(cards):
        fail("duplicate_card", "a card is named twice")


def _need_count(count: int) -> None:
    if count < 0:
        fail("invalid_count", "a number of cards cannot be negative")


def _need_in(cards: tuple[int, ...], stash: frozenset[int]) -> None:
    for card in cards:
        if card not in stash:
            fail("card_not_in_stash", f"card {card} is not in your Stash", card=card)


def _need_payoff_cards(state: State, seat: int, count: int, extra: int = 0) -> None:
    if count > state.payoff_cards[seat] + extra:
        fail("not_enough_payoff_cards", "you do not have that many Payoff cards")


def _distribute(run: _Run, seat: int, command: DistributeLoot) -> None:
    state = run.state
    _need_phase(state, DISTRIBUTE)
    if seat != state.boss:
        fail("not_boss", "only the Boss distributes the Loot (R2.2)")
    shares = command.shares
    if len(shares) != state.n:
        fail("invalid_distribution", "give one list of cards per seat")
    assigned = [c for share in shares for c in share]
    if sorted(assigned) != sorted(state.table):
        fail("invalid_distribution", "assign every face-up card exactly once (R2.2)")
    run.emit(ev.LootDistributed(boss=seat, shares=tuple(tuple(s) for s in shares), auto=None))
    _after_distribute(run)


def _choose(run: _Run, seat: int, command: ChooseAction) -> None:
    state = run.state
    _need_phase(state, CHOOSE)
    if command.action not in ACTIONS:
        fail("invalid_action", f"choose one of {', '.join(ACTIONS)}")
    commit_no = state.commit_no
    commitment = rng.commitment(_salt(state, commit_no), {"action": command.action})
    run.emit(
        ev.ActionChosen(
            seat=seat,
            action=command.action,
            commitment=commitment,
            commit_no=commit_no,
            unready=_ready_seats(state, seat),
        )
    )


def _place_threat(run: _Run, seat: int, command: PlaceThreat) -> None:
    state = run.state
    _need_phase(state, CHOOSE)
    _need_seat(state, command.target)
    if command.target == seat:
        fail("cannot_threaten_self", "a Threat marker goes in front of another player (R2.3)")
    old = state.threats[seat]
    if old == command.target:
        fail("no_change", "your Threat marker is already there")
    unready = _ready_seats(state, seat, command.target, old)
    run.emit(ev.ThreatPlaced(seat=seat, target=command.target, unready=unready))


def _remove_threat(run: _Run, seat: int, command: RemoveThreat) -> None:
    state = run.state
    _need_phase(state, CHOOSE)
    old = state.threats[seat]
    if old is None:
        fail("no_threat", "your Threat marker is not out")
    run.emit(ev.ThreatRemoved(seat=seat, unready=_ready_seats(state, seat, old)))


def _offer_payoff(run: _Run, seat: int, command: OfferPayoff) -> None:
    state = run.state
    _need_payoffs(state)
    _need_phase(state, CHOOSE)
    if command.token not in (0, 1):
        fail("invalid_token", "a Payoff token is 0 or 1")
    if command.side not in SIDES:
        fail("invalid_side", "a Payoff token shows yes or no")
    if command.visibility not in VISIBILITIES:
        fail("invalid_visibility", "a bundle's Loot is open, peek or hidden (R6.2)")
    _need_seat(state, command.target)
    if command.target == seat:
        fail("cannot_pay_self", "a Payoff goes in front of another player (R6.1)")
    _need_distinct(command.loot)
    _need_count(command.payoff_cards)
    if not command.loot and not command.payoff_cards:
        fail("empty_bundle", "a bundle holds at least one card (R6.1)")
    old = state.bundle(seat, command.token)
    available = state.stashes[seat] | frozenset(old.loot) if old is not None else state.stashes[seat]
    _need_in(command.loot, available)
    _need_payoff_cards(state, seat, command.payoff_cards, old.payoff_cards if old is not None else 0)
    commit_no: int | None = None
    commitment: str | None = None
    if command.visibility != "open":
        commit_no = state.commit_no
        commitment = rng.commitment(_salt(state, commit_no), {"loot": sorted(command.loot)})
    run.emit(
        ev.PayoffOffered(
            seat=seat,
            token=command.token,
            side=command.side,
            target=command.target,
            visibility=command.visibility,
            loot=command.loot,
            loot_count=len(command.loot),
            payoff_cards=command.payoff_cards,
            commitment=commitment,
            commit_no=commit_no,
            unready=_ready_seats(state, seat, command.target, old.target if old is not None else None),
        )
    )


def _withdraw_payoff(run: _Run, seat: int, command: WithdrawPayoff) -> None:
    state = run.state
    _need_payoffs(state)
    _need_phase(state, CHOOSE)
    if command.token not in (0, 1):
        fail("invalid_token", "a Payoff token is 0 or 1")
    bundle = state.bundle(seat, command.token)
    if bundle is None:
        fail("token_not_placed", "that Payoff token is not on the table")
    run.emit(
        ev.PayoffWithdrawn(seat=seat, token=command.token, unready=_ready_seats(state, seat, bundle.target))
    )


def _give_gift(run: _Run, seat: int, command: GiveGift) -> None:
    state = run.state
    _need_payoffs(state)
    _need_phase(state, DISTRIBUTE, CHOOSE)
    _need_seat(state, command.to)
    if command.to == seat:
        fail("cannot_gift_self", "a gift goes to another player")
    _need_distinct(command.loot)
    _need_count(command.payoff_cards)
    if not command.loot and not command.payoff_cards:
        fail("empty_gift", "a gift holds at least one card")
    _need_in(command.loot, state.stashes[seat])
    _need_payoff_cards(state, seat, command.payoff_cards)
    run.emit(
        ev.GiftGiven(
            seat=seat,
            to=command.to,
            loot=command.loot,
            loot_count=len(command.loot),
            payoff_cards=command.payoff_cards,
            unready=_ready_seats(state, seat, command.to),
        )
    )


def _offer_trade(run: _Run, seat: int, command: OfferTrade) -> None:
    state = run.state
    _need_payoffs(state)
    _need_phase(state, DISTRIBUTE, CHOOSE)
    _need_seat(state, command.to)
    if command.to == seat:
        fail("cannot_trade_self", "a trade is with another player")
    _need_distinct(command.give_loot)
    _need_count(command.give_payoff)
    _need_count(command.want_payoff)
    if any(v not in STARTING_VALUES for v in command.want_values):
        fail("invalid_values", f"Loot values are {', '.join(map(str, STARTING_VALUES))}")
    if not (command.give_loot or command.give_payoff) or not (command.want_values or command.want_payoff):
        fail("empty_trade", "a trade gives at least one card and wants at least one card")
    _need_in(command.give_loot, state.stashes[seat])
    _need_payoff_cards(state, seat, command.give_payoff)
    if sum(1 for t in state.trades if t.seat == seat) >= MAX_OPEN_TRADES:
        fail("too_many_trades", f"at most {MAX_OPEN_TRADES} open trade offers each")
    run.emit(
        ev.TradeOffered(
            trade_id=state.next_trade_id,
            seat=seat,
            to=command.to,
            give_loot=command.give_loot,
            give_loot_count=len(command.give_loot),
            give_payoff=command.give_payoff,
            want_values=command.want_values,
            want_loot_count=len(command.want_values),
            want_payoff=command.want_payoff,
            unready=_ready_seats(state, seat, command.to),
        )
    )


def _open_trade(state: State, trade_id: int) -> Trade:
    for trade in state.trades:
        if trade.trade_id == trade_id:
            return trade
    raise rule_error("no_such_trade", "no such open trade offer")


def _accept_trade(run: _Run, seat: int, command: AcceptTrade) -> None:
    state = run.state
    _need_payoffs(state)
    _need_phase(state, DISTRIBUTE, CHOOSE)
    trade = _open_trade(state, command.trade_id)
    if trade.to != seat:
        fail("not_your_trade", "this offer is not made to you")
    _need_distinct(command.loot)
    _need_in(command.loot, state.stashes[seat])
    if sorted(VALUES[c] for c in command.loot) != sorted(trade.want_values):
        fail("trade_mismatch", "the cards you give must have exactly the values the offer wants")
    _need_payoff_cards(state, seat, trade.want_payoff)
    unready = _ready_seats(state, seat, trade.seat)
    holds = all(c in state.stashes[trade.seat] for c in trade.give_loot)
    if not holds or state.payoff_cards[trade.seat] < trade.give_payoff:  # fails cleanly (R6.4)
        run.emit(ev.TradeFailed(trade_id=trade.trade_id, seat=seat, offerer=trade.seat, unready=unready))
        return
    run.emit(
        ev.TradeAccepted(
            trade_id=trade.trade_id,
            seat=seat,
            offerer=trade.seat,
            give_loot=trade.give_loot,
            give_loot_count=len(trade.give_loot),
            give_payoff=trade.give_payoff,
            take_loot=command.loot,
            take_loot_count=len(command.loot),
            take_payoff=trade.want_payoff,
            unready=unready,
        )
    )


def _decline_trade(run: _Run, seat: int, command: DeclineTrade) -> None:
    state = run.state
    _need_payoffs(state)
    _need_phase(state, DISTRIBUTE, CHOOSE)
    trade = _open_trade(state, command.trade_id)
    if trade.to != seat:
        fail("not_your_trade", "this offer is not made to you")
    run.emit(
        ev.TradeDeclined(trade_id=trade.trade_id, seat=seat, unready=_ready_seats(state, seat, trade.seat))
    )


def _withdraw_trade(run: _Run, seat: int, command: WithdrawTrade) -> None:
    state = run.state
    _need_payoffs(state)
    _need_phase(state, DISTRIBUTE, CHOOSE)
    trade = _open_trade(state, command.trade_id)
    if trade.seat != seat:
        fail("not_your_trade", "this offer is not yours")
    run.emit(
        ev.TradeWithdrawn(trade_id=trade.trade_id, seat=seat, unready=_ready_seats(state, seat, trade.to))
    )


def _play_default(run: _Run, command: PlayDefault) -> None:
    """What the rules play for a seat whose time is up (``timeout``) or who resigned (``resigned``): the
    Boss's Loot dealt as R7.2 says; in Step 3 nothing now, the seat plays the ``timeout_action`` at the
    reveal (R7.3, R7.4)."""
    state = run.state
    seat = command.seat
    if state.phase == DISTRIBUTE and seat == state.boss:
        _auto_distribute(run, "deadline" if command.reason == "timeout" else "resigned")


def _close(run: _Run, command: CloseChoice) -> None:
    if run.state.phase == CHOOSE and command.step_no == run.state.step_no:
        _close_choose(run, command.reason)


def _lapse_for(run: _Run, command: LapseTrades) -> None:
    """R7.4: a resigned seat's open offers, made or received, lapse with it."""
    theirs = tuple(t.trade_id for t in run.state.trades if command.target in (t.seat, t.to))
    if theirs:
        run.emit(ev.TradesLapsed(trade_ids=theirs))


_TABLE: dict[type[Any], Callable[[_Run, Any], None]] = {
    PlayDefault: _play_default,
    CloseChoice: _close,
    LapseTrades: _lapse_for,
}


_PLAYER: dict[type[Any], Callable[[_Run, int, Any], None]] = {
    DistributeLoot: _distribute,
    ChooseAction: _choose,
    PlaceThreat: _place_threat,
    RemoveThreat: _remove_threat,
    OfferPayoff: _offer_payoff,
    WithdrawPayoff: _withdraw_payoff,
    GiveGift: _give_gift,
    OfferTrade: _offer_trade,
    AcceptTrade: _accept_trade,
    DeclineTrade: _decline_trade,
    WithdrawTrade: _withdraw_trade,
}


def decide(state: State, command: Command, ctx: Context) -> list[ev.Event]:
    """The events that ``command`` leads to, or a :class:`RuleError`."""
    return step(state, command, ctx)[0]


def step(state: State, command: Any, ctx: Context) -> tuple[list[ev.Event], State]:
    """``decide`` and the state its events lead to (the fold of them onto ``state``), in one go."""
    if isinstance(command, StartGame):
        if command.seat is not None:
            fail("system_only", "only the system starts a game")
        run = _Run(state, ctx)
        _start(run, command)
        return run.events, run.state
    if state.phase == SETUP:
        fail("not_started", "the game has not started")
    if state.phase == OVER:
        fail("game_over", "the game is over")
    run = _Run(state, ctx)
    played = _TABLE.get(type(command))
    if played is not None:
        played(run, command)
        return run.events, run.state
    handler = _PLAYER.get(type(command))
    if handler is None:
        fail("invalid_command", "unknown command")
    seat = command.seat
    if type(seat) is not int or not 0 <= seat < state.n:
        fail("not_seated", "you do not have a seat in this game")
    handler(run, seat, command)
    return run.events, run.state


__all__ = ["RuleError", "decide", "final_scores", "fuzz_position", "step"]
