"""WC2: a round: Phase 1 (placing, the race for the quarter), populating, Phase 2 (actions), Phase 3."""

from __future__ import annotations

from games.rules.were_cats import commands as c
from games.rules.were_cats import events as ev
from games.rules.were_cats.game import GAME
from games.rules.were_cats.state import ACT, PLACE, POPULATE, Cat, State

from .helpers import NONE, after_setup, given, of, refused, types, when


def to_phase_2(state: State, first: int, city: list[str]) -> State:
    """Everybody says done, ``first`` first; then the city is populated with ``city`` in turn."""
    order = [first] + [s for s in range(state.n) if s != first]
    state, _ = when(state, *(c.FinishPlacing(seat=s) for s in order))
    for kind in city:
        assert state.phase == POPULATE
        state, _ = when(state, c.PopulateCity(seat=state.turn, kind=kind))
    return state


# --- Phase 1 -----------------------------------------------------------------------------------------
def test_wc2_1_players_place_victims_in_their_eat_and_scare_areas_all_at_once() -> None:
    state = after_setup(["penny", "nickel", "dime"])
    state = given(state, hands=((2, 1, 0), (0, 1, 0), (0, 0, 1)), supply=(7, 3, 4))
    state, _events = when(
        state,
        c.PlaceVictims(seat=1, eat=(0, 1, 0), scare=NONE),
        c.PlaceVictims(seat=0, eat=(1, 0, 0), scare=(1, 1, 0)),
    )
    assert state.hands[0] == NONE
    assert state.eats[0] == (1, 0, 0)
    assert state.scares[0] == (1, 1, 0)
    assert state.eats[1] == (0, 1, 0)
    # changed before saying done: the rest goes back to the hand (ruling 3, 4)
    state, _ = when(state, c.PlaceVictims(seat=0, eat=NONE, scare=(0, 1, 0)))
    assert state.hands[0] == (2, 0, 0)
    assert state.scares[0] == (0, 1, 0)
    refused(state, c.PlaceVictims(seat=2, eat=(0, 0, 2), scare=NONE), "not_enough_victims")
    refused(state, c.PlaceVictims(seat=2, eat=(0, 0, -1), scare=NONE), "invalid_coins")


def test_wc2_1_until_done_a_placing_is_not_final_back_to_the_hand_or_across_then_done_is_final() -> None:
    """WC2.1 (clarified, issue #28 item 3; ruling 4): until a player says done, they may move a victim back
    from either area to their hand, or across from one area to the other; saying done (by themselves or by
    the table's default) is final for the phase: no placing after it, nothing moves."""
    state = after_setup(["penny", "nickel", "dime"])
    state = given(state, hands=((2, 1, 1), (1, 0, 0), (0, 0, 1)), supply=(6, 4, 3))
    state, _ = when(state, c.PlaceVictims(seat=0, eat=(2, 0, 0), scare=(0, 1, 1)))
    assert (state.hands[0], state.eats[0], state.scares[0]) == (NONE, (2, 0, 0), (0, 1, 1))
    # across: a penny from eat to scare, the dime from scare to eat
    state, _ = when(state, c.PlaceVictims(seat=0, eat=(1, 0, 1), scare=(1, 1, 0)))
    assert (state.hands[0], state.eats[0], state.scares[0]) == (NONE, (1, 0, 1), (1, 1, 0))
    # back to the hand from the eat area (the penny) and from the scare area (the nickel)
    state, _ = when(state, c.PlaceVictims(seat=0, eat=(0, 0, 1), scare=(1, 0, 0)))
    assert (state.hands[0], state.eats[0], state.scares[0]) == ((1, 1, 0), (0, 0, 1), (1, 0, 0))
    # everything back to the hand
    state, _ = when(state, c.PlaceVictims(seat=0, eat=NONE, scare=NONE))
    assert (state.hands[0], state.eats[0], state.scares[0]) == ((2, 1, 1), NONE, NONE)
    # done is final: nothing moves back or across afterwards, and done is not said twice
    state, _ = when(state, c.PlaceVictims(seat=0, eat=(0, 0, 1), scare=(1, 0, 0)), c.FinishPlacing(seat=0))
    refused(state, c.PlaceVictims(seat=0, eat=NONE, scare=NONE), "already_done")
    refused(state, c.PlaceVictims(seat=0, eat=(1, 0, 0), scare=(0, 0, 1)), "already_done")
    refused(state, c.FinishPlacing(seat=0), "already_done")
    assert (state.hands[0], state.eats[0], state.scares[0]) == ((1, 1, 0), (0, 0, 1), (1, 0, 0))
    # a done the table played (WC4.1's default) is just as final
    state, _ = when(state, c.PlaceVictims(seat=1, scare=(1, 0, 0), eat=NONE))
    state, _ = when(state, c.FinishPlacing(seat=1, reason="timeout"))
    refused(state, c.PlaceVictims(seat=1, eat=NONE, scare=NONE), "already_done")
    assert state.scares[1] == (1, 0, 0)
    assert state.phase == PLACE  # seat 2 may still move its victims
    state, _ = when(state, c.PlaceVictims(seat=2, eat=(0, 0, 1), scare=NONE))
    state, _ = when(state, c.PlaceVictims(seat=2, eat=NONE, scare=(0, 0, 1)))
    assert state.scares[2] == (0, 0, 1)


