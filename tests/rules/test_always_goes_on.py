"""R7.6: a game can always go on. The longest pause (option ``max_pause``, a week by default), the pause that
ends at once when no seat that could resume it remains (ruling 31), a step opened during a pause gets its full
duration from the resume, votes already cast carry when the seats still playing change (ruling 28), and when
every player has resigned the Boss job stays where it is, with no term bonus (R7.4, ruling 13). Also R6.3:
bundles settle at the target's reveal, before its card is carried out. Pure rules, no Django."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from games.rules.table import commands as tc
from games.rules.table import events as te
from tests.rules.gc import RULESET

from .helpers import T0, Given, all_to, card, choose_all, default_stash, given, later, make_setup, start
from .invariants import check_conservation, check_final

WEEK = timedelta(days=7)
STEPS = {"distribute": 3600, "choose": 600}
TOP6 = [card(2000, k) for k in range(6)]
TOP7 = [card(2000, k) for k in range(7)]


def game(n: int, options: dict[str, Any], *, fuzz_at: int | None = None) -> Given:
    top = TOP6 if n == 4 else TOP7
    return given(
        start(n, options={"deadlines": STEPS, **options}, setup=make_setup(n, top=top, fuzz_at=fuzz_at))
    )


def expire(g: Given, at: datetime) -> Given:
    return g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no), now=at).ok()


def due(g: Given) -> datetime | None:
    waiting = RULESET.waiting(g.table)
    assert waiting is not None
    return waiting.due_at


def play_out(g: Given, seats: tuple[int, ...]) -> Given:
    """Play on to the end: the sensible bot in ``seats``, the deadlines whenever nobody moves."""
    for _ in range(5000):
        if g.state.phase == "over":
            return g
        moved = False
        for seat in seats:
            command = RULESET.bot_command(g.table, seat, strategy="sensible", salt=7)
            if command is not None:
                g = g.when(command, now=T0 + timedelta(days=30)).ok()
                moved = True
                break
        if not moved:
            at = due(g)
            assert at is not None, "the game waits on nothing that can ever come"
            g = expire(g, at + timedelta(seconds=1))
    raise AssertionError("the game did not end")


def the_issue_table(*, fuzz_at: int | None = None) -> Given:
    """Issue 13, item 6: 4 players, ``pause_by: vote``; seat 3 goes on autopilot, seats 1 and 2 resign, seat 0
    votes pause and resigns."""
    g = game(4, {"pause_by": "vote", "absence": {"extensions": 0, "autopilot_after": 1}}, fuzz_at=fuzz_at)
    g = all_to(g, 0)
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "vote_yes"})  # seat 3 never chooses
    g = expire(g, later(601))
    assert g.all(te.AutopilotEngaged) == [te.AutopilotEngaged(seat=3, reason="absent")]
    assert (g.state.phase, g.state.boss) == ("distribute", 0)
    g = g.do(tc.Resign(seat=1), tc.Resign(seat=2), now=later(700))
    g = g.when(tc.VotePause(seat=0, pause=True), now=later(800)).ok()
    assert g.last(te.GamePaused) == te.GamePaused(at=later(800).isoformat(), by="vote")  # 1 of the 1 voter
    return g.do(tc.Resign(seat=0), now=later(900))  # the Boss: R7.2 deals for them, Step 3 opens


def test_the_issue_game_resumes_after_the_longest_pause_and_finishes_r7_6() -> None:
    """Nothing resumed this game before: seat 3's player is away (on autopilot), the others resigned. The
    pause now ends by itself after the game's longest pause (a week by default), written into the log as
    ``GameResumed(by="limit")`` (R7.5); the Step 3 that opened during the pause gets its 600 s from the
    resume; the autopilot then plays seat 3 to the end of the game."""
    g = the_issue_table()
    paused_at = later(800)
    assert g.table.paused_at == paused_at.isoformat()
    assert g.state.phase == "choose"
    # seat 3's player could still take the seat back and vote: the pause does not end early (ruling 31)
    assert not g.all(te.GameResumed)
    assert RULESET.bot_command(g.table, 3, strategy="sensible", salt=7) is None  # the bot waits
    assert due(g) == paused_at + WEEK  # the game's one timer: the end of the pause
    assert RULESET.view_for(g.table, 3)["pause_until"] == (paused_at + WEEK).isoformat()
    assert expire(g, paused_at + WEEK - timedelta(seconds=1)).state == g.state  # not yet
    g = g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no), now=paused_at + WEEK).then(
        te.GameResumed(
            by="limit",
            paused_seconds=int(WEEK.total_seconds()),
            due_at=(paused_at + WEEK + timedelta(seconds=600)).isoformat(),
        )
    )
    assert g.table.paused_at is None
    g = play_out(g, (3,))
    check_final(g.table, g.events)
    assert g.last(e.GameEnded).winners == (3,)


def test_a_step_opened_during_a_pause_gets_its_full_duration_from_the_resume_r7_6() -> None:
    """Today's bug: the step opened during the pause got its duration plus the whole pause."""
    g = all_to(game(5, {}), 0)
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "vote_yes", 3: "vote_yes"})
    g = g.when(tc.PauseGame(seat=None), now=later(100)).ok()
    g = g.do(tc.Resign(seat=4), now=later(200))  # Step 3 closes; the next round opens Step 2, paused
    opened = g.last(e.StepOpened)
    assert (opened.step, g.table.paused_at) == ("distribute", later(100).isoformat())
    # it opens as if at the pause's start: while paused, due_at - paused_at is the time it will have left
    assert opened.due_at == (later(100) + timedelta(seconds=3600)).isoformat()
    g = g.when(tc.ResumeGame(seat=None), now=later(1000)).ok()
    assert g.last(te.GameResumed).due_at == (later(1000) + timedelta(seconds=3600)).isoformat()
    assert due(g) == later(1000) + timedelta(seconds=3600)


