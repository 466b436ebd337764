"""§2 A round and §3 Step 4: resolving actions."""

from __future__ import annotations

import pytest

from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from games.rules.goodcritters.cards import FUZZ
from games.rules.table import commands as tc
from tests.rules.gc import RULESET

from .helpers import Given, all_to, card, choose_all, default_stash, given, make_setup, start

TOP7 = [card(2000, k) for k in range(7)]


def step3(n: int = 5, *, options: dict[str, object] | None = None, **setup: object) -> Given:
    """A game in Step 3, everything dealt to the Boss (seat 0) unless told otherwise."""
    g = given(start(n, options=options, setup=make_setup(n, top=setup.pop("top", TOP7), **setup)))  # type: ignore[arg-type]
    return all_to(g, g.state.boss)


# --------------------------------------------------------------------------------------------------
# Steps 1 and 2
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [4, 8])
def test_step_1_turns_over_players_plus_two_cards_r2_1(n: int) -> None:
    """R2.1: n + 2 cards, one at a time; the game then waits on the Boss (Step 2)."""
    g = given(start(n))
    assert len(g.last(e.LootRevealed).cards) == n + 2
    assert g.state.pile_size == 140 - 4 * n + 1 - (n + 2)
    opened = g.last(e.StepOpened)
    assert (opened.step, opened.step_no, opened.due_at) == ("distribute", 1, None)
    waiting = RULESET.waiting(g.table)
    assert waiting is not None
    assert waiting.seats == frozenset({0})


def test_only_the_boss_distributes_r2_2() -> None:
    g = given(start(5))
    g.when(c.DistributeLoot(seat=1, shares=(g.state.table, (), (), (), ()))).raises("not_boss")


@pytest.mark.parametrize(
    "shares",
    [
        lambda t: (t[:-1], (), (), (), ()),  # a card left out
        lambda t: (t, (t[0],), (), (), ()),  # a card twice
        lambda t: ((*t, 0),) + ((),) * 4,  # a card not on the table
        lambda t: (t, (), (), ()),  # not one list per seat
    ],
)
def test_every_face_up_card_goes_to_exactly_one_player_r2_2(shares: object) -> None:
    """R2.2: any split, but every face-up card assigned, each once."""
    g = given(start(5))
    g.when(c.DistributeLoot(seat=0, shares=shares(g.state.table))).raises("invalid_distribution")  # type: ignore[operator]


def test_the_boss_may_keep_everything_and_nobody_takes_loot_yet_r2_2() -> None:
    g = step3()
    assert g.last(e.LootDistributed).shares[0] == tuple(TOP7)
    assert not set(TOP7) & g.state.stashes[0]
    assert g.state.table == tuple(TOP7)


# --------------------------------------------------------------------------------------------------
# Step 3
# --------------------------------------------------------------------------------------------------
def test_actions_are_chosen_in_step_3_only_r2_3() -> None:
    g = given(start(5))
    g.when(c.ChooseAction(seat=1, action="rob")).raises("wrong_step")
    g.when(c.PlaceThreat(seat=1, target=2)).raises("wrong_step")


def test_a_chosen_action_can_be_changed_until_the_step_closes_r2_3() -> None:
    g = step3().do(c.ChooseAction(seat=1, action="rob"), c.ChooseAction(seat=1, action="vote_no"))
    assert g.state.actions[1] == "vote_no"
    g.when(c.ChooseAction(seat=1, action="dance")).raises("invalid_action")


def test_a_threat_marker_goes_in_front_of_another_player_and_can_move_r2_3() -> None:
    g = step3()
    g.when(c.PlaceThreat(seat=1, target=1)).raises("cannot_threaten_self")
    g.when(c.PlaceThreat(seat=1, target=5)).raises("invalid_seat")
    g = g.do(c.PlaceThreat(seat=1, target=2))
    g.when(c.PlaceThreat(seat=1, target=2)).raises("no_change")
    g = g.do(c.PlaceThreat(seat=1, target=3))
    assert g.state.threats[1] == 3
    g = g.do(c.RemoveThreat(seat=1))
    assert g.state.threats[1] is None
    g.when(c.RemoveThreat(seat=1)).raises("no_threat")