def test_wc2_1_saying_done_is_final_and_the_first_to_say_it_takes_the_quarter() -> None:
    state = after_setup(["penny", "nickel", "dime"])
    state, events = when(state, c.FinishPlacing(seat=2))
    assert of(events, ev.QuarterTaken) == [ev.QuarterTaken(seat=2, previous=None, reason="first_done")]
    refused(state, c.FinishPlacing(seat=2), "already_done")
    refused(state, c.PlaceVictims(seat=2, eat=NONE, scare=NONE), "already_done")
    state, events = when(state, c.FinishPlacing(seat=0))
    assert not of(events, ev.QuarterTaken)
    assert state.quarter == 2
    assert state.phase == PLACE


def test_wc2_1_a_later_round_race_moves_the_quarter_to_its_winner() -> None:
    state = after_setup(["penny", "nickel"])
    state = given(state, quarter=0, round=2)
    state, events = when(state, c.FinishPlacing(seat=1))
    assert of(events, ev.QuarterTaken) == [ev.QuarterTaken(seat=1, previous=0, reason="first_done")]


def test_wc2_1_without_anyone_saying_done_the_quarter_goes_to_the_first_seat_in_round_1() -> None:
    state = after_setup(["penny", "nickel", "dime"], first_seat=1)
    state, events = when(
        state,
        c.FinishPlacing(seat=0, reason="timeout"),
        c.FinishPlacing(seat=1, reason="timeout"),
        c.FinishPlacing(seat=2, reason="resigned"),
    )
    assert of(events, ev.QuarterTaken) == [ev.QuarterTaken(seat=1, previous=None, reason="first_seat")]
    assert state.quarter == 1


def test_wc2_1_without_anyone_saying_done_a_later_round_leaves_the_quarter_where_it_is() -> None:
    state = given(after_setup(["penny", "nickel"]), quarter=1, round=3)
    state, events = when(
        state, c.FinishPlacing(seat=0, reason="timeout"), c.FinishPlacing(seat=1, reason="timeout")
    )
    assert not of(events, ev.QuarterTaken)
    assert state.quarter == 1


def test_wc2_1_a_defaulted_finish_does_not_win_the_race_but_a_later_own_finish_does() -> None:
    """Ruling 5."""
    state = after_setup(["penny", "nickel", "dime"])
    state, events = when(state, c.FinishPlacing(seat=0, reason="resigned"), c.FinishPlacing(seat=2))
    assert of(events, ev.QuarterTaken) == [ev.QuarterTaken(seat=2, previous=None, reason="first_done")]
    refused(state, c.FinishPlacing(seat=1, reason="asleep"), "invalid_reason")


def test_wc2_1_the_scare_area_has_no_effect_and_returns_to_the_hand_in_phase_3() -> None:
    state = after_setup(["penny", "nickel"])
    state, _ = when(state, c.PlaceVictims(seat=0, eat=NONE, scare=(1, 0, 0)))
    state = to_phase_2(state, 0, ["dime", "dime", "nickel", "nickel"])
    state, _ = when(state, c.Pass(seat=1), c.Pass(seat=0))  # nickel on 5, penny on 6
    assert state.round == 2
    assert state.phase == PLACE
    assert state.scares[0] == NONE
    assert state.hands[0] == (1, 0, 0)


# --- populating --------------------------------------------------------------------------------------
def test_wc2_2_populating_starts_with_the_quarters_holder_and_goes_clockwise_to_four_coins() -> None:
    state = after_setup(["penny", "nickel", "dime"])
    state, events = when(state, c.FinishPlacing(seat=1), c.FinishPlacing(seat=2), c.FinishPlacing(seat=0))
    assert of(events, ev.PopulatingStarted) == [ev.PopulatingStarted(reason="phase_1", first=1)]
    assert state.phase == POPULATE
    assert state.turn == 1
    refused(state, c.PopulateCity(seat=2, kind="penny"), "not_your_turn")
    seats = []
    for kind in ["dime", "penny", "nickel", "dime"]:
        assert state.turn is not None
        seats.append(state.turn)
        state, _ = when(state, c.PopulateCity(seat=state.turn, kind=kind))
    assert seats == [1, 2, 0, 1]
    assert state.city == (1, 1, 2)
    assert state.supply == (7, 3, 2)
    assert state.phase == ACT


