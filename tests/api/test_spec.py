"""The served spec, walked: every example validates against its schema, no object that carries data is
free-form, the rulesets' JSON validates against the types the spec is generated from, and
``/api/schema/?format=json`` answers JSON."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import Client

from games.api import examples
from games.api.bindings import ruleset_types
from games.api.commands import snake
from games.rules.core import Context, RuleError
from games.rules.registry import RULESETS, game_of, get_ruleset
from games.rules.simulate import play_game
from tests.spec_tools import Spec

pytestmark = pytest.mark.django_db


VIEW = {"$ref": "#/components/schemas/GameView"}
EVENT = {"$ref": "#/components/schemas/Event"}
RECORDED = {"$ref": "#/components/schemas/RecordedCommand"}
GAME_OPTIONS = {"$ref": "#/components/schemas/GameOptions"}


def _sse_messages(text: str) -> list[tuple[str, Any]]:
    out = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and line[0] != ":")
        if "data" in fields:
            out.append((fields.get("event", "message"), json.loads(fields["data"])))
    return out


def test_every_example_validates_against_its_schema(spec: Spec) -> None:
    failures: list[str] = []
    checked = 0
    for _path, method, op in spec.operations():
        bodies: list[tuple[str, dict[str, Any]]] = []
        if "requestBody" in op:
            bodies += [(f"request {t}", c) for t, c in op["requestBody"]["content"].items()]
        for status, response in op["responses"].items():
            bodies += [(f"{status} {t}", c) for t, c in response.get("content", {}).items()]
        for where, content in bodies:
            values = [e["value"] for e in content.get("examples", {}).values()]
            if "example" in content:
                values.append(content["example"])
            for value in values:
                checked += 1
                if "text/event-stream" in where:
                    messages = content["schema"]["x-sse-messages"]
                    for name, data in _sse_messages(value):
                        failures += [
                            f"{op['operationId']} {where} {name}: {e}"
                            for e in spec.errors(messages[name], data)
                        ]
                    continue
                failures += [
                    f"{op['operationId']} {where}: {e}" for e in spec.errors(content["schema"], value)
                ]
        if method == "post" and "requestBody" in op and op["operationId"].startswith("games_commands_"):
            has = any(c.get("examples") for c in op["requestBody"]["content"].values())
            if not has:
                failures.append(f"{op['operationId']}: no request example")
    assert checked > 50
    assert not failures, "\n".join(failures)


def _free_form(schema: dict[str, Any], where: str, out: list[str]) -> None:
    if not isinstance(schema, dict):
        return
    shaped = {"type", "$ref", "oneOf", "anyOf", "allOf", "enum", "properties", "items"}
    if not shaped & set(schema):
        out.append(f"{where}: any value")
    is_object = schema.get("type") == "object" or "properties" in schema
    if is_object and not schema.get("properties"):
        extra = schema.get("additionalProperties", True)
        if extra is True or extra == {}:
            out.append(f"{where}: a free-form object")
    for key, value in schema.get("properties", {}).items():
        _free_form(value, f"{where}.{key}", out)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _free_form(schema[key], f"{where}[{key}]", out)
    for key in ("oneOf", "anyOf", "allOf"):
        for i, sub in enumerate(schema.get(key, [])):
            _free_form(sub, f"{where}.{key}{i}", out)


def test_no_object_that_carries_data_is_free_form(spec: Spec) -> None:
    found: list[str] = []
    for name, schema in spec.spec["components"]["schemas"].items():
        _free_form(schema, name, found)
    for _path, _method, op in spec.operations():
        for status, response in op["responses"].items():
            for ctype, content in response.get("content", {}).items():
                _free_form(content.get("schema", {}), f"{op['operationId']} {status} {ctype}", found)
    assert not found, "\n".join(found)


def test_the_rulesets_json_validates_against_the_generated_types(spec: Spec) -> None:
    """Views of random games (every seat, a spectator, at every step), their events as every viewer sees
    them, the commands and the options: all valid against the components generated from the types."""
    rs = get_ruleset("goodcritters")
    view, event, command = (
        {"$ref": "#/components/schemas/GameView"},
        {"$ref": "#/components/schemas/Event"},
        {"$ref": "#/components/schemas/RecordedCommand"},
    )
    failures: list[str] = []
    for seed in range(2):
        options: dict[str, Any] = (
            {"payoffs": True} if seed != 1 else {"deadlines": {"choose": 60}, "fuzz_depth": [0.2, 0.4]}
        )
        n = 4 + seed
        record = play_game(
            rs,
            players=n,
            strategies=["random", "sensible"] * 4,
            options=rs.parse_options(options),
            seed=bytes([seed]) * 32,
            salt=seed,
            keep_commands=True,
        )
        events, commands = record.events, record.commands
        state = rs.initial_state()
        for i, ev in enumerate(events):
            state = rs.evolve(state, ev)
            for who in [None, *range(n)]:
                failures += spec.errors(event, rs.redact_event(ev, who, terminal=False))
            seat = i % (n + 1) - 1  # one viewer per event, in turn (-1: a spectator)
            failures += spec.errors(view, rs.view_for(state, None if seat < 0 else seat))
        for cmd in commands:
            failures += spec.errors(command, {**rs.command_to_json(cmd), "seat": cmd.seat})
        assert not failures, failures[:10]
    failures += spec.errors(
        {"$ref": "#/components/schemas/GoodCrittersOptions"}, rs.options_to_json(rs.parse_options({}))
    )
    full = rs.parse_options(
        {"payoffs": True, "fuzz_depth": [0.1, 0.9], "absence": {"extensions": 0}, "warn_before": 30}
    )
    failures += spec.errors({"$ref": "#/components/schemas/GoodCrittersOptions"}, rs.options_to_json(full))
    assert not failures, failures[:10]


TABLE_GAMES: list[tuple[str, int, dict[str, Any], int]] = [
    # (ruleset, seats, options, seed): seeds chosen so that, per ruleset, every event and command of the
    # table occurs (test_the_table_games_meet_every_event_and_command_of_the_table)
    ("loose_triggers", 5, {"countdown": 5, "shuffle_seats": True}, 0),
    ("loose_triggers", 8, {"pause_by": "vote", "absence": {"extensions": 0, "autopilot_after": 1}}, 3),
    # a death (LT5.1): the bots seldom kill; LT's rules 2 (issue #28) moved the two games above off theirs
    ("loose_triggers", 8, {"pause_by": "vote", "absence": {"extensions": 0, "autopilot_after": 1}}, 57),
    ("were_cats", 2, {"max_rounds": 4, "absence": {"extensions": 0, "autopilot_after": 1}}, 11),
    (
        "were_cats",
        4,
        {"pause_by": "vote", "warn_before": 0, "absence": {"extensions": 2, "autopilot_after": None}},
        0,
    ),
]
RARE = {"loose_triggers": {"BagmanElected", "VoteCast", "ElectBagman"}}
"""What the bots seldom do (LT5.4: a vote only when the Bagman dies): checked by the rules' own tests."""


