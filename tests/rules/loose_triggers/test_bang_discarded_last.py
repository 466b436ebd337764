"""Issue #28 item 1, LT4.1: "Then the BANG! is discarded": the BANG! leaves play last, after the Target's
DUCK! is discarded and its two cards drawn (LT4.6: a deck remade meanwhile cannot hold it), after the
crossfire Wound, and after the hit's Loot and spoils (it stays in play while PickLoot and ClaimSpoils
wait). Rules 2; rules 1 (games started before, ruling 32) keep discarding it when fired."""

from __future__ import annotations

from typing import Any

import pytest

from games.rules.loose_triggers.commands import ClaimSpoils, GiveLoot, Grab, PickLoot
from games.rules.loose_triggers.events import (
    ActionDeckRemade,
    ActionDiscarded,
    BangFired,
    CardGrabbed,
    CardsDrawn,
    LootTaken,
    SpoilsClaimed,
    Wounded,
)
from games.rules.loose_triggers.state import State, setitem, update

from .helpers import discussion, given, of, start_events, when

# start_events' hands: seat s holds BANG! 1+s, GRAB! 13+s, DUCK! 21+s


def _after(events: list[Any], first: Any) -> list[str]:
    """The types of the events from ``first`` on (its ``type`` included)."""
    return [e.TYPE for e in events[events.index(first) :]]


def test_lt4_1_a_ducked_bang_is_discarded_after_the_duck_and_its_two_cards() -> None:
    """LT4.1: the Target discards its DUCK! and draws 2; then the BANG! is discarded: the pile's top is it."""
    state = given(start_events(4))
    events, state = discussion(state, [(0, 1), (1, 0)], {0: 1, 1: 22})
    fired = of(events, BangFired)[0]
    assert fired.outcome == "ducked"
    assert _after(events, fired)[:4] == ["BangFired", "ActionDiscarded", "CardsDrawn", "ActionDiscarded"]
    assert [(d.seat, d.card) for d in of(events, ActionDiscarded)] == [(1, 22), (0, 1)]
    assert state.action_discard == (22, 1)


def test_lt4_1_rules_1_keep_discarding_the_bang_when_fired() -> None:
    """Ruling 32: a game started under rules 1 is decided as it always was (the BANG! first on the pile)."""
    state = given(start_events(4, rules=1))
    events, state = discussion(state, [(0, 1), (1, 0)], {0: 1, 1: 22})
    fired = of(events, BangFired)[0]
    assert _after(events, fired)[:3] == ["BangFired", "ActionDiscarded", "CardsDrawn"]
    assert [(d.seat, d.card) for d in of(events, ActionDiscarded)] == [(1, 22)]
    assert state.action_discard == (1, 22)


@pytest.mark.parametrize(("rules", "top"), [(2, 1), (1, 22)])
def test_lt4_2_a_grab_from_the_discard_pile_after_a_ducked_bang_takes_the_bang(rules: int, top: int) -> None:
    """LT4.1 with LT4.2: BANG! 1 at seat 1's DUCK! 22, then seat 2's GRAB! 15 takes the pile's top: the BANG!
    (rules 1 gave the DUCK!)."""
    state = given(start_events(4, rules=rules))
    events, state = discussion(state, [(0, 1), (1, 0), (2, 3)], {0: 1, 1: 22, 2: 15})
    assert of(events, BangFired)[0].outcome == "ducked"
    assert state.step == "grab"
    assert state.pending_seat == 2
    events, state = when(state, Grab(seat=2, sources=("discard", "loot", "loot")))
    assert of(events, CardGrabbed)[0].card == top
    assert top in state.hands[2]


@pytest.mark.parametrize("rules", [2, 1])
def test_lt4_6_a_deck_remade_for_the_ducks_draws_does_not_hold_the_bang(rules: int) -> None:
    """LT4.6 with LT4.1: the Action deck holds one card when the Target draws its two: the deck is remade from
    the discard pile, which holds the DUCK! and (rules 1 only) the BANG!."""
    state = given(start_events(4, rules=rules))
    deck = state.action_deck
    state = update(state, action_deck=deck[:1], hands=setitem(state.hands, 3, (*state.hands[3], *deck[1:])))
    events, state = discussion(state, [(0, 1), (1, 0)], {0: 1, 1: 22})
    remade = of(events, ActionDeckRemade)[0]
    assert set(remade.deck) == ({22} if rules == 2 else {1, 22})
    drawn = [c for e in of(events, CardsDrawn) if e.seat == 1 for c in e.cards]
    assert drawn == [deck[0], remade.deck[0]]
    if rules == 2:
        assert drawn == [deck[0], 22]
        assert state.action_discard == (1,)  # the BANG!, discarded after the draws


def _dealt(n: int = 4, **kwargs: Any) -> State:
    """The first display given out: seat s holds Loot card s (face up 0, 1; face down 2, 3)."""
    state = given(start_events(n, **kwargs))
    for seat in range(n):
        _, state = when(state, GiveLoot(seat=state.bagman, slot=0, to=seat))
    return state


def test_lt4_1_a_bang_stays_in_play_while_the_gunner_picks_and_claims() -> None:
    """LT4.1: a hit on the Bagman, a Sitting Duck (LT3.5): PickLoot, then ClaimSpoils, then the BANG! is
    discarded."""
    state = _dealt(4)
    assert state.bagman == 0
    events, state = discussion(state, [(1, 0)], {1: 2})  # seat 0 is not a Gunner: a Sitting Duck
    assert of(events, BangFired)[0].outcome == "hit"
    assert state.step == "pick"
    assert state.in_play[1] == 2
    assert 2 not in state.action_discard
    events, state = when(state, PickLoot(seat=1, card=0))
    assert of(events, LootTaken)
    assert not of(events, ActionDiscarded)
    assert state.step == "claim"
    assert state.in_play[1] == 2
    events, state = when(state, ClaimSpoils(seat=1, slot=-1, bagman=True))
    claimed = of(events, SpoilsClaimed)[0]
    assert _after(events, claimed)[:3] == ["SpoilsClaimed", "BagmanChanged", "ActionDiscarded"]
    assert of(events, ActionDiscarded)[0] == ActionDiscarded(seat=1, card=2)


def test_lt4_1_a_crossfire_bang_is_discarded_after_the_crossfire_wound() -> None:
    """LT4.1: the Target played CROSSFIRE!, two Gunners aim at it: this Gunner takes 1 Wound, then the BANG!
    is discarded."""
    state = given(start_events(4, hands=[(1, 13), (31, 14), (2, 15), (4,)]))
    events, state = discussion(state, [(0, 1), (2, 1), (1, 0)], {0: 1, 2: 2, 1: 31})
    fired = of(events, BangFired)[0]
    assert fired.outcome == "crossfire"
    assert _after(events, fired)[:3] == ["BangFired", "Wounded", "ActionDiscarded"]
    assert of(events, Wounded)[0].seat == 0
    assert of(events, ActionDiscarded)[0] == ActionDiscarded(seat=0, card=1)