def test_wc2_2_a_kind_the_supply_lacks_cannot_be_placed_and_one_kind_only_is_placed_at_once() -> None:
    state = given(after_setup(["penny", "nickel"]), supply=(0, 5, 1), hands=((9, 0, 0), (0, 0, 5)))
    state, _ = when(state, c.FinishPlacing(seat=0), c.FinishPlacing(seat=1))
    refused(state, c.PopulateCity(seat=0, kind="penny"), "kind_unavailable")
    state, events = when(state, c.PopulateCity(seat=0, kind="dime"))
    # ruling 6: only nickels are left, so the other three coins are placed without waiting
    placed = of(events, ev.VillagerPlaced)
    assert [(e.seat, e.kind, e.reason) for e in placed] == [
        (0, "dime", None),
        (1, "nickel", "only_kind"),
        (0, "nickel", "only_kind"),
        (1, "nickel", "only_kind"),
    ]
    assert state.city == (0, 3, 1)
    assert state.phase == ACT


def test_wc2_2_a_city_emptied_during_phase_2_is_populated_again_before_the_next_cat() -> None:
    state = after_setup(["penny", "nickel"])
    state = given(state, city=(1, 0, 0), supply=(7, 4, 6))
    state, _ = when(state, c.FinishPlacing(seat=0), c.FinishPlacing(seat=1))
    for kind in ["dime", "dime", "dime"]:
        state, _ = when(state, c.PopulateCity(seat=state.turn, kind=kind))
    state = given(state, city=(1, 0, 0), supply=(7, 4, 6))  # one penny left in the city
    assert (state.turn, state.slot) == (1, 5)
    state, events = when(state, c.TakeVictim(seat=1, kind="penny"))
    assert types(events)[:3] == ["VictimTaken", "PopulatingStarted", "PopulateTurnStarted"]
    assert of(events, ev.PopulatingStarted)[0] == ev.PopulatingStarted(reason="emptied", first=0)
    assert state.phase == POPULATE
    assert state.turn == 0


def test_wc2_2_when_phase_1_ends_with_four_coins_in_the_city_nobody_populates() -> None:
    state = given(after_setup(["penny", "nickel"]), city=(2, 1, 1), supply=(6, 3, 5))
    state, events = when(state, c.FinishPlacing(seat=0), c.FinishPlacing(seat=1))
    assert not of(events, ev.PopulatingStarted)
    assert of(events, ev.CatTurnStarted) == [ev.CatTurnStarted(seat=1, slot=5)]


# --- Phase 2 -----------------------------------------------------------------------------------------
def test_wc2_3_cats_act_in_slot_order_and_on_equal_slots_the_quarters_holder_first() -> None:
    state = after_setup(["penny", "penny", "nickel"])
    state = to_phase_2(state, 1, ["dime", "dime", "dime", "dime"])
    turns = []
    while state.phase == ACT:
        assert state.turn is not None
        turns.append((state.turn, state.slot))
        refused(state, c.Pass(seat=(state.turn + 1) % 3), "not_your_turn")
        state, _ = when(state, c.Pass(seat=state.turn))
    assert turns == [(2, 5), (1, 6), (0, 6)]


def test_wc2_3_take_victim_needs_a_claw_at_least_the_villagers() -> None:
    state = after_setup(["dime", "penny"])  # dime cat on 4 (claw 1), penny cat on 6 (claw 3)
    state = to_phase_2(state, 0, ["nickel", "dime", "penny", "dime"])
    assert (state.turn, state.slot) == (0, 4)
    refused(state, c.TakeVictim(seat=0, kind="nickel"), "claw_too_weak")
    state, _events = when(state, c.TakeVictim(seat=0, kind="penny"))
    assert state.hands[0] == (1, 0, 1)
    assert state.city == (0, 1, 2)
    assert state.cat(0, 4) == Cat("dime", False)  # tails up after acting
    refused(state, c.TakeVictim(seat=1, kind="penny"), "kind_unavailable")
    state, _ = when(state, c.TakeVictim(seat=1, kind="dime"))
    assert state.hands[1] == (1, 0, 1)


def test_wc2_3_eating_moves_eat_area_victims_to_the_supply_and_adds_their_claw() -> None:
    state = after_setup(["dime", "penny"])
    state = given(state, hands=((0, 1, 1), (1, 0, 0)), supply=(8, 5, 4))
    state, _ = when(state, c.PlaceVictims(seat=0, eat=(0, 1, 0), scare=NONE))
    state = to_phase_2(state, 0, ["penny", "dime", "penny", "penny"])
    supply = state.supply
    refused(state, c.TakeVictim(seat=0, kind="dime", eat=(1, 0, 0)), "not_enough_victims")
    state, events = when(state, c.TakeVictim(seat=0, kind="dime", eat=(0, 1, 0)))
    assert of(events, ev.VictimsEaten) == [ev.VictimsEaten(seat=0, slot=4, coins=(0, 1, 0), claw=3)]
    assert state.eats[0] == NONE
    assert state.supply == (supply[0], supply[1] + 1, supply[2])
    assert state.hands[0] == (0, 0, 2)


