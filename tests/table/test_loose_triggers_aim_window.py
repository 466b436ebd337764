"""LT2.5 over HTTP (issue #28, item 2): a bot Bagman gives a card a fraction of a second after the last, so a
person never got to aim during a bot's deal. Now an aim window opens before each give: the bot Bagman waits
until the person has passed (or the window's time is up), and the person may aim meanwhile."""

from __future__ import annotations

import pytest

from games.services import bots
from tests.conftest import make_api
from tests.table.helpers import Seated, problem

pytestmark = pytest.mark.django_db


def test_lt2_5_a_person_aims_during_a_bot_bagmans_deal() -> None:
    person = make_api(staff=True)  # an operator: the first Bagman is a bot's seat (setup ``bagman``)
    # a fixed seed: with some deals a bot aims in the second window (legal, LT2.5 "unless they aim"), which
    # the steps below do not expect; a random seed made this test fail about one run in three, on main too
    setup = {"bagman": 3, "seed": "02" * 32}
    body = {"ruleset": "loose_triggers", "seats": 4, "bots": ["sensible"] * 3, "setup": setup}
    r = person.post("/api/v1/games", body)
    assert r.status_code == 201, r.content
    t = Seated(r.json()["id"], [person])
    me = t.creator_seat
    assert me != 3
    assert 3 in t.bots
    start = t.body()
    assert start["game"]["options"]["rules"] == 2
    assert start["game"]["options"]["deadlines"]["aim"] == 20  # LT2.5's default

    bots.bots_play(t.game_id)  # the machine seats play as fast as they can
    play = t.play()
    assert play["step"] == "aim", play  # the bot Bagman has not given: the window waits on the person
    assert play["waiting_on"] == [me]
    assert play["due_at"] is not None
    assert t.events("LootGiven") == []
    assert sorted(e["seat"] for e in t.events("ReadySet")) == sorted(s for s in t.bots if s != 3)  # passed

    # the person passes: the bot Bagman gives one card, and the next window waits on the person again
    t.ok(me, "set-ready", {"ready": True})
    bots.bots_play(t.game_id)
    assert len(t.events("LootGiven")) == 1
    play = t.play()
    assert (play["step"], play["waiting_on"]) == ("aim", [me])
    assert [e["reason"] for e in t.events("AimWindowClosed")] == ["passed"]

    # the person aims at the bot Bagman mid-deal: a Discussion opens (LT3.1), the window closes
    problem(t.command(me, "give-loot", {"slot": 0, "to": me}), 403, "not_bagman")
    t.ok(me, "aim", {"target": 3})
    bots.bots_play(t.game_id)
    assert t.events("AimWindowClosed")[-1]["reason"] == "aimed"
    assert t.events("Aimed")[0]["seat"] == me
    assert len(t.events("LootGiven")) == 1  # the deal is paused (LT2.4)
    assert t.state()["discussion"] in ("countdown", "choose")
