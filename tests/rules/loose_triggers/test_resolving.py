"""Resolving a Discussion (LT4)."""

from __future__ import annotations

from typing import Any

from games.rules.loose_triggers.commands import Aim, BurnLoot, ClaimSpoils, GiveLoot, Grab, PickLoot
from games.rules.loose_triggers.events import (
    ActionDeckRemade,
    ActionDiscarded,
    BagmanChanged,
    BangFired,
    CardGrabbed,
    CardsDrawn,
    Died,
    LootBurned,
    LootTaken,
    SpoilsClaimed,
    Wounded,
)
from games.rules.loose_triggers.state import State, setitem, update
from games.rules.loose_triggers.views import redact_event
from games.rules.loose_triggers.waiting import default_command

from .helpers import discussion, given, of, refused, start_events, when


def _dealt(n: int = 4, **kwargs: Any) -> State:
    """The first display given out: seat s holds Loot card s (face up 0, 1; face down 2, 3)."""
    state = given(start_events(n, **kwargs))
    for seat in range(n):
        _, state = when(state, GiveLoot(seat=state.bagman, slot=0, to=seat))
    return state


def test_lt4_1_a_hit_wounds_and_takes_a_random_card_from_a_target_with_a_card_in_play() -> None:
    """LT4.1: not a Sitting Duck: a random card (seed label random/k), secret but to the two players."""
    state = _dealt(5)
    _, state = discussion(state, [(1, 2), (2, 1)], {1: 2, 2: 15})  # seat 2 plays GRAB! (in play)
    fired = of(_, BangFired)
    assert fired
    assert fired[0].outcome == "hit"
    taken = of(_, LootTaken)[0]
    assert taken.seat == 1
    assert taken.victim == 2
    assert not taken.chosen
    assert state.wounds[2] == 1
    assert state.stacks[1] == (1, 2)
    assert state.stacks[2] == ()
    assert redact_event(taken, 3, terminal=False)["card"] is None
    assert redact_event(taken, 2, terminal=False)["card"] == 2
    assert state.step == "grab"
    assert state.pending_seat == 2


def test_lt4_1_a_duck_absorbs_the_first_bang_then_the_target_is_a_sitting_duck() -> None:
    """LT4.1/LT3.5: DUCK! discarded, 2 cards drawn; the next BANG! hits a Sitting Duck (PickLoot)."""
    state = _dealt(4)
    events, state = discussion(state, [(0, 1), (2, 1), (1, 0)], {0: 1, 2: 3, 1: 22})
    fired = of(events, BangFired)
    assert [f.outcome for f in fired] == ["ducked", "hit"]
    assert of(events, ActionDiscarded)[0].card == 22
    assert of(events, CardsDrawn)[0].seat == 1
    assert len(of(events, CardsDrawn)[0].cards) == 2
    assert state.step == "pick"
    assert state.pending_seat == 2
    assert state.wounds[1] == 1
    refused(state, PickLoot(seat=0, card=1), "not_your_choice")
    refused(state, PickLoot(seat=2, card=3), "card_not_in_stack")
    assert default_command(state, 2, "timeout") == PickLoot(seat=2, card=-1)
    events, state = when(state, PickLoot(seat=2, card=1))
    assert of(events, LootTaken)[0].chosen
    assert state.stacks[2] == (1, 2)


def test_lt4_1_crossfire_misses_and_wounds_the_gunner_when_two_aim_at_the_target() -> None:
    """LT4.1: CROSSFIRE! makes every BANG! at its player miss; with two or more Gunners aiming at it, each
    BANG!'s Gunner takes a Wound; with one Gunner, none."""
    hands = [(1, 13), (2, 31), (3, 15), (4, 16)]
    state = _dealt(4, hands=hands)
    events, state = discussion(state, [(0, 1), (2, 1), (1, 3)], {0: 1, 2: 15, 1: 31})
    assert of(events, BangFired)[0].outcome == "crossfire"
    assert of(events, Wounded)[0] == Wounded(seat=0, by=1, cause="crossfire", wounds=1)
    state = _dealt(4, hands=hands)
    events, state = discussion(state, [(0, 1), (1, 3)], {0: 1, 1: 31})
    assert of(events, BangFired)[0].outcome == "crossfire"
    assert not of(events, Wounded)
    assert state.wounds == (0, 0, 0, 0)


