"""Play by web (LT7): options, secrets, resigning; JSON of events and commands."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.rules.core import InvalidOptions, RuleError
from games.rules.loose_triggers.commands import (
    Aim,
    ChooseAction,
    ClaimSpoils,
    CloseStep,
    ElectBagman,
    GiveLoot,
    Grab,
    Resign,
    StartGame,
)
from games.rules.loose_triggers.errors import CATALOGUE
from games.rules.loose_triggers.events import (
    ActionChosen,
    ActionDeckRemade,
    GameStarted,
    LootTaken,
    SeatResigned,
)
from games.rules.loose_triggers.game import GAME
from games.rules.loose_triggers.options import Options
from games.rules.loose_triggers.simulate import play
from games.rules.loose_triggers.state import setitem, update
from games.rules.loose_triggers.types import (
    PLAYER_COMMANDS,
    DisplayedView,
    LooseTriggersOptions,
    LooseTriggersView,
    SeatView,
)
from games.rules.loose_triggers.views import redact_event, view_for
from games.rules.loose_triggers.waiting import default_command, legal_commands

from .helpers import SEED, discussion, given, of, refused, start_events, when


def test_lt7_1_options_are_validated_and_round_trip() -> None:
    """LT7.1: countdown, max_retargets, shuffle_seats; unknown keys and bad values refused."""
    assert GAME.options.parse({}) == Options()
    options = GAME.options.parse({"countdown": 30, "max_retargets": 0, "shuffle_seats": True})
    assert GAME.options.parse(GAME.options.to_json(options)) == options
    assert GAME.options.to_json(Options()) == {"countdown": 120, "max_retargets": 2, "shuffle_seats": False}
    for bad in ({"countdown": 0}, {"countdown": True}, {"max_retargets": -1}, {"shuffle_seats": 1}, {"x": 1}):
        with pytest.raises(InvalidOptions):
            GAME.options.parse(bad)


def test_lt7_2_the_seed_decks_and_hands_are_hidden_until_the_end() -> None:
    """LT7.2: nothing secret in a redacted GameStarted or a view; everything once over."""
    events, state = play(5, SEED, ["random"] * 5)
    start = events[0]
    for viewer in (None, 0, 3):
        data = redact_event(start, viewer, terminal=False)
        assert data["seed"] is None
        assert data["loot_deck"] is None
        assert data["action_deck"] is None
        assert [h is not None for h in data["hands"]] == [s == viewer for s in range(5)]
    middle = GAME.fold(events[:40])
    view = view_for(middle, 1)
    assert view["seed"] is None
    assert view["loot_deck"] is None
    assert SEED.hex() not in json.dumps(view)
    assert SEED.hex() not in json.dumps([redact_event(e, 1, terminal=False) for e in events[:40]])
    final = view_for(state, None)
    assert final["seed"] == SEED.hex()
    assert all(seat["pal"] is not None and seat["hand"] is not None for seat in final["seats"])
    assert redact_event(start, None, terminal=True)["seed"] == SEED.hex()


def test_lt7_3_a_resigned_seat_plays_the_defaults_and_is_skipped_in_the_election() -> None:
    """LT7.3: Resign is a system fact; the resigned Bagman gives round-robin; a resigned Gunner plays no
    card even after choosing; a resigned seat is no voter and no candidate."""
    state = given(start_events(4))
    refused(state, Resign(seat=0, target=0), "system_only")  # type: ignore[arg-type]
    events, state = when(state, Resign(seat=None, target=0))
    assert of(events, SeatResigned) == [SeatResigned(seat=0)]
    refused(state, Resign(seat=None, target=0), "already_resigned")
    assert default_command(state, 0, "resigned") == GiveLoot(seat=0, slot=0, to=1)
    refused(state, Aim(seat=0, target=1), "resigned")
    assert "Aim" not in legal_commands(state, 0)
    _, state = when(state, Aim(seat=1, target=0))
    _, state = discussion(state, [], {})
    assert state.step == "give"
    hands = [(2, 13), (1, 14), (3,), (4,)]
    state = given(start_events(4, hands=hands, bagman=1))
    for seat in range(4):
        _, state = when(state, GiveLoot(seat=1, slot=0, to=seat))
    _, state = when(state, Resign(seat=None, target=3))
    state = update(state, wounds=setitem(setitem(state.wounds, 0, 3), 1, 3))
    _, state = when(state, Aim(seat=1, target=0))
    _, state = when(state, Aim(seat=0, target=1))
    _, state = when(state, Aim(seat=2, target=0))
    _, state = discussion(state, [], {0: 2, 1: 1, 2: 3})
    assert state.step == "elect"
    assert "ElectBagman" not in legal_commands(state, 3)
    refused(state, ElectBagman(seat=3, candidate=2), "resigned")
    refused(state, ElectBagman(seat=2, candidate=3), "invalid_candidate")
    events, state = when(state, ElectBagman(seat=2, candidate=2))
    assert state.bagman == 2


def test_lt7_3_a_resigned_gunner_plays_no_card_even_if_it_chose() -> None:
    """LT7.3."""
    state = given(start_events(4))
    _, state = when(state, Aim(seat=1, target=0))
    _, state = when(state, Resign(seat=None, target=1))
    assert state.resigned[1]
    _, state = when(state, CloseStep(seat=None, step_no=state.step_no))
    _, state = when(state, ChooseAction(seat=1, card=2))
    assert default_command(state, 1, "resigned") == ChooseAction(seat=1, card=-1)
    assert default_command(state, 1, "timeout") is None


def test_every_event_of_bot_games_round_trips_through_json() -> None:
    for i, n in enumerate(range(4, 9)):
        events, _ = play(n, bytes([i + 1]) * 32, ["random", "sensible"] * 4)
        for event in events:
            data = GAME.codec.event_to_json(event)
            assert GAME.codec.event_from_json(json.loads(json.dumps(data))) == event


def test_commands_round_trip_and_malformed_ones_are_invalid_command() -> None:
    for command in (
        GiveLoot(seat=2, slot=1, to=3),
        Aim(seat=1, target=0),
        ChooseAction(seat=1, card=-1),
        ClaimSpoils(seat=0, slot=-1, bagman=True),
        Grab(seat=0, sources=("loot", "display:1", "action")),
    ):
        assert GAME.codec.command_from_json(GAME.codec.command_to_json(command), command.seat) == command
    bad: object
    for bad in (
        {"type": "Nope"},
        {"type": "Aim"},
        {"type": "Aim", "target": "1"},
        {"type": "Aim", "target": True},
        {"type": "Aim", "target": 1, "extra": 1},
        {"type": "Grab", "sources": "loot"},
        [],
    ):
        with pytest.raises(RuleError) as info:
            GAME.codec.command_from_json(bad, 0)
        assert info.value.code == "invalid_command"
    with pytest.raises(RuleError):
        GAME.codec.command_from_json({"type": "Resign", "target": 0}, 1)  # a system command from a seat
    with pytest.raises(RuleError):
        GAME.codec.command_from_json({"type": "Aim", "target": 1}, None)


def test_setup_makes_the_game_unfair_and_is_validated() -> None:
    """LT1.1/LT1.4/LT1.5 with an operator's setup."""
    players = ["a", "b", "c", "d"]
    command = GAME.start_command(players, Options(), SEED, {"seats": ["d", "c", "b", "a"], "bagman": 2})
    assert isinstance(command, StartGame)
    state = GAME.fold(GAME.decide(GAME.initial_state(), command))
    assert state.players == ("d", "c", "b", "a")
    assert state.bagman == 2
    assert not state.fair
    with pytest.raises(RuleError):
        GAME.start_command(players, Options(), SEED, {"colour": 1})
    bad = GAME.start_command(players, Options(), SEED, {"loot_deck": [0] * 56})
    refused(GAME.initial_state(), bad, "invalid_setup")
    assert GAME.fold(GAME.decide(GAME.initial_state(), GAME.start_command(players, Options(), SEED))).fair


