"""Absent players, pause/resume, outage extension and warnings, driven through the HTTP API.

Time moves by calling the sweeper (what the beat task runs) with an explicit ``now`` in the future, so no
test sleeps; the real worker and beat are proven in ``test_worker.py``. Rule numbers: RULES.md §7 (R7.1 a
deadline per step, R7.2/R7.3 the default plays, R7.5 everything is in the record); the absent-player,
pause, outage and warning rulings are in games/rules/README.md ("Play by web").
"""

from __future__ import annotations

import math
import time
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import deadlines, loading, roster
from games.models import Event, Game, Seat, TimerHeartbeat
from games.services import bots, timers
from tests.conftest import Api, Table, assert_problem, hand_over_to, make_api, start_table

pytestmark = pytest.mark.django_db


def _options(**extra: Any) -> dict[str, Any]:
    return {"deadlines": {"distribute": 60, "choose": 60}, **extra}


def _events(game_id: int, *types: str) -> list[dict[str, Any]]:
    rows = Event.objects.filter(game_id=game_id).order_by("seq")
    if types:
        rows = rows.filter(type__in=types)
    return [dict(row.data) for row in rows]


def _feed(api: Api, game_id: int) -> list[dict[str, Any]]:
    r = api.get(f"/api/v1/games/{game_id}/events", after=0, limit=500)
    assert r.status_code == 200, r.content
    return [item["event"] for item in r.json()["events"]]


def _due(table: Table) -> datetime:
    game = Game.objects.get(pk=table.game_id)
    assert game.deadline_at is not None
    return game.deadline_at


def _distribute(table: Table) -> None:
    """The Boss deals every face-up card to themselves (R2.2)."""
    state = table.state(0)["state"]
    boss = state["boss"]
    shares: list[list[int]] = [[] for _ in state["seats"]]
    shares[boss] = [c["id"] for c in state["table"]]
    r = table.apis[boss].command(table.game_id, "distribute-loot", {"shares": shares})
    assert r.status_code == 200, r.content


def _choose_and_ready(api: Api, game_id: int, action: str = "vote_yes") -> None:
    assert api.command(game_id, "choose-action", {"action": action}).status_code == 200
    assert api.command(game_id, "set-ready", {"ready": True}).status_code == 200


def test_a_first_miss_extends_the_deadline_once_and_unreadies_everyone() -> None:
    """Extension budget (absence.extensions = 1): R7.3 is not played on the first miss; the record says why
    (R7.5). The second miss of the same seat, budget spent, plays the default (R7.3)."""
    # 40 s steps: the sweeps below stay closer together than DEADLINE_OUTAGE_AFTER (60 s), so no outage
    table = start_table(
        4,
        {
            "deadlines": {"distribute": 40, "choose": 40},
            "absence": {"extensions": 1, "autopilot_after": None},
        },
    )
    gid = table.game_id
    _distribute(table)
    for seat in (1, 2, 3):
        _choose_and_ready(table.apis[seat], gid)
    due = _due(table)
    step_no = Game.objects.get(pk=gid).step_no

    deadlines.sweep(now=due + timedelta(seconds=1))
    extended = _events(gid, "DeadlineExtended")
    assert len(extended) == 1
    assert extended[0]["reason"] == "absence"
    assert extended[0]["seats"] == [0]  # seat 0 never chose: it spent its one extension
    assert sorted(extended[0]["unready"]) == [1, 2, 3]
    assert _events(gid, "DeadlineMissed")[0]["seats"] == [0]
    assert not _events(gid, "DeadlinePassed")
    state = table.state(1)
    seats = state["state"]["seats"]
    assert [s["ready"] for s in seats] == [False, False, False, False]  # everyone un-readied
    assert [s["extensions_left"] for s in seats] == [0, 1, 1, 1]
    assert state["state"]["step_no"] == step_no  # the same step, a later deadline
    new_due = datetime.fromisoformat(extended[0]["due_at"])
    assert new_due == due + timedelta(seconds=1) + timedelta(seconds=40)
    assert Game.objects.get(pk=gid).deadline_at == new_due
    # every player sees the extension in the feed (a public event)
    assert any(e["type"] == "DeadlineExtended" for e in _feed(table.apis[2], gid))

    # the budget is spent: the next miss plays the step as it stands (R7.3)
    deadlines.sweep(now=new_due + timedelta(seconds=1))
    passed = _events(gid, "DeadlinePassed")
    assert [p["step_no"] for p in passed] == [step_no]
    closed = _events(gid, "StepClosed")
    assert closed[-1]["reason"] == "deadline"
    revealed = {e["seat"]: e for e in _events(gid, "ActionRevealed")}
    assert revealed[0]["defaulted"] is True
    assert revealed[1]["action"] == "vote_yes"  # unready choices stand (R7.3)


