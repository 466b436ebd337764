"""WC4: play by web: waiting steps and their defaults, the open table, bots."""

from __future__ import annotations

import typing

import pytest

from games.rules.core import InvalidOptions
from games.rules.were_cats import commands as c
from games.rules.were_cats.game import GAME
from games.rules.were_cats.state import State
from games.rules.were_cats.types import GameView, SeatView

from .helpers import after_setup, given, started, when


def test_wc4_1_every_waiting_step_is_named_with_its_seats_and_a_new_step_no() -> None:
    state = started(3, first_seat=1)
    w = GAME.waiting(state)
    assert w is not None
    assert (w.step, w.seats, w.deadline) == ("setup", frozenset({1}), "setup")
    numbers = [w.step_no]
    for seat in (1, 2, 0):
        state, _ = when(state, c.ChooseStartingCoins(seat=seat, kind="penny"))
        w = GAME.waiting(state)
        assert w is not None
        numbers.append(w.step_no)
    assert (w.step, w.seats, w.deadline) == ("place", frozenset({0, 1, 2}), "place")
    state, _ = when(state, c.FinishPlacing(seat=2))
    w2 = GAME.waiting(state)
    assert w2 is not None
    assert w2.seats == frozenset({0, 1})
    assert w2.step_no == w.step_no
    state, _ = when(state, c.FinishPlacing(seat=0), c.FinishPlacing(seat=1))
    w3 = GAME.waiting(state)
    assert w3 is not None
    assert (w3.step, w3.seats) == ("populate", frozenset({2}))
    numbers.append(w3.step_no)
    assert numbers == sorted(set(numbers))
    assert GAME.waiting(GAME.initial_state()) is None


def test_wc4_1_defaults_placing_says_done_populating_takes_the_first_kind_a_cat_passes() -> None:
    state = after_setup(["penny", "nickel"])
    assert GAME.default_command(state, 0, "timeout") == c.FinishPlacing(seat=0, reason="timeout")
    state, _ = when(state, GAME.default_command(state, 0, "timeout"), c.FinishPlacing(seat=1))
    assert state.quarter == 1
    assert GAME.default_command(state, 0, "timeout") is None  # not its turn
    assert GAME.default_command(state, 1, "resigned") == c.PopulateCity(
        seat=1, kind="penny", reason="resigned"
    )
    state = given(state, supply=(0, 4, 6), hands=((9, 0, 0), (0, 1, 0)))
    assert GAME.default_command(state, 1, "timeout") == c.PopulateCity(
        seat=1, kind="nickel", reason="timeout"
    )
    for _ in range(4):
        assert state.turn is not None
        state, _ = when(state, GAME.default_command(state, state.turn, "timeout"))
    assert state.city == (0, 4, 0)
    assert GAME.default_command(state, 1, "timeout") == c.Pass(seat=1, reason="timeout")
    state, _ = when(state, GAME.default_command(state, 1, "timeout"))
    assert state.cats[1][4] is not None
    assert not state.cats[1][4].heads


def test_wc4_1_the_setup_choice_defaults_to_the_first_kind_with_two_left() -> None:
    """Ruling 1."""
    state = started(5)
    for seat in range(3):
        state, _ = when(state, c.ChooseStartingCoins(seat=seat, kind="penny"))
    state = given(state, supply=(1, 6, 6), hands=((2, 0, 0), (2, 0, 0), (2, 0, 0), (0, 0, 0), (0, 0, 0)))
    assert GAME.default_command(state, 3, "timeout") == c.ChooseStartingCoins(
        seat=3, kind="nickel", reason="timeout"
    )


def test_wc4_1_max_rounds_is_an_option_from_1_to_100_defaulting_to_20() -> None:
    assert GAME.options.to_json(GAME.options.parse({})) == {"max_rounds": 20}
    assert GAME.options.parse({"max_rounds": 1}).max_rounds == 1
    for bad in ({"max_rounds": 0}, {"max_rounds": 101}, {"max_rounds": True}, {"max_rounds": "3"}, {"x": 1}):
        with pytest.raises(InvalidOptions):
            GAME.options.parse(bad)


def test_wc4_2_the_table_is_open_every_viewer_sees_the_same_but_the_seed_until_the_end() -> None:
    state = after_setup(["penny", "nickel", "dime"])
    views = [GAME.view_for(state, v) for v in (None, 0, 1, 2)]
    for view in views:
        view.pop("viewer")
    assert all(v == views[0] for v in views)
    assert views[0]["seed"] is None
    assert views[0]["seats"][1]["hand"] == {"penny": 0, "nickel": 1, "dime": 0}
    start = GAME.start_command(["a", "b"], GAME.options.parse({}), bytes(32))
    started_event = GAME.decide(GAME.initial_state(), start)[0]
    for viewer in (None, 0, 1):
        assert GAME.redact_event(started_event, viewer, terminal=False)["seed"] is None
        assert GAME.redact_event(started_event, viewer, terminal=True)["seed"] == bytes(32).hex()


def test_wc4_2_the_seed_is_shown_once_the_game_is_over() -> None:
    state = after_setup(["penny", "nickel"], max_rounds=1)
    state, _ = when(state, c.FinishPlacing(seat=0), c.FinishPlacing(seat=1))
    while not GAME.is_terminal(state):
        assert state.turn is not None
        state, _ = when(state, GAME.default_command(state, state.turn, "timeout"))
    view = GAME.view_for(state, None)
    assert view["over"]
    assert view["seed"] == state.seed.hex()
    assert view["scores"] == list(state.scores or ())


def _bot_game(strategies: tuple[str, str], salt: int) -> State:
    state = started(2, first_seat=None)
    while not GAME.is_terminal(state):
        w = GAME.waiting(state)
        assert w is not None
        for seat in sorted(w.seats):
            command = GAME.bot_command(state, seat, strategy=strategies[seat], salt=salt)
            assert command is not None
            assert command.TYPE in GAME.legal_commands(state, seat)
            state, _ = when(state, command)
            break
    return state


def test_wc4_3_bots_play_random_and_sensible_deterministically_given_the_salt() -> None:
    a = _bot_game(("random", "sensible"), 7)
    b = _bot_game(("random", "sensible"), 7)
    assert a == b
    assert a.scores is not None
    state = after_setup(["penny", "nickel"])
    state, _ = when(state, c.FinishPlacing(seat=0), c.FinishPlacing(seat=1))
    assert GAME.bot_command(state, 1, strategy="sensible", salt=1) is None  # not waited on
    assert GAME.legal_commands(state, 1) == []
    assert GAME.legal_commands(state, 0) == ["PopulateCity"]


def test_wc4_3_the_sensible_bot_beats_the_random_bot_in_most_games() -> None:
    wins = 0.0
    for salt in range(30):
        state = _bot_game(("sensible", "random") if salt % 2 else ("random", "sensible"), salt)
        sensible = 1 if salt % 2 == 0 else 0
        if sensible in state.winners:
            wins += 1 / len(state.winners)
    assert wins >= 25


def test_wc4_2_the_view_has_exactly_the_keys_its_typed_description_declares() -> None:
    state = after_setup(["penny", "nickel", "dime"])
    view = GAME.view_for(state, 1)
    assert set(view) == set(typing.get_type_hints(GameView))
    assert set(view["seats"][0]) == set(typing.get_type_hints(SeatView))
    assert view["seats"][2]["cats"] == [{"slot": 4, "kind": "dime", "heads": True}]
    assert view["waiting"] == {
        "step": "place",
        "step_no": state.step_no,
        "seats": [0, 1, 2],
        "simultaneous": True,
    }
