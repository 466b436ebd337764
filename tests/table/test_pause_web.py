"""R7.6 on the table's games, over HTTP: a step that opens during a pause gets its full duration from the
resume, not more; a pause ends by itself after the game's longest pause (``max_pause``). And LT7.3 as written:
a resigned Bagman gives every card at once, round-robin."""

from __future__ import annotations

import time
from datetime import datetime, timedelta

import pytest

from tests.table.helpers import open_game, problem, sweep_past

pytestmark = pytest.mark.django_db

DEADLINES = {"setup": 30, "place": 30, "populate": 30, "act": 30}


def test_a_step_that_opens_during_a_pause_gets_its_full_duration_from_the_resume() -> None:
    """R7.6: the first chooser resigns while the game is paused; its default is played at once (WC4.3) and
    the next chooser's step opens: its deadline counts from the resume."""
    t = open_game("were_cats", 3, [], {"deadlines": DEADLINES})
    chooser = t.play()["waiting_on"][0]
    assert t.creator.post(f"{t.url}/pause").status_code == 200
    paused_at = datetime.fromisoformat(t.events("GamePaused")[0]["at"])
    t.ok(chooser, "resign")  # allowed while paused
    taken = t.events("StartingCoinsTaken")
    assert [(e["seat"], e["reason"]) for e in taken] == [(chooser, "resigned")]
    opened = t.events("DeadlineSet")[-1]
    assert datetime.fromisoformat(opened["due_at"]) == paused_at + timedelta(seconds=30)
    play = t.play()
    assert play["step_no"] == opened["step_no"]
    assert play["paused_at"] is not None
    following = play["waiting_on"][0]
    assert following != chooser
    version = t.version()
    sweep_past(paused_at + timedelta(seconds=30))  # its deadline, were the game not paused
    assert t.version() == version
    time.sleep(1.1)
    assert t.creator.post(f"{t.url}/resume").status_code == 200
    resumed = t.events("GameResumed")[0]
    due = datetime.fromisoformat(resumed["due_at"])
    assert due - paused_at - timedelta(seconds=30) >= timedelta(seconds=1.1)  # the full 30 s after resuming
    assert due - paused_at - timedelta(seconds=30) < timedelta(seconds=30)
    assert datetime.fromisoformat(t.play()["due_at"]) == due
    t.ok(following, "choose-starting-coins", {"kind": "dime"})  # play goes on


def test_a_pause_ends_by_itself_after_the_longest_pause() -> None:
    """R7.6: ``max_pause`` seconds after it began, the sweeper resumes the game (``by: limit``); the step's
    deadline moves by the time paused."""
    t = open_game("were_cats", 2, [], {"deadlines": DEADLINES, "max_pause": 20})
    before = datetime.fromisoformat(t.play()["due_at"])
    assert t.creator.post(f"{t.url}/pause").status_code == 200
    play = t.play()
    until = datetime.fromisoformat(play["pause_until"])
    assert until == datetime.fromisoformat(play["paused_at"]) + timedelta(seconds=20)
    version = t.version()
    sweep_past(until - timedelta(seconds=2))
    assert t.version() == version
    sweep_past(until)
    resumed = t.events("GameResumed")
    assert [e["by"] for e in resumed] == ["limit"]
    assert datetime.fromisoformat(resumed[0]["due_at"]) - before >= timedelta(seconds=20)
    play = t.play()
    assert play["paused_at"] is None
    assert play["due_at"] == resumed[0]["due_at"]
    assert not t.events("DeadlinePassed")  # the step itself has not timed out


def test_a_resigned_bagman_gives_every_card_at_once_round_robin() -> None:
    """LT7.3 as written ("plays the defaults at once: gives round-robin as Bagman"). With LT2.5's aim window
    the others get their moment to shoot before each give (the resigned Bagman waits like a bot); without it
    (``deadlines.aim`` 0) nobody else can act in between, so the Bagman's resignation deals the rest of the
    Loot and ends the game."""
    t = open_game("loose_triggers", 5, [], {"deadlines": {"give": 40, "choose": 40, "pick": 40}})
    bagman = t.state()["bagman"]
    body = t.ok(bagman, "resign")
    assert body["over"] is False
    assert t.events("LootGiven") == []
    assert t.play()["step"] == "aim"
    assert t.play()["waiting_on"] == [s for s in range(5) if s != bagman]

    t = open_game("loose_triggers", 5, [], {"deadlines": {"give": 40, "choose": 40, "pick": 40, "aim": 0}})
    bagman = t.state()["bagman"]
    body = t.ok(bagman, "resign")
    assert body["over"] is True
    given = t.events("LootGiven")
    assert len(given) == 56
    assert all(e["bagman"] == bagman for e in given)
    assert [e["to"] for e in given[:5]] == [(bagman + i) % 5 for i in range(1, 6)]  # LT2.3's order
    assert bagman not in body["state"]["winners"]


def test_players_pause_and_resume_by_vote_and_a_seat_on_autopilot_does_not_vote() -> None:
    """``pause_by: vote`` on a table game (ruling 28): a strict majority of the seats not resigned and not on
    autopilot pauses, and resumes; the creator's endpoints are refused (409 ``pause_by_vote``)."""
    options = {"deadlines": DEADLINES, "pause_by": "vote", "absence": {"extensions": 0, "autopilot_after": 1}}
    t = open_game("were_cats", 5, [], options)
    absent = t.play()["waiting_on"][0]  # the first chooser stays away: on autopilot after one miss
    sweep_past(datetime.fromisoformat(t.play()["due_at"]))
    assert t.play()["seats"][absent]["autopilot"] is True
    voters = sorted(s for s in t.by_seat if s != absent)
    problem(t.creator.post(f"{t.url}/pause"), 409, "pause_by_vote")
    problem(t.command(absent, "vote-pause", {"pause": True}), 409, "autopilot_on")
    t.ok(voters[0], "vote-pause", {"pause": True})
    t.ok(voters[1], "vote-pause", {"pause": True})
    assert not t.events("GamePaused")  # 2 of the 4 who vote: no majority
    t.ok(voters[2], "vote-pause", {"pause": True})
    assert [e["by"] for e in t.events("GamePaused")] == ["vote"]
    chooser = t.play()["waiting_on"][0]
    problem(t.command(chooser, "choose-starting-coins", {"kind": "dime"}), 409, "paused")
    for seat in voters[:3]:
        t.ok(seat, "vote-pause", {"pause": False})
    assert [e["by"] for e in t.events("GameResumed")] == ["vote"]
    assert t.play()["paused_at"] is None
