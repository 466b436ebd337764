"""The served spec, walked: every example validates against its schema, no object that carries data is
free-form, the rulesets' JSON validates against the types the spec is generated from, and
``/api/schema/?format=json`` answers JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import Client

from games.api import examples
from games.rules.goodcritters.options import DEFAULT_OPTIONS, options_to_json, parse_options
from games.rules.goodcritters.serde import command_to_json
from games.rules.registry import get_ruleset
from games.rules.simulate import play_game
from tests.spec_tools import Spec

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def spec(django_db_blocker: Any) -> Spec:
    with django_db_blocker.unblock():
        response = Client().get("/api/schema/")
    assert response.status_code == 200
    return Spec(yaml.safe_load(response.content))


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
            failures += spec.errors(command, {**command_to_json(cmd), "seat": cmd.seat})
        assert not failures, failures[:10]
    failures += spec.errors(
        {"$ref": "#/components/schemas/GoodCrittersOptions"}, options_to_json(DEFAULT_OPTIONS)
    )
    full = parse_options(
        {"payoffs": True, "fuzz_depth": [0.1, 0.9], "absence": {"extensions": 0}, "warn_before": 30}
    )
    failures += spec.errors({"$ref": "#/components/schemas/GoodCrittersOptions"}, options_to_json(full))
    assert not failures, failures[:10]


def test_options_typed_with_every_key() -> None:
    """The options' TypedDict has every key the ruleset reads and writes (a new option must be typed)."""
    from games.rules.goodcritters import options as module
    from games.rules.goodcritters.types import GoodCrittersOptions

    assert set(GoodCrittersOptions.__annotations__) == set(options_to_json(DEFAULT_OPTIONS))
    assert set(GoodCrittersOptions.__annotations__) == set(module._KEYS)


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
    schemas = spec.spec["components"]["schemas"]
    assert schemas["GameView"]["discriminator"]["propertyName"] == "ruleset"
    assert schemas["GameView"]["discriminator"]["mapping"]["goodcritters"].endswith("/GoodCrittersView")
    for union in ("Event", "RecordedCommand"):
        mapping = schemas[union]["discriminator"]["mapping"]
        assert schemas[union]["discriminator"]["propertyName"] == "type"
        assert len(mapping) == len(schemas[union]["oneOf"]) > 20
        for value, target in mapping.items():
            assert schemas[target.rsplit("/", 1)[1]]["properties"]["type"]["enum"] == [value]
    legal = schemas["ViewerStateOutput"]["properties"]["legal_commands"]["items"]
    assert spec.resolve(legal)["enum"]


def test_every_command_operation_lists_every_rule_error_by_its_status(spec: Spec) -> None:
    from critters_api.error_codes import rule_errors

    commands = [op for _p, _m, op in spec.operations() if op["operationId"].startswith("games_commands_")]
    assert len(commands) >= 16
    for op in commands:
        for entry in rule_errors():
            assert entry.code in op["responses"][str(entry.status)]["x-codes"], (op["operationId"], entry)
        assert "precondition_failed" in op["responses"]["412"]["x-codes"]
        assert "Idempotent-Replayed" in op["responses"]["200"]["headers"]
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
