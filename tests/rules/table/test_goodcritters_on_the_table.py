"""GoodCritters on the table (issue 15): the table plays its deadlines, absences, pauses, resignations and
ready flags, and its log is the one its own code wrote before the table (table README, "A game whose log
predates the table"). The pinned hashes were computed with the code before the move (main at 8d1b482): the
same commands give the same events, byte for byte."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from games.rules.core import Context
from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from games.rules.simulate import play_game
from games.rules.table import commands as tc
from games.rules.table import events as te
from tests.rules.gc import RULESET as rs

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DEADLINES = {"deadlines": {"distribute": 60, "choose": 600}}


def _digest(log: list[Any]) -> tuple[int, str]:
    data = json.dumps(log, sort_keys=True, separators=(",", ":"))
    return len(log), hashlib.sha256(data.encode()).hexdigest()


@pytest.mark.parametrize(
    ("n", "strategies", "options", "k", "pinned"),
    [
        (
            4,
            ["random", "sensible"],
            {"payoffs": True, **DEADLINES},
            1,
            (347, "fba9aec518411e7ae34b14c1e834ee9aad572f9405acd55e699e48692b3365ab"),
        ),
        (
            5,
            ["sensible"],
            {"timeout_action": "skim", "boss_term_limit": 2},
            2,
            (268, "2adf294b917d20a816b897a62d064e4b92aba95a0d139f4d8584e9575ab81c16"),
        ),
        (
            6,
            ["random"],
            {"payoffs": True, "no_vote_rule": "russian", "pause_by": "vote"},
            3,
            (356, "9a2d1f2fa50a5e50671ab046993043b7bd1b4328cc3af39050ce9982b8880d43"),
        ),
        (
            8,
            ["random", "sensible", "sensible"],
            {"fuzz_depth": "short", "shuffle_seats": True},
            4,
            (158, "3d7c974f403bfd02dae33a03b5e11bb59823d6a6a581b87d481767b69f1d309b"),
        ),
    ],
)
def test_bot_games_log_what_goodcritters_logged_before_the_table(
    n: int, strategies: list[str], options: dict[str, Any], k: int, pinned: tuple[int, str]
) -> None:
    record = play_game(
        rs,
        players=n,
        strategies=(strategies * 8)[:n],
        options=rs.parse_options(options),
        seed=bytes([k]) * 32,
        salt=k,
    )
    assert _digest([rs.event_to_json(x) for x in record.events]) == pinned


def _absent_game(n: int, options: dict[str, Any], k: int, absent: set[int], resign_at: int) -> list[Any]:
    """Seats in ``absent`` never act (the deadlines play for them, then the autopilot's bot); seat n-1 resigns
    in round ``resign_at``; the other seats are bots; a private message at the start."""
    now = T0
    state = rs.initial_state()
    names = [f"p{i}" for i in range(n)]
    log: list[Any] = []

    def apply(command: Any) -> None:
        nonlocal state
        events = rs.decide(state, command, Context(now=now))
        state = rs.fold(events, state)
        log.extend(rs.event_to_json(x) for x in events)

    start = rs.start_command(
        players=names, creator=names[0], options=rs.parse_options(options), seed=bytes([k]) * 32
    )
    apply(start)
    apply(rs.command_from_json({"type": "SendMessage", "text": "hi", "to": [1]}, 0))
    resigned = False
    for _ in range(5000):
        if rs.is_terminal(state):
            break
        now += timedelta(seconds=7)
        if not resigned and state.game.round == resign_at:
            apply(rs.command_from_json({"type": "Resign"}, n - 1))
            resigned = True
            continue
        pilots = rs.autopilot_seats(state)
        moved = False
        for seat in range(n):
            if seat in absent and seat not in pilots:
                continue
            command = rs.bot_command(state, seat, strategy="sensible" if seat % 2 else "random", salt=k)
            if command is not None:
                apply(command)
                moved = True
                break
        if not moved:
            waiting = rs.waiting(state)
            assert waiting is not None
            assert waiting.due_at is not None
            now = max(now, waiting.due_at + timedelta(seconds=1))
            apply(rs.expire_command(waiting.step_no))
    assert rs.is_terminal(state)
    return log


@pytest.mark.parametrize(
    ("n", "options", "k", "absent", "resign_at", "pinned"),
    [
        (
            5,
            {**DEADLINES, "payoffs": True, "absence": {"extensions": 1, "autopilot_after": 2}},
            5,
            {2},
            2,
            (403, "a7da07c30eb85127af6ad76aca16f8da5465bce1c582f634529917fe1a61ab84"),
        ),
        (
            6,
            {**DEADLINES, "timeout_action": "vote_no", "pause_by": "vote"},
            6,
            {1, 3},
            3,
            (520, "8274b9acff707ba443067d9b9431c58460269d0ca1d15438f2d88d393c0a3bec"),
        ),
        (
            4,
            {**DEADLINES, "absence": {"extensions": 0, "autopilot_after": None}, "timeout_action": "rob"},
            7,
            {0},
            2,
            (317, "6347c4e74f1dccc1c0f96da6b21e6fba839b15b44b6d8f8b59bf17304ba4fdeb"),
        ),
    ],
)
def test_absent_seats_deadlines_autopilot_and_resignations_log_what_they_logged_before_the_table_r7(
    n: int, options: dict[str, Any], k: int, absent: set[int], resign_at: int, pinned: tuple[int, str]
) -> None:
    """R7.1-R7.5 played by the table: missed deadlines, extensions, R7.2's deal and R7.3's timeout action,
    the autopilot, a resignation (R7.4), a private message: the same events as before."""
    log = _absent_game(n, options, k, absent, resign_at)
    kinds = {x["type"] for x in log}
    assert {"DeadlineMissed", "DeadlinePassed", "PlayerResigned", "MessageSent"} <= kinds
    assert not kinds & {"TableOpened", "DeadlineSet", "PlayerReturned"}
    assert _digest(log) == pinned


def test_the_table_writes_its_facts_into_goodcritters_own_events_r7_1_r2_4() -> None:
    """No TableOpened, no DeadlineSet: the deadline is in StepOpened (R7.1); a change lowers the ready flags
    it names in its own ``unready`` (R2.4), with no ReadySet of the table's."""
    names = ["a", "b", "c", "d"]
    start = rs.start_command(players=names, creator="a", options=rs.parse_options(DEADLINES), seed=b"\7" * 32)
    events = rs.decide(rs.initial_state(), start, Context(now=T0))
    state = rs.fold(events)
    kinds = [type(x) for x in events]
    assert te.TableOpened not in kinds
    assert te.DeadlineSet not in kinds
    opened = [x for x in events if isinstance(x, e.StepOpened)]
    assert [(x.step, x.due_at) for x in opened] == [("distribute", (T0 + timedelta(seconds=60)).isoformat())]
    assert state.due_at == opened[0].due_at
    assert state.step_no == 1
    assert state.settings is not None
    boss = state.game.boss
    later = T0 + timedelta(seconds=10)
    shares = tuple(state.game.table if s == boss else () for s in range(4))
    events = rs.decide(state, c.DistributeLoot(seat=boss, shares=shares), Context(now=later))
    state = rs.fold(events, state)
    choose = [x for x in events if isinstance(x, e.StepOpened)]
    assert [(x.step, x.due_at) for x in choose] == [("choose", (later + timedelta(seconds=600)).isoformat())]
    seat, other = (boss + 1) % 4, (boss + 2) % 4
    for command in (c.ChooseAction(seat=seat, action="skim"), tc.SetReady(seat=seat, ready=True)):
        state = rs.fold(rs.decide(state, command, Context(now=later)), state)
    assert state.ready[seat]
    assert state.game.ready[seat]
    events = rs.decide(state, c.PlaceThreat(seat=seat, target=other), Context(now=later))
    assert events == [e.ThreatPlaced(seat=seat, target=other, unready=(seat,))]
    state = rs.fold(events, state)
    assert not state.ready[seat]
    assert not state.game.ready[seat]
    view = rs.view_for(state, seat)
    assert view["due_at"] == choose[0].due_at
    assert [s["ready"] for s in view["seats"]] == [False] * 4
    assert [(s["autopilot"], s["misses"], s["extensions_left"]) for s in view["seats"]] == [(False, 0, 1)] * 4
    # the same facts in the `play` block every game's view has (issue #24; the flat ones are deprecated)
    play = view["play"]
    assert (play["step"], play["step_no"], play["due_at"]) == ("choose", view["step_no"], view["due_at"])
    flat = ("resigned", "autopilot", "ready", "misses", "extensions_left")
    assert [{k: s[k] for k in flat} for s in play["seats"]] == [
        {k: s[k] for k in flat} for s in view["seats"]
    ]
    assert (play["paused_at"], play["pause_until"], play["pause_votes"]) == (
        view["paused_at"],
        view["pause_until"],
        view["pause_votes"],
    )
