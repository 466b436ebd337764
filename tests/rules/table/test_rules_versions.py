"""Ruling 32 for a game the table starts (Loose Triggers; issue #28 items 1 and 5): the table's ``StartGame``
records the game's rules version (``rules``, the newest for a game started now), the game's ``GameStarted``
carries it (version 2 of the event), and a start stored before the game had versions (no ``rules``) is
re-decided under its first rules, written as it always was. A game without versions of its own (Were-cats)
writes no ``rules`` and refuses one. Pure."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from games.rules.core import Context, RuleError
from games.rules.registry import get_ruleset

T0 = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
SEED = bytes(range(32))
PLAYERS = ["p0", "p1", "p2", "p3"]


def _start(slug: str, stored: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any], list[Any]]:
    rs = get_ruleset(slug)
    command = rs.start_command(players=PLAYERS, creator="p0", options=rs.parse_options({}), seed=SEED)
    data = {**rs.command_to_json(command), **(stored or {})}
    data = {k: v for k, v in data.items() if v is not ...}
    command = rs.command_from_json(json.loads(json.dumps(data)), None)
    events = rs.decide(rs.initial_state(), command, Context(now=T0))
    return rs, data, events


def test_a_loose_triggers_game_started_now_plays_rules_2_ruling_32() -> None:
    rs, data, events = _start("loose_triggers")
    assert rs.rules_versions == ("1", "2")
    assert data["rules"] == "2"
    started = rs.event_to_json(events[0])
    assert (started["type"], started["v"], started["rules"]) == ("GameStarted", 2, 2)
    assert rs.rules_version(rs.fold(events)) == "2"
    assert rs.event_from_json(started) == events[0]


def test_a_loose_triggers_start_stored_before_its_versions_plays_rules_1_as_written_then() -> None:
    """The stored start of a game begun before LT had rules versions has no ``rules``: its GameStarted is
    version 1, without ``rules``, exactly as main wrote it (the record fixture re-decides so too)."""
    rs, data, events = _start("loose_triggers", {"rules": ...})
    assert "rules" not in data
    started = rs.event_to_json(events[0])
    assert started["v"] == 1
    assert "rules" not in started
    assert rs.rules_version(rs.fold(events)) == "1"
    assert rs.event_from_json(started) == events[0]


@pytest.mark.parametrize("bad", ["3", "0", "", "\u0662"])
def test_unknown_rules_are_refused(bad: str) -> None:
    with pytest.raises(RuleError) as info:
        _start("loose_triggers", {"rules": bad})
    assert info.value.code == "invalid_command"


def test_a_game_started_event_must_say_its_rules_as_its_version_does() -> None:
    rs, _data, events = _start("loose_triggers")
    started = rs.event_to_json(events[0])
    for forged in (
        {**started, "rules": 1},  # rules 1 are written as version 1
        {**started, "rules": 3},  # unknown
        {**started, "v": 1},  # version 1 has no rules
        {k: v for k, v in started.items() if k != "rules"},  # version 2 needs them
    ):
        with pytest.raises(ValueError, match="Loose Triggers"):
            rs.event_from_json(forged)


def test_a_game_without_versions_of_its_own_writes_none_and_refuses_one() -> None:
    rs, data, events = _start("were_cats")
    assert "rules" not in data
    assert rs.rules_version(rs.fold(events)) == "1"
    with pytest.raises(RuleError) as info:
        _start("were_cats", {"rules": "1"})
    assert info.value.code == "invalid_command"
