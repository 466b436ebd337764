"""Options (validated, frozen, defaults = the base game) and the JSON forms of commands and events."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given as hgiven
from hypothesis import strategies as st

from games.rules.core import Context, ErrorKind, InvalidOptions, RuleError
from games.rules.goodcritters import commands as c
from games.rules.goodcritters.commands import COMMAND_CLASSES
from games.rules.goodcritters.errors import CODES
from games.rules.goodcritters.events import EVENT_CLASSES
from games.rules.goodcritters.options import DEFAULT_OPTIONS, Options
from games.rules.registry import RULESETS, get_ruleset
from games.rules.table import commands as tc
from tests.rules.gc import RULESET

from .conftest import rules_settings
from .helpers import T0


def test_the_registry_serves_goodcritters() -> None:
    assert get_ruleset("goodcritters") is RULESETS["goodcritters"]
    assert RULESET.seat_range() == (4, 8)
    with pytest.raises(KeyError):
        get_ruleset("chess")


def test_default_options_are_the_base_game() -> None:
    parsed = RULESET.parse_options({})
    options, settings = parsed.game, parsed.settings  # GoodCritters' own, and the table's
    assert options == DEFAULT_OPTIONS == Options()
    assert (options.payoffs, options.boss_term_limit, options.fuzz_depth) == (False, None, "standard")
    assert (options.no_vote_rule, options.shuffle_seats, options.timeout_action) == ("english", False, "none")
    assert (settings.deadline("distribute"), settings.deadline("choose")) == (None, None)
    assert settings.max_pause == 7 * 24 * 3600  # R7.6: the longest pause, a week by default


def test_options_round_trip_through_json() -> None:
    raw = {
        "payoffs": True,
        "boss_term_limit": 3,
        "fuzz_depth": [0.25, 0.5],
        "no_vote_rule": "russian",
        "shuffle_seats": True,
        "timeout_action": "vote_no",
        "deadlines": {"distribute": 86400, "choose": 3600},
        "absence": {"extensions": 2, "autopilot_after": None},
        "pause_by": "vote",
        "warn_before": 600,
        "max_pause": 86400,
    }
    options = RULESET.parse_options(raw)
    assert RULESET.options_to_json(options) == raw
    assert RULESET.parse_options(json.loads(json.dumps(RULESET.options_to_json(options)))) == options
    with pytest.raises(AttributeError):
        options.game.payoffs = False


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"colour": "red"}, "colour"),
        ({"payoffs": 1}, "payoffs"),
        ({"payoffs": "yes"}, "payoffs"),
        ({"boss_term_limit": 0}, "boss_term_limit"),
        ({"boss_term_limit": True}, "boss_term_limit"),
        ({"boss_term_limit": 2.0}, "boss_term_limit"),
        ({"fuzz_depth": "medium"}, "fuzz_depth"),
        ({"fuzz_depth": [0.6, 0.5]}, "fuzz_depth"),
        ({"fuzz_depth": [0, 1.5]}, "fuzz_depth"),
        ({"fuzz_depth": [0.1]}, "fuzz_depth"),
        ({"fuzz_depth": [True, 1]}, "fuzz_depth"),
        ({"no_vote_rule": "german"}, "no_vote_rule"),
        ({"shuffle_seats": None}, "shuffle_seats"),
        ({"timeout_action": "dance"}, "timeout_action"),
        ({"deadlines": 60}, "deadlines"),
        ({"deadlines": {"resolve": 60}}, "deadlines.resolve"),
        ({"deadlines": {"choose": 0}}, "deadlines.choose"),
        ({"deadlines": {"choose": "60"}}, "deadlines.choose"),
        ({"deadlines": {"distribute": True}}, "deadlines.distribute"),
        ({"absence": 1}, "absence"),
        ({"absence": {"extensions": -1}}, "absence.extensions"),
        ({"absence": {"extensions": 11}}, "absence.extensions"),
        ({"absence": {"autopilot_after": 0}}, "absence.autopilot_after"),
        ({"absence": {"autopilot_after": True}}, "absence.autopilot_after"),
        ({"absence": {"budget": 1}}, "absence.budget"),
        ({"pause_by": "anyone"}, "pause_by"),
        ({"warn_before": -1}, "warn_before"),
        ({"warn_before": 1.5}, "warn_before"),
        ({"max_pause": None}, "max_pause"),
        ({"max_pause": 0}, "max_pause"),
        ({"max_pause": 30 * 24 * 3600 + 1}, "max_pause"),
        ({"max_pause": True}, "max_pause"),
        ({"max_pause": 3600.0}, "max_pause"),
        ({"max_pause": "3600"}, "max_pause"),
    ],
)
def test_bad_options_are_refused_naming_the_key(raw: dict[str, Any], key: str) -> None:
    with pytest.raises(InvalidOptions) as info:
        RULESET.parse_options(raw)
    assert info.value.code == "invalid_options"
    assert info.value.details["key"] == key
    assert key.split(".")[0] in info.value.message


def test_every_error_code_has_a_kind() -> None:
    assert all(isinstance(kind, ErrorKind) for kind in CODES.values())


def test_every_event_type_has_a_stable_name_and_version() -> None:
    names = [cls.TYPE for cls in EVENT_CLASSES]
    assert len(set(names)) == len(names)
    # GameStarted 2 carries the rules the game plays under (ruling 32); version 1 is still read and written
    assert {cls.TYPE: cls.VERSION for cls in EVENT_CLASSES if cls.VERSION != 1} == {"GameStarted": 2}
    assert len({cls.TYPE for cls in COMMAND_CLASSES}) == len(COMMAND_CLASSES)


@pytest.mark.parametrize(
    "command",
    [
        c.DistributeLoot(seat=0, shares=((1, 2), (), (3,), (), ())),
        c.ChooseAction(seat=1, action="rob"),
        c.PlaceThreat(seat=1, target=2),
        c.RemoveThreat(seat=1),
        tc.SetReady(seat=1, ready=False),
        c.OfferPayoff(seat=1, token=1, side="no", target=2, loot=(5, 6), visibility="peek", payoff_cards=2),
        c.WithdrawPayoff(seat=1, token=0),
        c.GiveGift(seat=1, to=2, loot=(5,), payoff_cards=0),
        c.OfferTrade(seat=1, to=2, give_loot=(5,), give_payoff=1, want_values=(5000,), want_payoff=0),
        c.AcceptTrade(seat=2, trade_id=3, loot=(9,)),
        c.DeclineTrade(seat=2, trade_id=3),
        c.WithdrawTrade(seat=1, trade_id=3),
        tc.Resign(seat=4),
        tc.SendMessage(seat=1, text="hello", to=(2, 3)),
        tc.ExpireDeadline(seat=None, step_no=4),
    ],
)
def test_commands_round_trip_through_json(command: Any) -> None:
    data = json.loads(json.dumps(RULESET.command_to_json(command)))
    assert "seat" not in data
    assert RULESET.command_from_json(data, command.seat) == command


def test_optional_command_fields_take_defaults() -> None:
    assert RULESET.command_from_json({"type": "SetReady"}, 2) == tc.SetReady(seat=2, ready=True)
    assert RULESET.command_from_json({"type": "SendMessage", "text": "hi"}, 0) == tc.SendMessage(
        seat=0, text="hi", to=None
    )


@pytest.mark.parametrize(
    ("data", "seat"),
    [
        ({"type": "ChooseAction", "action": "rob", "seat": 1}, 1),  # a client never names its seat
        ({"type": "ChooseAction"}, 1),
        ({"type": "ChooseAction", "action": 3}, 1),
        ({"type": "ChooseAction", "action": "rob", "extra": 1}, 1),
        ({"type": "PlaceThreat", "target": True}, 1),
        ({"type": "PlaceThreat", "target": 1.0}, 1),
        ({"type": "PlaceThreat", "target": "2"}, 1),
        ({"type": "SetReady", "ready": 1}, 1),
        ({"type": "DistributeLoot", "shares": [[1], "2"]}, 0),
        ({"type": "DistributeLoot", "shares": {"0": [1]}}, 0),
        ({"type": "GiveGift", "to": 1, "loot": [True]}, 0),
        ({"type": "Dance"}, 1),
        ({"action": "rob"}, 1),
        ({"type": None}, 1),
        ([1, 2], 1),
        ("ChooseAction", 1),
        (None, 1),
        ({"type": "StartGame", "players": ["a"]}, 1),  # a system command from a player
        ({"type": "ExpireDeadline", "step_no": 1}, 1),
        ({"type": "ChooseAction", "action": "rob"}, None),  # a player command without a seat
        ({"type": "ChooseAction", "action": "rob"}, True),
        ({"type": "StartGame", "players": ["a"], "creator": None, "options": {"x": 1}, "seed": "00"}, None),
        ({"type": "StartGame", "players": ["a"], "creator": None, "options": {}, "seed": "zz"}, None),
        # ruling 32: the rules are 2 or 3; rules 2 (or none said) have no max_pause
        (
            {"type": "StartGame", "players": ["a"], "creator": None, "options": {}, "seed": "", "rules": 4},
            None,
        ),
        (
            {"type": "StartGame", "players": ["a"], "creator": None, "options": {}, "seed": "", "rules": 1},
            None,
        ),
        (
            {"type": "StartGame", "players": ["a"], "creator": None, "options": {}, "seed": "", "rules": "3"},
            None,
        ),
        (
            {
                "type": "StartGame",
                "players": ["a"],
                "creator": None,
                "options": {},
                "seed": "",
                "rules": True,
            },
            None,
        ),
        (
            {
                "type": "StartGame",
                "players": ["a"],
                "creator": None,
                "options": {"max_pause": 60},
                "seed": "",
            },
            None,
        ),
        (
            {
                "type": "StartGame",
                "players": ["a"],
                "creator": None,
                "options": {"max_pause": 60},
                "seed": "",
                "rules": 2,
            },
            None,
        ),
    ],
)
def test_malformed_commands_are_refused_as_invalid_command(data: Any, seat: Any) -> None:
    with pytest.raises(RuleError) as info:
        RULESET.command_from_json(data, seat)
    assert info.value.code == "invalid_command"
    assert info.value.kind == ErrorKind.INVALID


JSONS = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 200) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
TYPES = st.sampled_from([*(cls.TYPE for cls in COMMAND_CLASSES), "Nope"])
FIELDS = st.sampled_from(
    [
        *("action", "target", "shares", "ready", "token", "side", "loot", "visibility", "payoff_cards"),
        *("to", "text", "give_loot", "give_payoff", "want_values", "want_payoff", "trade_id", "step_no"),
        *("players", "seed"),
    ]
)


@rules_settings(examples=300)
@hgiven(kind=TYPES, fields=st.dictionaries(FIELDS, JSONS, max_size=5), seat=st.none() | st.integers(-1, 9))
def test_command_from_json_never_raises_anything_but_invalid_command(
    kind: str, fields: dict[str, Any], seat: Any
) -> None:
    """The API relies on it: any JSON at all gives a command or RuleError('invalid_command')."""
    try:
        command = RULESET.command_from_json({"type": kind, **fields}, seat)
    except RuleError as error:
        code = error.code
    else:
        code = "ok"
        assert RULESET.command_from_json(RULESET.command_to_json(command), seat) == command
    assert code in ("ok", "invalid_command")


def test_start_command_round_trips_with_its_seed_and_options() -> None:
    command = RULESET.start_command(
        players=["a", "b", "c", "d"],
        creator="b",
        options=RULESET.parse_options({"payoffs": True}),
        seed=bytes(range(32)),
        setup={"seats": ["d", "c", "b", "a"]},
    )
    data = json.loads(json.dumps(RULESET.command_to_json(command)))
    assert data["seed"] == bytes(range(32)).hex()
    assert RULESET.command_from_json(data, None) == command


def _start_json(**extra: Any) -> dict[str, Any]:
    return {
        "type": "StartGame",
        "players": ["a", "b", "c", "d"],
        "creator": "a",
        "options": {},
        "seed": "ab" * 32,
        **extra,
    }


def test_the_rules_of_a_start_command_stored_before_they_were_written_are_2_ruling_32() -> None:
    assert RULESET.command_from_json(_start_json(), None).rules == 2
    assert RULESET.command_from_json(_start_json(rules=3), None).rules == 3
    start = RULESET.start_command(players=["a", "b", "c", "d"], creator="a", options={}, seed=b"\1" * 32)
    assert start.rules == 3  # a game started now: today's rules
    data = RULESET.command_to_json(start)
    assert (data["rules"], data["options"]["max_pause"]) == (3, 7 * 24 * 3600)
    old = RULESET.command_from_json(_start_json(), None)
    assert "max_pause" not in RULESET.command_to_json(old)["options"]
    assert RULESET.command_from_json(json.loads(json.dumps(RULESET.command_to_json(old))), None) == old


@pytest.mark.parametrize("rules", [2, 3])
def test_game_started_is_written_as_its_rules_have_it_ruling_32(rules: int) -> None:
    """Rules 2: version 1, no ``rules``, no ``max_pause`` (exactly as the code before R7.6 wrote it); rules 3:
    version 2 with ``rules``. Both read back to the same event."""
    command = RULESET.command_from_json(_start_json(rules=rules), None)
    started = RULESET.decide(RULESET.initial_state(), command, Context(now=T0))[0]
    data = RULESET.event_to_json(started)
    assert RULESET.event_from_json(json.loads(json.dumps(data))) == started
    assert RULESET.fold([started]).game.rules == rules
    if rules == 2:
        assert data["v"] == 1
        assert "rules" not in data
        assert "max_pause" not in data["options"]
    else:
        assert (data["v"], data["rules"], data["options"]["max_pause"]) == (2, 3, 7 * 24 * 3600)


def test_game_started_in_a_form_no_code_writes_is_refused_ruling_32() -> None:
    command = RULESET.command_from_json(_start_json(rules=3), None)
    data = RULESET.event_to_json(RULESET.decide(RULESET.initial_state(), command, Context(now=T0))[0])
    for bad in (
        {**data, "rules": 2},  # rules 2 are written as version 1
        {**data, "rules": 4},
        {k: v for k, v in data.items() if k != "rules"},
        {**data, "v": 1},  # version 1 has no rules
        {**{k: v for k, v in data.items() if k != "rules"}, "v": 1},  # nor max_pause
        {**data, "v": 3},
    ):
        with pytest.raises(ValueError, match="not a GoodCritters event"):
            RULESET.event_from_json(bad)


@pytest.mark.parametrize("rules", [1, 4])
def test_decide_refuses_rules_it_does_not_have_ruling_32(rules: int) -> None:
    start = RULESET.start_command(players=["a", "b", "c", "d"], creator="a", options={}, seed=b"\1" * 32)
    with pytest.raises(RuleError) as info:
        RULESET.decide(RULESET.initial_state(), dataclasses.replace(start, rules=rules), Context(now=T0))
    assert info.value.code == "invalid_command"
