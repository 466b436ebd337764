"""Play by web (§7 and the README's "Play by web" rulings): absent players (extension budget, autopilot,
take-back, hand-over), pause and resume, outage extensions and deadline warnings. Pure rules, no Django."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from hypothesis import given as hgiven
from hypothesis import strategies as st

from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from games.rules.goodcritters.options import RULES_KNOWN
from games.rules.table import commands as tc
from games.rules.table import events as te
from tests.rules.gc import RULESET

from .conformance import Setup, play, setups
from .conftest import rules_settings
from .helpers import T0, Given, all_to, card, choose_all, given, later, make_setup, start
from .test_conformance import SPEC

TOP7 = [card(2000, k) for k in range(7)]
STEPS = {"distribute": 3600, "choose": 600}


def game(options: Mapping[str, Any] | None = None) -> Given:
    return given(start(5, options={"deadlines": STEPS, **(options or {})}, setup=make_setup(5, top=TOP7)))


def expire(g: Given, seconds: float) -> Given:
    return g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no), now=later(seconds)).ok()


def test_a_first_miss_extends_the_deadline_once_and_clears_every_ready_flag_r7_5() -> None:
    """Default budget: one extension per seat. The record says who missed and why the step goes on (R7.5)."""
    g = all_to(game(), 0)
    g = choose_all(g, {1: "vote_yes", 2: "rob", 3: "guard"})  # seats 0 and 4 have not chosen
    assert g.state.ready == (False, True, True, True, False)
    g = expire(g, 601)
    assert g.last(te.DeadlineMissed) == te.DeadlineMissed(
        step_no=g.state.step_no, step="choose", seats=(0, 4)
    )
    extended = g.last(te.DeadlineExtended)
    assert extended.reason == "absence"
    assert extended.seats == (0, 4)
    assert extended.unready == (1, 2, 3)
    assert extended.previous_due_at == (later(600 - 600) + timedelta(seconds=600)).isoformat()
    assert extended.due_at == (later(601) + timedelta(seconds=600)).isoformat()
    assert not g.all(te.DeadlinePassed)
    assert g.state.ready == (False,) * 5
    assert g.table.extensions_left == (0, 1, 1, 1, 0)
    assert g.table.misses == (1, 0, 0, 0, 1)
    waiting = RULESET.waiting(g.table)
    assert waiting is not None
    assert waiting.due_at == later(601) + timedelta(seconds=600)
    # the old deadline's timer is now early: nothing; the budget is spent: the next miss plays R7.3
    assert g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no), now=later(700)).events() == []
    g = expire(g, 1202)
    assert g.last(te.DeadlinePassed).step == "choose"
    assert g.last(e.StepClosed).reason == "deadline"


def test_a_seat_that_acted_is_not_missing_and_its_count_restarts() -> None:
    g = all_to(game({"absence": {"extensions": 0, "autopilot_after": 3}}), 0)
    g = choose_all(g, {1: "vote_yes", 2: "vote_yes", 3: "vote_yes", 4: "vote_yes"})
    g = expire(g, 601)  # seat 0 missed (R7.3 plays no card for it); the vote passes, the Boss stays
    assert g.last(te.DeadlineMissed).seats == (0,)
    assert g.table.misses == (1, 0, 0, 0, 0)
    assert (g.state.phase, g.state.boss) == ("distribute", 0)
    g = all_to(g, 0)  # the Boss deals by themselves: the count of consecutive misses restarts
    assert g.table.misses == (0, 0, 0, 0, 0)


def test_after_n_consecutive_misses_the_seat_goes_on_autopilot() -> None:
    g = game({"absence": {"extensions": 0, "autopilot_after": 2}})
    g = expire(g, 3601)  # the Boss (seat 0) missed Step 2: R7.2 deals for them
    assert g.last(e.LootDistributed).auto == "deadline"
    assert not g.all(te.AutopilotEngaged)
    g = choose_all(g, {1: "vote_yes", 2: "vote_yes", 3: "vote_yes", 4: "vote_yes"})
    g = expire(g, 3600 + 601 + 1)
    assert g.all(te.AutopilotEngaged) == [te.AutopilotEngaged(seat=0, reason="absent")]
    assert g.table.autopilot == (True, False, False, False, False)
    assert RULESET.autopilot_seats(g.table) == frozenset({0})
    assert "TakeBackSeat" in RULESET.legal_commands(g.table, 0)
    assert "TakeBackSeat" not in RULESET.legal_commands(g.table, 1)
    # while a bot plays the seat its player may only take it back, resign or talk (the service refuses the
    # rest with autopilot_on): the seat is not told it may choose, threaten or trade
    assert sorted(RULESET.legal_commands(g.table, 0)) == sorted(RULESET.autopilot_player_commands)


def test_autopilot_seats_are_not_counted_missing_nor_extended() -> None:
    g = game({"absence": {"extensions": 1, "autopilot_after": 1}})
    g = expire(g, 3601)  # the Boss's one extension
    assert g.last(te.DeadlineExtended).seats == (0,)
    g = expire(g, 3601 + 3601)  # missed again, budget spent: R7.2, and the autopilot takes the seat
    assert g.last(te.AutopilotEngaged).seat == 0
    assert len(g.all(te.DeadlineMissed)) == 2
    assert g.state.phase == "choose"
    g = choose_all(g, {1: "vote_yes", 2: "vote_yes", 3: "vote_yes", 4: "vote_yes"})
    g = expire(g, 3601 + 3601 + 601)  # the autopilot's bot did not get to seat 0 in time
    assert len(g.all(te.DeadlineMissed)) == 2  # seat 0 is the autopilot's, not absent: no new miss
    assert len(g.all(te.DeadlineExtended)) == 1  # and no extension
    assert g.all(te.DeadlinePassed)[-1].step == "choose"


def test_the_player_takes_the_seat_back_and_only_then() -> None:
    g = game({"absence": {"extensions": 0, "autopilot_after": 1}})
    g.when(tc.TakeBackSeat(seat=0)).raises("not_on_autopilot")
    g = expire(g, 3601)
    assert g.table.autopilot[0] is True
    g = g.when(tc.TakeBackSeat(seat=0)).then(te.AutopilotReleased(seat=0, reason="taken_back"))
    assert g.table.autopilot[0] is False
    assert g.table.misses[0] == 0


def test_the_creator_hands_an_abandoned_seat_over() -> None:
    g = game({"absence": {"extensions": 0, "autopilot_after": 1}})
    hand = tc.HandOverSeat(seat=None, target=0, to="player", player="newcomer")
    g.when(hand).raises("not_on_autopilot")
    g = expire(g, 3601)
    g.when(tc.HandOverSeat(seat=None, target=0, to="player", player="p1")).raises("invalid_hand_over")
    g.when(tc.HandOverSeat(seat=None, target=9, to="bot", player="x")).raises("invalid_hand_over")
    g.when(tc.HandOverSeat(seat=None, target=0, to="robot", player="x")).raises("invalid_hand_over")
    g.when(tc.HandOverSeat(seat=1, target=0, to="bot", player="x")).raises("system_only")  # type: ignore[arg-type]
    g = g.when(hand).then(
        te.AutopilotReleased(seat=0, reason="handed_over"),
        te.SeatHandedOver(seat=0, to="player", player="newcomer"),
    )
    assert g.table.players[0] == "newcomer"
    assert g.table.extensions_left[0] == 0  # the option's budget (0 here) for the newcomer


def test_the_creator_pauses_and_the_deadline_moves_by_the_paused_time() -> None:
    g = game()
    due = T0 + timedelta(seconds=3600)
    assert RULESET.waiting(g.table).due_at == due  # type: ignore[union-attr]
    g = g.when(tc.PauseGame(seat=None), now=later(100)).then(
        te.GamePaused(at=later(100).isoformat(), by="creator")
    )
    # no deadline runs: the game's one timer is the end of the longest pause (R7.6, a week by default)
    assert RULESET.waiting(g.table).due_at == later(100) + timedelta(days=7)  # type: ignore[union-attr]
    assert RULESET.warn_at(g.table) is None
    g.when(tc.PauseGame(seat=None), now=later(101)).raises("already_paused")
    g.when(c.DistributeLoot(seat=0, shares=((),) * 5)).raises("paused")
    assert g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no), now=later(99999)).events() == []
    assert RULESET.legal_commands(g.table, 0) == ["Resign", "SendMessage"]
    g = g.do(tc.SendMessage(seat=1, text="brb"))
    g = g.when(tc.ResumeGame(seat=None), now=later(100 + 250)).ok()
    resumed = g.last(te.GameResumed)
    assert resumed == te.GameResumed(
        by="creator", paused_seconds=250, due_at=(due + timedelta(seconds=250)).isoformat()
    )
    g.when(tc.ResumeGame(seat=None), now=later(400)).raises("not_paused")
    g.when(tc.VotePause(seat=1, pause=True)).raises("pause_by_creator")


def test_players_pause_and_resume_by_majority_when_the_option_says_so() -> None:
    g = game({"pause_by": "vote"})
    g.when(tc.PauseGame(seat=None)).raises("pause_by_vote")
    g = g.do(tc.VotePause(seat=1, pause=True), tc.VotePause(seat=2, pause=True))
    assert g.table.paused_at is None  # 2 of 5
    g.when(tc.VotePause(seat=2, pause=True)).raises("no_change")
    g.when(tc.VotePause(seat=3, pause=False)).raises("not_paused")
    g = g.when(tc.VotePause(seat=3, pause=True), now=later(10)).then(
        te.PauseVoted(seat=3, pause=True), te.GamePaused(at=later(10).isoformat(), by="vote")
    )
    assert g.table.pause_votes == frozenset()
    g = g.do(tc.VotePause(seat=0, pause=False), tc.VotePause(seat=4, pause=False), now=later(20))
    g = g.when(tc.VotePause(seat=1, pause=False), now=later(70)).ok()
    assert g.last(te.GameResumed).paused_seconds == 60
    assert g.table.paused_at is None


def test_resigned_and_autopilot_seats_do_not_vote() -> None:
    g = game({"pause_by": "vote"}).do(tc.Resign(seat=3), tc.Resign(seat=4))
    g = g.do(tc.VotePause(seat=0, pause=True))
    assert g.table.paused_at is None  # 1 of the 3 still playing
    g = g.do(tc.VotePause(seat=1, pause=True))
    assert g.table.paused_at is not None  # 2 of 3


def test_votes_that_become_a_majority_at_the_last_deadline_do_not_pause_a_finished_game_table_ruling_10() -> (
    None
):
    """Two of four seats voted to pause; at the last deadline of the game the other two go on autopilot, which
    makes the two votes a majority of the seats still voting (ruling 28), but the game is over by then (The
    Fuzz! turns up at the next Step 1, R5.1): nothing follows its GameEnded."""
    options = {
        "pause_by": "vote",
        "deadlines": {"choose": 600},
        "absence": {"extensions": 0, "autopilot_after": 1},
    }
    g = given(start(4, options=options, setup=make_setup(4, top=TOP7[:6], fuzz_at=6)))
    g = all_to(g, 0)
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes"})
    g = g.do(tc.VotePause(seat=0, pause=True), tc.VotePause(seat=1, pause=True))
    assert g.table.paused_at is None  # 2 of 4
    g = expire(g, 601)
    assert [x.seat for x in g.all(te.AutopilotEngaged)] == [2, 3]
    assert isinstance(g.events[-1], e.GameEnded)
    assert g.table.paused_at is None


def test_an_outage_extends_the_deadline_without_spending_budget() -> None:
    g = game()
    step_no = g.state.step_no
    g = g.when(tc.ExtendDeadline(seat=None, step_no=step_no, seconds=300), now=later(4000)).ok()
    assert g.last(te.DeadlineExtended) == te.DeadlineExtended(
        step_no=step_no,
        step="distribute",
        due_at=(later(4000) + timedelta(seconds=300)).isoformat(),
        previous_due_at=(T0 + timedelta(seconds=3600)).isoformat(),
        reason="outage",
        seats=(),
        unready=(),
    )
    assert g.table.extensions_left == (1,) * 5
    assert g.when(tc.ExtendDeadline(seat=None, step_no=step_no + 1, seconds=300)).events() == []  # stale
    g.when(tc.ExtendDeadline(seat=None, step_no=step_no, seconds=0)).raises("invalid_command")
    g.when(tc.ExtendDeadline(seat=None, step_no=step_no, seconds=5, reason="absence")).raises(
        "invalid_command"
    )


def test_a_warning_names_who_has_not_acted_once_per_deadline() -> None:
    g = all_to(game({"warn_before": 60}), 0)
    g = choose_all(g, {1: "rob", 2: "rob"})
    g = g.do(c.ChooseAction(seat=3, action="rob"))  # chosen, not ready: still waited on
    due = RULESET.waiting(g.table).due_at  # type: ignore[union-attr]
    assert RULESET.warn_at(g.table) == due - timedelta(seconds=60)  # type: ignore[operator]
    step_no = g.state.step_no
    assert g.when(tc.WarnDeadline(seat=None, step_no=step_no), now=later(500)).events() == []  # early
    g = g.when(tc.WarnDeadline(seat=None, step_no=step_no), now=later(545)).then(
        te.DeadlineNear(step_no=step_no, step="choose", due_at=due.isoformat(), seats=(0, 3, 4))  # type: ignore[union-attr]
    )
    assert RULESET.warn_at(g.table) is None
    assert g.when(tc.WarnDeadline(seat=None, step_no=step_no), now=later(550)).events() == []  # once
    # default: a quarter of the step; 0: no warnings
    assert RULESET.warn_at(game().table) == T0 + timedelta(seconds=3600 - 900)
    assert RULESET.warn_at(game({"warn_before": 0}).table) is None


def test_every_new_event_round_trips_through_json() -> None:
    for event in (
        te.DeadlineMissed(step_no=1, step="choose", seats=(0, 2)),
        te.DeadlineExtended(
            step_no=1,
            step="choose",
            due_at="x",
            previous_due_at="y",
            reason="absence",
            seats=(0,),
            unready=(1,),
        ),
        te.DeadlineNear(step_no=1, step="distribute", due_at="x", seats=(0,)),
        te.AutopilotEngaged(seat=1, reason="absent"),
        te.AutopilotReleased(seat=1, reason="taken_back"),
        te.PauseVoted(seat=1, pause=False),
        te.GamePaused(at="x", by="vote"),
        te.GameResumed(by="creator", paused_seconds=3, due_at=None),
        te.SeatHandedOver(seat=1, to="bot", player="bot1"),
    ):
        assert RULESET.event_from_json(RULESET.event_to_json(event)) == event
        assert RULESET.redact_event(event, 3, terminal=False) == RULESET.event_to_json(event)  # public


# --------------------------------------------------------------------------------------------------
# conformance with the play-by-web commands thrown in
# --------------------------------------------------------------------------------------------------
WEB_OPTIONS = st.fixed_dictionaries(
    {
        "deadlines": st.fixed_dictionaries(
            {}, optional={"distribute": st.integers(1, 100), "choose": st.integers(1, 100)}
        )
    },
    optional={
        "payoffs": st.booleans(),
        "fuzz_depth": st.sampled_from(["short", [0.0, 0.3], [0.5, 0.6]]),
        "timeout_action": st.sampled_from(["none", "vote_yes", "guard"]),
        "absence": st.fixed_dictionaries(
            {}, optional={"extensions": st.integers(0, 3), "autopilot_after": st.none() | st.integers(1, 4)}
        ),
        "pause_by": st.sampled_from(["creator", "vote"]),
        "warn_before": st.none() | st.integers(0, 60),
    },
)


WEB_SPEC = dataclasses.replace(SPEC, options=WEB_OPTIONS, variants=st.sampled_from(RULES_KNOWN), web=True)


@rules_settings(examples=25)
@hgiven(setup=setups(WEB_SPEC))
def test_random_web_games_keep_every_invariant_and_end_r7_5(setup: Setup) -> None:
    """Heavy checks (redaction oracle R8.3, conservation, JSON, replay = fold) with pauses, votes, take-backs,
    outage extensions, warnings and hand-overs thrown in; games under each rules version this code plays
    (ruling 32)."""
    game = play(WEB_SPEC, setup, heavy=True)
    assert game.state.game.rules == setup.variant


@rules_settings(examples=150)
@hgiven(setup=setups(WEB_SPEC))
def test_many_random_web_games_end(setup: Setup) -> None:
    play(WEB_SPEC, setup, heavy=False)
