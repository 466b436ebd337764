"""Setup (LT1) and the Bagman's deal (LT2)."""

from __future__ import annotations

from collections import Counter

import pytest

from games.rules.loose_triggers import decide as d
from games.rules.loose_triggers.cards import (
    ACTION_RANGES,
    ALIASES,
    BANG,
    CASH,
    DUCK,
    GRAB,
    LOOT_COUNT,
    RELIC_SET_VALUES,
    kind_of,
    loot_value,
    relic_of,
)
from games.rules.loose_triggers.commands import Aim, GiveLoot
from games.rules.loose_triggers.events import Event, LootDisplayed, LootGiven
from games.rules.loose_triggers.game import GAME
from games.rules.loose_triggers.options import Options
from games.rules.loose_triggers.state import State
from games.rules.loose_triggers.views import redact_event, view_for
from games.rules.loose_triggers.waiting import default_command, waiting

from .helpers import SEED, given, of, refused, start_events, when


def _start(n: int, seed: bytes = SEED, **options: object) -> tuple[list[Event], State]:
    command = GAME.start_command([f"p{i}" for i in range(n)], GAME.options.parse(options), seed)
    events = d.decide(GAME.initial_state(), command)
    return events, GAME.fold(events)


@pytest.mark.parametrize("n", [3, 9])
def test_lt1_1_four_to_eight_players(n: int) -> None:
    """LT1.1: fewer than 4 or more than 8 players are refused."""
    command = GAME.start_command([f"p{i}" for i in range(n)], Options(), SEED)
    refused(GAME.initial_state(), command, "invalid_players")
    assert GAME.seat_range() == (4, 8)


def test_lt1_1_seats_in_join_order_or_shuffled() -> None:
    """LT1.1: join order by default; shuffle_seats shuffles them from the seed."""
    _, state = _start(6)
    assert state.players == tuple(f"p{i}" for i in range(6))
    orders = {_start(6, bytes([i]) * 32, shuffle_seats=True)[1].players for i in range(5)}
    assert len(orders) > 1
    assert all(sorted(o) == [f"p{i}" for i in range(6)] for o in orders)


def test_lt1_2_aliases_are_different_bird_names() -> None:
    """LT1.2: each seat a different bird, public."""
    _, state = _start(8)
    assert sorted(state.aliases) == sorted(ALIASES)
    assert view_for(state, None)["seats"][3]["alias"] == state.aliases[3]


def test_lt1_3_pals_are_a_uniform_derangement() -> None:
    """LT1.3: nobody is their own Pal, everyone is exactly one player's Pal; all 9 derangements of 4 occur."""
    seen: Counter[tuple[int, ...]] = Counter()
    for i in range(400):
        pals = d.derangement(i.to_bytes(32, "big"), 4)
        assert sorted(pals) == [0, 1, 2, 3]
        assert all(pals[s] != s for s in range(4))
        seen[pals] += 1
    assert len(seen) == 9
    assert min(seen.values()) > 20  # roughly uniform (expected ~44 each)


def test_lt1_3_a_pal_is_secret_until_the_end() -> None:
    """LT1.3/LT7.2: the viewer sees their own Pal only."""
    events, state = _start(5)
    view = view_for(state, 2)
    assert view["seats"][2]["pal"] == state.pals[2]
    assert all(view["seats"][s]["pal"] is None for s in range(5) if s != 2)
    redacted = redact_event(events[0], 2, terminal=False)
    assert [p is not None for p in redacted["pals"]] == [s == 2 for s in range(5)]


def test_lt1_4_the_bagman_is_a_random_public_seat() -> None:
    """LT1.4."""
    bagmen = {_start(5, bytes([i]) * 32)[1].bagman for i in range(30)}
    assert bagmen == set(range(5))
    _, state = _start(5)
    assert view_for(state, None)["bagman"] == state.bagman


