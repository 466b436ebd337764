"""The toy game's rules (``RULES.md``, PB1.1 ...), on its pure engine: every numbered rule is cited here (the
rule-citation test reads this folder's tests)."""

from __future__ import annotations

import pytest

from games.rules.core import RuleError

from .game import GAME, Options, SkipTurn, StartGame, State, Take, decide, fold

SEED = bytes([7, *range(31)])  # 30 + 7 % 6 = 31 pebbles


def started(players: int = 3, most: int = 2) -> State:
    start = StartGame(
        seat=None, players=tuple(f"p{i}" for i in range(players)), options=Options(most), seed=SEED
    )
    return fold(decide(GAME.initial_state(), start))


def test_seats_in_order_seat_0_first_pb1_1() -> None:
    state = started()
    assert GAME.players(state) == ("p0", "p1", "p2")
    step = GAME.waiting(state)
    assert step is not None
    assert step.seats == frozenset({0})
    second = GAME.start_command(["p0", "p1"], Options(), SEED, {"first_seat": 1})  # an operator's setup
    state = fold(decide(GAME.initial_state(), second))
    assert (state.turn, state.fair) == (1, False)
    alone = GAME.start_command(["p0"], Options(), SEED)  # the command is made; the rules refuse it
    with pytest.raises(RuleError) as refused:
        decide(GAME.initial_state(), alone)
    assert refused.value.code == "invalid_players"


def test_the_seed_sizes_the_pile_pb1_2() -> None:
    assert started().pile == 31


def test_take_one_to_most_pb2_1() -> None:
    state = started(most=3)
    after = fold(decide(state, Take(seat=0, count=3)), state)
    assert after.pile == 28
    with pytest.raises(RuleError) as refused:
        decide(after, Take(seat=1, count=4))
    assert refused.value.code == "invalid_count"


def test_one_pass_per_game_pb2_2() -> None:
    state = started(players=2)
    state = fold(decide(state, SkipTurn(seat=0)), state)
    state = fold(decide(state, Take(seat=1, count=1)), state)
    assert GAME.legal_commands(state, 0) == ["Take"]
    with pytest.raises(RuleError) as refused:
        decide(state, SkipTurn(seat=0))
    assert refused.value.code == "pass_used"


def test_the_turn_goes_clockwise_pb2_3() -> None:
    state = started()
    with pytest.raises(RuleError) as refused:
        decide(state, Take(seat=1, count=1))
    assert refused.value.code == "not_your_turn"
    for seat in (0, 1, 2, 0):
        state = fold(decide(state, Take(seat=seat, count=1)), state)
    assert state.turn == 1


def test_the_last_pebble_wins_and_reveals_the_seed_pb3_1() -> None:
    state = started(players=2, most=2)
    seat = 0
    while not GAME.is_terminal(state):
        command = GAME.bot_command(state, seat, strategy="random", salt=1)
        assert command is not None
        state = fold(decide(state, command), state)
        seat = 1 - seat
    scores = GAME.scores(state)
    assert scores is not None
    assert sorted(scores) == [0, 1]
    assert GAME.view_for(state, None)["seed"] == SEED.hex()


def test_a_timed_out_or_resigned_seat_takes_one_pb3_2() -> None:
    state = started()
    for reason in ("timeout", "resigned"):
        assert GAME.default_command(state, 0, reason) == Take(seat=0, count=1, reason=reason)
    assert GAME.default_command(state, 1, "timeout") is None