EXTRAS = (
    "warn",
    "extend",
    "pause",
    "resume",
    "to_bot",
    "to_player",
    "VotePause",
    "TakeBackSeat",
    "SetReady",
    "whisper",
    "say",
    "Resign",
)
"""What the table adds to a game, thrown in at random by :func:`table_game`."""


def _extra(rs: Any, kind: str, seat: int, n: int, step_no: int, rnd: random.Random) -> Any:
    """The command of ``kind`` (one of :data:`EXTRAS`) for ``seat``; the caller moves the clock."""
    if kind == "warn":
        return rs.warn_command(step_no)
    if kind == "extend":
        return rs.extend_command(step_no, 600, "outage")
    if kind in ("pause", "resume"):
        return rs.pause_command(kind == "pause")
    if kind == "to_bot":
        return rs.hand_over_command(seat, to="bot", player="bot")
    if kind == "to_player":
        return rs.hand_over_command(seat, to="player", player=f"new{rnd.randrange(10**6)}")
    data: dict[str, Any] = {"type": kind}
    if kind == "VotePause":
        data["pause"] = rnd.random() < 0.7
    elif kind in ("whisper", "say"):
        data = {"type": "SendMessage", "text": "psst" if kind == "whisper" else "hello all"}
        if kind == "whisper":
            data["to"] = [(seat + 1) % n]
    return rs.command_from_json(data, seat)


