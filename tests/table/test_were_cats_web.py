"""Were-cats played by web, end to end, through the public HTTP API, with 2 to 5 players: every step has a
deadline (WC4.1: ``deadlines.setup``, ``place``, ``populate``, ``act``); an absent seat spends its extension,
then its defaults are played (WC4.1: the setup takes the first kind of which two remain, placing says done,
populating takes the first kind in the supply, a cat passes) or it goes on autopilot; the creator pauses
(R7.6); a player resigns (WC4.3); the game ends and its record verifies.

Time moves by calling the sweeper with an explicit ``now`` (every step lasts 30 s, less than
DEADLINE_OUTAGE_AFTER, so no jump of the clock looks like an outage of the timers).
"""

from __future__ import annotations

import math
import time
from datetime import datetime, timedelta
from typing import Any

import pytest

from games.models import Event
from tests.table.helpers import Seated, drive, due, open_game, problem, sweep_past

pytestmark = pytest.mark.django_db

KINDS = ("penny", "nickel", "dime")
DEADLINES = {"setup": 30, "place": 30, "populate": 30, "act": 30}


def _round(at_least: int) -> Any:
    return lambda state: state.game.round >= at_least


def _state_before(t: Seated, seq: int) -> dict[str, Any]:
    """The full state just before event ``seq`` (the audit's step-through, public once the game is over)."""
    r = t.creator.get(f"{t.url}/states/{seq - 1}")
    assert r.status_code == 200, r.content
    data: dict[str, Any] = r.json()["state"]
    return data


def _check_defaults(t: Seated) -> dict[tuple[str, str], set[int]]:
    """Every default the table played (a ``reason``) is WC4.1's; returns {(event type, reason): seats}."""
    seen: dict[tuple[str, str], set[int]] = {}
    rows = list(Event.objects.filter(game_id=t.game_id).order_by("seq"))
    for i, row in enumerate(rows):
        data = row.data
        reason = data.get("reason")
        kind = row.type
        if kind == "QuarterTaken" and reason == "first_done":  # ruling 5: never by a default's finish
            before = rows[i - 1].data
            assert before["type"] == "PlacingFinished", before
            assert (before["seat"], before["reason"]) == (data["seat"], None), before
        if kind not in ("StartingCoinsTaken", "PlacingFinished", "VillagerPlaced", "CatPassed"):
            continue
        if reason not in ("timeout", "resigned"):
            continue
        seen.setdefault((kind, reason), set()).add(data["seat"])
        if kind == "StartingCoinsTaken":  # the first kind of which two remain (ruling 14)
            supply = _state_before(t, row.seq)["supply"]
            assert data["kind"] == next(k for k in KINDS if supply[k] >= 2), (data, supply)
        elif kind == "VillagerPlaced":  # WC4.1: the first kind still in the supply
            supply = _state_before(t, row.seq)["supply"]
            assert data["kind"] == next(k for k in KINDS if supply[k] > 0), (data, supply)
    return seen


def _pause_and_resume(t: Seated, players: list[int]) -> None:
    """R7.6: while paused, commands are refused and no deadline runs; the resume moves the deadline."""
    play = t.play()
    before = due(play)
    r = t.creator.post(f"{t.url}/pause")
    assert r.status_code == 200, r.content
    paused = t.play()
    assert paused["paused_at"] is not None
    for seat in players:
        problem(t.command(seat, "pass", {}), 409, "paused")
        problem(t.command(seat, "finish-placing", {}), 409, "paused")
    version = t.version()
    sweep_past(before)
    assert t.version() == version  # no deadline ran
    time.sleep(1.1)
    r = t.creator.post(f"{t.url}/resume")
    assert r.status_code == 200, r.content
    resumed = t.events("GameResumed")[-1]
    moved = datetime.fromisoformat(resumed["due_at"]) - before
    assert timedelta(seconds=1.1) <= moved < timedelta(seconds=30)
    assert resumed["paused_seconds"] == math.ceil(moved.total_seconds())
    play = t.play()
    assert play["paused_at"] is None
    assert due(play) == datetime.fromisoformat(resumed["due_at"])
    assert play["step_no"] == paused["step_no"]