def test_every_error_code_has_a_kind_and_a_meaning() -> None:
    for code, (kind, meaning) in CATALOGUE.items():
        assert kind.value in ("invalid", "conflict", "forbidden"), code
        assert meaning, code


def _check_typed(value: Any, shape: Any) -> None:
    keys = set(shape.__required_keys__) | set(shape.__optional_keys__)
    assert set(value) <= keys, set(value) - keys
    assert set(shape.__required_keys__) <= set(value)


def test_lt7_2_views_match_their_declared_types() -> None:
    """Every key of a view (and of a seat, a displayed card) is declared in types.py, and none missing."""
    events, final = play(6, SEED, ["random", "sensible"] * 4)
    _check_typed(view_for(GAME.initial_state(), None), LooseTriggersView)
    for state in (GAME.fold(events[:60]), final):
        for viewer in (None, 0, 5):
            view = view_for(state, viewer)
            _check_typed(view, LooseTriggersView)
            assert set(view) == set(LooseTriggersView.__annotations__)
            for seat in view["seats"]:
                assert set(seat) == set(SeatView.__annotations__)
            for shown in view["display"]:
                _check_typed(shown, DisplayedView)
    _check_typed(GAME.options.to_json(Options()), LooseTriggersOptions)  # rules 1: as always written
    assert set(GAME.options.to_json(Options(rules=2))) == set(LooseTriggersOptions.__annotations__)
    assert {c.TYPE for c in PLAYER_COMMANDS} == {
        "GiveLoot", "Aim", "ChooseAction", "PickLoot", "ClaimSpoils", "Grab", "BurnLoot", "ElectBagman"
    }  # fmt: skip