def table_game(slug: str, n: int, options: dict[str, Any], seed: int) -> Iterator[tuple[Any, Any, list[Any]]]:
    """A game of ``slug`` on the table played to its end by bots, with what the table adds thrown in at
    random: missed deadlines (and so autopilot), warnings, outage extensions, pauses (by the creator or by
    vote), messages (some private), resignations, take-backs and hand-overs. Yields ``(state, command,
    events)`` for every command tried (``state`` before it; ``events`` empty: the rules refused it)."""
    rs: Any = get_ruleset(slug)
    rnd = random.Random(seed)
    options = {"deadlines": dict.fromkeys(rs.game.deadline_steps, 3600), **options}
    now = datetime(2026, 11, 22, 16, 0, tzinfo=UTC)
    state = rs.initial_state()
    names = [f"p{i}" for i in range(n)]
    start = rs.start_command(
        players=names, creator="p0", options=rs.parse_options(options), seed=bytes([seed]) * 32
    )

    def apply(command: Any) -> list[Any]:
        nonlocal state
        try:
            events: list[Any] = rs.decide(state, command, Context(now=now))
        except RuleError:
            return []
        state = rs.fold(events, state)
        return events

    before = state
    yield before, start, apply(start)
    strategies = [rnd.choice(["random", "sensible"]) for _ in range(n)]
    for count in range(20_000):
        if rs.is_terminal(state):
            return
        now += timedelta(seconds=rnd.randrange(1, 60))
        waiting = rs.waiting(state)
        step_no = waiting.step_no if waiting is not None else 0
        due = waiting.due_at if waiting is not None else None
        seat = rnd.randrange(n)
        dice = rnd.random()
        autopilot = sorted(rs.autopilot_seats(state))
        command: Any = None
        if dice < 0.12:
            kind = rnd.choice(EXTRAS)
            if kind in ("to_bot", "to_player", "TakeBackSeat") and autopilot:
                seat = rnd.choice(autopilot)  # only a seat on autopilot is handed over or taken back
            if kind == "warn" and rs.warn_at(state) is not None:
                now = max(now, rs.warn_at(state))
            if kind == "extend" and due is not None:  # the timers were down when the step fell due (R7.7)
                now = max(now, due + timedelta(seconds=1))
            if kind != "Resign" or count > 100:  # a resignation may end the game: not too soon
                command = _extra(rs, kind, seat, n, step_no, rnd)
        elif dice < 0.2 and due is not None:
            command = rs.expire_command(step_no)  # the deadline passes: some seats missed it
        else:
            for s in [*range(seat, n), *range(seat)]:
                command = rs.bot_command(state, s, strategy=strategies[s], salt=seed)
                if command is not None:
                    break
        if command is None:  # nobody moves: the deadline passes (or the pause ends)
            command = rs.pause_command(False) if due is None else rs.expire_command(step_no)
        if isinstance(command, type(rs.expire_command(0))) and due is not None:
            now = max(now, due + timedelta(seconds=1))
        before = state
        yield before, command, apply(command)
    raise AssertionError(f"{slug}: the game did not end")


SAMPLE_GAMES: list[tuple[str, int, dict[str, Any], int]] = [
    (slug, sample.seats, dict(sample.options), 1)
    for slug in RULESETS
    if game_of(slug).facts is None and (sample := examples._sample_of(slug))
]
"""Every registered game the table writes the facts of (all but GoodCritters, whose own events carry them),
with its sample's seats and options: a new game is checked with no edit here."""


@pytest.mark.parametrize(("slug", "n", "options", "seed"), SAMPLE_GAMES, ids=lambda v: str(v))
def test_every_registered_games_json_validates_against_the_generated_types(
    spec: Spec, slug: str, n: int, options: dict[str, Any], seed: int
) -> None:
    test_a_table_games_json_validates_against_the_generated_types(spec, slug, n, options, seed)