def test_after_n_misses_the_seat_goes_on_autopilot_until_taken_back() -> None:
    """Autopilot (absence.autopilot_after = 1, no extensions): the sensible bot plays the absent seat through
    the same service as a bot task; the player's own moves are refused until TakeBackSeat."""
    table = start_table(4, _options(absence={"extensions": 0, "autopilot_after": 1}))
    gid, boss_api = table.game_id, table.apis[0]
    due = _due(table)
    # the Boss never dealt (R7.2 deals for them); with no bot task run in this test, the sweeper's safety
    # net (bots due for longer than BOT_SWEEP_GRACE at its clock) lets the autopilot play at once
    report = deadlines.sweep(now=due + timedelta(seconds=1))
    assert report.expired == [gid]
    assert report.bots == [gid]
    engaged = _events(gid, "AutopilotEngaged")
    assert engaged == [{"type": "AutopilotEngaged", "v": 1, "seat": 0, "reason": "absent"}]
    assert _events(gid, "LootDistributed")[0]["auto"] == "deadline"
    state = boss_api.get(f"/api/v1/games/{gid}/state").json()
    assert state["state"]["seats"][0]["autopilot"] is True
    assert "TakeBackSeat" in state["legal_commands"]
    seat0 = state["state"]["seats"][0]
    assert (seat0["chosen"], seat0["ready"]) == (True, True)  # the sensible bot chose and readied
    bot_moves = Event.objects.filter(game_id=gid, type__in=["ActionChosen", "ReadySet"], actor=None)
    assert bot_moves.count() == 2
    assert Game.objects.get(pk=gid).bots_due_at is None

    body = assert_problem(boss_api.command(gid, "choose-action", {"action": "rob"}), 409, "autopilot_on")
    assert "TakeBackSeat" in body["detail"]
    assert_problem(table.apis[1].command(gid, "take-back-seat"), 409, "not_on_autopilot")
    r = boss_api.command(gid, "take-back-seat")
    assert r.status_code == 200, r.content
    assert r.json()["state"]["seats"][0]["autopilot"] is False
    assert _events(gid, "AutopilotReleased")[-1] == {
        "type": "AutopilotReleased",
        "v": 1,
        "seat": 0,
        "reason": "taken_back",
    }
    assert boss_api.command(gid, "choose-action", {"action": "rob"}).status_code == 200
    assert bots.bots_play(gid) == 0  # nobody left for the bot to play


