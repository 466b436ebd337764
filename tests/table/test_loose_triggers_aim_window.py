"""LT2.5 over HTTP (issue #28, item 2): a bot Bagman gives a card a fraction of a second after the last, so a
person never got to aim during a bot's deal. Now an aim window opens before each give: the bot Bagman waits
until the person has passed (or the window's time is up), and the person may aim meanwhile."""

from __future__ import annotations

import pytest

from games.services import bots
from tests.conftest import make_api
from tests.table.helpers import Seated, problem

pytestmark = pytest.mark.django_db

# The other non-Bagman seats are people who pass, not bots: LT2.5 lets a bot aim in any window ("unless
# they aim"), and a sensible bot holding a BANG! aims on a 30% draw salted by the game's id, so with bots
# there the test passed or failed by the id the database handed out (about one run in three). The bot
# Bagman never aims here: it deals its first card to its Pal, and nobody else holds more Loot than it does.
BOT_SEAT = 1  # seats are not shuffled (LT1.1's option off): the creator, the bot, then who joins


def test_lt2_5_a_person_aims_during_a_bot_bagmans_deal() -> None:
    person = make_api(staff=True)  # an operator: the first Bagman is the bot's seat (setup ``bagman``)
    others = [make_api(), make_api()]
    setup = {"bagman": BOT_SEAT, "seed": "02" * 32}
    body = {"ruleset": "loose_triggers", "seats": 4, "bots": ["sensible"], "setup": setup}
    r = person.post("/api/v1/games", body)
    assert r.status_code == 201, r.content
    for other in others:
        assert other.post(f"/api/v1/games/{r.json()['id']}/join").status_code == 200
    t = Seated(r.json()["id"], [person, *others])
    me = t.creator_seat
    assert t.bots == [BOT_SEAT]
    assert me != BOT_SEAT
    people = sorted(s for s in range(4) if s != BOT_SEAT)
    waiting = [s for s in people if s != me]
    start = t.body()
    assert start["game"]["options"]["rules"] == 2
    assert start["game"]["options"]["deadlines"]["aim"] == 20  # LT2.5's default

    bots.bots_play(t.game_id)  # the machine seat plays as fast as it can
    play = t.play()
    assert play["step"] == "aim", play  # the bot Bagman has not given: the window waits on the people
    assert play["waiting_on"] == people
    assert play["due_at"] is not None
    assert t.events("LootGiven") == []
    for seat in waiting:  # the other people pass at once
        t.ok(seat, "set-ready", {"ready": True})
    bots.bots_play(t.game_id)
    assert t.events("LootGiven") == []  # still waiting on the person
    assert t.play()["waiting_on"] == [me]

    # the person passes: the bot Bagman gives one card, and the next window waits on the people again
    t.ok(me, "set-ready", {"ready": True})
    bots.bots_play(t.game_id)
    assert len(t.events("LootGiven")) == 1
    play = t.play()
    assert (play["step"], play["waiting_on"]) == ("aim", people)
    assert [e["reason"] for e in t.events("AimWindowClosed")] == ["passed"]

    # the person aims at the bot Bagman mid-deal: a Discussion opens (LT3.1), the window closes
    problem(t.command(me, "give-loot", {"slot": 0, "to": me}), 403, "not_bagman")
    t.ok(me, "aim", {"target": BOT_SEAT})
    bots.bots_play(t.game_id)
    assert t.events("AimWindowClosed")[-1]["reason"] == "aimed"
    assert t.events("Aimed")[0]["seat"] == me
    assert len(t.events("LootGiven")) == 1  # the deal is paused (LT2.4)
    assert t.state()["discussion"] in ("countdown", "choose")