@pytest.mark.parametrize(("slug", "n", "options", "seed"), TABLE_GAMES, ids=lambda v: str(v))
def test_a_table_games_json_validates_against_the_generated_types(
    spec: Spec, slug: str, n: int, options: dict[str, Any], seed: int
) -> None:
    """A game of Loose Triggers or Were-cats (or any game above), with everything the table adds: after every
    command, the view of every seat and a spectator validates against ``GameView`` and the ruleset's own
    view; every event as each viewer sees it (and unredacted, as the record has it) against ``Event`` and its
    own type; every command as the record stores it; the options in full; the legal commands are command
    names."""
    rs = get_ruleset(slug)
    rt = ruleset_types(slug)
    assert rt is not None
    schemas = spec.spec["components"]["schemas"]
    own_view = {"$ref": f"#/components/schemas/{rt.name}View"}
    union = {"$ref": f"#/components/schemas/{rt.name}Event"}
    event_ref = schemas[f"{rt.name}Event"]["discriminator"]["mapping"]
    command_ref = schemas[f"{rt.name}RecordedCommand"]["discriminator"]["mapping"]
    legal = set(spec.resolve(schemas["ViewerStateOutput"]["properties"]["legal_commands"]["items"])["enum"])
    failures: list[str] = []
    seen_events: set[str] = set()
    seen_commands: set[str] = set()
    extras = 0
    state: Any = None
    for i, (state, command, events) in enumerate(table_game(slug, n, options, seed)):
        if not events:
            continue
        recorded = {**rs.command_to_json(command), "seat": command.seat}
        own_command = {"$ref": command_ref[command.TYPE]}
        failures += spec.errors(own_command, recorded)
        if command.TYPE not in seen_commands:  # the unions (slow to check: each of their alternatives)
            failures += spec.errors(RECORDED, recorded)
        seen_commands.add(command.TYPE)
        state = rs.fold(events, state)
        terminal = rs.is_terminal(state)
        for ev in events:
            own = {"$ref": event_ref[ev.TYPE]}
            for who in [None, *range(n)]:
                data = rs.redact_event(ev, who, terminal=False)
                extras += len(set(data) - set(rs.event_to_json(ev)))
                failures += [f"{ev.TYPE} for {who}: {e}" for e in spec.errors(own, data)]
                if ev.TYPE not in seen_events:
                    failures += [f"{ev.TYPE} for {who}: {e}" for e in spec.errors(EVENT, data)]
            failures += [f"{ev.TYPE} record: {e}" for e in spec.errors(own, rs.event_to_json(ev))]
            if ev.TYPE not in seen_events:
                failures += [f"{ev.TYPE} record: {e}" for e in spec.errors(union, rs.event_to_json(ev))]
            seen_events.add(ev.TYPE)
        for who in [None, *range(n)]:
            view = rs.view_for(state, who)
            failures += [f"view of {who}: {e}" for e in spec.errors(own_view, view)]
            if i % 25 == 0 or terminal:
                failures += [f"view of {who}: {e}" for e in spec.errors(VIEW, view)]
            if who is not None:
                failures += [f"legal {c}" for c in rs.legal_commands(state, who) if c not in legal]
        if terminal:
            for ev in events:
                failures += spec.errors(EVENT, rs.redact_event(ev, 0, terminal=True))
        assert not failures, failures[:10]
    assert rs.is_terminal(state)
    # the table's shapes were met, not only the game's
    assert {"TableOpened", "DeadlineSet", "GameStarted", "GameEnded"} <= seen_events, seen_events
    assert "StartGame" in seen_commands, seen_commands
    if rt.redaction_extras:
        assert extras > 0
    full = rs.options_to_json(rs.parse_options(options))
    failures += spec.errors({"$ref": f"#/components/schemas/{rt.name}Options"}, full)
    failures += spec.errors(GAME_OPTIONS, full)
    failures += spec.errors({"$ref": f"#/components/schemas/{rt.name}OptionsRequest"}, options)
    assert not failures, failures[:10]


