"""WC3: the end and the score, with the rulebook's two scoring examples."""

from __future__ import annotations

import pytest

from games.rules.were_cats import commands as c
from games.rules.were_cats import events as ev
from games.rules.were_cats.coins import victim_points
from games.rules.were_cats.decide import points, winners
from games.rules.were_cats.game import GAME
from games.rules.were_cats.state import OVER, PLACE, Cat, State

from .helpers import NONE, after_setup, given, of, types, when


def empty_table() -> State:
    """Two players (penny, nickel cats) holding every other coin: supply and city empty."""
    state = after_setup(["penny", "nickel"])
    return given(state, supply=NONE, hands=((8, 0, 6), (1, 5, 0)))


def test_wc3_1_the_game_ends_when_phase_3_begins_with_city_and_supply_empty() -> None:
    state = empty_table()
    state, _ = when(state, c.PlaceVictims(seat=0, eat=(2, 0, 1), scare=(1, 0, 0)))
    state, events = when(state, c.FinishPlacing(seat=0), c.FinishPlacing(seat=1))
    assert not of(events, ev.PopulatingStarted)  # nothing to populate with
    state, events = when(state, c.Pass(seat=1), c.Pass(seat=0))
    assert types(events)[-1] == "GameEnded"
    assert "RoundRefreshed" not in types(events)
    end = of(events, ev.GameEnded)[0]
    assert end.reason == "city_and_supply_empty"
    assert end.round == 1
    assert state.phase == OVER
    assert GAME.is_terminal(state)
    # Phase 3 is not played: eat-area (and scare-area) victims are kept and count
    assert state.eats[0] == (2, 0, 1)
    assert state.victims(0) == (8, 0, 6)
    assert GAME.scores(state) == [2 + 2 * 8 + 6, 3 + 2 * 5 + 1]
    assert GAME.waiting(state) is None


def test_wc3_1_a_late_cat_that_eats_puts_coins_back_and_the_game_goes_on() -> None:
    state = empty_table()
    state, _ = when(state, c.PlaceVictims(seat=0, eat=(1, 0, 0), scare=NONE))
    state, _ = when(state, c.FinishPlacing(seat=1), c.FinishPlacing(seat=0), c.Pass(seat=1))
    assert (state.turn, state.slot) == (0, 6)  # the last cat of the round
    state, events = when(state, c.Repopulate(seat=0, eat=(1, 0, 0)))
    assert "GameEnded" not in types(events)
    assert of(events, ev.VillagerPlaced) == [ev.VillagerPlaced(seat=1, kind="penny", reason="only_kind")]
    assert state.round == 2
    assert state.phase == PLACE
    assert state.city == (1, 0, 0)


def test_wc3_1_the_game_ends_at_the_end_of_round_max_rounds_keeping_eat_area_victims() -> None:
    state = after_setup(["penny", "nickel"], max_rounds=1)
    state, _ = when(state, c.PlaceVictims(seat=0, eat=(1, 0, 0), scare=NONE))
    state, _ = when(state, c.FinishPlacing(seat=0), c.FinishPlacing(seat=1))
    for kind in ["dime", "dime", "dime", "dime"]:
        state, _ = when(state, c.PopulateCity(seat=state.turn, kind=kind))
    state, events = when(state, c.Pass(seat=1), c.Pass(seat=0))
    assert of(events, ev.GameEnded)[0].reason == "max_rounds"
    assert state.eats[0] == (1, 0, 0)


def test_wc3_2_the_rulebooks_first_example_3_pennies_2_dimes_1_nickel_score_8() -> None:
    """2 per penny (most), 1 per dime (in between), 0 per nickel (least): 6 + 2 + 0."""
    assert victim_points((3, 1, 2)) == 8


def test_wc3_2_the_rulebooks_second_example_2_pennies_2_dimes_1_nickel_score_8() -> None:
    """2 per penny and 2 per dime (both most), 0 per nickel (least): the total 8 rules over the scan's
    "1 per nickel"."""
    assert victim_points((2, 1, 2)) == 8


def test_wc3_2_kinds_held_none_of_count_zero_and_all_equal_scores_as_most() -> None:
    assert victim_points((2, 0, 0)) == 4
    assert victim_points((2, 1, 0)) == 5
    assert victim_points((1, 1, 1)) == 6
    assert victim_points((0, 0, 0)) == 0
    assert victim_points((3, 3, 1)) == 12


def test_wc3_2_cats_score_penny_2_nickel_3_dime_2_and_victims_everywhere_count() -> None:
    state = after_setup(["penny", "nickel", "dime"])
    # seat 0: the rulebook's first example split over hand, eat and scare area, plus its penny cat
    state = given(
        state,
        hands=((1, 1, 0), (0, 1, 0), (0, 0, 1)),
        eats=((1, 0, 1), NONE, NONE),
        scares=((1, 0, 1), NONE, NONE),
        supply=(6, 3, 2),
    )
    assert points(state, 0) == 2 + 8
    assert points(state, 1) == 3 + 2  # a nickel cat, one nickel victim (most: 2)
    assert points(state, 2) == 2 + 2


def test_wc3_2_the_quarter_scores_nothing() -> None:
    state = after_setup(["penny", "nickel"])
    assert points(given(state, quarter=0), 0) == points(given(state, quarter=1), 0)


@pytest.mark.parametrize(
    ("scores", "expected"),
    [((5, 9, 7), (1,)), ((9, 9, 2), (0, 1)), ((4, 4), (0, 1))],
)
def test_wc3_3_most_points_wins_and_equal_highest_scores_share_the_win(
    scores: tuple[int, ...], expected: tuple[int, ...]
) -> None:
    assert winners(scores) == expected


def test_wc3_3_the_end_event_names_the_winners() -> None:
    state = empty_table()
    state, _ = when(state, c.FinishPlacing(seat=0), c.FinishPlacing(seat=1), c.Pass(seat=1), c.Pass(seat=0))
    assert state.scores == (2 + 2 * 8 + 6, 3 + 2 * 5 + 1)
    assert state.winners == (0,)
    assert state.cats[0][5] == Cat("penny", False)
