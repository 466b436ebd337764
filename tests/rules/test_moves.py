"""Issue #24: the legal moves with their arguments, and the "who acts now" block, agree with ``decide``.

Over random positions of each game (reached by playing the served moves themselves, with deadlines passing
now and then): every move the block offers, filled at random within what its fields say, is accepted by the
table's ``decide`` (the same code that decides, through the commands' JSON as a client sends them); a sample
of moves outside the block (a field set to a value it does not offer, another seat's moves, a game command the
seat is not offered) is refused. Rule numbers: the fields are GoodCritters' R2.2 (a distribution gives every
card once), R2.3, R6.1-R6.4; Loose Triggers' LT2.2, LT2.5 (the aim window, rules 2 only), LT3.1-LT3.3, LT4.1,
LT4.2, LT4.5, LT5.4 under both rules versions; Were-cats' WC1.3, WC2.1-WC2.3 (a cat's claw, WC1.4).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rules.core import Context, RuleError
from games.rules.moves import moves_to_json
from games.rules.registry import get_ruleset
from tests import movefill
from tests.rules.conftest import rules_settings

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
ANYTIME = {"Resign", "SendMessage", "VotePause", "TakeBackSeat"}

GAMES: list[tuple[str, dict[str, Any], int]] = [
    ("goodcritters", {"payoffs": True, "deadlines": {"distribute": 60, "choose": 60}}, 4),
    ("goodcritters", {"pause_by": "vote"}, 6),
    ("loose_triggers", {"rules": 1, "countdown": 30}, 4),
    ("loose_triggers", {"countdown": 30, "deadlines": {"aim": 20, "give": 60}}, 5),
    ("were_cats", {"deadlines": {"act": 60}}, 3),
    ("were_cats", {"pause_by": "vote"}, 5),
]


def _start(slug: str, options: Mapping[str, Any], n: int, seed: int) -> tuple[Any, Any]:
    rs = get_ruleset(slug)
    players = [f"p{i}" for i in range(n)]
    start = rs.start_command(
        players=players,
        creator=players[0],
        options=rs.parse_options(dict(options)),
        seed=seed.to_bytes(32, "big"),
    )
    _, state = rs.step(rs.initial_state(), start, Context(now=T0))  # type: ignore[attr-defined]
    return rs, state


def _decide(rs: Any, state: Any, data: Mapping[str, Any], seat: int, now: datetime) -> tuple[list[Any], Any]:
    command = rs.command_from_json(data, seat)
    return rs.step(state, command, Context(now=now))


def _refused(rs: Any, state: Any, data: Mapping[str, Any], seat: int, now: datetime) -> bool:
    try:
        _decide(rs, state, data, seat, now)
    except RuleError:
        return True
    return False


def _outside(move: Mapping[str, Any], data: dict[str, Any], rnd: random.Random) -> dict[str, Any] | None:
    """``data`` with one field set to a value its field does not offer (or ``None`` when it has no field)."""
    if not move["fields"]:
        return None
    f = rnd.choice(move["fields"])
    name, kind = f["name"], f["kind"]
    out = dict(data)
    if kind == "choice":
        options = f["options"]
        if all(isinstance(o, bool) for o in options):
            out[name] = not options[0] if len(options) == 1 else None
        elif all(isinstance(o, int) for o in options):
            out[name] = rnd.choice([x for x in range(-2, 160) if x not in options])
        else:
            out[name] = "nonesuch"
    elif kind in ("subset", "groups"):
        out[name] = [*(data[name] or []), 10_000]
    elif kind == "partition":
        parts = [list(p) for p in data[name]]
        if any(parts):
            first = next(p for p in parts if p)
            first.append(first[0])  # a card twice
        else:
            parts[0].append(10_000)
        out[name] = parts
    elif kind == "sequence":
        out[name] = [*data[name][:-1], "nowhere"]
    elif kind == "multiset":
        out[name] = [*data[name], 1234]
    elif kind == "integer":  # the Payoff cards a seat has, R6.1, R6.4 (a trade may want any number)
        above = name in ("payoff_cards", "give_payoff") and rnd.random() < 0.5
        out[name] = f["maximum"] + 1 + rnd.randrange(3) if above else f["minimum"] - 1 - rnd.randrange(3)
    elif kind == "counts":
        key = rnd.choice(f["keys"])
        i = f["keys"].index(key)
        out[name] = {**data[name], key: f["maximum"][i] + 1}
    elif kind == "text":
        out[name] = " " * rnd.randint(1, 3)
    return out


def _seat_moves(rs: Any, state: Any, seat: int) -> list[dict[str, Any]]:
    return moves_to_json(rs.moves(state, seat))


def _check_acting(rs: Any, state: Any) -> None:
    """``acting`` names the commands ``legal_commands`` names (but the ones any seat may send at any time),
    and every seat a move of the step is offered to; ``waiting`` is a view of it."""
    acting = rs.acting(state)
    if rs.is_terminal(state):
        assert acting is None
        return
    assert acting is not None
    listed = {s["seat"]: s for s in acting["seats"]}
    waiting = rs.waiting(state)
    for seat in range(state.n):
        legal = rs.legal_commands(state, seat)
        step_commands = [c for c in legal if c not in ANYTIME]
        offered = {m.command for m in rs.moves(state, seat)}
        assert offered <= set(legal), (seat, offered, legal)
        if step_commands:
            assert listed[seat]["commands"] == step_commands
        else:
            assert seat not in listed or listed[seat]["waited_on"]
        if waiting is not None and seat in waiting.seats:
            assert listed[seat]["waited_on"]
    if waiting is not None:
        assert acting["step_no"] == waiting.step_no
        assert acting["step"] == waiting.step


def _play(slug: str, options: Mapping[str, Any], n: int, seed: int, steps: int) -> dict[str, int]:
    rnd = random.Random(seed)
    rs, state = _start(slug, options, n, seed)
    now = T0
    seen = {"accepted": 0, "refused": 0}
    for _ in range(steps):
        if rs.is_terminal(state):
            break
        _check_acting(rs, state)
        now += timedelta(seconds=1)
        waiting = rs.waiting(state)
        acting = rs.acting(state)
        nobody = not any(s["waited_on"] for s in acting["seats"])
        if waiting is not None and waiting.due_at is not None and (nobody or rnd.random() < 0.08):
            now = max(now, waiting.due_at)
            _, state = rs.step(state, rs.expire_command(waiting.step_no), Context(now=now))
            continue
        seat = rnd.randrange(n)
        offered = _seat_moves(rs, state, seat)
        if not offered:
            continue
        game_moves = [m for m in offered if m["command"] not in ANYTIME and m["command"] != "SetReady"]
        r = rnd.random()
        if r < 0.004:
            pool = [m for m in offered if m["command"] == "Resign"]
        elif r < 0.06:
            pool = [m for m in offered if m["command"] in ANYTIME and m["command"] != "Resign"]
        elif r < 0.2:
            pool = [m for m in offered if m["command"] == "SetReady"]
        else:
            pool = game_moves
        pool = pool or game_moves or [m for m in offered if m["command"] != "Resign"] or offered
        move = rnd.choice(pool)
        data = movefill.command(move, rnd)
        assert movefill.fits_move(move, data)
        # outside the block: refused (unless another of the seat's moves offers it: variants overlap)
        # (a seat on autopilot: the service refuses its game commands, autopilot_on, not the rules)
        if rnd.random() < 0.5 and not state.autopilot[seat]:
            bad = _outside(move, data, rnd)
            if bad is not None and not any(movefill.fits_move(m, bad) for m in offered):
                assert _refused(rs, state, bad, seat, now), (slug, seat, bad, move)
                seen["refused"] += 1
            other = rnd.randrange(n)
            if other != seat:
                for m in _seat_moves(rs, state, other)[:3]:
                    theirs = movefill.command(m, rnd)
                    if not any(movefill.fits_move(mine, theirs) for mine in offered):
                        assert _refused(rs, state, theirs, seat, now), (slug, seat, theirs)
                        seen["refused"] += 1
        try:
            _, state = _decide(rs, state, data, seat, now)
        except RuleError as exc:  # pragma: no cover - the failure's message
            pytest.fail(f"{slug} {options}: seat {seat}'s offered {data} refused: {exc.code} {exc.message}")
        seen["accepted"] += 1
    return seen


@pytest.mark.parametrize(("slug", "options", "n"), GAMES)
@rules_settings(12)
@given(seed=st.integers(min_value=0, max_value=2**64))
def test_every_offered_move_is_accepted_and_others_refused(
    slug: str, options: dict[str, Any], n: int, seed: int
) -> None:
    seen = _play(slug, options, n, seed, steps=250)
    assert seen["accepted"] > 0


def test_a_lt_countdown_offers_aim_while_waiting_on_nobody() -> None:
    """LT3.1: in a Countdown ``waiting`` waits on nobody, while anyone living (but the Counter) may Aim:
    ``acting`` lists them, ``waited_on`` false (issue #24)."""
    for seed in range(40):
        rs, state = _start("loose_triggers", {"countdown": 30}, 4, seed)
        rnd = random.Random(seed)
        for _ in range(200):
            if rs.is_terminal(state):
                break
            acting = rs.acting(state)
            if acting["step"] == "countdown":
                assert not rs.waiting(state).seats
                aimers = [s for s in acting["seats"] if "Aim" in s["commands"]]
                assert aimers
                assert not any(s["waited_on"] for s in aimers)
                for s in aimers:
                    assert any(m.command == "Aim" for m in rs.moves(state, s["seat"]))
                return
            seat = rnd.randrange(4)
            game = [m for m in _seat_moves(rs, state, seat) if m["command"] not in ANYTIME]
            if not game:
                continue
            aim = [m for m in game if m["command"] == "Aim"]
            _, state = _decide(rs, state, movefill.command((aim or game)[0], rnd), seat, T0)
    pytest.fail("no Countdown reached")