def test_lt4_1_a_bang_at_a_dead_player_does_nothing() -> None:
    """LT4.1: the second BANG! at a Target killed by the first."""
    state = _dealt(4)
    state = update(state, wounds=setitem(state.wounds, 1, 3))
    events, state = discussion(state, [(0, 1), (2, 1)], {0: 1, 2: 3})
    assert [f.outcome for f in of(events, BangFired)] == ["hit", "dead_target"]
    assert len(of(events, Wounded)) == 1
    assert not state.alive[1]


def test_lt4_1_a_hit_bagman_gives_spoils_a_displayed_card_and_the_bagman_card() -> None:
    """LT4.1: the Gunner may take one displayed card and the Bagman card (ClaimSpoils; default neither)."""
    state = given(start_events(4))
    _, state = when(state, GiveLoot(seat=0, slot=0, to=0))  # Bagman 0 holds card 0; 1, 2, 3 displayed
    events, state = discussion(state, [(1, 0)], {1: 2})
    assert state.step == "pick"  # the Bagman is a Sitting Duck: pick first
    _, state = when(state, PickLoot(seat=1, card=0))
    assert state.step == "claim"
    assert default_command(state, 1, "timeout") == ClaimSpoils(seat=1, slot=-1, bagman=False)
    refused(state, ClaimSpoils(seat=1, slot=5, bagman=False), "invalid_slot")
    events, state = when(state, ClaimSpoils(seat=1, slot=2, bagman=True))  # the face-down card 3
    claimed = of(events, SpoilsClaimed)[0]
    assert claimed.card == 3
    assert claimed.face_down
    assert redact_event(claimed, 2, terminal=False)["card"] is None
    assert redact_event(claimed, 0, terminal=False)["card"] == 3
    assert of(events, BagmanChanged)[0] == BagmanChanged(seat=1, cause="claimed")
    assert state.bagman == 1
    assert state.stacks[1] == (0, 3)
    assert state.display == (1, 2)


def test_lt4_2_grab_takes_three_from_chosen_sources_then_is_discarded() -> None:
    """LT4.2: loot deck top, a displayed card (face down too), Action deck top, discard top; the GRAB!
    goes to the discard pile after, so it cannot take itself."""
    state = given(start_events(4))
    events, state = discussion(state, [(0, 1)], {0: 13})
    assert state.step == "grab"
    assert state.pending_seat == 0
    refused(state, Grab(seat=0, sources=("loot", "loot")), "invalid_sources")
    refused(state, Grab(seat=0, sources=("loot", "display:2", "display:2")), "invalid_sources")
    refused(state, Grab(seat=0, sources=("loot", "display:9", "action")), "invalid_sources")
    refused(state, Grab(seat=1, sources=("loot", "loot", "loot")), "not_your_choice")
    events, state = when(state, Grab(seat=0, sources=("display:3", "loot", "discard")))
    grabbed = of(events, CardGrabbed)
    assert [(g.source, g.card) for g in grabbed] == [("display", 3), ("loot", 4), ("discard", -1)]
    assert redact_event(grabbed[0], 2, terminal=False)["card"] is None  # a face-down card
    assert of(events, ActionDiscarded)[0].card == 13
    assert state.action_discard == (13,)
    assert state.stacks[0] == (3, 4)
    assert state.display == (0, 1, 2)


def test_lt4_2_the_default_grab_draws_three_actions_or_loot_when_both_action_piles_are_empty() -> None:
    """LT4.2's default."""
    state = given(start_events(4))
    _, state = discussion(state, [(0, 1)], {0: 13})
    assert default_command(state, 0, "timeout") == Grab(seat=0, sources=("action", "action", "action"))
    empty = update(state, action_deck=(), action_discard=())
    empty = update(empty, hands=setitem(empty.hands, 3, (*empty.hands[3], *state.action_deck)))
    assert default_command(empty, 0, "timeout") == Grab(seat=0, sources=("loot", "loot", "loot"))
    events, _after = when(empty, Grab(seat=0, sources=("action", "discard", "loot")))
    assert [g.card for g in of(events, CardGrabbed)] == [-1, -1, 4]


