"""Loose Triggers played by web, end to end, through the public HTTP API: humans' tokens and a bot, with
every deadline set (LT7.1). One game walks through the Countdown's restarts (LT3.1, LT3.2), the ready flags
of the choice (LT3.3), an absent seat's extension, autopilot and hand-over (R7.1-R7.3, R7.5), the creator's
pause (R7.6), a resignation (LT7.3) and plays on to the end; the record and its verification pass.

Time moves by calling the sweeper with an explicit ``now`` (as tests/deadlines do). Every step lasts less
than DEADLINE_OUTAGE_AFTER (60 s), so no jump of the clock looks like an outage of the timers.
"""

from __future__ import annotations

import math
import time
from datetime import datetime, timedelta
from typing import Any

import pytest

from games import deadlines, loading
from games.models import Event, Seat
from games.services import bots, timers
from tests.conftest import hand_over_to, make_api
from tests.table.helpers import Seated, due, open_game, play_to_end, problem, sweep, sweep_past

pytestmark = pytest.mark.django_db

OPTIONS: dict[str, Any] = {
    # no aim window (LT2.5, tested in test_loose_triggers_aim_window.py): the scenes below are the deal's
    "deadlines": {"give": 40, "choose": 40, "pick": 40, "aim": 0},
    "countdown": 30,
    "absence": {"extensions": 1, "autopilot_after": 2},
}


def _hand(t: Seated, seat: int) -> list[int]:
    return [c["card"] for c in t.state(seat)["seats"][seat]["hand"]]


def _countdown(t: Seated) -> tuple[int, datetime]:
    play = t.play()
    assert play["step"] == "countdown", play
    assert play["waiting_on"] == []  # LT3.1: nobody must act; anyone living may aim
    return play["step_no"], due(play)


def _close_countdown(t: Seated) -> dict[str, Any]:
    """The Countdown reaches 0 (LT3.3): the sweeper at its deadline opens the choice."""
    _step_no, at = _countdown(t)
    sweep_past(at)
    play = t.play()
    assert play["step"] == "choose", play
    assert play["ready_flags"] is True
    return play


