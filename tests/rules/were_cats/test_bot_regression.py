"""The bots and the pure driver choose exactly as they always did: the full logs of 200 seeded bot games
(2-5 players, sensible, random and mixed bots, a few round limits, timeouts and a resigned seat playing the
defaults) hash to fixed values. Any change to a rule, an event, a bot's choice or its draws changes a hash; a
speed-up of the engine or the bots must leave both unchanged (bench/engine.py measures the speed)."""

from __future__ import annotations

import hashlib
from typing import Any

from games.rules import rng
from games.rules.were_cats.bots import bot_command
from games.rules.were_cats.commands import Resign
from games.rules.were_cats.decide import decide
from games.rules.were_cats.evolve import evolve
from games.rules.were_cats.game import GAME
from games.rules.were_cats.simulate import play
from games.rules.were_cats.state import INITIAL_STATE, OVER, State
from games.rules.were_cats.waiting import default_command, waiting

GAMES = 200
# sha256 of every command and event (canonical JSON) of games 0..199; recompute only when a rule, an event or
# a command's JSON changes, and then with the engine and bots as they were too (both must agree)
TABLE_GAMES_SHA256 = "27f46e4a09a8330fa0ec45e9be06f14ca31559c44e00d444b85ce135cda54a7e"
SIMULATE_SHA256 = "d39a326139f7df416d5e4ea596534c2c155d443df398f990dc5591e3cb2b0016"


def _strategies(i: int, n: int) -> list[str]:
    kind = i % 3
    if kind == 0:
        return ["sensible"] * n
    if kind == 1:
        return ["random"] * n
    return ["sensible" if (seat + i) % 2 else "random" for seat in range(n)]


def _seed(i: int) -> bytes:
    return hashlib.sha256(f"wc-bot-regression/{i}".encode()).digest()


def _table_game(i: int, digest: Any, states: list[State] | None = None) -> int:
    """Game ``i`` driven as a table would: bots in a rotating seat order, now and then a timeout, one seat
    resigned in every fourth game (then it plays the defaults and cannot win). Feeds every command and event
    into ``digest``; returns the event count."""
    n = 2 + i % 4
    strategies = _strategies(i, n)
    options = GAME.options.parse({"max_rounds": 20 if i % 5 else 1 + i % 7})
    salt = i * 7919
    resigned = i % n if i % 4 == 0 else -1
    resign_at = 10 + i % 40 if resigned >= 0 else -1
    command: Any = GAME.start_command([f"p{k}" for k in range(n)], options, _seed(i))
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
        w = waiting(state)
        if w is None:
            assert state.phase == OVER
            return count
        if turn == resign_at:
            command = Resign(seat=None, target=resigned)  # from now on it plays the defaults (WC4.3)
            continue
        command = None
        for k in range(n):
            seat = (salt + turn + k) % n
            if seat == resigned and turn > resign_at:
                command = default_command(state, seat, "resigned")
            elif (turn + k) % 13 == 0:
                command = default_command(state, seat, "timeout")
            else:
                command = bot_command(state, seat, strategy=strategies[seat], salt=salt + turn)
            if command is not None:
                break
        assert command is not None, w
    raise AssertionError("the game did not end")


def test_bot_games_are_the_same_as_ever() -> None:
    digest = hashlib.sha256()
    events = sum(_table_game(i, digest) for i in range(GAMES))
    assert events > 20_000
    assert digest.hexdigest() == TABLE_GAMES_SHA256


def test_the_pure_driver_plays_the_same_games_as_ever() -> None:
    digest = hashlib.sha256()
    for i in range(GAMES):
        n = 2 + i % 4
        events, state = play(n, _seed(i), _strategies(i + 1, n), salt=i)
        assert state.phase == OVER
        for event in events:
            digest.update(rng.canonical_ascii_json(GAME.codec.event_to_json(event)))
    assert digest.hexdigest() == SIMULATE_SHA256


def test_a_bot_answers_exactly_for_the_seats_the_game_waits_on() -> None:
    """The bots tell whether the game waits on their seat without ``waiting`` (bot_command): the same, after
    every command of 40 bot games, for every seat, out of range or not."""
    states: list[State] = []
    for i in range(40):
        _table_game(i, hashlib.sha256(), states)
    assert len(states) > 5_000
    for k, state in enumerate(states):
        w = waiting(state)
        for seat in range(-1, state.n + 1):
            waited = w is not None and seat in w.seats
            for strategy in ("random", "sensible"):
                command = bot_command(state, seat, strategy=strategy, salt=k)
                assert (command is not None) == waited, (state, seat, strategy)