def test_the_creator_pauses_and_resumes_and_the_deadline_moves_by_the_paused_time() -> None:
    table = start_table(4, _options())
    gid, creator = table.game_id, table.apis[0]
    due = _due(table)
    assert_problem(table.apis[1].post(f"/api/v1/games/{gid}/pause"), 403, "not_creator")
    assert_problem(creator.post(f"/api/v1/games/{gid}/resume"), 409, "not_paused")
    r = creator.post(f"/api/v1/games/{gid}/pause")
    assert r.status_code == 200, r.content
    assert_problem(creator.post(f"/api/v1/games/{gid}/pause"), 409, "already_paused")
    paused = _events(gid, "GamePaused")
    assert paused[0]["by"] == "creator"
    game = Game.objects.get(pk=gid)
    # no deadline runs while paused: the sweeper's one timer is the end of the longest pause (R7.6)
    pause_end = datetime.fromisoformat(paused[0]["at"]) + timedelta(days=7)
    assert game.deadline_at == pause_end
    state = creator.get(f"/api/v1/games/{gid}/state").json()
    assert state["waiting"]["due_at"] == pause_end.isoformat().replace("+00:00", "Z")
    assert state["state"]["pause_until"] == pause_end.isoformat()
    assert state["state"]["paused_at"] == paused[0]["at"]
    assert set(state["legal_commands"]) == {"Resign", "SendMessage"}
    assert_problem(creator.command(gid, "distribute-loot", {"shares": [[], [], [], []]}), 409, "paused")

    report = deadlines.sweep(now=due + timedelta(hours=2))
    assert gid not in report.expired
    assert not _events(gid, "DeadlinePassed")

    r = creator.post(f"/api/v1/games/{gid}/resume")
    assert r.status_code == 200, r.content
    resumed = _events(gid, "GameResumed")[0]
    paused_for = datetime.fromisoformat(resumed["due_at"]) - due
    assert timedelta(0) < paused_for < timedelta(seconds=30)
    assert resumed["paused_seconds"] == math.ceil(paused_for.total_seconds())
    assert Game.objects.get(pk=gid).deadline_at == datetime.fromisoformat(resumed["due_at"])
    _distribute(table)  # play goes on


def test_players_pause_and_resume_by_a_majority_vote_when_the_option_says_so() -> None:
    table = start_table(4, _options(pause_by="vote"))
    gid = table.game_id
    assert_problem(table.apis[0].post(f"/api/v1/games/{gid}/pause"), 409, "pause_by_vote")
    assert table.apis[1].command(gid, "vote-pause", {"pause": True}).status_code == 200
    assert_problem(table.apis[1].command(gid, "vote-pause", {"pause": True}), 409, "no_change")
    assert table.apis[2].command(gid, "vote-pause").status_code == 200  # pause defaults to true
    assert not _events(gid, "GamePaused")  # 2 of 4 is not a majority
    assert_problem(table.apis[3].command(gid, "vote-pause", {"pause": False}), 409, "not_paused")
    assert table.apis[3].command(gid, "vote-pause", {"pause": True}).status_code == 200
    paused = _events(gid, "GamePaused")[0]
    assert paused["by"] == "vote"
    assert Game.objects.get(pk=gid).deadline_at == datetime.fromisoformat(paused["at"]) + timedelta(days=7)
    for seat in (0, 1, 2):
        assert table.apis[seat].command(gid, "vote-pause", {"pause": False}).status_code == 200
    assert _events(gid, "GameResumed")[0]["by"] == "vote"
    assert Game.objects.get(pk=gid).deadline_at is not None


def test_deadlines_due_during_a_timer_outage_are_extended_not_played() -> None:
    """Outage fairness: no sweep for longer than DEADLINE_OUTAGE_AFTER; the deadline that fell due inside
    that gap gets DeadlineExtended(reason=outage) instead of the R7.2 default, with no budget spent."""
    table = start_table(4, _options(absence={"extensions": 0, "autopilot_after": None}))
    gid = table.game_id
    due = _due(table)
    start = timezone.now()
    deadlines.sweep(now=start)  # the sweeper was alive at the start...
    assert TimerHeartbeat.objects.get(name=deadlines.SWEEPER).at == start
    back = due + timedelta(seconds=300)  # ...then nothing ran until well after the deadline
    report = deadlines.sweep(now=back)
    assert report.outage == (start, back)
    assert report.extended == [gid]
    assert not _events(gid, "DeadlinePassed", "DeadlineMissed")
    extended = _events(gid, "DeadlineExtended")[0]
    assert (extended["reason"], extended["seats"], extended["unready"]) == ("outage", [], [])
    new_due = datetime.fromisoformat(extended["due_at"])
    assert new_due == back + timedelta(seconds=60)  # the step's own 60 s (less than the outage grace)
    state = table.state(0)["state"]
    assert state["due_at"] == extended["due_at"]
    assert state["seats"][0]["extensions_left"] == 0  # no budget spent (there was none)
    # the sweeper runs regularly again: the extended deadline is played normally (R7.2)
    deadlines.sweep(now=new_due - timedelta(seconds=1))
    assert not _events(gid, "DeadlinePassed")
    deadlines.sweep(now=new_due + timedelta(seconds=1))
    assert len(_events(gid, "DeadlinePassed")) == 1
    assert _events(gid, "LootDistributed")[0]["auto"] == "deadline"


