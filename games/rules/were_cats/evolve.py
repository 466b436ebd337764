"""``evolve(state, event)``: applies a fact. Never rejects, never draws randomness."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from . import events as ev
from .coins import NO_COINS, START_SLOT, TOTAL, add, one, sub
from .state import ACT, CHOOSE, INITIAL_STATE, OVER, PLACE, POPULATE, Cat, State, setitem, update


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
    return update(
        s,
        hands=setitem(s.hands, seat, sub(sub(held, e.eat), e.scare)),
        eats=setitem(s.eats, seat, e.eat),
        scares=setitem(s.scares, seat, e.scare),
    )


def _placing_finished(s: State, e: ev.PlacingFinished) -> State:
    return update(s, done=setitem(s.done, e.seat, True))


def _quarter_taken(s: State, e: ev.QuarterTaken) -> State:
    return update(s, quarter=e.seat, race_won=s.race_won or e.reason == "first_done")


def _populating_started(s: State, e: ev.PopulatingStarted) -> State:
    return update(s, phase=POPULATE, turn=e.first, slot=None)


def _populate_turn(s: State, e: ev.PopulateTurnStarted) -> State:
    return update(s, turn=e.seat, step_no=s.step_no + 1)


def _villager_placed(s: State, e: ev.VillagerPlaced) -> State:
    coin = one(e.kind)
    return update(s, supply=sub(s.supply, coin), city=add(s.city, coin), turn=(e.seat + 1) % s.n)


def _cat_turn(s: State, e: ev.CatTurnStarted) -> State:
    return update(s, phase=ACT, turn=e.seat, slot=e.slot, step_no=s.step_no + 1)


def _victims_eaten(s: State, e: ev.VictimsEaten) -> State:
    return update(
        s, eats=setitem(s.eats, e.seat, sub(s.eats[e.seat], e.coins)), supply=add(s.supply, e.coins)
    )


def _tails(s: State, seat: int, slot: int) -> tuple[Any, ...]:
    cat = s.cats[seat][slot - 1]
    assert cat is not None
    return setitem(s.cats[seat], slot - 1, Cat(cat.kind, False))


def _victim_taken(s: State, e: ev.VictimTaken) -> State:
    coin = one(e.kind)
    return update(
        s,
        city=sub(s.city, coin),
        hands=setitem(s.hands, e.seat, add(s.hands[e.seat], coin)),
        cats=setitem(s.cats, e.seat, _tails(s, e.seat, e.slot)),
        turn=None,
        slot=None,
    )


def _cat_made(s: State, e: ev.CatMade) -> State:
    slots = setitem(_tails(s, e.seat, e.slot), e.new_slot - 1, Cat(e.kind, False))
    return update(s, city=sub(s.city, one(e.kind)), cats=setitem(s.cats, e.seat, slots), turn=None, slot=None)


def _city_returned(s: State, e: ev.CityReturned) -> State:
    return update(
        s,
        city=sub(s.city, e.coins),
        supply=add(s.supply, e.coins),
        cats=setitem(s.cats, e.seat, _tails(s, e.seat, e.slot)),
        turn=None,
        slot=None,
    )


def _cat_passed(s: State, e: ev.CatPassed) -> State:
    return update(s, cats=setitem(s.cats, e.seat, _tails(s, e.seat, e.slot)), turn=None, slot=None)


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


_HANDLERS: Final[dict[str, Callable[[State, Any], State]]] = {
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
    return _HANDLERS[event.TYPE](state, event)


def fold(events: Iterable[ev.Event], state: State | None = None) -> State:
    s = INITIAL_STATE if state is None else state
    for event in events:
        s = _HANDLERS[event.TYPE](s, event)
    return s
