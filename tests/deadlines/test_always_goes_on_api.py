"""R7.6, a game can always go on, through the public HTTP API and the sweeper (what the beat task runs; time
moves by calling it with an explicit ``now``, as in ``test_policy_api.py``).

The scenario of issue 13 (item 6): a 4-player game with ``pause_by: vote``; seat 3 goes on autopilot, seats 1
and 2 resign, seat 0 votes pause and resigns. Nothing could resume it and no deadline ran. Now the pause is a
timer on the game row like any deadline: the sweeper ends it after the game's longest pause (``max_pause``, a
week by default) with a ``GameResumed(by="limit")`` event, and the autopilot plays on to the end.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from games import deadlines
from games.models import Event, Game, GameStatus
from games.services import bots
from tests.conftest import Api, Table, start_table

pytestmark = pytest.mark.django_db

WEEK = timedelta(days=7)


def _options(**extra: Any) -> dict[str, Any]:
    return {"deadlines": {"distribute": 60, "choose": 60}, **extra}


def _events(game_id: int, *types: str) -> list[dict[str, Any]]:
    rows = Event.objects.filter(game_id=game_id).order_by("seq")
    if types:
        rows = rows.filter(type__in=types)
    return [dict(row.data) for row in rows]


def _game(table: Table) -> Game:
    return Game.objects.get(pk=table.game_id)


def _ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def _distribute(table: Table) -> None:
    state = table.state(0)["state"]
    shares: list[list[int]] = [[] for _ in state["seats"]]
    shares[state["boss"]] = [c["id"] for c in state["table"]]
    _ok(table.apis[state["boss"]].command(table.game_id, "distribute-loot", {"shares": shares}))


def _choose_and_ready(api: Api, game_id: int) -> None:
    _ok(api.command(game_id, "choose-action", {"action": "vote_yes"}))
    _ok(api.command(game_id, "set-ready", {"ready": True}))


def _the_issue_table(**options: Any) -> Table:
    """Seat 3 goes on autopilot (it missed a deadline), seats 1 and 2 resign, seat 0 votes pause, resigns."""
    table = start_table(
        4, _options(pause_by="vote", absence={"extensions": 0, "autopilot_after": 1}, **options)
    )
    gid = table.game_id
    _distribute(table)
    for seat in (0, 1, 2):
        _choose_and_ready(table.apis[seat], gid)
    due = _game(table).deadline_at
    assert due is not None
    deadlines.sweep(now=due + timedelta(seconds=1))
    assert [e["seat"] for e in _events(gid, "AutopilotEngaged")] == [3]
    for seat in (1, 2):
        _ok(table.apis[seat].command(gid, "resign"))
    _ok(table.apis[0].command(gid, "vote-pause", {"pause": True}))
    assert _events(gid, "GamePaused")[0]["by"] == "vote"
    _ok(table.apis[0].command(gid, "resign"))
    return table


def _play_to_the_end(table: Table, start: datetime) -> None:
    """The autopilot's bot task (what the worker runs) and the sweeper, until the game is over."""
    at = start
    for _ in range(200):
        if _game(table).status == GameStatus.OVER:
            return
        bots.bots_play(table.game_id)
        at += timedelta(seconds=61)
        deadlines.sweep(now=at)
    raise AssertionError("the game did not end")


def test_the_issue_game_goes_on_after_the_longest_pause_and_finishes_r7_6() -> None:
    table = _the_issue_table()
    gid = table.game_id
    paused = _events(gid, "GamePaused")[0]
    paused_at = datetime.fromisoformat(paused["at"])
    assert not _events(gid, "GameResumed")  # seat 3's player could take the seat back and vote (ruling 31)
    view = table.state(3)
    row = _game(table)
    assert bots.bots_play(gid) == 0  # the bot waits while paused

    deadlines.sweep(now=paused_at + timedelta(days=1))
    assert not _events(gid, "GameResumed")
    # six days with no sweep at all: a timer outage, and the pause's end fell due inside it. It is applied,
    # not extended (ruling 29), or the sweeper would try to extend it again and again
    report = deadlines.sweep(now=paused_at + WEEK + timedelta(seconds=1))
    resumed = _events(gid, "GameResumed")
    assert [r["by"] for r in resumed] == ["limit"]
    assert report.outage is not None
    assert report.outage[0] < paused_at + WEEK <= report.outage[1]
    assert (report.expired, report.extended) == ([gid], [])
    # while paused: the pause's end was the game row's timer, which the sweeper applies like any deadline
    assert row.deadline_at == paused_at + WEEK
    assert view["state"]["paused_at"] == paused["at"]
    assert view["state"]["pause_until"] == (paused_at + WEEK).isoformat()
    assert datetime.fromisoformat(view["waiting"]["due_at"]) == paused_at + WEEK
    assert resumed[0]["paused_seconds"] == int(WEEK.total_seconds()) + 1
    # the Step 3 that opened during the pause (seat 0, the Boss, resigned: R7.2 dealt for them) gets its
    # full 60 s from the resume (R7.6)
    assert datetime.fromisoformat(resumed[0]["due_at"]) == paused_at + WEEK + timedelta(seconds=61)
    assert table.state(3)["state"]["paused_at"] is None

    _play_to_the_end(table, paused_at + WEEK + timedelta(seconds=1))
    final = table.state(3)["state"]
    assert final["over"] is True
    assert final["winners"] == [3]  # the only player who did not resign (R7.4)
    assert Event.objects.filter(game_id=gid, type="ActionChosen", actor=None).exists()  # the bot played
    verdict = _ok(table.apis[3].get(f"/api/v1/games/{gid}/verify"))
    assert verdict["ok"] is True, verdict