def test_the_table_games_meet_every_event_and_command_of_the_table() -> None:
    """The games above meet, per ruleset, every event type (the game's and the table's) and every command
    type of the game, and between them every command of the table: the validation skipped no shape (but
    the ready flags where the game has no step with them, and the rare ones)."""
    from games.rules.table import commands as table_commands

    all_commands: set[str] = set()
    for slug in sorted({game[0] for game in TABLE_GAMES}):
        rt = ruleset_types(slug)
        assert rt is not None
        events: set[str] = set()
        commands: set[str] = set()
        for ruleset, n, options, seed in TABLE_GAMES:
            if ruleset == slug:
                for _state, command, happened in table_game(slug, n, options, seed):
                    if happened:
                        commands.add(command.TYPE)
                        events |= {e.TYPE for e in happened}
        skip = RARE.get(slug, set()) | ({"ReadySet", "SetReady"} if slug == "were_cats" else set())
        assert {getattr(c, "TYPE") for c in rt.events} - skip - events == set(), slug  # noqa: B009
        own = {getattr(c, "TYPE") for c in rt.commands} - {c.TYPE for c in table_commands.COMMAND_CLASSES}  # noqa: B009
        assert own - skip - commands == set(), slug
        all_commands |= commands
    assert {c.TYPE for c in table_commands.COMMAND_CLASSES} - all_commands == set()