def test_a_deadline_warning_names_the_seats_that_have_not_acted_once() -> None:
    table = start_table(4, _options(warn_before=20))
    gid = table.game_id
    _distribute(table)
    _choose_and_ready(table.apis[2], gid)
    game = Game.objects.get(pk=gid)
    assert game.deadline_at is not None
    assert game.warn_at == game.deadline_at - timedelta(seconds=20)
    deadlines.sweep(now=game.warn_at - timedelta(seconds=1))
    assert not _events(gid, "DeadlineNear")
    deadlines.sweep(now=game.warn_at + timedelta(seconds=1))
    near = _events(gid, "DeadlineNear")
    assert near == [
        {
            "type": "DeadlineNear",
            "v": 1,
            "step_no": game.step_no,
            "step": "choose",
            "due_at": game.deadline_at.isoformat(),
            "seats": [0, 1, 3],
        }
    ]
    assert Game.objects.get(pk=gid).warn_at is None
    deadlines.sweep(now=game.warn_at + timedelta(seconds=2))
    assert len(_events(gid, "DeadlineNear")) == 1


def test_the_creator_hands_an_abandoned_seat_to_a_new_player_or_a_bot() -> None:
    table = start_table(4, _options(absence={"extensions": 0, "autopilot_after": 1}))
    gid, creator = table.game_id, table.apis[0]
    _distribute(table)
    for seat in (0, 2, 3):
        _choose_and_ready(table.apis[seat], gid)
    assert_problem(
        creator.post(f"/api/v1/games/{gid}/seats/1/hand-over", {"to": "bot"}), 409, "not_on_autopilot"
    )
    deadlines.sweep(now=_due(table) + timedelta(seconds=1))  # seat 1 missed: autopilot
    assert _events(gid, "AutopilotEngaged")[0]["seat"] == 1

    carol = make_api("carol")
    url = f"/api/v1/games/{gid}/seats/1/hand-over"
    assert_problem(table.apis[2].post(url, {"to": "player", "player": "carol"}), 403, "not_creator")
    assert_problem(creator.post(url, {"to": "player"}), 422, "validation_error")
    assert_problem(creator.post(url, {"to": "player", "player": "nobody"}), 404, "player_not_found")
    assert_problem(creator.post(url, {"to": "player", "player": table.apis[2].player.username}), 409)
    assert_problem(creator.post(url, {"to": "robot"}), 422)
    assert_problem(creator.post(f"/api/v1/games/{gid}/seats/9/hand-over", {"to": "bot"}), 404)
    r = hand_over_to(creator, gid, 1, carol)  # an offer carol accepts (issue #28, item 13)
    assert r.status_code == 200, r.content
    assert [e["type"] for e in _events(gid)[-2:]] == ["AutopilotReleased", "SeatHandedOver"]
    assert _events(gid, "SeatHandedOver")[0] == {
        "type": "SeatHandedOver",
        "v": 1,
        "seat": 1,
        "to": "player",
        "player": f"p{carol.player.pk}",
    }
    mine = carol.get(f"/api/v1/games/{gid}/state").json()
    assert mine["viewer"] == 1
    assert mine["state"]["seats"][1]["stash"] is not None  # the seat's Stash is carol's to see now
    old = table.apis[1].get(f"/api/v1/games/{gid}/state").json()
    assert old["viewer"] is None  # the absent player is a spectator now: no Stash of seat 1
    assert old["state"]["seats"][1]["stash"] is None
    assert_problem(table.apis[1].command(gid, "resign"), 403, "not_seated")

    assert carol.command(gid, "send-message", {"text": "hello, I took seat 1"}).status_code == 200
    taken = Seat.objects.get(game_id=gid, position=1)
    assert (taken.player_id, taken.uid) == (carol.player.pk, f"p{carol.player.pk}")