@pytest.mark.parametrize("pause_by", ["creator", "vote"])
def test_the_pause_ends_at_once_when_every_seat_has_resigned_r7_6(pause_by: str) -> None:
    """Ruling 31: with every seat resigned nobody could resume (and nothing is left to wait for): the last
    resignation ends the pause before the game plays itself to the end (R7.4), instead of ending the game
    while it is still paused."""
    g = game(4, {"pause_by": pause_by})
    if pause_by == "creator":
        g = g.when(tc.PauseGame(seat=None), now=later(10)).ok()
    else:
        g = g.do(*(tc.VotePause(seat=s, pause=True) for s in (0, 1, 2)), now=later(10))
    assert g.table.paused_at == later(10).isoformat()
    g = g.do(tc.Resign(seat=0), tc.Resign(seat=1), tc.Resign(seat=2), now=later(50))
    assert g.table.paused_at is not None  # seat 3 could still resume (or is still to be waited for)
    assert not g.all(te.GameResumed)
    g = g.when(tc.Resign(seat=3), now=later(60)).ok()
    last = g.since(len(g.events) - 1)
    batch = g.events[g.events.index(g.last(te.PlayerResigned)) :]
    assert batch[1] == te.GameResumed(by="resigned", paused_seconds=50, due_at=batch[1].due_at)  # type: ignore[union-attr]
    assert isinstance(last[0], e.GameEnded)
    check_final(g.table, g.events)
    assert g.table.paused_at is None
    assert g.last(e.GameEnded).winners == ()


@pytest.mark.parametrize("how", ["take_back", "hand_over", "hand_over_and_resign"])
def test_a_seat_on_autopilot_can_still_end_the_pause_r7_6(how: str) -> None:
    """Ruling 31: a seat on autopilot is a seat that could resume: its player takes it back (allowed while
    paused) and votes, or the creator hands it to a newcomer who votes. When the newcomer resigns instead,
    no seat is left that could resume, and the pause ends at once. Either way the Step 3 that opened during
    the pause gets its full 600 s from the resume."""
    g = the_issue_table()
    if how == "take_back":
        g = g.do(tc.TakeBackSeat(seat=3), now=later(5000))
    else:
        g = g.do(tc.HandOverSeat(seat=None, target=3, to="player", player="newcomer"), now=later(5000))
        assert g.table.players[3] == "newcomer"
    assert g.table.paused_at is not None
    if how == "hand_over_and_resign":
        g = g.when(tc.Resign(seat=3), now=later(9000)).ok()
        assert g.all(te.GameResumed)[0].by == "resigned"
        assert g.state.phase == "over"  # nobody left: the game played itself to the end
        check_final(g.table, g.events)
        return
    g = g.when(tc.VotePause(seat=3, pause=False), now=later(9000)).ok()
    resumed = g.last(te.GameResumed)
    assert (resumed.by, resumed.due_at) == ("vote", (later(9000) + timedelta(seconds=600)).isoformat())