def test_lt1_5_the_loot_deck_and_relic_sets() -> None:
    """LT1.5: 56 cards, 36 cash as listed, 4 relic sets of 5; a set is worth its size's value, not per card
    (the rulebook's example: 3 Jewels of Shanghai add $650)."""
    assert LOOT_COUNT == 56
    assert Counter(CASH) == {500: 8, 1000: 8, 1500: 8, 2000: 6, 3000: 4, 5000: 2}
    assert Counter(relic_of(c) for c in range(36, 56)) == {0: 5, 1: 5, 2: 5, 3: 5}
    jewels = [36, 37, 38]
    assert loot_value(jewels) == 650
    assert [loot_value(range(36, 36 + k)) for k in range(6)] == list(RELIC_SET_VALUES)
    assert loot_value([0, 36, 41]) == 500 + 50 + 50


def test_lt1_6_the_action_deck_is_numbered_by_kind() -> None:
    """LT1.6."""
    assert [kind_of(c) for c in (1, 12, 13, 20, 21, 30, 31, 35, 36, 40)] == [
        "BANG!", "BANG!", "GRAB!", "GRAB!", "DUCK!", "DUCK!", "CROSSFIRE!", "CROSSFIRE!", "IN THE FIRE!",
        "IN THE FIRE!",
    ]  # fmt: skip


def test_lt1_7_each_player_gets_a_bang_a_duck_a_grab_and_one_more() -> None:
    """LT1.7: hands of 4, one BANG!, DUCK!, GRAB! each; hands secret, sizes public."""
    _events, state = _start(8)
    for hand in state.hands:
        assert len(hand) == 4
        kinds = Counter(kind_of(c) for c in hand)
        assert kinds[BANG] >= 1
        assert kinds[DUCK] >= 1
        assert kinds[GRAB] >= 1
    all_cards = sorted(c for h in state.hands for c in h) + sorted(state.action_deck)
    assert sorted(all_cards) == list(range(1, 41))
    view = view_for(state, 0)
    assert view["seats"][1]["hand"] is None
    assert view["seats"][1]["hand_size"] == 4
    assert len(view["seats"][0]["hand"]) == 4
    assert len(set(ACTION_RANGES[BANG]) & {c for h in state.hands for c in h}) >= 8


def test_lt2_1_the_display_has_one_card_per_living_player_two_face_down() -> None:
    """LT2.1: N = living players, the last two face down (4 or more living)."""
    state = given(start_events(5))
    assert state.display == (0, 1, 2, 3, 4)
    assert state.display_down == (False, False, False, True, True)
    assert state.loot_deck == tuple(range(5, 56))


def test_lt2_1_a_short_deck_displays_what_there_is_last_ones_face_down() -> None:
    """LT2.1: 4 living players but one card left: it is displayed, face down."""
    from games.rules.loose_triggers.state import update

    state = given(start_events(4))
    state = update(
        state,
        display=(),
        display_down=(),
        loot_deck=(55,),
        loot_discard=(*state.display, *state.loot_deck[:-1]),
    )
    run = d._Run(state)
    d._settle(run)
    displayed = of(run.events, LootDisplayed)
    assert displayed[0].cards == (55,)
    assert displayed[0].face_down == (True,)


def test_lt2_1_two_or_three_living_players_see_one_face_down() -> None:
    """LT2.1: with 2 or 3 living players only the last card is face down."""
    from games.rules.loose_triggers.state import setitem, update

    state = given(start_events(4))
    state = update(state, alive=setitem(state.alive, 3, False), deaths=(3,), display=(), display_down=())
    state = update(state, loot_deck=state.loot_deck, loot_discard=(0, 1, 2, 3))
    run = d._Run(state)
    d._settle(run)
    shown = of(run.events, LootDisplayed)[0]
    assert shown.face_down == (False, False, True)


def test_lt2_2_the_bagman_gives_one_card_at_a_time_to_a_living_player() -> None:
    """LT2.2: GiveLoot by the Bagman only, self allowed, a new step per card."""
    state = given(start_events(4))
    refused(state, GiveLoot(seat=1, slot=0, to=1), "not_bagman")
    refused(state, GiveLoot(seat=0, slot=9, to=1), "invalid_slot")
    refused(state, GiveLoot(seat=0, slot=0, to=7), "invalid_seat")
    step = state.step_no
    events, state = when(state, GiveLoot(seat=0, slot=0, to=0))
    assert of(events, LootGiven)[0].card == 0
    assert state.stacks[0] == (0,)
    assert state.step == "give"
    assert state.step_no == step + 1