def test_step_3_closes_when_everyone_has_chosen_and_is_ready_r2_4() -> None:
    """R2.4: the step closes when every player has chosen and is ready, not before."""
    g = step3()
    g.when(tc.SetReady(seat=1)).raises("action_not_chosen")
    g = choose_all(g, dict.fromkeys(range(4), "vote_yes"))
    assert g.state.phase == "choose"
    g = g.do(c.ChooseAction(seat=4, action="vote_yes"))
    assert g.state.phase == "choose"
    g = g.do(tc.SetReady(seat=4))
    assert g.all(e.StepClosed)[-1].reason == "ready"
    assert g.state.round == 2


def test_any_change_clears_ones_own_ready_flag_r2_4() -> None:
    g = step3().do(c.ChooseAction(seat=1, action="vote_yes"), tc.SetReady(seat=1))
    assert g.state.ready[1]
    g = g.do(c.ChooseAction(seat=1, action="vote_no"))
    assert not g.state.ready[1]
    g = g.do(tc.SetReady(seat=1), tc.SetReady(seat=1, ready=False))
    assert not g.state.ready[1]
    g.when(tc.SetReady(seat=1, ready=False)).raises("no_change")


def test_a_threat_placed_or_moved_away_clears_the_target_ready_flag_r2_4() -> None:
    g = step3()
    g = g.do(
        c.ChooseAction(seat=2, action="vote_yes"),
        tc.SetReady(seat=2),
        c.ChooseAction(seat=3, action="vote_yes"),
        tc.SetReady(seat=3),
    )
    g = g.when(c.PlaceThreat(seat=1, target=2)).then(e.ThreatPlaced(seat=1, target=2, unready=(2,)))
    assert not g.state.ready[2]
    g = g.do(tc.SetReady(seat=2))
    placed = g.when(c.PlaceThreat(seat=1, target=3)).events()
    assert placed == [e.ThreatPlaced(seat=1, target=3, unready=(2, 3))]


def test_who_has_chosen_and_who_is_ready_is_public_but_not_what_r2_4() -> None:
    from tests.rules.gc import RULESET

    g = step3().do(c.ChooseAction(seat=1, action="rob"), tc.SetReady(seat=1))
    seen = RULESET.view_for(g.table, 2)["seats"][1]
    assert (seen["chosen"], seen["ready"], seen["action"]) == (True, True, None)
    assert RULESET.view_for(g.table, 1)["seats"][1]["action"] == "rob"
    chosen = g.last(e.ActionChosen)
    assert RULESET.redact_event(chosen, 2, terminal=False)["action"] is None
    assert RULESET.redact_event(chosen, 1, terminal=False)["action"] == "rob"


def test_threat_markers_are_public_r2_5() -> None:
    from tests.rules.gc import RULESET

    g = step3().do(c.PlaceThreat(seat=1, target=3))
    assert RULESET.redact_event(g.last(e.ThreatPlaced), None, terminal=False)["target"] == 3
    assert RULESET.view_for(g.table, None)["seats"][1]["threat"] == 3


# --------------------------------------------------------------------------------------------------
# Step 4
# --------------------------------------------------------------------------------------------------
def test_cards_are_revealed_from_the_boss_clockwise_r3_1() -> None:
    """R3.1: the Boss first, then clockwise."""
    g = given(start(5, creator="p3", setup=make_setup(5, top=TOP7)))
    g = all_to(g, 3)
    g = choose_all(g, dict.fromkeys(range(5), "vote_yes"))
    assert [x.seat for x in g.all(e.ActionRevealed)] == [3, 4, 0, 1, 2]


def test_votes_are_counted_r3_2() -> None:
    g = choose_all(step3(), {0: "vote_yes", 1: "vote_no", 2: "vote_yes", 3: "vote_no", 4: "vote_no"})
    assert g.all(e.VoteResolved)[0] == e.VoteResolved(yes=2, no=3, outcome="fail")


def test_only_the_first_skim_takes_the_top_card_secretly_r3_3() -> None:
    """R3.3: the first Skim in reveal order takes the top card; later Skims do nothing; others learn only
    that a card was skimmed."""
    from tests.rules.gc import RULESET

    g = step3()
    top = g.state.next_card()
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "skim", 3: "skim", 4: "vote_yes"})
    skims = g.all(e.LootSkimmed)
    assert skims == [e.LootSkimmed(seat=2, card=top)]
    assert top in g.state.stashes[2]
    assert RULESET.redact_event(skims[0], 1, terminal=False)["card"] is None
    assert RULESET.redact_event(skims[0], None, terminal=False)["card"] is None
    assert RULESET.redact_event(skims[0], 2, terminal=False)["card"] == top