def test_the_last_resignation_ends_the_pause_and_the_boss_keeps_the_job_r7_6() -> None:
    """Seat 3's player resigns too: no seat is left that could resume, the pause ends at once (ruling 31),
    and the game plays itself to the end with the Boss job staying where it is, no term bonus (R7.6, R7.4)."""
    table = _the_issue_table(boss_term_limit=1, payoffs=True)
    gid = table.game_id
    boss = table.state(3)["state"]["boss"]
    before = Game.objects.get(pk=gid).version
    _ok(table.apis[3].command(gid, "resign"))
    resumed = _events(gid, "GameResumed")
    assert [x["by"] for x in resumed] == ["resigned"]
    game = _game(table)
    assert game.status == GameStatus.OVER
    assert game.deadline_at is None
    after = [dict(r.data) for r in Event.objects.filter(game_id=gid, seq__gt=before).order_by("seq")]
    assert after[0]["type"] == "PlayerResigned"
    assert after[1]["type"] == "GameResumed"  # before anything is played
    assert sum(e["type"] == "RoundStarted" for e in after) > 1
    assert not [e for e in after if e["type"] in ("BossChanged", "BossBonus")]  # every round with limit 1
    assert {e["boss"] for e in after if e["type"] == "RoundStarted"} == {boss}
    assert after[-1]["type"] == "GameEnded"
    assert after[-1]["winners"] == []
    verdict = _ok(table.apis[0].get(f"/api/v1/games/{gid}/verify"))
    assert verdict["ok"] is True, verdict


def test_a_creator_s_pause_ends_by_itself_after_the_game_s_max_pause_r7_6() -> None:
    """``pause_by: creator`` and a short ``max_pause``: the creator paused and walked away; the sweeper ends
    the pause; the step's deadline moved by the time paused."""
    table = start_table(4, _options(max_pause=3600, warn_before=0))
    gid, creator = table.game_id, table.apis[0]
    assert table.state(1)["game"]["options"]["max_pause"] == 3600
    due = _game(table).deadline_at
    assert due is not None
    _ok(creator.post(f"/api/v1/games/{gid}/pause"))
    paused_at = datetime.fromisoformat(_events(gid, "GamePaused")[0]["at"])
    assert _game(table).deadline_at == paused_at + timedelta(seconds=3600)
    for seconds in range(0, 3600, 50):  # the sweeper runs regularly (no outage) through the pause
        deadlines.sweep(now=paused_at + timedelta(seconds=seconds))
    assert not _events(gid, "GameResumed")
    at = paused_at + timedelta(seconds=3600)
    deadlines.sweep(now=at + timedelta(seconds=2))
    resumed = _events(gid, "GameResumed")
    assert [r["by"] for r in resumed] == ["limit"]
    moved = datetime.fromisoformat(resumed[0]["due_at"])
    assert moved == due + (at + timedelta(seconds=2) - paused_at)
    assert _game(table).deadline_at == moved
    _distribute(table)  # play goes on


def test_max_pause_is_validated_like_the_other_options_r7_6() -> None:
    from tests.conftest import assert_problem, make_api

    api = make_api()
    for bad in (0, -5, 30 * 24 * 3600 + 1, True, "week", None, 60.5):
        body = assert_problem(
            api.post("/api/v1/games", {"seats": 4, "options": {"max_pause": bad}}), 422, "invalid_options"
        )
        assert "max_pause" in body["detail"]
    r = api.post("/api/v1/games", {"seats": 4, "options": {"max_pause": 60}})
    assert r.status_code == 201, r.content
    assert r.json()["options"]["max_pause"] == 60
    r = api.post("/api/v1/games", {"seats": 4, "options": {}})
    assert r.json()["options"]["max_pause"] == 7 * 24 * 3600
