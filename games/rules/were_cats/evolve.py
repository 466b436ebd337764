"""``evolve(state, event)``: applies a fact. Never rejects, never draws randomness."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from . import events as ev
from .coins import KINDS, NO_COINS, START_SLOT, TOTAL, Coins, add, one, sub
from .state import (
    ACT,
    CHOOSE,
    I_CATS,
    I_CITY,
    I_DONE,
    I_EATS,
    I_HANDS,
    I_PHASE,
    I_QUARTER,
    I_RACE_WON,
    I_SCARES,
    I_SLOT,
    I_STEP_NO,
    I_SUPPLY,
    I_TURN,
    INITIAL_STATE,
    OVER,
    PLACE,
    POPULATE,
    Cat,
    State,
    setitem,
    update,
)

# The hot handlers change a ``list(state)`` in place (``update``'s keyword arguments cost more than the copy)
_new: Final = tuple.__new__
_ONE: Final[dict[str, Coins]] = {kind: one(kind) for kind in KINDS}


def _game_started(s: State, e: ev.GameStarted) -> State:
    n = len(e.players)
    return update(
        s,
        phase=CHOOSE,
        n=n,
        players=e.players,
        options=e.options,
        seed=bytes.fromhex(e.seed),
        fair=e.fair,
        first_seat=e.first_seat,
        starting=(None,) * n,
        supply=TOTAL,
        city=NO_COINS,
        hands=(NO_COINS,) * n,
        eats=(NO_COINS,) * n,
        scares=(NO_COINS,) * n,
        cats=((None,) * 6,) * n,
        done=(False,) * n,
        resigned=(False,) * n,
    )


def _seat_resigned(s: State, e: ev.SeatResigned) -> State:
    return update(s, resigned=tuple(r or i == e.seat for i, r in enumerate(s.resigned)))


def _setup_turn(s: State, e: ev.SetupTurnStarted) -> State:
    return update(s, phase=CHOOSE, turn=e.seat, step_no=s.step_no + 1)


def _starting_coins(s: State, e: ev.StartingCoinsTaken) -> State:
    coin = one(e.kind)
    cats = setitem(s.cats[e.seat], START_SLOT[e.kind] - 1, Cat(e.kind, True))
    return update(
        s,
        starting=setitem(s.starting, e.seat, e.kind),
        supply=sub(s.supply, add(coin, coin)),
        hands=setitem(s.hands, e.seat, add(s.hands[e.seat], coin)),
        cats=setitem(s.cats, e.seat, cats),
        turn=None,
    )


def _round_started(s: State, e: ev.RoundStarted) -> State:
    return update(
        s,
        phase=PLACE,
        round=e.round,
        done=(False,) * s.n,
        race_won=False,
        turn=None,
        slot=None,
        step_no=s.step_no + 1,
    )


def _victims_placed(s: State, e: ev.VictimsPlaced) -> State:
    seat = e.seat
    held = s.victims(seat)
    v = list(s)
    v[I_HANDS] = setitem(s.hands, seat, sub(sub(held, e.eat), e.scare))
    v[I_EATS] = setitem(s.eats, seat, e.eat)
    v[I_SCARES] = setitem(s.scares, seat, e.scare)
    return _new(State, v)


def _placing_finished(s: State, e: ev.PlacingFinished) -> State:
    v = list(s)
    v[I_DONE] = setitem(s.done, e.seat, True)
    return _new(State, v)


def _quarter_taken(s: State, e: ev.QuarterTaken) -> State:
    v = list(s)
    v[I_QUARTER] = e.seat
    v[I_RACE_WON] = s.race_won or e.reason == "first_done"
    return _new(State, v)


def _populating_started(s: State, e: ev.PopulatingStarted) -> State:
    v = list(s)
    v[I_PHASE] = POPULATE
    v[I_TURN] = e.first
    v[I_SLOT] = None
    return _new(State, v)


def _populate_turn(s: State, e: ev.PopulateTurnStarted) -> State:
    v = list(s)
    v[I_TURN] = e.seat
    v[I_STEP_NO] = s.step_no + 1
    return _new(State, v)


def _villager_placed(s: State, e: ev.VillagerPlaced) -> State:
    coin = _ONE[e.kind]
    supply = s.supply
    city = s.city
    v = list(s)
    v[I_SUPPLY] = (supply[0] - coin[0], supply[1] - coin[1], supply[2] - coin[2])
    v[I_CITY] = (city[0] + coin[0], city[1] + coin[1], city[2] + coin[2])
    v[I_TURN] = (e.seat + 1) % s.n
    return _new(State, v)


def _cat_turn(s: State, e: ev.CatTurnStarted) -> State:
    v = list(s)
    v[I_PHASE] = ACT
    v[I_TURN] = e.seat
    v[I_SLOT] = e.slot
    v[I_STEP_NO] = s.step_no + 1
    return _new(State, v)


def _victims_eaten(s: State, e: ev.VictimsEaten) -> State:
    v = list(s)
    v[I_EATS] = setitem(s.eats, e.seat, sub(s.eats[e.seat], e.coins))
    v[I_SUPPLY] = add(s.supply, e.coins)
    return _new(State, v)


def _tails(s: State, seat: int, slot: int) -> tuple[Any, ...]:
    """``s.cats`` with the cat on ``seat``'s ``slot`` tails up (it has acted)."""
    cats = s.cats[seat]
    cat = cats[slot - 1]
    assert cat is not None
    return setitem(s.cats, seat, setitem(cats, slot - 1, Cat(cat.kind, False)))