def test_a_rob_without_a_threat_marker_does_nothing_r3_4() -> None:
    g = choose_all(step3(), {0: "vote_yes", 1: "rob", 2: "vote_yes", 3: "vote_yes", 4: "vote_yes"})
    assert not g.all(e.RobSucceeded)
    assert not g.all(e.RobGuarded)


def test_a_rob_takes_a_random_card_seen_only_by_the_two_players_r3_4() -> None:
    from tests.rules.gc import RULESET

    g = step3().do(c.PlaceThreat(seat=1, target=2))
    g = choose_all(g, {0: "vote_yes", 1: "rob", 2: "vote_yes", 3: "vote_yes", 4: "vote_yes"})
    robbed = g.last(e.RobSucceeded)
    assert (robbed.robber, robbed.victim) == (1, 2)
    assert robbed.card in default_stash(2)
    assert robbed.card in g.state.stashes[1]
    assert len(g.state.stashes[2]) == 3
    for viewer, visible in ((1, True), (2, True), (3, False), (None, False)):
        shown = RULESET.redact_event(robbed, viewer, terminal=False)["card"]
        assert (shown == robbed.card) is visible


def test_a_guard_stops_the_rob_and_takes_a_card_from_the_robber_r3_4() -> None:
    """R3.4: the victim reveals Guard at once, out of turn, and takes a random card of the robber's."""
    g = step3().do(c.PlaceThreat(seat=1, target=3))
    g = choose_all(g, {0: "vote_yes", 1: "rob", 2: "vote_yes", 3: "guard", 4: "vote_yes"})
    reveals = [(x.seat, x.early) for x in g.all(e.ActionRevealed)]
    assert reveals == [(0, False), (1, False), (3, True), (2, False), (4, False)]
    guarded = g.last(e.RobGuarded)
    assert guarded.card in default_stash(1)
    assert len(g.state.stashes[3]) == 5


def test_a_guard_nobody_robs_does_nothing_r3_5() -> None:
    g = choose_all(step3(), {0: "vote_yes", 1: "guard", 2: "vote_yes", 3: "vote_yes", 4: "vote_yes"})
    assert [len(s) for s in g.state.stashes] == [11, 4, 4, 4, 4]


def test_a_robbed_empty_stash_yields_nothing() -> None:
    stashes = [default_stash(0), (), default_stash(2), default_stash(3), default_stash(4)]
    g = step3(stashes=stashes, top=[*TOP7, 1]).do(c.PlaceThreat(seat=2, target=1))
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "rob", 3: "vote_yes", 4: "vote_yes"})
    assert g.last(e.RobSucceeded).card is None


def test_a_card_skimmed_earlier_in_the_same_reveal_can_be_robbed_r3_6() -> None:
    """R3.6: randomness at the moment the action resolves, Stashes as they stand then."""
    stashes = [default_stash(0), (), default_stash(2), default_stash(3), default_stash(4)]
    g = step3(stashes=stashes, top=[*TOP7, 1]).do(c.PlaceThreat(seat=2, target=1))
    g = choose_all(g, {0: "vote_yes", 1: "skim", 2: "rob", 3: "vote_yes", 4: "vote_yes"})
    assert g.last(e.LootSkimmed).card == 1
    assert g.last(e.RobSucceeded).card == 1
    assert 1 in g.state.stashes[2]


def test_payoff_cards_can_never_be_robbed_r1_7() -> None:
    stashes = [default_stash(0), (), default_stash(2), default_stash(3), default_stash(4)]
    g = step3(options={"payoffs": True}, stashes=stashes, top=[*TOP7, 1]).do(c.PlaceThreat(seat=2, target=1))
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "rob", 3: "vote_yes", 4: "vote_yes"})
    assert g.last(e.RobSucceeded).card is None
    assert g.state.payoff_cards[1] == 5


def test_the_fuzz_is_never_dealt_as_loot() -> None:
    g = given(start(5, setup=make_setup(5, top=TOP7, fuzz_at=8)))
    assert FUZZ not in g.state.table