def test_wc2_3_make_cat_the_rulebooks_example_a_penny_cat_eats_a_dime_to_make_a_nickel_cat_on_slot_4() -> (
    None
):
    state = after_setup(["penny", "nickel"])
    state = given(state, hands=((1, 0, 1), (0, 1, 0)), supply=(8, 4, 5))
    state, _ = when(state, c.PlaceVictims(seat=0, eat=(0, 0, 1), scare=NONE))
    state = to_phase_2(state, 0, ["nickel", "penny", "penny", "penny"])
    state, _ = when(state, c.Pass(seat=1))  # the nickel cat on slot 5 acts first
    assert (state.turn, state.slot) == (0, 6)
    refused(state, c.MakeCat(seat=0, kind="nickel", slot=4), "claw_too_weak")  # 3 < 10 - 4
    refused(state, c.MakeCat(seat=0, kind="nickel", slot=6, eat=(0, 0, 1)), "slot_taken")
    refused(state, c.MakeCat(seat=0, kind="nickel", slot=7, eat=(0, 0, 1)), "invalid_slot")
    refused(state, c.MakeCat(seat=0, kind="dime", slot=4, eat=(0, 0, 1)), "kind_unavailable")
    before = state
    state, events = when(state, c.MakeCat(seat=0, kind="nickel", slot=4, eat=(0, 0, 1)))
    assert of(events, ev.VictimsEaten)[0].claw == 6
    assert of(events, ev.CatMade) == [ev.CatMade(seat=0, slot=6, kind="nickel", new_slot=4)]
    made = GAME.fold(events[: types(events).index("CatMade") + 1], before)
    assert made.cat(0, 4) == Cat("nickel", False)  # the new cat is tails up
    assert made.cat(0, 6) == Cat("penny", False)
    assert types(events)[-2:] == ["RoundRefreshed", "RoundStarted"]  # it never acted in round 1
    assert state.cat(0, 4) == Cat("nickel", True)  # Phase 3 turned it heads up


def test_wc2_3_repopulate_sends_the_city_back_to_the_supply_and_populates_again() -> None:
    state = after_setup(["penny", "nickel"])
    state = to_phase_2(state, 1, ["dime", "dime", "dime", "nickel"])
    assert (state.turn, state.slot) == (1, 5)
    state, events = when(state, c.Repopulate(seat=1))
    assert of(events, ev.CityReturned) == [ev.CityReturned(seat=1, slot=5, coins=(0, 1, 3))]
    assert of(events, ev.PopulatingStarted) == [ev.PopulatingStarted(reason="repopulate", first=1)]
    assert state.city == NONE
    assert state.phase == POPULATE
    assert state.turn == 1
    assert state.cat(1, 5) == Cat("nickel", False)


def test_wc2_3_a_cat_may_pass_and_turns_tails_up() -> None:
    state = to_phase_2(after_setup(["penny", "nickel"]), 0, ["dime", "dime", "dime", "dime"])
    state, events = when(state, c.Pass(seat=1))
    assert of(events, ev.CatPassed) == [ev.CatPassed(seat=1, slot=5, reason=None)]
    assert state.cat(1, 5) == Cat("nickel", False)
    refused(state, c.Pass(seat=1), "not_your_turn")
    refused(state, c.FinishPlacing(seat=1), "wrong_step")


def test_wc2_4_phase_3_turns_every_cat_heads_up_and_sends_eat_area_victims_to_the_supply() -> None:
    state = after_setup(["penny", "nickel"])
    state = given(state, hands=((2, 0, 0), (0, 1, 0)), supply=(7, 4, 6))
    state, _ = when(state, c.PlaceVictims(seat=0, eat=(1, 0, 0), scare=(1, 0, 0)))
    state = to_phase_2(state, 0, ["dime", "dime", "dime", "dime"])
    supply = state.supply
    state, events = when(state, c.Pass(seat=1), c.Pass(seat=0))
    assert types(events)[-2:] == ["RoundRefreshed", "RoundStarted"]
    assert state.cat(0, 6) == Cat("penny", True)
    assert state.cat(1, 5) == Cat("nickel", True)
    assert state.eats[0] == NONE
    assert state.scares[0] == NONE
    assert state.hands[0] == (1, 0, 0)
    assert state.supply == (supply[0] + 1, supply[1], supply[2])
    assert state.round == 2
    assert state.phase == PLACE
    assert state.done == (False, False)