def _bounded(
    spec: Spec, schema: dict[str, Any], path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(key path, its schema) of every option with bounds in an options request schema, nested included."""
    for key, sub in spec.resolve(schema)["properties"].items():
        if "$ref" in sub:
            yield from _bounded(spec, sub, (*path, key))
        elif "minimum" in sub or "maximum" in sub:
            yield (*path, key), sub


@pytest.mark.parametrize("slug", sorted({game[0] for game in [*TABLE_GAMES, *SAMPLE_GAMES]}))
def test_the_options_bounds_the_spec_declares_are_the_rules(spec: Spec, slug: str) -> None:
    """Each bounded option of a table game: its bounds are accepted by the spec and the rules alike, one
    past them refused by both (the rules naming the option in ``details.key``); so is an unknown key."""
    rs = get_ruleset(slug)
    rt = ruleset_types(slug)
    assert rt is not None
    request = {"$ref": f"#/components/schemas/{rt.name}OptionsRequest"}
    found = list(_bounded(spec, request))
    assert len(found) >= 5, found  # the game's own and the table's (deadlines per step, absence, pause)

    def raw(path: tuple[str, ...], value: int) -> dict[str, Any]:
        out: dict[str, Any] = {path[-1]: value}
        for key in reversed(path[:-1]):
            out = {key: out}
        return out

    def new_game(options: dict[str, Any]) -> None:
        """What the lobby checks of a new game's options: the parser's (a record's) bounds, then a new
        game's (issue #28, item 14: the spec's bounds are a new game's)."""
        rs.check_new_game(rs.parse_options(options))  # type: ignore[attr-defined]

    for path, schema in found:
        for value in (schema.get("minimum"), schema.get("maximum")):
            if value is not None:
                assert spec.errors(request, raw(path, value)) == [], (path, value)
                new_game(raw(path, value))
        for value in (
            None if schema.get("minimum") is None else schema["minimum"] - 1,
            None if schema.get("maximum") is None else schema["maximum"] + 1,
        ):
            if value is None:
                continue
            assert spec.errors(request, raw(path, value)), (path, value)
            with pytest.raises(RuleError) as refused:
                new_game(raw(path, value))
            assert refused.value.code == "invalid_options"
            assert refused.value.details["key"] == ".".join(path)
    assert spec.errors(request, {"no_such_option": 1})
    with pytest.raises(RuleError):
        rs.parse_options({"no_such_option": 1})


def test_the_examples_options_are_their_rulesets(spec: Spec) -> None:
    """The game-creation examples of the table games name their ruleset and carry options of its shape that
    its rules accept; the state examples are of the ruleset they name."""
    for example in examples.GAME_CREATE_TABLE:
        value = example.value
        rt = ruleset_types(value["ruleset"])
        assert rt is not None
        own = {"$ref": f"#/components/schemas/{rt.name}OptionsRequest"}
        assert spec.errors(own, value["options"]) == []
        get_ruleset(value["ruleset"]).parse_options(value["options"])
    slugs = [e.value["state"]["ruleset"] for e in examples.VIEWER_STATES]
    assert [e.value["game"]["ruleset"] for e in examples.VIEWER_STATES] == slugs
    assert sorted(slugs) == sorted(RULESETS)


def test_options_typed_with_every_key() -> None:
    """The options' TypedDict has every key the ruleset reads and writes (a new option must be typed)."""
    from games.rules.goodcritters import options as module
    from games.rules.goodcritters.types import GoodCrittersOptions

    rs = get_ruleset("goodcritters")  # the game's own options and the table's, in one object
    assert set(GoodCrittersOptions.__annotations__) == set(rs.options_to_json(rs.parse_options({})))
    assert set(GoodCrittersOptions.__annotations__) == {*module._KEYS, *module.TABLE_OPTION_KEYS}


def test_the_examples_come_from_a_real_game() -> None:
    assert examples.viewer_state_value()["state"]["started"] is True


def test_the_schema_answers_json_when_asked(client: Client) -> None:
    for query in ("?format=json", ""):
        r = client.get(f"/api/schema/{query}", headers={"Accept": "application/json"})
        assert r.status_code == 200
        assert "json" in r["Content-Type"], r["Content-Type"]
        assert json.loads(r.content)["openapi"].startswith("3.")
    r = client.get("/api/schema/?format=json")
    assert "json" in r["Content-Type"]
    json.loads(r.content)
    r = client.get("/api/schema/")
    assert r["Content-Type"].startswith("application/vnd.oai.openapi;")
    assert yaml.safe_load(r.content)["openapi"].startswith("3.")


def test_the_unions_carry_discriminators_and_single_value_types(spec: Spec) -> None:
    """``GameView`` is a union by ``ruleset``; each ruleset's events and commands are a union by ``type``
    (``{Name}Event``, ``{Name}RecordedCommand``), and ``Event``/``RecordedCommand`` list all their shapes
    once (type names repeat across rulesets: a client reads an event by its game's ruleset)."""
    schemas = spec.spec["components"]["schemas"]
    assert schemas["GameView"]["discriminator"]["propertyName"] == "ruleset"
    mapping = schemas["GameView"]["discriminator"]["mapping"]
    assert set(mapping) == set(RULESETS)
    for slug in RULESETS:
        rt = ruleset_types(slug)
        assert rt is not None
        assert mapping[slug].endswith(f"/{rt.name}View")
        view = schemas[f"{rt.name}View"]
        assert view["properties"]["ruleset"]["enum"] == [slug]
        for union, classes, top in (
            (f"{rt.name}Event", rt.events, "Event"),
            (f"{rt.name}RecordedCommand", rt.commands, "RecordedCommand"),
        ):
            listed = {r["$ref"] for r in schemas[top]["anyOf"]}
            by_type = schemas[union]["discriminator"]["mapping"]
            assert schemas[union]["discriminator"]["propertyName"] == "type"
            assert set(by_type) == {getattr(c, "TYPE") for c in classes}  # noqa: B009
            assert len(by_type) == len(schemas[union]["oneOf"]) > 10
            for value, target in by_type.items():
                assert target in listed, target
                component = schemas[target.rsplit("/", 1)[1]]
                assert component["properties"]["type"]["enum"] == [value]
                assert f"`{rt.name}`" in component["description"], target
    legal = schemas["ViewerStateOutput"]["properties"]["legal_commands"]["items"]
    assert spec.resolve(legal)["enum"]


def _may_parse_as(spec: Spec, value: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether a client that takes the first alternative whose required keys are all there (as
    openapi-python-client does, ignoring unknown keys, and keeping a nullable field's value as it is when
    it does not parse) may read a full value of schema ``value`` as schema ``other``."""
    value, other = spec.resolve(value), spec.resolve(other)
    if not set(other.get("required", [])) <= set(value.get("properties", {})):
        return False
    for key in other.get("required", []):
        mine, theirs = value["properties"][key], other["properties"][key]
        nested = "$ref" in mine and "$ref" in theirs and mine["$ref"] != theirs["$ref"]
        if nested and not _may_parse_as(spec, mine, theirs):
            return False  # a non-nullable nested object that does not parse: the next alternative
    return True


def test_a_generated_client_tells_the_rulesets_shapes_apart(spec: Spec) -> None:
    """``Event`` and ``RecordedCommand`` list each shape once (a shape several rulesets share is one
    component) and, of two shapes of one type, the one needing more keys first: a client that takes the
    first alternative that parses never reads one ruleset's event as another's."""
    schemas = spec.spec["components"]["schemas"]
    for top in ("Event", "RecordedCommand"):
        names = [r["$ref"].rsplit("/", 1)[1] for r in schemas[top]["anyOf"]]
        assert len(names) == len(set(names))
        shapes = [
            json.dumps({k: v for k, v in schemas[n].items() if k != "description"}, sort_keys=True)
            for n in names
        ]
        assert len(shapes) == len(set(shapes)), top
        for i, first in enumerate(names):
            for later in names[i + 1 :]:
                if schemas[first]["properties"]["type"] != schemas[later]["properties"]["type"]:
                    continue
                assert not _may_parse_as(spec, schemas[later], schemas[first]), f"{later} reads as {first}"


def test_redacted_counts_are_declared_where_the_ruleset_adds_them(spec: Spec) -> None:
    """Loose Triggers' redacted events add counts (REDACTION_EXTRAS): the spec declares each as an optional
    non-negative integer of its event, and no other event has them."""
    from games.rules.loose_triggers.types import REDACTION_EXTRAS

    schemas = spec.spec["components"]["schemas"]
    assert REDACTION_EXTRAS
    for type_name, names in REDACTION_EXTRAS.items():
        event = schemas[f"LT{type_name}Event"]
        for name in names:
            assert event["properties"][name]["type"] == "integer"
            assert name not in event["required"]
        assert all(f"`{name}`" in event["description"] for name in names)
    assert "count" not in schemas["LTActionChosenEvent"]["properties"]


def test_every_command_operation_lists_every_rule_error_by_its_status(spec: Spec) -> None:
    """A command's endpoint lists every rule error of every ruleset that has the command (with its status),
    and of the others, ``invalid_command`` (not one of theirs); no rule error of a ruleset without it."""
    from critters_api.error_codes import rule_errors
    from games.api.bindings import player_command_classes

    commands = [op for _p, _m, op in spec.operations() if op["operationId"].startswith("games_commands_")]
    assert len(commands) >= 30
    has = {slug: {getattr(c, "TYPE") for c in player_command_classes(slug)} for slug in RULESETS}  # noqa: B009
    by_op = {f"games_commands_{snake(t)}": t for types in has.values() for t in types}
    for op in commands:
        type_name = by_op[op["operationId"]]
        listed = {c for r in op["responses"].values() for c in r.get("x-codes", [])}
        mine = {e.code for e in rule_errors() if type_name in has[e.ruleset or ""]}
        for entry in rule_errors():
            if type_name in has[entry.ruleset or ""] or entry.code == "invalid_command":
                assert entry.code in op["responses"][str(entry.status)]["x-codes"], (op["operationId"], entry)
            elif entry.code not in mine:
                assert entry.code not in listed, (op["operationId"], entry.code)
        assert "precondition_failed" in op["responses"]["412"]["x-codes"]
        assert "Idempotent-Replayed" in op["responses"]["200"]["headers"]
    aim = next(op for op in commands if op["operationId"] == "games_commands_aim")
    assert "counter_locked" in aim["responses"]["409"]["x-codes"]  # Loose Triggers'
    assert "not_boss" not in aim["responses"]["403"]["x-codes"]  # GoodCritters' alone
    problem = spec.spec["components"]["schemas"]["Problem"]["properties"]
    assert {"etag", "errors", "details", "kind", "retry_after"} <= set(problem)


def test_records_of_games_played_before_the_spec_changed_still_validate(spec: Spec) -> None:
    """Records made by older code (rules 2: GameStarted version 1, no ``rules``, no ``max_pause``, start
    commands without ``fixed_seed``) validate against today's spec: a generated client must still read the
    record of an old game (ruling 32, docs/AUDIT.md)."""
    fixtures = Path(__file__).resolve().parents[1] / "audit" / "fixtures"
    records = sorted(fixtures.glob("record-v1-*.json"))
    assert records, "no old records to check"
    failures: list[str] = []
    for path in records:
        record = json.loads(path.read_text())
        for entry in record["events"]:
            failures += spec.errors({"$ref": "#/components/schemas/Event"}, entry["data"])
            if entry["command"] is not None:
                failures += spec.errors({"$ref": "#/components/schemas/RecordedCommand"}, entry["command"])
        failures += spec.errors({"$ref": "#/components/schemas/GameOptions"}, record["game"]["options"])
    assert not failures, failures[:10]