def test_lt2_2_a_face_down_card_is_seen_by_its_receiver_only() -> None:
    """LT2.2/LT7.2: the face-down card given: the Bagman and the receiver see it, nobody else."""
    state = given(start_events(4))
    events, state = when(state, GiveLoot(seat=0, slot=3, to=2))
    given_event = of(events, LootGiven)[0]
    assert redact_event(given_event, 2, terminal=False)["card"] == 3
    assert redact_event(given_event, 0, terminal=False)["card"] == 3
    assert redact_event(given_event, 1, terminal=False)["card"] is None
    assert redact_event(given_event, None, terminal=False)["card"] is None
    assert view_for(state, 1)["seats"][2]["stack"] is None
    assert view_for(state, 1)["seats"][2]["stack_size"] == 1
    face_up = when(state, GiveLoot(seat=0, slot=0, to=1))[0]
    assert redact_event(of(face_up, LootGiven)[0], 3, terminal=False)["card"] == 0


def test_lt2_1_only_the_bagman_sees_a_face_down_displayed_card() -> None:
    """LT2.1."""
    events = start_events(4)
    state = given(events)
    assert [x["loot"] is None for x in view_for(state, 1)["display"]] == [False, False, True, True]
    assert all(x["loot"] is not None for x in view_for(state, 0)["display"])
    shown = of(events, LootDisplayed)[0]
    assert redact_event(shown, 1, terminal=False)["cards"] == [0, 1, None, None]


def test_lt2_3_a_timed_out_give_goes_round_robin_after_the_last_receiver() -> None:
    """LT2.3: from after the Bagman, then after each receiver, skipping the dead."""
    state = given(start_events(4, bagman=2))
    command = default_command(state, 2, "timeout")
    assert command == GiveLoot(seat=2, slot=0, to=3)
    _, state = when(state, command)
    _, state = when(state, GiveLoot(seat=2, slot=0, to=1))
    assert default_command(state, 2, "timeout") == GiveLoot(seat=2, slot=0, to=2)
    w = waiting(state)
    assert w is not None
    assert w.deadline == "give"


def test_lt2_4_the_deal_pauses_during_a_discussion_and_resumes_after() -> None:
    """LT2.4: no GiveLoot while a Discussion runs; the display stays; the give step reopens afterwards."""
    from .helpers import discussion

    state = given(start_events(4))
    _, state = when(state, GiveLoot(seat=0, slot=0, to=1))
    _, state = when(state, Aim(seat=1, target=2))
    refused(state, GiveLoot(seat=0, slot=0, to=1), "wrong_step")
    _, state = discussion(state, [], {1: 22})  # seat 1 plays its DUCK!
    assert state.discussion is None
    assert state.step == "give"
    assert state.display == (1, 2, 3)


@pytest.mark.parametrize(
    ("living", "up", "down"), [(2, 1, 1), (3, 2, 1), (4, 2, 2), (5, 3, 2), (6, 4, 2), (7, 5, 2), (8, 6, 2)]
)
def test_lt2_1_the_rulebooks_display_examples(living: int, up: int, down: int) -> None:
    """LT2.1, the rulebook's example: 2 players 1 up 1 down; 3: 2 + 1; 4: 2 + 2; 5: 3 + 2; 6: 4 + 2."""
    from games.rules.loose_triggers.state import update

    state = given(start_events(8))
    dead = tuple(range(living, 8))
    state = update(
        state,
        alive=tuple(s < living for s in range(8)),
        deaths=dead,
        display=(),
        display_down=(),
        loot_discard=state.display,
    )
    run = d._Run(state)
    d._settle(run)
    shown = of(run.events, LootDisplayed)[0]
    assert shown.face_down == (False,) * up + (True,) * down