def test_loose_triggers_by_web_countdown_ready_absence_handover_pause_resign_to_the_end() -> None:
    """LT3.1, LT3.2, LT3.3, LT7.1, LT7.3, R7.1-R7.6 over HTTP, then played to the end and verified."""
    t = open_game("loose_triggers", 5, ["sensible"], OPTIONS)
    creator = t.creator_seat
    bagman = t.state()["bagman"]
    # the Bagman (if another human) opens the first Discussion: the seat that resigns must not be the Bagman,
    # who would then give every card at once (LT7.3) and end the game before the pause is shown
    a, b, absent, quitter = sorted((s for s in t.by_seat if s != creator), key=lambda s: (s != bagman, s))
    start = t.body()
    assert start["game"]["options"]["deadlines"] == {"give": 40, "choose": 40, "pick": 40, "aim": 0}
    assert start["state"]["play"]["step"] == "give"  # R7.1: the Bagman's give has a deadline
    assert start["state"]["play"]["due_at"] is not None

    # --- LT3.1/LT3.2: every join or change of target restarts the Countdown (a new step, a later deadline)
    t.ok(a, "aim", {"target": b})  # a opens
    s1, d1 = _countdown(t)
    time.sleep(0.3)
    t.ok(b, "aim", {"target": a})  # b joins: b is the Counter
    s2, d2 = _countdown(t)
    assert s2 > s1
    assert d2 > d1
    assert t.state()["counter"] == b
    time.sleep(0.3)
    t.ok(a, "aim", {"target": quitter})  # a changes target
    s3, d3 = _countdown(t)
    assert s3 > s2
    assert d3 > d2
    problem(t.command(a, "aim", {"target": b}), 409, "counter_locked")  # a is the Counter now
    aimed = t.events("Aimed")
    assert [(e["seat"], e["how"]) for e in aimed] == [(a, "open"), (b, "join"), (a, "retarget")]
    # the old timers are stale: the sweeper at the first deadline closes nothing, nor the first ETA task
    version = t.version()
    sweep(d1 + (d2 - d1) / 2)
    assert t.version() == version
    assert timers.game_expire(game_id=t.game_id, step_no=s1, now=d3 + timedelta(seconds=5)) == 0
    assert deadlines.expire(t.game_id, s1) == 0
    assert t.version() == version
    assert t.play()["step_no"] == s3
    assert not t.events("CountdownEnded")

    # --- LT3.3: the Gunners choose face down with ready flags; the step closes when all are ready
    choose = _close_countdown(t)
    assert sorted(choose["waiting_on"]) == sorted([a, b])
    assert len(t.events("CountdownEnded")) == 1
    problem(t.command(a, "set-ready", {"ready": True}), 409, "action_not_chosen")
    problem(t.command(creator, "choose-action", {"card": -1}), 403, "not_a_gunner")
    first = _hand(t, a)[0]
    t.ok(a, "choose-action", {"card": first})
    mine = t.ok(a, "set-ready", {"ready": True})
    assert mine["state"]["play"]["seats"][a]["ready"] is True
    assert t.play()["waiting_on"] == [b]
    problem(t.command(a, "set-ready", {"ready": True}), 409, "no_change")
    changed = t.ok(a, "choose-action", {"card": -1})  # a change lowers the flag (R2.4)
    assert changed["state"]["play"]["seats"][a]["ready"] is False
    assert changed["state"]["seats"][a]["chosen"] is None  # -1: none (own view)
    assert t.events("ReadySet")[-1] == {"type": "ReadySet", "v": 1, "seat": a, "ready": False}
    assert sorted(t.play()["waiting_on"]) == sorted([a, b])
    t.ok(a, "set-ready", {"ready": True})
    t.ok(b, "choose-action", {"card": -1})
    assert not t.events("ActionsRevealed")
    t.ok(b, "set-ready", {"ready": True})  # the last Gunner is ready: the cards are revealed at once
    revealed = t.events("ActionsRevealed")
    assert len(revealed) == 1
    assert revealed[0]["cards"][a] == -1
    assert revealed[0]["cards"][b] == -1
    assert not t.events("DeadlineMissed")
    assert [e["step"] for e in t.events("DeadlinePassed")] == ["countdown"]  # only the Countdown's
    assert t.play()["step"] == "give"

    # --- R7.2/R7.3 and the absent-player policy: the absent seat opens a Discussion, then stays away
    t.ok(absent, "aim", {"target": quitter})
    choose = _close_countdown(t)
    assert choose["waiting_on"] == [absent]
    first_due = due(choose)
    sweep_past(first_due)  # first miss: the extension is spent (DeadlineExtended), nothing is played
    extended = t.events("DeadlineExtended")
    assert [(e["reason"], e["seats"]) for e in extended] == [("absence", [absent])]
    assert [e["seats"] for e in t.events("DeadlineMissed")] == [[absent]]
    assert [e["step"] for e in t.events("DeadlinePassed")] == ["countdown", "countdown"]
    play = t.play()
    assert play["step"] == "choose"
    assert due(play) == datetime.fromisoformat(extended[0]["due_at"])
    assert play["seats"][absent]["extensions_left"] == 0
    assert play["seats"][absent]["misses"] == 1
    sweep_past(due(play))  # second miss in a row: the deadline passes, the seat goes on autopilot
    assert t.events("AutopilotEngaged") == [
        {"type": "AutopilotEngaged", "v": 1, "seat": absent, "reason": "absent"}
    ]
    passed = t.events("DeadlinePassed")
    assert [p["step"] for p in passed] == ["countdown", "countdown", "choose"]
    assert t.events("ActionChosen")[-1]["seat"] == absent  # the default: no card (LT3.3)
    assert t.events("ActionsRevealed")[-1]["cards"][absent] == -1
    body = t.body(absent)
    assert body["state"]["play"]["seats"][absent]["autopilot"] is True
    assert "TakeBackSeat" in body["legal_commands"]
    problem(t.command(absent, "aim", {"target": creator}), 409, "autopilot_on")

    # the service's bots play the seat on autopilot: shot at, it aims back (the sensible bot)
    t.ok(creator, "aim", {"target": absent})
    # the seat may join now, but not its absent player: what the service refuses is not listed as legal
    assert sorted(t.body(absent)["legal_commands"]) == ["Resign", "SendMessage", "TakeBackSeat"]
    problem(t.command(absent, "aim", {"target": creator}), 409, "autopilot_on")
    seq = t.version()
    assert bots.bots_play(t.game_id) >= 1
    row = Event.objects.get(game_id=t.game_id, seq__gt=seq, type="Aimed")
    assert (row.data["seat"], row.data["target"], row.actor_id) == (absent, creator, None)
    # the bot played, the player did not come back: the record does not say so, nor the count of misses
    assert absent not in [e["seat"] for e in t.events("PlayerReturned")]
    assert t.play()["seats"][absent]["misses"] == 2
    t.ok(quitter, "aim", {"target": creator})  # joins: the Countdown restarts once more

    # --- the creator hands the abandoned seat to a new player, who then plays it
    url = f"{t.url}/seats/{absent}/hand-over"
    newcomer = make_api()
    problem(t.by_seat[a].post(url, {"to": "player", "player": newcomer.player.username}), 403, "not_creator")
    r = hand_over_to(t.creator, t.game_id, absent, newcomer)  # an offer accepted (issue #28, item 13)
    assert r.status_code == 200, r.content
    assert [e["type"] for e in t.events()[-2:]] == ["AutopilotReleased", "SeatHandedOver"]
    theirs = t.body(api=newcomer)
    assert theirs["viewer"] == absent
    uid = theirs["state"]["play"]["seats"][absent]["player"]
    assert uid == f"p{newcomer.player.pk}"
    assert theirs["state"]["players"][absent] == uid
    assert theirs["state"]["seats"][absent]["player"] == uid  # the game's view of the seat says so too
    assert theirs["state"]["seats"][absent]["hand"] is not None
    assert theirs["state"]["play"]["seats"][absent]["autopilot"] is False
    old = t.body(absent)
    assert old["viewer"] is None
    assert old["state"]["seats"][absent]["hand"] is None
    left = t.by_seat.pop(absent)
    started = t.feed(left)["events"][0]["event"]  # the feed too: the old player is a spectator now (R8.3)
    assert started["type"] == "GameStarted"
    assert started["hands"] == [None] * len(started["hands"])
    assert started["pals"] == [None] * len(started["pals"])
    mine = t.feed(newcomer)["events"][0]["event"]
    assert mine["hands"][absent] is not None
    t.by_seat[absent] = newcomer
    problem(left.command(t.game_id, "resign"), 403, "not_seated")

    choose = _close_countdown(t)
    assert sorted(choose["waiting_on"]) == sorted([creator, absent, quitter])

    # --- LT7.3: a resignation; the seat's default (no card) is played at once, the seat cannot win
    resigned = t.ok(quitter, "resign")
    assert resigned["legal_commands"] == ["SendMessage"]
    assert resigned["state"]["play"]["seats"][quitter]["resigned"] is True
    assert t.events("PlayerResigned") == [{"type": "PlayerResigned", "v": 1, "seat": quitter}]
    assert t.events("ActionChosen")[-1]["seat"] == quitter
    assert sorted(t.play()["waiting_on"]) == sorted([creator, absent])
    problem(t.command(quitter, "aim", {"target": a}), 403, "resigned")
    assert t.ok(quitter, "send-message", {"text": "good luck"})  # a resigned seat may still talk
    t.ok(absent, "choose-action", {"card": -1})  # the newcomer plays the seat
    t.ok(absent, "set-ready", {"ready": True})
    t.ok(creator, "choose-action", {"card": -1})
    t.ok(creator, "set-ready", {"ready": True})
    assert len(t.events("ActionsRevealed")) == 3
    assert Event.objects.filter(
        game_id=t.game_id, type="ReadySet", actor=newcomer.player, data__seat=absent
    ).exists()

    # --- R7.6: the creator pauses; commands are refused, no deadline runs; resuming moves the deadline
    play = t.play()
    assert play["step"] == "give", play
    before = due(play)
    problem(t.by_seat[a].post(f"{t.url}/pause"), 403, "not_creator")
    r = t.creator.post(f"{t.url}/pause")
    assert r.status_code == 200, r.content
    paused = t.play()
    assert paused["paused_at"] is not None
    assert paused["pause_until"] is not None
    bagman = t.state()["bagman"]
    if bagman in t.by_seat:
        problem(t.command(bagman, "give-loot", {"slot": 0, "to": bagman}), 409, "paused")
    problem(t.command(a, "aim", {"target": b}), 409, "paused")
    t.ok(a, "send-message", {"text": "while paused"})
    version = t.version()
    report = sweep_past(before)  # the step's deadline has passed, but the game is paused
    assert t.game_id not in report.expired
    assert t.version() == version
    time.sleep(1.1)
    r = t.creator.post(f"{t.url}/resume")
    assert r.status_code == 200, r.content
    resumed = t.events("GameResumed")[0]
    moved = datetime.fromisoformat(resumed["due_at"]) - before
    assert timedelta(seconds=1.1) <= moved < timedelta(seconds=30)
    assert resumed["paused_seconds"] == math.ceil(moved.total_seconds())
    play = t.play()
    assert play["paused_at"] is None
    assert due(play) == datetime.fromisoformat(resumed["due_at"])
    assert play["step_no"] == paused["step_no"]

    # --- every deadline is in the record (R7.5); the game is played to its end and verified
    game = play_to_end(t.game_id, {api.player.pk: api for api in t.by_seat.values()})
    assert game.status == "over"
    final = t.state(a)
    assert final["over"] is True
    assert quitter not in final["winners"]  # LT7.3
    assert final["seats"][quitter]["resigned"] is True
    assert Seat.objects.get(game_id=t.game_id, position=absent).player_id == newcomer.player.pk
    sets = t.events("DeadlineSet")
    assert sets
    assert all(e["due_at"] is not None for e in sets)
    record = t.creator.get(f"{t.url}/record")
    assert record.status_code == 200, record.content
    verdict = t.creator.get(f"{t.url}/verify")
    assert verdict.status_code == 200, verdict.content
    assert verdict.json()["ok"] is True, verdict.json()


