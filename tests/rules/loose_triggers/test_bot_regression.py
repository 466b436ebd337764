"""The bots and the pure driver choose exactly as they always did: the full logs of 200 seeded bot games
(4-8 players, sensible, random and mixed bots, a few option sets, resigned seats playing the defaults) hash
to fixed values. Any change to a rule, an event, a bot's choice or its draws changes a hash; a speed-up of
the engine or the bots must leave both unchanged (bench/engine.py measures the speed)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from games.rules import rng
from games.rules.loose_triggers import commands as c
from games.rules.loose_triggers.bots import bot_command, legal_flags
from games.rules.loose_triggers.decide import decide
from games.rules.loose_triggers.evolve import evolve
from games.rules.loose_triggers.game import GAME
from games.rules.loose_triggers.simulate import play
from games.rules.loose_triggers.state import INITIAL_STATE, OVER, PLAY, State, update
from games.rules.loose_triggers.waiting import CLOSED_BY_TABLE, default_command, legal_commands, waiting

GAMES = 200
# sha256 of every command and event (canonical JSON) of games 0..199, by rules version; recompute only when a
# rule, an event or a command's JSON changes, and then with the engine and bots as they were too (both must
# agree). Rules 1 never changes (ruling 32: its games are re-decided to the same events): the same as before
# rules 2 existed.
TABLE_GAMES_SHA256 = {
    "1": "d53ff4007e3551f37f9f8b7e6ef07aadb6db84d817ecd4a6effe6a4c6fb03ba7",
    "2": "47f2ed3a9d81480077aff754c471663e7c9e096d53b20e74c93ae988e219290d",
}
SIMULATE_SHA256 = "f7496994903c678c53126e9d5b07f830fa3f9cc5eac7a9c7f12de603475a264c"  # rules 2


def _strategies(i: int, n: int) -> list[str]:
    kind = i % 3
    if kind == 0:
        return ["sensible"] * n
    if kind == 1:
        return ["random"] * n
    return ["sensible" if (seat + i) % 2 else "random" for seat in range(n)]


def _seed(i: int) -> bytes:
    return hashlib.sha256(f"lt-bot-regression/{i}".encode()).digest()


def _table_game(i: int, digest: Any, states: list[State] | None = None, rules: str | None = None) -> int:
    """Game ``i`` driven as a table would: bots in a rotating seat order, a resigned seat's defaults, closes
    and timeouts when no bot moves. Feeds every command and event into ``digest``; returns the event count."""
    n = 4 + i % 5
    strategies = _strategies(i, n)
    options = GAME.options.parse({"max_retargets": i % 4, "shuffle_seats": i % 2 == 0})
    salt = i * 7919
    resign_at = 30 + i % 50 if i % 4 == 0 else -1
    command: Any = GAME.start_command([f"p{k}" for k in range(n)], options, _seed(i), rules=rules)
    state = INITIAL_STATE
    count = 0
    for turn in range(20_000):
        digest.update(rng.canonical_ascii_json(GAME.codec.command_to_json(command)))
        for event in decide(state, command):
            digest.update(rng.canonical_ascii_json(GAME.codec.event_to_json(event)))
            state = evolve(state, event)
            count += 1
            if states is not None:
                states.append(state)
        if turn == resign_at and state.phase == PLAY:
            command = c.Resign(seat=None, target=i % n)
            continue
        w = waiting(state)
        if w is None:
            assert state.phase == OVER
            return count
        command = None
        for k in range(n):
            seat = (salt + turn + k) % n
            if state.resigned[seat]:
                command = default_command(state, seat, "resigned")
            else:
                command = bot_command(state, seat, strategy=strategies[seat], salt=salt + turn)
            if command is not None:
                break
        if command is None and w.step in CLOSED_BY_TABLE:
            command = c.CloseStep(seat=None, step_no=w.step_no)
        if command is None:
            command = next(
                cmd for s in sorted(w.seats) if (cmd := default_command(state, s, "timeout")) is not None
            )
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("rules", GAME.rules_versions)
def test_bot_games_are_the_same_as_ever(rules: str) -> None:
    digest = hashlib.sha256()
    events = sum(_table_game(i, digest, rules=rules) for i in range(GAMES))
    assert events > 50_000
    assert digest.hexdigest() == TABLE_GAMES_SHA256[rules]


def test_the_pure_driver_plays_the_same_games_as_ever() -> None:
    digest = hashlib.sha256()
    for i in range(GAMES):
        n = 4 + i % 5
        options = GAME.options.parse({"max_retargets": (i + 1) % 4})
        events, state = play(n, _seed(i), _strategies(i + 1, n), options, salt=i)
        assert state.phase == OVER
        for event in events:
            digest.update(rng.canonical_ascii_json(GAME.codec.event_to_json(event)))
    assert digest.hexdigest() == SIMULATE_SHA256


def test_the_bots_read_the_legal_commands_as_hooks_lists_them() -> None:
    """The bots work out ``legal_commands`` from a few fields (bots.legal_flags): the same, in every state of
    40 bot games (resigned seats included) and for every seat, dead, out of range or not."""
    played: list[State] = []
    for i in range(40):
        _table_game(i, hashlib.sha256(), played)
    assert len(played) > 10_000
    states = list(played)
    for k, state in enumerate(played[::7]):  # and positions no bot game reaches: few alive, more resigned
        n = state.n
        if n == 0:
            continue
        alive = tuple(seat in (k % n, (k + 1 + k // n) % n) for seat in range(n))
        states.append(update(state, alive=alive))
        states.append(update(state, resigned=tuple(seat % 2 == k % 2 for seat in range(n))))
        states.append(update(state, opened=tuple(not o for o in state.opened)))
    for state in states:
        for seat in range(-1, state.n + 1):
            legal = legal_commands(state, seat)
            flags = legal_flags(state, seat)
            if flags is None:
                assert legal == [], (state, seat)
                continue
            main, aim, burn = flags
            expected = {t for t, on in ((c.Aim.TYPE, aim), (c.BurnLoot.TYPE, burn)) if on}
            if main is not None:
                expected.add(main)
            assert sorted(legal) == sorted(expected), (state, seat, legal, flags)