@pytest.mark.parametrize(
    ("humans", "bots", "absence", "resigner"),
    [
        pytest.param(2, [], {"extensions": 1, "autopilot_after": None}, "creator", id="2-humans"),
        pytest.param(2, ["random"], {"extensions": 1, "autopilot_after": 2}, "absent", id="2-humans-1-bot"),
        pytest.param(4, ["sensible"], {"extensions": 1, "autopilot_after": None}, "other", id="5-seats"),
    ],
)
def test_were_cats_by_web_deadlines_defaults_absence_pause_resignation_to_the_end(
    humans: int, bots: list[str], absence: dict[str, Any], resigner: str
) -> None:
    """WC4.1 (deadlines and defaults), WC4.3 with R7.1-R7.6 (absence, autopilot, pause, resignation)."""
    t = open_game("were_cats", humans, bots, {"deadlines": DEADLINES, "max_rounds": 3, "absence": absence})
    creator = t.creator_seat
    others = sorted(s for s in t.by_seat if s != creator)
    absent = others[0]
    quitter = {"creator": creator, "absent": absent, "other": others[-1]}[resigner]
    first = t.play()
    assert first["step"] == "setup"
    assert first["due_at"] is not None  # R7.1, WC4.1: the setup choice has a deadline too

    # --- round 1: one seat stays away
    present = {s: api for s, api in t.by_seat.items() if s != absent}
    drive(t, present, until=_round(2))
    missed = t.events("DeadlineMissed")
    assert missed[0]["seats"] == [absent]
    extended = t.events("DeadlineExtended")
    assert [(e["reason"], e["seats"]) for e in extended] == [("absence", [absent])]  # its one extension
    taken = {e["seat"]: e for e in t.events("StartingCoinsTaken")}
    assert taken[absent]["reason"] == "timeout"  # its setup choice was played for it (WC4.1)
    assert all(taken[s]["reason"] is None for s in present)
    if absence["autopilot_after"]:
        assert t.events("AutopilotEngaged") == [
            {"type": "AutopilotEngaged", "v": 1, "seat": absent, "reason": "absent"}
        ]
        assert t.play()["seats"][absent]["autopilot"] is True
        # the service's bot played the seat since: its moves have no actor and no reason
        assert Event.objects.filter(game_id=t.game_id, type="PlacingFinished", actor=None).exists()
    else:
        assert not t.events("AutopilotEngaged")
        placed = [e for e in t.events("PlacingFinished") if e["seat"] == absent]
        assert placed
        assert all(e["reason"] == "timeout" for e in placed)  # placing says done (WC4.1)
        passed = [e for e in t.events("CatPassed") if e["seat"] == absent]
        assert passed
        assert all(e["reason"] == "timeout" for e in passed)  # a cat passes (WC4.1)

    # --- round 2: a pause by the creator; the absent player comes back
    _pause_and_resume(t, sorted(present))
    if absence["autopilot_after"]:
        r = t.command(absent, "take-back-seat")
        assert r.status_code == 200, r.content
        assert t.events("AutopilotReleased")[-1]["reason"] == "taken_back"
    drive(t, t.by_seat, until=_round(3))
    if not absence["autopilot_after"]:
        assert absent in [e["seat"] for e in t.events("PlayerReturned")]

    # --- round 3: a resignation (WC4.3): from now on the table plays the seat's defaults at once
    body = t.ok(quitter, "resign")
    assert body["legal_commands"] == ["SendMessage"]
    assert body["state"]["play"]["seats"][quitter]["resigned"] is True
    problem(t.command(quitter, "pass", {}), 403, "resigned")
    assert quitter not in t.play()["waiting_on"]
    game = drive(t, t.by_seat)
    assert game.game.phase == "over"
    final = t.state(creator)
    assert final["over"] is True
    assert final["play"]["seats"][quitter]["resigned"] is True
    assert quitter not in final["winners"]  # WC4.3 as R7.4: a resigned seat cannot win

    defaults = _check_defaults(t)
    if resigner == "creator" or not absence["autopilot_after"]:
        assert ("PlacingFinished", "timeout") in defaults
        assert ("CatPassed", "timeout") in defaults
    if humans + len(bots) == 2 and not absence["autopilot_after"]:
        assert absent in defaults[("VillagerPlaced", "timeout")]  # two seats: it had populating turns
    assert any(reason == "resigned" and quitter in seats for (_k, reason), seats in defaults.items())
    sets = t.events("DeadlineSet")
    assert {e["step"] for e in sets} >= {"setup", "place", "act"}
    assert all(e["due_at"] is not None for e in sets)  # R7.1: every step had its deadline
    record = t.creator.get(f"{t.url}/record")
    assert record.status_code == 200, record.content
    verdict = t.creator.get(f"{t.url}/verify")
    assert verdict.status_code == 200, verdict.content
    assert verdict.json()["ok"] is True, verdict.json()