def _victim_taken(s: State, e: ev.VictimTaken) -> State:
    coin = _ONE[e.kind]
    v = list(s)
    v[I_CITY] = sub(s.city, coin)
    v[I_HANDS] = setitem(s.hands, e.seat, add(s.hands[e.seat], coin))
    v[I_CATS] = _tails(s, e.seat, e.slot)
    v[I_TURN] = None
    v[I_SLOT] = None
    return _new(State, v)


def _cat_made(s: State, e: ev.CatMade) -> State:
    cats = s.cats[e.seat]
    cat = cats[e.slot - 1]
    assert cat is not None
    slots = setitem(setitem(cats, e.slot - 1, Cat(cat.kind, False)), e.new_slot - 1, Cat(e.kind, False))
    return update(s, city=sub(s.city, one(e.kind)), cats=setitem(s.cats, e.seat, slots), turn=None, slot=None)


def _city_returned(s: State, e: ev.CityReturned) -> State:
    v = list(s)
    v[I_CITY] = sub(s.city, e.coins)
    v[I_SUPPLY] = add(s.supply, e.coins)
    v[I_CATS] = _tails(s, e.seat, e.slot)
    v[I_TURN] = None
    v[I_SLOT] = None
    return _new(State, v)


def _cat_passed(s: State, e: ev.CatPassed) -> State:
    v = list(s)
    v[I_CATS] = _tails(s, e.seat, e.slot)
    v[I_TURN] = None
    v[I_SLOT] = None
    return _new(State, v)


def _round_refreshed(s: State, e: ev.RoundRefreshed) -> State:
    supply = s.supply
    for eat in s.eats:
        supply = add(supply, eat)
    return update(
        s,
        cats=tuple(tuple(None if c is None else Cat(c.kind, True) for c in slots) for slots in s.cats),
        hands=tuple(add(h, sc) for h, sc in zip(s.hands, s.scares, strict=True)),
        scares=(NO_COINS,) * s.n,
        eats=(NO_COINS,) * s.n,
        supply=supply,
        turn=None,
        slot=None,
    )


def _game_ended(s: State, e: ev.GameEnded) -> State:
    return update(
        s, phase=OVER, end_reason=e.reason, scores=e.scores, winners=e.winners, turn=None, slot=None
    )


HANDLERS: Final[dict[str, Callable[[State, Any], State]]] = {
    ev.GameStarted.TYPE: _game_started,
    ev.SeatResigned.TYPE: _seat_resigned,
    ev.SetupTurnStarted.TYPE: _setup_turn,
    ev.StartingCoinsTaken.TYPE: _starting_coins,
    ev.RoundStarted.TYPE: _round_started,
    ev.VictimsPlaced.TYPE: _victims_placed,
    ev.PlacingFinished.TYPE: _placing_finished,
    ev.QuarterTaken.TYPE: _quarter_taken,
    ev.PopulatingStarted.TYPE: _populating_started,
    ev.PopulateTurnStarted.TYPE: _populate_turn,
    ev.VillagerPlaced.TYPE: _villager_placed,
    ev.CatTurnStarted.TYPE: _cat_turn,
    ev.VictimsEaten.TYPE: _victims_eaten,
    ev.VictimTaken.TYPE: _victim_taken,
    ev.CatMade.TYPE: _cat_made,
    ev.CityReturned.TYPE: _city_returned,
    ev.CatPassed.TYPE: _cat_passed,
    ev.RoundRefreshed.TYPE: _round_refreshed,
    ev.GameEnded.TYPE: _game_ended,
}


def evolve(state: State, event: ev.Event) -> State:
    return HANDLERS[event.TYPE](state, event)


def fold(events: Iterable[ev.Event], state: State | None = None) -> State:
    s = INITIAL_STATE if state is None else state
    handlers = HANDLERS
    for event in events:
        s = handlers[event.TYPE](s, event)
    return s