def test_lt4_3_an_unused_duck_is_discarded_for_two_cards() -> None:
    """LT4.3."""
    state = given(start_events(4))
    events, state = discussion(state, [(0, 1)], {0: 21})
    assert of(events, ActionDiscarded)[0].card == 21
    assert of(events, CardsDrawn)[0].cards == (5, 6)
    assert state.hands[0] == (1, 5, 6, 13)


def test_lt4_4_crossfire_is_discarded_for_one_card() -> None:
    """LT4.4."""
    state = given(start_events(4, hands=[(1, 31), (2,), (3,), (4,)]))
    events, state = discussion(state, [(0, 1)], {0: 31})
    assert of(events, CardsDrawn)[0].cards == (5,)
    assert state.hands[0] == (1, 5)


def test_lt4_5_in_the_fire_burns_the_dead_players_loot() -> None:
    """LT4.5: killed with IN THE FIRE! played: the Loot goes to the fire, the killer gets none, nor a card."""
    state = _dealt(4, hands=[(1, 13), (36, 2), (3,), (4,)])
    state = update(state, wounds=setitem(state.wounds, 1, 3))
    events, state = discussion(state, [(0, 1), (1, 0)], {0: 1, 1: 36})
    died = of(events, Died)[0]
    assert died.loot_to == "fire"
    assert died.loot == (1,)
    assert not of(events, LootTaken)
    assert state.stacks[0] == (0,)
    assert 1 in state.loot_discard
    assert redact_event(died, 2, terminal=False)["loot"] is None


def test_lt4_5_in_the_fire_of_a_living_player_is_simply_discarded() -> None:
    """LT4.5: at its number, alive: discarded, nothing drawn."""
    state = given(start_events(4, hands=[(36, 1), (2,), (3,), (4,)]))
    events, state = discussion(state, [(0, 1)], {0: 36})
    assert of(events, ActionDiscarded)[0].card == 36
    assert not of(events, CardsDrawn)


def test_lt4_5_burn_loot_outside_a_discussion() -> None:
    """LT4.5 BurnLoot: IN THE FIRE! and two Loot cards of one's choice for two Action cards."""
    state = _dealt(4, hands=[(36, 1), (2,), (3,), (4,)])
    refused(state, BurnLoot(seat=0, card=36, loot=(0, 1)), "invalid_loot")  # card 1 is seat 1's
    assert state.loot_deck[0] == 8
    state = update(state, stacks=setitem(state.stacks, 0, (0, 8)), loot_deck=state.loot_deck[1:])
    refused(state, BurnLoot(seat=0, card=1, loot=(0, 8)), "not_in_the_fire")
    refused(state, BurnLoot(seat=0, card=36, loot=(0, 0)), "invalid_loot")
    events, after = when(state, BurnLoot(seat=0, card=36, loot=(0, 8)))
    assert of(events, LootBurned)
    assert after.hands[0] == (1, 5, 6)
    assert after.stacks[0] == ()
    assert redact_event(of(events, LootBurned)[0], 1, terminal=False)["loot"] is None
    _, running = when(state, Aim(seat=1, target=2))
    refused(running, BurnLoot(seat=0, card=36, loot=(0, 8)), "discussion_running")


def test_lt4_6_empty_handed_players_draw_two_from_the_bagman_on_and_the_deck_is_remade() -> None:
    """LT4.6: after resolution every living player with no card draws 2, in seat order from the Bagman; an
    empty Action deck is remade from the discard pile (seed label remake/k)."""
    hands = [(1,), (2,), (3,), (4,)]
    state = given(start_events(4, hands=hands, bagman=2, action_deck=(5, 6, 7)))
    state = update(state, action_discard=tuple(range(8, 41)))
    events, state = discussion(state, [(0, 1), (1, 0)], {0: 1, 1: 2})
    draws = [(e.seat, len(e.cards)) for e in of(events, CardsDrawn)]
    assert draws[0] == (0, 2)  # seat 0 is the first empty-handed seat from Bagman 2 (2, 3 hold cards)
    assert draws[1:] == [(1, 1), (1, 1)]  # the deck ran out: remade from the discard pile
    assert of(events, ActionDeckRemade)
    assert redact_event(of(events, ActionDeckRemade)[0], 0, terminal=False)["deck"] is None
    assert all(len(state.hands[s]) for s in range(4))