def test_lt7_2_every_random_outcome_is_re_derived_from_the_seed() -> None:
    """LT7.2 (the audit): the setup, each random Loot card taken and each Action deck remake follow from
    the seed through the documented labels; each face-down choice matches its commitment."""
    from games.rules import rng
    from games.rules.loose_triggers import decide as d
    from games.rules.loose_triggers.cards import ALIASES, LOOT_CARDS
    from games.rules.loose_triggers.evolve import evolve
    from games.rules.loose_triggers.state import INITIAL_STATE

    events, _ = play(7, SEED, ["random", "sensible"] * 4)
    start = events[0]
    assert isinstance(start, GameStarted)
    assert start.aliases == tuple(rng.Stream(SEED, "setup/aliases").shuffle(list(ALIASES))[:7])
    assert start.pals == d.derangement(SEED, 7)
    assert start.bagman == rng.Stream(SEED, "setup/bagman").below(7)
    assert start.loot_deck == tuple(rng.Stream(SEED, "setup/loot").shuffle(list(LOOT_CARDS)))
    assert (start.hands, start.action_deck) == d.deal(SEED, 7)
    state = INITIAL_STATE
    checked = {"LootTaken": 0, "ActionDeckRemade": 0, "ActionChosen": 0}
    for event in events:
        if isinstance(event, LootTaken) and not event.chosen:
            stack = state.stacks[event.victim]
            assert event.card == stack[rng.Stream(SEED, f"random/{state.random_no}").below(len(stack))]
            checked["LootTaken"] += 1
        if isinstance(event, ActionDeckRemade):
            expected = rng.Stream(SEED, f"remake/{state.remakes}").shuffle(list(state.action_discard))
            assert list(event.deck) == expected
            checked["ActionDeckRemade"] += 1
        if isinstance(event, ActionChosen):
            salt = rng.salt(SEED, f"salt/{event.commit_no}")
            assert event.commitment == rng.commitment(salt, event.card)
            checked["ActionChosen"] += 1
        state = evolve(state, event)
    assert all(checked.values()), checked


def test_the_same_seed_and_commands_give_the_same_game() -> None:
    """Determinism: no hidden randomness anywhere (bots included, given their salt)."""
    first, _ = play(8, SEED, ["random", "sensible"] * 4, salt=7)
    again, _ = play(8, SEED, ["random", "sensible"] * 4, salt=7)
    assert first == again
    other, _ = play(8, bytes(32), ["random", "sensible"] * 4, salt=7)
    assert other != first