def test_were_cats_an_abandoned_seat_handed_to_a_bot_is_played_by_it_to_the_end() -> None:
    """WC4.3 with the absent-player policy: on autopilot after its misses, the seat is handed by the creator
    to a bot for good (``SeatHandedOver``); the game's view names the bot; the bot plays it to the end."""
    options = {"deadlines": DEADLINES, "max_rounds": 2, "absence": {"extensions": 0, "autopilot_after": 1}}
    t = open_game("were_cats", 3, [], options)
    absent = sorted(s for s in t.by_seat if s != t.creator_seat)[0]
    present = {s: api for s, api in t.by_seat.items() if s != absent}
    drive(t, present, until=lambda s: bool(s.autopilot[absent]))
    url = f"{t.url}/seats/{absent}/hand-over"
    r = t.creator.post(url, {"to": "bot", "strategy": "random"})
    assert r.status_code == 200, r.content
    assert r.json()["players"][absent]["bot"] == "random"
    handed = t.events("SeatHandedOver")
    assert [(e["seat"], e["to"]) for e in handed] == [(absent, "bot")]
    view = t.state()
    assert view["seats"][absent]["player"] == handed[0]["player"] == view["players"][absent]
    assert view["play"]["seats"][absent]["autopilot"] is False
    problem(t.command(absent, "pass", {}), 403, "not_seated")  # the old player has no seat now
    seq = t.version()
    game = drive(t, present)
    assert game.game.phase == "over"
    rows = Event.objects.filter(game_id=t.game_id, seq__gt=seq, actor=None, data__seat=absent)
    assert any(
        row.data.get("reason") is None for row in rows if row.type != "PlayerReturned"
    )  # its own moves
    verdict = t.creator.get(f"{t.url}/verify")
    assert verdict.status_code == 200, verdict.content
    assert verdict.json()["ok"] is True, verdict.json()


def test_were_cats_by_web_placing_moves_back_and_across_until_done_wc2_1() -> None:
    """WC2.1 (clarified, issue #28 item 3; ruling 4), over HTTP: until a seat says done it may move its
    victims back from either area to its hand, or across; once done (``finish-placing``) its placing is final
    for the phase: another ``place-victims`` or ``finish-placing`` is a 409 ``already_done`` and changes
    nothing."""
    t = open_game("were_cats", 3, [], {"deadlines": DEADLINES})
    drive(t, t.by_seat, until=lambda state: state.game.phase == "place")
    seat = t.creator_seat

    def areas() -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
        mine = t.state(seat)["seats"][seat]
        return mine["hand"], mine["eat"], mine["scare"]

    hand, eat, scare = areas()
    assert not any(eat.values())
    assert not any(scare.values())
    one = next(k for k in KINDS if hand[k] > 0)
    less = {**hand, one: hand[one] - 1}
    t.ok(seat, "place-victims", {"eat": {one: 1}, "scare": {}})
    assert areas() == (less, {**eat, one: 1}, scare)
    t.ok(seat, "place-victims", {"eat": {}, "scare": {one: 1}})  # across, eat to scare
    assert areas() == (less, eat, {**scare, one: 1})
    t.ok(seat, "place-victims", {"eat": {}, "scare": {}})  # back to the hand from the scare area
    assert areas() == (hand, eat, scare)
    t.ok(seat, "place-victims", {"eat": {}, "scare": {one: 1}})
    t.ok(seat, "place-victims", {"eat": {one: 1}, "scare": {}})  # across, scare to eat
    assert areas() == (less, {**eat, one: 1}, scare)
    t.ok(seat, "place-victims", {"eat": {}, "scare": {}})  # back to the hand from the eat area
    assert areas() == (hand, eat, scare)
    t.ok(seat, "place-victims", {"eat": {one: 1}, "scare": {}})
    t.ok(seat, "finish-placing", {})
    version = t.version()
    placed = areas()
    problem(t.command(seat, "place-victims", {"eat": {}, "scare": {}}), 409, "already_done")
    problem(t.command(seat, "place-victims", {"eat": {}, "scare": {one: 1}}), 409, "already_done")
    problem(t.command(seat, "finish-placing", {}), 409, "already_done")
    assert t.version() == version
    assert areas() == placed
