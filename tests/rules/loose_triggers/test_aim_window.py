"""LT2.5 (issue #28, item 2): a moment to shoot. Before each give (after the display, and after every card
given while Loot is still displayed and no Discussion runs) an aim window opens: the Bagman's next
``GiveLoot`` waits until every other living, not resigned player has passed (``SetReady``) or
``deadlines.aim`` seconds have gone by (default 20; 0: no window). ``Aim`` is legal throughout and opens a
Discussion (LT3.1). Bots, seats on autopilot and resigned seats pass at once unless they aim. The Bagman's
give deadline (LT2.3) runs from the window's close. The window is in the record: its ``StepOpened`` and
``DeadlineSet`` (when it opened), the ``ReadySet`` of each pass, ``AimWindowClosed`` (when, and why).

Played through the registered ruleset (the table around the game), as the service plays it. Games keep the
rules they started with (README rulings 23, 24): a game made now plays under LT rules 2."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from games.rules.core import Context, RuleError
from games.rules.loose_triggers import events as lev
from games.rules.loose_triggers.options import MAX_AIM, Options
from games.rules.table import events as tev
from tests.rules.table.test_table import T0, Game, start, types

OPTIONS: dict[str, Any] = {"deadlines": {"give": 60, "choose": 120, "pick": 60}, "countdown": 30}


def _window(game: Game) -> Any:
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.step == "aim", w
    return w


def _others(game: Game) -> list[int]:
    bagman = game.state.game.bagman
    return [s for s in range(game.state.n) if s != bagman and game.state.game.alive[s]]


def _pass_all(game: Game, seats: list[int] | None = None) -> list[Any]:
    events: list[Any] = []
    for seat in _others(game) if seats is None else seats:
        events += game.send(seat, {"type": "SetReady", "ready": True})
    return events


def test_lt2_5_a_window_opens_after_the_display_and_the_give_waits_for_every_pass() -> None:
    game = start("loose_triggers", 4, OPTIONS)
    g = game.state.game
    assert g.options.rules == 2
    assert len(g.display) == 4  # LT2.1: displayed, then the window (not the give)
    w = _window(game)
    bagman = g.bagman
    others = _others(game)
    assert w.seats == frozenset(others)  # every other living, not resigned player
    assert w.due_at == T0 + timedelta(seconds=20)  # deadlines.aim: 20 by default
    assert game.play["ready_flags"] is True
    assert game.play["waiting_on"] == others
    # the record: the window opened, with its deadline
    assert [(e.step, e.due_at) for e in game.log if isinstance(e, tev.DeadlineSet)] == [
        ("aim", (T0 + timedelta(seconds=20)).isoformat())
    ]
    assert next(e for e in game.log if isinstance(e, lev.StepOpened)).step == "aim"
    # the Bagman waits: no give is offered, and one sent is refused
    assert "GiveLoot" not in game.rs.legal_commands(game.state, bagman)
    game.refused(bagman, {"type": "GiveLoot", "slot": 0, "to": others[0]}, "aim_window")
    game.refused(others[0], {"type": "GiveLoot", "slot": 0, "to": others[0]}, "not_bagman")
    for seat in others:  # each may pass (or aim)
        assert {"SetReady", "Aim"} <= set(game.rs.legal_commands(game.state, seat))
    # two pass: still waiting on the third
    game.now = T0 + timedelta(seconds=3)
    events = _pass_all(game, others[:2])
    assert events == [tev.ReadySet(seat=others[0], ready=True), tev.ReadySet(seat=others[1], ready=True)]
    assert game.play["waiting_on"] == others[2:]
    game.refused(bagman, {"type": "GiveLoot", "slot": 0, "to": others[0]}, "aim_window")
    # the last pass closes the window; the Bagman's give opens with its own deadline from now (LT2.3)
    game.now = T0 + timedelta(seconds=5)
    events = game.send(others[2], {"type": "SetReady", "ready": True})
    assert types(events) == ["ReadySet", "AimWindowClosed", "StepOpened", "DeadlineSet"]
    closed = events[1]
    assert (closed.step_no, closed.reason) == (w.step_no, "passed")
    assert events[3].step == "give"
    assert events[3].due_at == (game.now + timedelta(seconds=60)).isoformat()
    assert game.rs.legal_commands(game.state, bagman)[0] == "GiveLoot"
    # the give: Loot is still displayed, so a new window opens, every flag down again
    game.now = T0 + timedelta(seconds=8)
    events = game.send(bagman, {"type": "GiveLoot", "slot": 0, "to": others[0]})
    assert types(events) == ["LootGiven", "StepOpened", "DeadlineSet"]
    assert events[1].step == "aim"
    assert events[2].due_at == (game.now + timedelta(seconds=20)).isoformat()
    assert game.play["waiting_on"] == others
    assert not any(s["ready"] for s in game.play["seats"])
    # the last card of the display: the next display, then a window again
    for _ in range(3):
        _pass_all(game)
        events = game.send(bagman, {"type": "GiveLoot", "slot": 0, "to": bagman})
    assert types(events) == ["LootGiven", "LootDisplayed", "StepOpened", "DeadlineSet"]
    assert events[2].step == "aim"


def test_lt2_5_the_window_closes_at_its_deadline_and_the_give_deadline_runs_from_then() -> None:
    game = start("loose_triggers", 5, {**OPTIONS, "deadlines": {**OPTIONS["deadlines"], "aim": 45}})
    w = _window(game)
    assert w.due_at == T0 + timedelta(seconds=45)
    others = _others(game)
    game.send(others[0], {"type": "SetReady", "ready": True})  # one passes, the others do not
    game.now = T0 + timedelta(seconds=44)
    assert game.do(game.rs.expire_command(w.step_no)) == []  # early: nothing
    events = game.expire(late=2)  # at T0 + 47
    # nobody owed the window a play: nobody missed it (no extension, no count of misses)
    assert types(events) == ["DeadlinePassed", "AimWindowClosed", "StepOpened", "DeadlineSet"]
    assert events[1].reason == "deadline"
    assert events[3].step == "give"
    assert events[3].due_at == (T0 + timedelta(seconds=47 + 60)).isoformat()  # LT2.3 from the close
    assert all(s["misses"] == 0 for s in game.play["seats"])
    assert all(s["extensions_left"] == 1 for s in game.play["seats"])


def test_lt2_5_aim_is_legal_during_the_window_and_opens_a_discussion() -> None:
    game = start("loose_triggers", 4, OPTIONS)
    w = _window(game)
    bagman = game.state.game.bagman
    others = _others(game)
    game.send(others[1], {"type": "SetReady", "ready": True})  # a pass does not stop a later aim
    game.now = T0 + timedelta(seconds=4)
    events = game.send(others[1], {"type": "Aim", "target": bagman})
    assert types(events)[:3] == ["Aimed", "AimWindowClosed", "StepOpened"]
    assert (events[1].step_no, events[1].reason) == (w.step_no, "aimed")
    assert events[2].step == "countdown"
    assert game.state.game.discussion == "countdown"  # LT3.1
    game.refused(bagman, {"type": "GiveLoot", "slot": 0, "to": bagman}, "wrong_step")  # LT2.4: paused
    # the Bagman may aim during a window too
    game2 = start("loose_triggers", 4, OPTIONS)
    boss = game2.state.game.bagman
    assert "Aim" in game2.rs.legal_commands(game2.state, boss)
    events = game2.send(boss, {"type": "Aim", "target": _others(game2)[0]})
    assert [e.reason for e in events if isinstance(e, lev.AimWindowClosed)] == ["aimed"]


def test_lt2_5_after_a_discussion_with_loot_still_displayed_a_new_window_opens_ruling_23() -> None:
    game = start("loose_triggers", 4, OPTIONS)
    others = _others(game)
    game.send(others[0], {"type": "Aim", "target": others[1]})
    game.expire()  # the Countdown: the choice (LT3.3)
    game.send(others[0], {"type": "ChooseAction", "card": -1})
    events = game.send(others[0], {"type": "SetReady", "ready": True})  # no card: nothing resolves
    assert "DiscussionEnded" in types(events)
    assert game.state.game.display  # the deal resumes (LT2.4) ...
    w = _window(game)  # ... with a fresh window before its next give
    assert w.seats == frozenset(others)
    assert not any(s["ready"] for s in game.play["seats"])
    opened = [e for e in events if isinstance(e, lev.StepOpened)]
    assert opened[-1].step == "aim"


def test_lt2_5_resigned_seats_pass_at_once_and_a_window_with_nobody_to_wait_for_closes() -> None:
    game = start("loose_triggers", 5, OPTIONS)
    others = _others(game)
    game.send(others[0], {"type": "Resign"})
    w = _window(game)
    assert w.seats == frozenset(others[1:])  # not waited for
    assert game.play["waiting_on"] == others[1:]
    game.refused(others[0], {"type": "SetReady", "ready": True}, "resigned")
    _pass_all(game, others[1:3])
    events = game.send(others[3], {"type": "Resign"})  # the last one waited for resigns: it closes
    assert [e.reason for e in events if isinstance(e, lev.AimWindowClosed)] == ["passed"]
    assert game.rs.waiting(game.state).step == "give"  # type: ignore[union-attr]


def test_lt2_5_bots_and_seats_on_autopilot_pass_at_once_unless_they_aim() -> None:
    game = start("loose_triggers", 4, OPTIONS)
    bagman = game.state.game.bagman
    w = _window(game)
    # the Bagman's bot waits; the others' pass (nobody holds Loot yet: the sensible bot has nobody to shoot)
    assert game.rs.bot_command(game.state, bagman, strategy="sensible", salt=0) is None
    for seat in _others(game):
        command = game.rs.bot_command(game.state, seat, strategy="sensible", salt=0)
        assert command is not None
        assert command.TYPE == "SetReady"
        game.do(command)
    assert [e.reason for e in game.log if isinstance(e, lev.AimWindowClosed)] == ["passed"]
    assert game.rs.waiting(game.state).step_no > w.step_no  # type: ignore[union-attr]
    # a whole bot game: every window closes by the bots' passes or aims, never by its deadline
    bots = start("loose_triggers", 5, OPTIONS)
    for turn in range(5000):
        if bots.rs.is_terminal(bots.state):
            break
        moved = False
        for seat in range(5):
            strategy = "random" if seat % 2 else "sensible"
            command = bots.rs.bot_command(bots.state, seat, strategy=strategy, salt=turn)
            if command is not None:
                bots.do(command)
                moved = True
                break
        if not moved:
            assert bots.rs.waiting(bots.state).step != "aim"  # type: ignore[union-attr]
            bots.expire()
    assert bots.rs.is_terminal(bots.state)
    closed = [e.reason for e in bots.log if isinstance(e, lev.AimWindowClosed)]
    given = [e for e in bots.log if isinstance(e, lev.LootGiven)]
    assert len(given) <= len(closed)  # a window before every give
    assert set(closed) <= {"passed", "aimed"}
    assert "passed" in closed


def test_lt2_5_aim_0_means_no_window() -> None:
    game = start("loose_triggers", 4, {**OPTIONS, "deadlines": {**OPTIONS["deadlines"], "aim": 0}})
    assert game.state.game.options == Options(countdown=30, rules=2, aim=0)
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.step == "give"
    bagman = game.state.game.bagman
    events = game.send(bagman, {"type": "GiveLoot", "slot": 0, "to": bagman})
    assert types(events) == ["LootGiven", "StepOpened", "DeadlineSet"]
    assert events[1].step == "give"
    assert not any(isinstance(e, lev.AimWindowClosed) for e in game.log)


def test_lt2_5_games_keep_the_rules_they_started_with_ruling_32() -> None:
    """A start command stored before LT2.5 (options without ``rules``) plays under rules 1: no window."""
    rs = start("loose_triggers", 4).rs
    made = rs.start_command(
        players=["a", "b", "c", "d"], creator="a", options=rs.parse_options({}), seed=b"\1" * 32
    )
    data = rs.command_to_json(made)
    assert data["options"]["rules"] == 2  # a game made now
    assert data["options"]["deadlines"]["aim"] == 20
    assert data["rules"] == "2"  # the table's start says it too (README "Rules versions")
    old = json.loads(json.dumps(data))
    del old["rules"]  # a start stored before Loose Triggers had rules versions says neither
    del old["options"]["rules"]
    del old["options"]["deadlines"]["aim"]
    state = rs.initial_state()
    state = rs.fold(rs.decide(state, rs.command_from_json(old, None), Context(now=T0)), state)
    assert state.game.options.rules == 1
    assert rs.rules_version(state) == "1"
    assert rs.waiting(state).step == "give"  # type: ignore[union-attr]
    started = [
        rs.event_to_json(e)
        for e in rs.decide(rs.initial_state(), rs.command_from_json(old, None), Context(now=T0))
    ]
    assert "rules" not in started[0]["options"]  # written exactly as before
    assert "deadlines" not in started[0]["options"]
    opened = next(e for e in started if e["type"] == "TableOpened")
    assert opened["settings"]["deadlines"] == {"give": None, "choose": None, "pick": None}
    new = rs.fold(rs.decide(rs.initial_state(), made, Context(now=T0)))
    assert rs.rules_version(new) == "2"
    assert rs.rules_versions == ("1", "2")


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"deadlines": {"aim": -1}}, "deadlines.aim"),
        ({"deadlines": {"aim": MAX_AIM + 1}}, "deadlines.aim"),
        ({"deadlines": {"aim": True}}, "deadlines.aim"),
        ({"deadlines": {"aim": None}}, "deadlines.aim"),
        ({"deadlines": {"aim": 1.5}}, "deadlines.aim"),
        ({"rules": 1, "deadlines": {"aim": 20}}, "deadlines.aim"),  # rules 1 has no window
        ({"rules": 3}, "rules"),
        ({"rules": "2"}, "rules"),
        ({"deadlines": {"fire": 3}}, "deadlines.fire"),
    ],
)
def test_lt7_1_the_aim_option_is_validated(options: dict[str, Any], key: str) -> None:
    rs = start("loose_triggers", 4).rs
    with pytest.raises(RuleError) as info:
        rs.parse_options(options)
    assert info.value.code == "invalid_options"
    assert info.value.details.get("key") == key


def test_lt7_1_the_aim_option_round_trips_beside_the_tables_deadlines() -> None:
    rs = start("loose_triggers", 4).rs
    full = rs.options_to_json(rs.parse_options({"deadlines": {"give": 30, "aim": 0}}))
    assert full["deadlines"] == {"give": 30, "choose": None, "pick": None, "aim": 0}
    assert full["rules"] == 2
    assert rs.options_to_json(rs.parse_options(full)) == full
    assert rs.parse_options({}).game.aim == 20
    assert rs.parse_options({"deadlines": {"aim": MAX_AIM}}).game.aim == MAX_AIM