def test_votes_already_cast_carry_when_a_voter_resigns_r7_6() -> None:
    """Ruling 28: a pause vote needs a strict majority of the seats still playing; when a seat resigns there
    are fewer of them, and the votes already cast carry as soon as they are a majority (pause + resignation).
    Before, they waited for a vote that no one was left to cast."""
    g = game(5, {"pause_by": "vote"})
    g = g.do(tc.VotePause(seat=0, pause=True), tc.VotePause(seat=1, pause=True), tc.Resign(seat=4))
    assert g.table.paused_at is None  # 2 of 4
    g = g.when(tc.Resign(seat=3), now=later(30)).ok()
    assert g.events[-1] == te.GamePaused(at=later(30).isoformat(), by="vote")  # 2 of 3
    g = g.do(tc.VotePause(seat=0, pause=False), tc.Resign(seat=2), now=later(60))
    assert g.table.paused_at is not None  # 1 of 2 is no majority
    g = g.when(tc.Resign(seat=1), now=later(90)).ok()
    assert g.last(te.GameResumed).by == "vote"  # 1 of 1
    assert g.table.paused_at is None


def test_votes_already_cast_carry_when_a_seat_goes_on_autopilot_r7_6() -> None:
    """Ruling 28, pause + autopilot: a seat on autopilot does not vote, so the votes cast may now be a
    majority; the game pauses at the end of the deadline's batch."""
    g = game(4, {"pause_by": "vote", "absence": {"extensions": 0, "autopilot_after": 1}})
    g = all_to(g, 0)
    g = g.do(tc.VotePause(seat=1, pause=True), tc.VotePause(seat=2, pause=True))
    assert g.table.paused_at is None  # 2 of 4
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "vote_yes"})
    g = expire(g, later(601))
    assert g.all(te.AutopilotEngaged) == [te.AutopilotEngaged(seat=3, reason="absent")]
    assert g.events[-1] == te.GamePaused(at=later(601).isoformat(), by="vote")  # 2 of 3
    assert g.last(e.StepOpened).step == "distribute"  # the round was played before the pause


def test_max_pause_is_the_game_s_longest_pause_even_without_deadlines_r7_6() -> None:
    g = given(start(4, options={"max_pause": 3600}, setup=make_setup(4, top=TOP6)))
    assert g.table.settings is not None
    assert g.table.settings.max_pause == 3600
    assert due(g) is None  # no step deadlines at all
    g = g.when(tc.PauseGame(seat=None), now=later(10)).ok()
    assert due(g) == later(3610)
    assert RULESET.view_for(g.table, None)["pause_until"] == later(3610).isoformat()
    assert RULESET.view_for(g.table, None)["due_at"] is None
    assert g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no), now=later(3609)).events() == []
    stale = tc.ExpireDeadline(seat=None, step_no=g.state.step_no + 1)
    assert g.when(stale, now=later(9999)).events() == []
    g = g.when(tc.ExpireDeadline(seat=None, step_no=g.state.step_no), now=later(3700)).then(
        te.GameResumed(by="limit", paused_seconds=3690, due_at=None)
    )
    assert due(g) is None
    assert RULESET.view_for(g.table, None)["pause_until"] is None