def test_the_creator_hands_an_abandoned_seat_to_a_bot_that_then_plays_it() -> None:
    table = start_table(4, _options(absence={"extensions": 0, "autopilot_after": 1}))
    gid, creator = table.game_id, table.apis[0]
    deadlines.sweep(now=_due(table) + timedelta(seconds=1))  # the Boss (seat 0) missed Step 2
    r = creator.post(f"/api/v1/games/{gid}/seats/0/hand-over", {"to": "bot", "strategy": "random"})
    assert r.status_code == 200, r.content
    assert [p["bot"] for p in r.json()["players"]] == ["random", None, None, None]
    seat = Seat.objects.get(game_id=gid, position=0)
    assert (seat.player_id, seat.bot_strategy) == (None, "random")
    assert _events(gid, "SeatHandedOver")[0]["to"] == "bot"
    game = Game.objects.get(pk=gid)
    rs = loading.ruleset_for(game)
    state = loading.load_state(game, rs)
    assert rs.autopilot_seats(state) == frozenset()  # no longer the autopilot's: the bot's own seat
    assert roster.machine_seats(game, rs, state) == frozenset({0})
    # the creator handed away their own seat: they may still run the game, but no longer play
    assert_problem(creator.command(gid, "resign"), 403, "not_seated")


def test_a_request_applies_a_passed_deadline_first() -> None:
    """Correctness never waits on the worker: reading the state applies a passed deadline (R7.2, R7.5)."""
    table = start_table(
        4, {"deadlines": {"distribute": 1}, "absence": {"extensions": 0, "autopilot_after": None}}
    )
    gid = table.game_id
    assert table.state(1)["state"]["step"] == "distribute"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # a bounded poll: the only thing that moves the game is a read
        if table.state(1)["state"]["step"] == "choose":
            break
        time.sleep(0.05)
    assert [e["type"] for e in _events(gid, "DeadlinePassed", "LootDistributed")] == [
        "DeadlinePassed",
        "LootDistributed",
    ]
    assert _events(gid, "LootDistributed")[0]["auto"] == "deadline"
    assert timers.game_expire(game_id=gid, step_no=1) == 0  # the timer that comes later: stale


def test_a_game_whose_timer_fails_never_blocks_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in one game's expiry is logged and that game set aside for a while; the sweep goes on."""
    plain = _options(absence={"extensions": 0, "autopilot_after": None}, warn_before=0)
    broken, fine = start_table(4, plain), start_table(4, plain)
    Game.objects.filter(pk=broken.game_id).update(deadline_at=_due(fine) - timedelta(seconds=5))
    real = timers.expire_locked

    def expire_locked(game: Game, rs: Any, state: Any, now: datetime) -> Any:
        if game.pk == broken.game_id:
            raise RuntimeError("a bug")
        return real(game, rs, state, now)

    monkeypatch.setattr(timers, "expire_locked", expire_locked)
    at = _due(fine) + timedelta(seconds=1)
    report = deadlines.sweep(now=at)
    assert report.expired == [fine.game_id]  # the broken one came first, and did not stop the sweep
    assert len(_events(fine.game_id, "DeadlinePassed")) == 1
    assert not _events(broken.game_id, "DeadlinePassed")
    assert Game.objects.get(pk=broken.game_id).deadline_at == at + timedelta(seconds=deadlines.POISON_BACKOFF)
