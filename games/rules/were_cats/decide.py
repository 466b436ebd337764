"""``decide(state, command, ctx)``: every rule and every check of Were-cats (RULES-were-cats.md).

A command yields a list of events. What needs nobody runs inside ``decide`` right after the command that
leads to it: the next setup chooser, the quarter and the end of Phase 1, forced populating moves (ruling 6),
the next cat, Phase 3 and the end. The only random outcome, the first seat of the setup choice (WC1.3), is
drawn from the game's seed (label ``setup/first``) and written into ``GameStarted``.
"""

from __future__ import annotations

from games.rules import rng
from games.rules.core import Context

from . import events as ev
from .coins import (
    CAT_CLAW,
    CAT_POINTS,
    CITY_SIZE,
    INDEX,
    KINDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NO_COINS,
    SLOTS,
    START_SLOT,
    VILLAGER_CLAW,
    Coins,
    covers,
    make_cat_need,
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
    Resign,
    StartGame,
    TakeVictim,
)
from .errors import fail
from .evolve import evolve
from .state import ACT, CHOOSE, NEW, OVER, PLACE, POPULATE, State

SEED_BYTES = 32
REASONS = ("timeout", "resigned")  # a default the table plays for a seat (WC4.1)


class _Run:
    __slots__ = ("events", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[ev.Event] = []

    def emit(self, event: ev.Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


# --------------------------------------------------------------------------------------------------
# scoring (WC3.2, WC3.3)
# --------------------------------------------------------------------------------------------------
def points(state: State, seat: int) -> int:
    """WC3.2: each cat by kind, plus the victims (hand, eat area and scare area); the quarter scores
    nothing."""
    cats = sum(CAT_POINTS[c.kind] for c in state.cats[seat] if c is not None)
    return cats + victim_points(state.victims(seat))


def winners(scores: tuple[int, ...], resigned: tuple[bool, ...] = ()) -> tuple[int, ...]:
    """WC3.3: the highest score wins; equal highest scores share the win. A resigned seat cannot win
    (WC4.3 as R7.4): the best among the others wins; nobody if every seat resigned (ruling 15)."""
    candidates = [seat for seat in range(len(scores)) if not (resigned and resigned[seat])]
    if not candidates:
        return ()
    best = max(scores[seat] for seat in candidates)
    return tuple(seat for seat in candidates if scores[seat] == best)


# --------------------------------------------------------------------------------------------------
# checks shared by the commands
# --------------------------------------------------------------------------------------------------
def _kind(kind: object) -> str:
    if not isinstance(kind, str) or kind not in INDEX:
        fail("invalid_kind", "a coin kind is penny, nickel or dime")
    return kind


def _coins(coins: object) -> Coins:
    if not isinstance(coins, tuple) or len(coins) != 3 or not all(type(c) is int and c >= 0 for c in coins):
        fail("invalid_coins", "coin counts are three non-negative integers (penny, nickel, dime)")
    return (coins[0], coins[1], coins[2])


def _reason(reason: str | None) -> None:
    if reason is not None and reason not in REASONS:
        fail("invalid_reason", "a default's reason is timeout or resigned")


def _player(state: State, seat: int | None) -> int:
    if state.phase == NEW:
        fail("not_started", "the game has not started")
    if state.phase == OVER:
        fail("game_over", "the game is over")
    if seat is None or type(seat) is not int or not 0 <= seat < state.n:
        fail("not_seated", "the acting seat is not a seat of this game")
    return seat


def _step(state: State, phase: str) -> None:
    if state.phase != phase:
        fail("wrong_step", f"the game is not at the {phase} step")


def _my_turn(state: State, seat: int) -> None:
    if state.turn != seat:
        fail("not_your_turn", "it is another seat's turn")


# --------------------------------------------------------------------------------------------------
# setup (WC1)
# --------------------------------------------------------------------------------------------------
def _start(run: _Run, command: StartGame) -> None:
    if run.state.phase != NEW:
        fail("already_started", "the game has already started")
    players = command.players
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        fail("invalid_players", f"Were-cats needs {MIN_PLAYERS} to {MAX_PLAYERS} players (WC1.1)")
    if len(set(players)) != len(players) or not all(isinstance(p, str) and p for p in players):
        fail("invalid_players", "players must be distinct non-empty ids")
    if len(command.seed) != SEED_BYTES:
        fail("invalid_players", f"the seed must be {SEED_BYTES} bytes")
    seats = players
    if command.seats is not None:
        if sorted(command.seats) != sorted(players):
            fail("invalid_setup", "setup 'seats' must be the players in seat order")
        seats = command.seats
    n = len(seats)
    if command.first_seat is not None:
        if not 0 <= command.first_seat < n:
            fail("invalid_setup", "setup 'first_seat' must be a seat")
        first = command.first_seat
    else:
        first = rng.Stream(command.seed, "setup/first").below(n)
    fair = command.seats is None and command.first_seat is None and not command.fixed_seed
    run.emit(
        ev.GameStarted(
            players=tuple(seats),
            options=command.options,
            fair=fair,
            first_seat=first,
            seed=command.seed.hex(),
            seed_commitment=rng.seed_commitment(command.seed),
        )
    )
    run.emit(ev.SetupTurnStarted(seat=first))


def available_starting_kinds(state: State) -> list[str]:
    """WC1.3: the kinds of which at least two coins remain in the supply."""
    return [k for k in KINDS if state.supply[INDEX[k]] >= 2]


def _choose(run: _Run, command: ChooseStartingCoins) -> None:
    state = run.state
    seat = _player(state, command.seat)
    _step(state, CHOOSE)
    _my_turn(state, seat)
    kind = _kind(command.kind)
    _reason(command.reason)
    if kind not in available_starting_kinds(state):
        fail("kind_unavailable", f"fewer than two {kind}s remain (WC1.3)")
    run.emit(ev.StartingCoinsTaken(seat=seat, kind=kind, slot=START_SLOT[kind], reason=command.reason))
    following = (seat + 1) % state.n
    if following == state.first_seat:
        run.emit(ev.RoundStarted(round=1))
    else:
        run.emit(ev.SetupTurnStarted(seat=following))


# --------------------------------------------------------------------------------------------------
# Phase 1 (WC2.1)
# --------------------------------------------------------------------------------------------------
def _place(run: _Run, command: PlaceVictims) -> None:
    state = run.state
    seat = _player(state, command.seat)
    _step(state, PLACE)
    if state.done[seat]:
        fail("already_done", "you said done for this phase")
    eat, scare = _coins(command.eat), _coins(command.scare)
    held = state.victims(seat)
    if not covers(held, (eat[0] + scare[0], eat[1] + scare[1], eat[2] + scare[2])):
        fail("not_enough_victims", "you do not hold these victims")
    run.emit(ev.VictimsPlaced(seat=seat, eat=eat, scare=scare))


def _finish(run: _Run, command: FinishPlacing) -> None:
    state = run.state
    seat = _player(state, command.seat)
    _step(state, PLACE)
    _reason(command.reason)
    if state.done[seat]:
        fail("already_done", "you said done for this phase")
    run.emit(ev.PlacingFinished(seat=seat, reason=command.reason))
    # the race: the first to say done by themselves takes the quarter (ruling 5: never a default)
    if command.reason is None and not state.race_won:
        run.emit(ev.QuarterTaken(seat=seat, previous=state.quarter, reason="first_done"))
    if all(run.state.done):
        _end_phase_1(run)


def _end_phase_1(run: _Run) -> None:
    state = run.state
    if state.quarter is None:
        # WC2.1: nobody said done by themselves in round 1: the quarter goes to the first seat of WC1.3
        run.emit(ev.QuarterTaken(seat=state.first_seat, previous=None, reason="first_seat"))
    if sum(run.state.city) < CITY_SIZE and sum(run.state.supply) > 0:
        _populate(run, "phase_1")
    else:
        _next_cat(run)


# --------------------------------------------------------------------------------------------------
# populating the city (WC2.2)
# --------------------------------------------------------------------------------------------------
def _populate(run: _Run, reason: str) -> None:
    quarter = run.state.quarter
    assert quarter is not None
    run.emit(ev.PopulatingStarted(reason=reason, first=quarter))
    _continue_populating(run)


def _continue_populating(run: _Run) -> None:
    """Next move of populating: a seat chooses, or the supply holds one kind only (ruling 6), or the city
    is full / the supply empty and Phase 2 goes on."""
    while True:
        state = run.state
        if sum(state.city) >= CITY_SIZE or sum(state.supply) == 0:
            _next_cat(run)
            return
        seat = state.turn
        assert seat is not None
        kinds = [k for k in KINDS if state.supply[INDEX[k]] > 0]
        if len(kinds) > 1:
            run.emit(ev.PopulateTurnStarted(seat=seat))
            return
        run.emit(ev.VillagerPlaced(seat=seat, kind=kinds[0], reason="only_kind"))


def _populate_city(run: _Run, command: PopulateCity) -> None:
    state = run.state
    seat = _player(state, command.seat)
    _step(state, POPULATE)
    _my_turn(state, seat)
    kind = _kind(command.kind)
    _reason(command.reason)
    if state.supply[INDEX[kind]] == 0:
        fail("kind_unavailable", f"the supply holds no {kind}")
    run.emit(ev.VillagerPlaced(seat=seat, kind=kind, reason=command.reason))
    _continue_populating(run)


# --------------------------------------------------------------------------------------------------
# Phase 2 (WC2.3)
# --------------------------------------------------------------------------------------------------
def _next_cat(run: _Run) -> None:
    following = run.state.next_cat()
    if following is None:
        _phase_3(run)
        return
    seat, slot = following
    run.emit(ev.CatTurnStarted(seat=seat, slot=slot))


def _acting_cat(run: _Run, seat: int | None) -> tuple[int, int, int]:
    """(seat, slot, base claw) of the cat that acts now, checking the caller owns it."""
    state = run.state
    player = _player(state, seat)
    _step(state, ACT)
    _my_turn(state, player)
    slot = state.slot
    assert slot is not None
    cat = state.cat(player, slot)
    assert cat is not None
    return player, slot, CAT_CLAW[cat.kind]


def _meal(run: _Run, seat: int, eat: object) -> Coins:
    """The victims the cat eats first (WC2.3): they must lie in its owner's eat area."""
    coins = _coins(eat)
    if not covers(run.state.eats[seat], coins):
        fail("not_enough_victims", "your eat area does not hold these victims")
    return coins


def _eat(run: _Run, seat: int, slot: int, claw: int, coins: Coins) -> None:
    """WC2.3: each eaten victim goes to the supply and adds its claw to the cat's for this action."""
    if coins != NO_COINS:
        run.emit(ev.VictimsEaten(seat=seat, slot=slot, coins=coins, claw=claw + victim_claw(coins)))


def _after_action(run: _Run) -> None:
    if sum(run.state.city) == 0 and sum(run.state.supply) > 0:
        _populate(run, "emptied")  # WC2.2: whenever the city is emptied during Phase 2
    else:
        _next_cat(run)


def _take_victim(run: _Run, command: TakeVictim) -> None:
    seat, slot, claw = _acting_cat(run, command.seat)
    kind = _kind(command.kind)
    if run.state.city[INDEX[kind]] == 0:
        fail("kind_unavailable", f"the city holds no {kind}")
    coins = _meal(run, seat, command.eat)
    if claw + victim_claw(coins) < VILLAGER_CLAW[kind]:
        fail("claw_too_weak", f"taking a {kind} needs a claw of {VILLAGER_CLAW[kind]}")
    _eat(run, seat, slot, claw, coins)
    run.emit(ev.VictimTaken(seat=seat, slot=slot, kind=kind))
    _after_action(run)


def _make_cat(run: _Run, command: MakeCat) -> None:
    seat, slot, claw = _acting_cat(run, command.seat)
    kind = _kind(command.kind)
    new_slot = command.slot
    if type(new_slot) is not int or new_slot not in SLOTS:
        fail("invalid_slot", "a slot is an integer from 1 to 6")
    if run.state.cat(seat, new_slot) is not None:
        fail("slot_taken", f"slot {new_slot} already holds a cat")
    if run.state.city[INDEX[kind]] == 0:
        fail("kind_unavailable", f"the city holds no {kind}")
    coins = _meal(run, seat, command.eat)
    need = make_cat_need(kind, new_slot)
    if claw + victim_claw(coins) < need:
        fail("claw_too_weak", f"making a {kind} cat on slot {new_slot} needs a claw of {need}")
    _eat(run, seat, slot, claw, coins)
    run.emit(ev.CatMade(seat=seat, slot=slot, kind=kind, new_slot=new_slot))
    _after_action(run)


def _repopulate(run: _Run, command: Repopulate) -> None:
    seat, slot, claw = _acting_cat(run, command.seat)
    _eat(run, seat, slot, claw, _meal(run, seat, command.eat))
    run.emit(ev.CityReturned(seat=seat, slot=slot, coins=run.state.city))
    if sum(run.state.supply) > 0:
        _populate(run, "repopulate")
    else:
        _next_cat(run)


def _pass(run: _Run, command: Pass) -> None:
    seat, slot, _claw = _acting_cat(run, command.seat)
    _reason(command.reason)
    run.emit(ev.CatPassed(seat=seat, slot=slot, reason=command.reason))
    _next_cat(run)


# --------------------------------------------------------------------------------------------------
# Phase 3 and the end (WC2.4, WC3)
# --------------------------------------------------------------------------------------------------
def _phase_3(run: _Run) -> None:
    state = run.state
    reason = None
    if sum(state.city) == 0 and sum(state.supply) == 0:
        reason = "city_and_supply_empty"
    elif state.round >= state.options.max_rounds:
        reason = "max_rounds"
    if reason is not None:
        scores = tuple(points(state, seat) for seat in range(state.n))
        run.emit(
            ev.GameEnded(
                round=state.round,
                reason=reason,
                scores=scores,
                winners=winners(scores, state.resigned),
                seed=state.seed.hex(),
            )
        )
        return
    run.emit(ev.RoundRefreshed(round=state.round))
    run.emit(ev.RoundStarted(round=state.round + 1))


# --------------------------------------------------------------------------------------------------
def _resign(run: _Run, command: Resign) -> None:
    """WC4.3 (as R7.4): the seat cannot win; the table plays its defaults."""
    state = run.state
    if command.seat is not None:
        fail("system_only", "only the table resigns a seat")
    if state.phase in (NEW, OVER):
        fail("not_started" if state.phase == NEW else "game_over", "no game is running")
    if type(command.target) is not int or not 0 <= command.target < state.n:
        fail("invalid_seat", "no such seat")
    if state.resigned[command.target]:
        fail("already_resigned", "the seat has already resigned")
    run.emit(ev.SeatResigned(seat=command.target))


def decide(state: State, command: Command, ctx: Context | None = None) -> list[ev.Event]:
    """The events ``command`` yields in ``state``, or a :class:`RuleError`. ``ctx`` is unused: no rule of
    Were-cats reads the time (the table owns the deadlines)."""
    run = _Run(state)
    if isinstance(command, StartGame):
        if command.seat is not None:
            fail("system_only", "only the system starts a game")
        _start(run, command)
    elif isinstance(command, ChooseStartingCoins):
        _choose(run, command)
    elif isinstance(command, PlaceVictims):
        _place(run, command)
    elif isinstance(command, FinishPlacing):
        _finish(run, command)
    elif isinstance(command, PopulateCity):
        _populate_city(run, command)
    elif isinstance(command, TakeVictim):
        _take_victim(run, command)
    elif isinstance(command, MakeCat):
        _make_cat(run, command)
    elif isinstance(command, Repopulate):
        _repopulate(run, command)
    elif isinstance(command, Pass):
        _pass(run, command)
    elif isinstance(command, Resign):
        _resign(run, command)
    else:
        fail("invalid_command", "unknown command")
    return run.events