def test_a_warning_after_a_pause_is_for_the_moved_deadline_r7_6() -> None:
    """Pause + warnings: no warning while paused; after the pause ends by itself, the warning is due
    ``warn_before`` seconds before the moved deadline, and an outage extension while paused changes nothing
    (the timer of a paused game is the pause's end)."""
    g = game(4, {"warn_before": 60, "max_pause": 1000})
    step_no = g.state.step_no
    g = g.when(tc.PauseGame(seat=None), now=later(100)).ok()
    assert RULESET.warn_at(g.table) is None
    assert g.when(tc.WarnDeadline(seat=None, step_no=step_no), now=later(3590)).events() == []
    assert g.when(tc.ExtendDeadline(seat=None, step_no=step_no, seconds=60), now=later(1200)).events() == []
    g = expire(g, later(1100))
    assert g.last(te.GameResumed).by == "limit"
    moved = T0 + timedelta(seconds=3600 + 1000)
    assert due(g) == moved
    assert RULESET.warn_at(g.table) == moved - timedelta(seconds=60)
    g = g.when(tc.WarnDeadline(seat=None, step_no=step_no), now=moved - timedelta(seconds=60)).ok()
    assert g.last(te.DeadlineNear).due_at == moved.isoformat()


OPTIONS_WHEN_ALL_RESIGN = [
    {},  # every vote ties (0 = 0): a tie would pass the job
    {"boss_term_limit": 1, "payoffs": True},  # the term limit would pass the job with a bonus (R5.4)
    {"boss_term_limit": 2, "timeout_action": "vote_yes"},
    {"timeout_action": "vote_no"},  # every vote fails (R4.3)
    {"timeout_action": "vote_no", "no_vote_rule": "russian"},  # R4.5
]


@pytest.mark.parametrize("options", OPTIONS_WHEN_ALL_RESIGN)
@pytest.mark.parametrize("seed", [bytes(32), bytes(range(32)), b"\x07" * 32])
def test_when_every_player_has_resigned_the_boss_stays_with_no_term_bonus_r7_6_r7_4(
    options: dict[str, Any], seed: bytes
) -> None:
    """R7.6 and R7.4 (resigned players are skipped when the job would pass to them), ruling 13: nobody can
    take the job, so it stays with the Boss, who takes no Boss-term bonus. Before, it passed on to a resigned
    player, and with Limited Boss Terms the former Boss took the top card of the pile each round."""
    events = list(start(5, options=options, seed=seed))
    g = given(events)
    first_boss = g.state.boss
    for seat in (1, 3, 0, 4, 2):
        g = g.do(tc.Resign(seat=seat))
    check_final(g.table, g.events)
    check_conservation(g.state)
    assert not g.all(e.BossChanged)
    assert not g.all(e.BossBonus)
    assert {r.boss for r in g.all(e.RoundStarted)} == {first_boss}
    assert len(g.all(e.RoundStarted)) > 1
    assert g.last(e.GameEnded).winners == ()


def test_with_one_player_left_the_job_still_passes_to_them_r7_4() -> None:
    """The other side of the same rule: a resigned Boss hands the job on to the one player still playing."""
    g = game(4, {"boss_term_limit": 1})
    g = g.do(tc.Resign(seat=0), tc.Resign(seat=1), tc.Resign(seat=2))
    g = choose_all(g, {3: "vote_yes"})
    changed = g.all(e.BossChanged)
    assert changed[0] == e.BossChanged(boss=3, previous=0, reason="term_limit")
    assert g.all(e.BossBonus)[0].seat == 0


def test_a_game_started_under_rules_2_keeps_its_pause_without_limit_ruling_32() -> None:
    """A game started before R7.6 (its GameStarted is version 1: no ``rules``, no ``max_pause``) is played to
    its end under the rules it started with (ruling 32): its pause has no limit, so the game has no timer
    while paused and an ExpireDeadline then yields nothing, however late."""
    data = [RULESET.event_to_json(x) for x in start(4, setup=make_setup(4, top=TOP6))]
    data[0]["v"] = 1
    del data[0]["rules"], data[0]["options"]["max_pause"]
    events: list[e.Event] = [RULESET.event_from_json(d) for d in data]
    g = given(events).when(tc.PauseGame(seat=None), now=later(5)).ok()
    assert g.state.rules == 2
    assert due(g) is None
    assert RULESET.view_for(g.table, None)["pause_until"] is None
    late = tc.ExpireDeadline(seat=None, step_no=g.state.step_no)
    assert g.when(late, now=later(5) + 10 * WEEK).events() == []
    assert RULESET.event_to_json(g.events[0]) == data[0]  # written back as it was


