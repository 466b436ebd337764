"""§7 Deadlines (play by web) and resignation."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from games.rules.table import commands as tc
from games.rules.table import events as te
from tests.rules.gc import RULESET

from .helpers import T0, Given, all_to, card, choose_all, given, later, make_setup, start

TOP7 = [card(2000, k) for k in range(7)]
# the plain R7.2/R7.3 defaults: no extension budget, no autopilot (those are tested in test_absence.py)
DEADLINES = {
    "deadlines": {"distribute": 3600, "choose": 600},
    "absence": {"extensions": 0, "autopilot_after": None},
}


def game(options: Mapping[str, Any] | None = None, *, creator: str = "p0") -> Given:
    return given(start(5, options=options, creator=creator, setup=make_setup(5, top=TOP7)))


def test_each_waiting_step_opens_with_its_deadline_r7_1() -> None:
    """R7.1: per-step deadlines from the options, written as ISO-8601 UTC."""
    g = game(DEADLINES)
    opened = g.last(e.StepOpened)
    assert opened.due_at == (T0 + timedelta(seconds=3600)).isoformat()
    waiting = RULESET.waiting(g.table)
    assert waiting is not None
    assert waiting.due_at == T0 + timedelta(seconds=3600)
    g = all_to(g, 0)
    assert g.last(e.StepOpened).due_at == (T0 + timedelta(seconds=600)).isoformat()
    assert game().last(e.StepOpened).due_at is None


def test_a_missed_step_2_deals_the_cards_one_at_a_time_from_the_next_player_r7_2() -> None:
    g = game(DEADLINES, creator="p3")
    step_no = g.state.step_no
    g = g.when(tc.ExpireDeadline(seat=None, step_no=step_no), now=later(3600)).ok()
    assert g.all(te.DeadlinePassed)[0].step == "distribute"
    dealt = g.last(e.LootDistributed)
    assert dealt.auto == "deadline"
    # 7 cards from seat 4 clockwise: 4, 0, 1, 2, 3, 4, 0
    assert dealt.shares == ((TOP7[1], TOP7[6]), (TOP7[2],), (TOP7[3],), (TOP7[4],), (TOP7[0], TOP7[5]))


def test_a_missed_step_3_closes_as_it_stands_with_the_timeout_action_r7_3() -> None:
    """R7.3: no card chosen plays ``timeout_action`` (default no card, no vote); unready choices stand."""
    g = all_to(game(DEADLINES), 0).do(c.ChooseAction(seat=1, action="vote_no"))
    g = g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no), now=later(601)).ok()
    assert g.all(e.StepClosed)[0].reason == "deadline"
    revealed = {x.seat: (x.action, x.defaulted) for x in g.all(e.ActionRevealed)}
    assert revealed[1] == ("vote_no", False)
    assert revealed[0] == (None, True)
    assert g.all(e.VoteResolved)[0] == e.VoteResolved(yes=0, no=1, outcome="fail")
    g = all_to(game({**DEADLINES, "timeout_action": "vote_yes"}), 0)
    g = g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no), now=later(601)).ok()
    assert g.all(e.VoteResolved)[0] == e.VoteResolved(yes=5, no=0, outcome="pass")


def test_a_stale_or_early_timer_does_nothing_r7_5() -> None:
    g = game(DEADLINES)
    assert g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no), now=later(10)).events() == []
    assert g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no + 5), now=later(9999)).events() == []
    assert game().when(tc.ExpireDeadline(seat=None, step_no=1), now=later(9999)).events() == []
    g.when(tc.ExpireDeadline(seat=1, step_no=1)).raises("system_only")  # type: ignore[arg-type]


def test_the_record_says_when_a_deadline_passed_r7_5() -> None:
    g = game(DEADLINES)
    g = g.when(tc.ExpireDeadline(seat=None, step_no=1), now=later(4000)).ok()
    passed = g.all(te.DeadlinePassed)[0]
    assert passed == te.DeadlinePassed(
        step_no=1, step="distribute", due_at=(T0 + timedelta(seconds=3600)).isoformat()
    )


def test_a_resigned_boss_deals_at_once_and_is_skipped_as_boss_r7_4() -> None:
    """R7.4: a resigned player plays as the deadlines would, at once; the Boss job skips them."""
    g = game()
    g = g.do(tc.Resign(seat=0))
    assert g.last(e.LootDistributed).auto == "resigned"
    assert g.state.phase == "choose"
    g.when(c.ChooseAction(seat=0, action="rob")).raises("resigned")
    g = g.do(tc.Resign(seat=1))
    # a tie passes the job: from seat 0, skipping resigned seat 1
    g = choose_all(g, {2: "guard", 3: "guard", 4: "guard"})
    assert g.all(e.VoteResolved)[0].outcome == "tie"
    assert g.state.boss == 2


def test_step_3_waits_only_for_players_who_have_not_resigned_r7_4() -> None:
    g = all_to(game(), 0)
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "vote_yes", 3: "vote_yes"})
    waiting = RULESET.waiting(g.table)
    assert waiting is not None
    assert waiting.seats == frozenset({4})
    g = g.do(tc.Resign(seat=4))
    assert g.all(e.StepClosed)[0].reason == "ready"


def test_a_resigned_player_cannot_win_r7_4() -> None:
    g = given(start(5, setup=make_setup(5, top=TOP7, fuzz_at=10)))
    g = g.do(tc.Resign(seat=3))
    g = all_to(g, 3)  # the Boss gives everything to the resigned player
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "vote_yes", 4: "vote_yes"})
    ended = g.last(e.GameEnded)
    assert max(ended.scores) == ended.scores[3]
    assert 3 not in ended.winners
    assert ended.winners == (0, 1, 2, 4)


def test_when_everyone_resigns_the_game_plays_itself_to_the_end_r7_4() -> None:
    g = game()
    for seat in range(5):
        g = g.do(tc.Resign(seat=seat))
    assert g.state.phase == "over"
    assert g.last(e.GameEnded).winners == ()


def test_a_resigned_player_may_still_talk_r6_5() -> None:
    g = game().do(tc.Resign(seat=2), tc.SendMessage(seat=2, text="good luck"))
    assert g.last(te.MessageSent).text == "good luck"
