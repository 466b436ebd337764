"""JSON forms of commands and events (WC4.2: the record works as for the other rulesets)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.rules.core import RuleError
from games.rules.were_cats import commands as c
from games.rules.were_cats.errors import CODES, ERRORS
from games.rules.were_cats.game import GAME

from .helpers import SEED, after_setup, when

COMMANDS: list[Any] = [
    c.ChooseStartingCoins(seat=0, kind="dime"),
    c.ChooseStartingCoins(seat=0, kind="dime", reason="timeout"),
    c.PlaceVictims(seat=1, eat=(1, 0, 2), scare=(0, 1, 0)),
    c.FinishPlacing(seat=2),
    c.FinishPlacing(seat=2, reason="resigned"),
    c.PopulateCity(seat=0, kind="nickel"),
    c.TakeVictim(seat=0, kind="penny", eat=(0, 0, 1)),
    c.MakeCat(seat=3, kind="nickel", slot=4, eat=(0, 0, 1)),
    c.Repopulate(seat=1),
    c.Pass(seat=4, reason="timeout"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda x: x.TYPE)
def test_wc4_2_every_command_round_trips_through_json(command: Any) -> None:
    data = json.loads(json.dumps(GAME.codec.command_to_json(command)))
    assert GAME.codec.command_from_json(data, command.seat) == command


def test_wc4_2_the_start_command_round_trips_as_a_system_command() -> None:
    start = GAME.start_command(["a", "b"], GAME.options.parse({"max_rounds": 3}), SEED, {"first_seat": 1})
    data = json.loads(json.dumps(GAME.codec.command_to_json(start)))
    assert GAME.codec.command_from_json(data, None) == start


@pytest.mark.parametrize(
    ("data", "seat"),
    [
        ({"type": "Dance"}, 0),
        ({"type": "PopulateCity"}, 0),
        ({"type": "PopulateCity", "kind": 3}, 0),
        ({"type": "PopulateCity", "kind": "penny", "extra": 1}, 0),
        ({"type": "PlaceVictims", "eat": {"penny": 1}, "scare": {"quarter": 1}}, 0),
        ({"type": "PlaceVictims", "eat": {"penny": True}, "scare": {}}, 0),
        ({"type": "MakeCat", "kind": "penny", "slot": 1.0}, 0),
        ({"type": "Pass"}, None),
        ({"type": "StartGame", "players": ["a"], "options": {}, "seed": "00"}, 0),
        ([], 0),
    ],
)
def test_wc4_2_malformed_commands_are_refused_as_invalid_command(data: Any, seat: int | None) -> None:
    with pytest.raises(RuleError) as info:
        GAME.codec.command_from_json(data, seat)
    assert info.value.code == "invalid_command"


def test_wc4_2_missing_coin_kinds_count_as_zero() -> None:
    command = GAME.codec.command_from_json({"type": "TakeVictim", "kind": "dime", "eat": {"dime": 1}}, 2)
    assert command == c.TakeVictim(seat=2, kind="dime", eat=(0, 0, 1))


def test_wc4_2_events_round_trip_and_every_error_code_is_catalogued_once_with_a_meaning() -> None:
    state = after_setup(["penny", "nickel", "dime"])
    _, events = when(state, c.FinishPlacing(seat=0), c.FinishPlacing(seat=1), c.FinishPlacing(seat=2))
    for event in events:
        assert GAME.codec.event_from_json(json.loads(json.dumps(GAME.codec.event_to_json(event)))) == event
    with pytest.raises(ValueError, match="unsupported version"):
        GAME.codec.event_from_json(
            {"type": "QuarterTaken", "v": 2, "seat": 0, "previous": None, "reason": "x"}
        )
    assert set(CODES) == set(ERRORS)
    assert all(meaning for _kind, meaning in ERRORS.values())