def test_a_bundle_settles_before_the_targets_card_is_carried_out_r6_3() -> None:
    """R6.3: the bundles in front of the target settle the moment its card is revealed, before the card is
    carried out: a bundle that goes back to its giver can then be robbed by the target's Rob (R3.4, R3.6)."""
    g = given(start(5, options={"payoffs": True}, setup=make_setup(5, top=TOP7)))
    g = all_to(g, 0)
    everything = default_stash(1)  # seat 1 puts its whole Stash in a bundle for seat 2
    g = g.do(
        c.OfferPayoff(seat=1, token=0, side="yes", target=2, loot=everything, visibility="open"),
        c.PlaceThreat(seat=2, target=1),
    )
    assert g.state.stashes[1] == frozenset()
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "rob", 3: "vote_yes", 4: "vote_yes"})
    step4 = g.events[g.events.index(g.last(e.StepClosed)) :]
    kinds = [(type(x).__name__, getattr(x, "seat", getattr(x, "robber", None))) for x in step4]
    at = kinds.index(("ActionRevealed", 2))
    assert kinds[at + 1 : at + 3] == [("PayoffResolved", 1), ("RobSucceeded", 2)]
    resolved, robbed = step4[at + 1], step4[at + 2]
    assert isinstance(resolved, e.PayoffResolved)
    assert isinstance(robbed, e.RobSucceeded)
    assert resolved.taken is False  # a Yes token, and the target revealed Rob: back to the giver
    # the bundle was back in seat 1's Stash when the Rob was carried out: it was the only thing to rob
    assert robbed.victim == 1
    assert robbed.card in everything
    assert robbed.card in g.state.stashes[2]
    assert g.state.stashes[1] == frozenset(everything) - {robbed.card}


OLD_LOGS = Path(__file__).resolve().parent / "data" / "logs-before-r7-6.json"


# the keys added to the view since those logs were written: R7.6's `pause_until`, and issue #24's `play` (the
# same block in every game's view; the flat keys it repeats are still compared)
ADDED_KEYS = ("pause_until", "play")


def _digest(view: dict[str, Any]) -> str:
    view = {k: v for k, v in view.items() if k not in ADDED_KEYS}
    return hashlib.sha256(json.dumps(view, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def test_logs_written_before_r7_6_fold_exactly_as_before() -> None:
    """Old logs keep replaying (R7.6 changed what is decided, not what a fact means): two play-by-web games
    (pauses by vote and by the creator, resumes, resignations, autopilot, a hand-over, extensions, warnings,
    Payoffs) written by the engine before R7.6 (``data/make_logs_before_r7_6.py``, run on that code), read
    and folded by this one: after every event the spectator's and seat 0's views are those the old engine
    showed, and every event reads back to the same JSON (``GameStarted`` too: version 1, a game under rules
    2, ruling 32)."""
    stored = json.loads(OLD_LOGS.read_text(encoding="utf-8"))
    assert len(stored["games"]) == 2
    kinds: set[str] = set()
    for game_log in stored["games"]:
        state = RULESET.initial_state()
        for data, (spectator, seat0) in zip(game_log["events"], game_log["views"], strict=True):
            event = RULESET.event_from_json(data)
            kinds.add(data["type"])
            assert RULESET.event_to_json(event) == data
            state = RULESET.evolve(state, event)
            assert state.game.rules == 2
            assert (_digest(RULESET.view_for(state, None)), _digest(RULESET.view_for(state, 0))) == (
                spectator,
                seat0,
            ), f"the view after {data} differs from the old engine's"
        final = {k: v for k, v in RULESET.view_for(state, None).items() if k not in ADDED_KEYS}
        assert final == game_log["final"]
    assert {"GamePaused", "GameResumed", "PlayerResigned", "AutopilotEngaged", "SeatHandedOver"} <= kinds
