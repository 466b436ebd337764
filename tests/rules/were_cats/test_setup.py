"""WC1: pieces and setup."""

from __future__ import annotations

import pytest

from games.rules import rng
from games.rules.were_cats import commands as c
from games.rules.were_cats import events as ev
from games.rules.were_cats.coins import CAT_CLAW, TOTAL, VILLAGER_CLAW, make_cat_need
from games.rules.were_cats.game import GAME
from games.rules.were_cats.state import CHOOSE, PLACE, Cat

from .helpers import SEED, after_setup, of, players, refused, started, types, when


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_wc1_1_two_to_five_players_share_ten_pennies_six_nickels_six_dimes(n: int) -> None:
    state = started(n)
    assert state.n == n
    assert state.supply == TOTAL == (10, 6, 6)
    assert state.quarter is None
    assert all(len(slots) == 6 for slots in state.cats)  # turn-order slots 1-6 on each card


@pytest.mark.parametrize("n", [1, 6])
def test_wc1_1_one_or_six_players_are_refused(n: int) -> None:
    start = GAME.start_command(players(n), GAME.options.parse({}), SEED)
    refused(GAME.initial_state(), start, "invalid_players")


def test_wc1_1_players_must_be_distinct_and_the_seed_32_bytes() -> None:
    options = GAME.options.parse({})
    refused(GAME.initial_state(), GAME.start_command(["a", "a"], options, SEED), "invalid_players")
    refused(GAME.initial_state(), GAME.start_command(["a", "b"], options, b"short"), "invalid_players")
    assert GAME.seat_range() == (2, 5)


def test_wc1_2_a_coins_role_follows_where_it_lies() -> None:
    """Supply and city: villagers; slots: cats (heads up may act); hand and areas: victims."""
    state = after_setup(["penny", "nickel"])
    assert state.cat(0, 6) == Cat("penny", True)  # a cat, heads up
    assert state.hands[0] == (1, 0, 0)  # a victim
    assert state.supply == (8, 4, 6)  # villagers
    assert state.victims(0) == (1, 0, 0)


def test_wc1_3_setup_choice_goes_in_seat_order_from_a_random_first_seat() -> None:
    state = started(4, first_seat=None)
    first = rng.Stream(SEED, "setup/first").below(4)
    assert state.first_seat == first
    assert state.turn == first
    assert state.phase == CHOOSE
    assert state.fair
    other = (first + 1) % 4
    refused(state, c.ChooseStartingCoins(seat=other, kind="penny"), "not_your_turn")
    state, events = when(state, c.ChooseStartingCoins(seat=first, kind="dime"))
    assert types(events) == ["StartingCoinsTaken", "SetupTurnStarted"]
    assert state.turn == other


def test_wc1_3_each_kind_puts_its_cat_heads_up_on_slot_6_5_or_4_and_one_coin_in_hand() -> None:
    state = after_setup(["penny", "nickel", "dime"])
    assert state.cat(0, 6) == Cat("penny", True)
    assert state.cat(1, 5) == Cat("nickel", True)
    assert state.cat(2, 4) == Cat("dime", True)
    assert state.hands == ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    assert state.supply == (8, 4, 4)
    assert state.quarter is None  # the quarter lies between the players
    assert state.phase == PLACE
    assert state.round == 1


def test_wc1_3_a_kind_with_fewer_than_two_left_cannot_be_chosen() -> None:
    state = started(5)
    for seat in range(3):
        state, _ = when(state, c.ChooseStartingCoins(seat=seat, kind="dime"))
    assert state.supply[2] == 0
    refused(state, c.ChooseStartingCoins(seat=3, kind="dime"), "kind_unavailable")
    refused(state, c.ChooseStartingCoins(seat=3, kind="quarter"), "invalid_kind")


def test_wc1_3_an_operator_setup_fixes_seats_and_first_seat_and_is_not_fair() -> None:
    start = GAME.start_command(
        ["a", "b", "c"], GAME.options.parse({}), SEED, {"seats": ["c", "a", "b"], "first_seat": 2}
    )
    events = GAME.decide(GAME.initial_state(), start)
    started_event = of(events, ev.GameStarted)[0]
    assert started_event.players == ("c", "a", "b")
    assert started_event.first_seat == 2
    assert not started_event.fair
    assert started_event.seed_commitment == rng.seed_commitment(SEED)


def test_wc1_4_claws_of_cats_and_villagers() -> None:
    assert CAT_CLAW == {"penny": 3, "nickel": 2, "dime": 1}
    assert VILLAGER_CLAW == {"penny": 1, "nickel": 2, "dime": 3}
    # WC2.3's example: a nickel onto slot 4 needs 10 - 4 = 6
    assert make_cat_need("nickel", 4) == 6
    assert make_cat_need("penny", 6) == 5
    assert make_cat_need("dime", 1) == 8