def _card_of(t: Seated, seat: int, kind: str) -> int:
    card: int = next(c["card"] for c in t.state(seat)["seats"][seat]["hand"] if c["kind"] == kind)
    return card


def test_loose_triggers_defaults_at_each_deadline_give_pick_grab() -> None:
    """The defaults of LT7.1's deadlines over HTTP, for players who stay away (no extension, no autopilot):
    ``give`` gives the card to the next living player clockwise after the previous receiver, starting after
    the Bagman (LT2.3); ``pick`` takes a random card of the Sitting Duck's stack (LT4.1); the grab takes three
    from the top of the Action deck (LT4.2); every deadline is in the record (R7.5)."""
    options = {**OPTIONS, "absence": {"extensions": 0, "autopilot_after": None}}
    t = open_game("loose_triggers", 5, [], options)
    n = 5
    bagman = t.state()["bagman"]

    # LT2.3: the Bagman stays away twice
    for _ in range(2):
        sweep_past(due(t.play()))
    given = t.events("LootGiven")
    assert [(e["slot"], e["to"]) for e in given] == [(0, (bagman + 1) % n), (0, (bagman + 2) % n)]
    assert [e["step"] for e in t.events("DeadlinePassed")] == ["give", "give"]
    duck = (bagman + 1) % n  # holds one Loot card and takes no part: a Sitting Duck (LT3.5)
    shooter, grabber = (bagman + 3) % n, (bagman + 4) % n
    bang, grab = _card_of(t, shooter, "BANG!"), _card_of(t, grabber, "GRAB!")
    t.ok(shooter, "aim", {"target": duck})
    t.ok(grabber, "aim", {"target": shooter})
    _close_countdown(t)
    t.ok(shooter, "choose-action", {"card": bang})
    t.ok(shooter, "set-ready", {"ready": True})
    t.ok(grabber, "choose-action", {"card": grab})
    t.ok(grabber, "set-ready", {"ready": True})
    assert t.events("BangFired")[0]["outcome"] == "hit"

    # LT4.1: the shooter may pick from the Sitting Duck's stack, and stays away
    play = t.play()
    assert (play["step"], play["waiting_on"]) == ("pick", [shooter])
    stack = [c["card"] for c in t.state(shooter)["seats"][duck]["stack"]]  # the picker sees it
    assert len(stack) == 1
    sweep_past(due(play))
    taken = t.events("LootTaken")
    assert [(e["seat"], e["victim"], e["card"], e["chosen"]) for e in taken] == [
        (shooter, duck, stack[0], False)
    ]

    # LT4.2: the grabber stays away too
    play = t.play()
    assert (play["step"], play["waiting_on"]) == ("grab", [grabber])
    deck = loading.load_state(t.game(), loading.ruleset_for(t.game())).game.action_deck
    sweep_past(due(play))
    grabbed = t.events("CardGrabbed")
    assert [(e["seat"], e["source"], e["card"]) for e in grabbed] == [
        (grabber, "action", card) for card in deck[:3]
    ]
    assert [e["step"] for e in t.events("DeadlinePassed")] == ["give", "give", "countdown", "pick", "grab"]
    assert t.play()["step"] == "give"  # the Discussion is over, the deal goes on (LT2.4)
    game = play_to_end(t.game_id, {api.player.pk: api for api in t.by_seat.values()})
    assert game.status == "over"
