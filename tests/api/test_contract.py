"""One contract for every game (issue #24), checked on the served spec and on served bodies.

The spec is walked: every union a client reads (reachable from a response) is narrowed by a discriminator
(or its members differ in JSON type); every view declares all its keys required; descriptions hold no
Python doc markup, name no field a command refuses, and every rule number in them links to an anchor the
service serves (``/rules/{game}#R2.4``). Then served bodies: feed items, state-at reads, records and
webhook payloads of every ruleset say their game (``ruleset``) and validate as that game's member.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from games.api.bindings import ruleset_types
from games.api.contract import DEPRECATED, NESTED_NAMES, RULE_NUMBER
from games.audit.verify import verify_record
from games.rules.registry import RULESETS
from tests.audit.play import play_to_end
from tests.conftest import Api, make_api
from tests.spec_tools import Spec

REF = "#/components/schemas/"
# short games where the options allow one (any other registered game: no options, its fewest seats)
OPTIONS: dict[str, dict[str, Any]] = {
    "goodcritters": {"fuzz_depth": [0.06, 0.08]},  # the Fuzz! near the top (R1.5): a short game
    "were_cats": {"max_rounds": 1},
}
SEATS = {"goodcritters": 4, "loose_triggers": 4, "were_cats": 3}


def seats_of(slug: str) -> int:
    return SEATS.get(slug, RULESETS[slug].seat_range()[0])


def options_of(slug: str) -> dict[str, Any]:
    return OPTIONS.get(slug, {})


NAMES = {slug: rt.name for slug in RULESETS if (rt := ruleset_types(slug)) is not None}
"""The name of each game's components (``GoodCritters`` in ``GoodCrittersFeedItem``), from its types."""


def walk(node: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{path}/{i}")


def refs(node: Any) -> Iterator[str]:
    for _path, sub in walk(node):
        if isinstance(sub, dict) and isinstance(sub.get("$ref"), str):
            yield sub["$ref"][len(REF) :]


def closure(components: dict[str, Any], roots: Iterator[str] | list[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += list(refs(components[name]))
    return seen


def response_schemas(spec: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Every schema a client reads: each response's, and each message of the live stream."""
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if not isinstance(op, dict):
                continue
            for status, response in op.get("responses", {}).items():
                for media, content in response.get("content", {}).items():
                    where = f"{method.upper()} {path} {status} {media}"
                    yield where, content.get("schema", {})
                    for name, message in content.get("schema", {}).get("x-sse-messages", {}).items():
                        yield f"{where} {name}", message


def json_type(components: dict[str, Any], schema: dict[str, Any]) -> str | None:
    while "$ref" in schema:
        schema = components[schema["$ref"][len(REF) :]]
    if schema.get("enum") == [None]:
        return "null"
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return json_type(components, schema["allOf"][0])
    kind = schema.get("type")
    return kind if isinstance(kind, str) else None


def apart_by_value(components: dict[str, Any], members: list[dict[str, Any]]) -> bool:
    """Strings told apart by their value: every member an enum but one at most, a pattern that none of the
    enums' values matches (e.g. `GrabSource`: `loot`, `action`, `discard`, or `display:<slot>`)."""
    resolved = []
    for member in members:
        while "$ref" in member:
            member = components[member["$ref"][len(REF) :]]
        resolved.append(member)
    if any(m.get("type") != "string" for m in resolved):
        return False
    enums = [m["enum"] for m in resolved if "enum" in m]
    patterns = [m["pattern"] for m in resolved if "enum" not in m and "pattern" in m]
    if len(enums) + len(patterns) != len(resolved) or len(patterns) > 1:
        return False
    values = [v for e in enums for v in e]
    if len(values) != len(set(values)):
        return False
    return not any(re.search(p, v) for p in patterns for v in values)


def enum_of(components: dict[str, Any], prop: dict[str, Any]) -> list[Any] | None:
    """A property's enum, inline or behind the ``$ref`` (alone or in a one-item ``allOf``) that
    drf-spectacular makes of an inline enum."""
    if "allOf" in prop and len(prop["allOf"]) == 1:
        prop = prop["allOf"][0]
    if "$ref" in prop:
        prop = components[prop["$ref"][len(REF) :]]
    enum: list[Any] | None = prop.get("enum")
    return enum


def narrowing_problem(components: dict[str, Any], union: dict[str, Any]) -> str | None:
    """Why a client cannot narrow this ``oneOf``/``anyOf``, or None."""
    members = union.get("oneOf") or union.get("anyOf") or []
    discriminator = union.get("discriminator")
    if discriminator is None:
        kinds = [json_type(components, m) for m in members]
        if None in kinds:
            return f"no discriminator, and a member of no JSON type ({kinds})"
        if len(set(kinds)) != len(kinds) and not apart_by_value(components, members):
            return f"no discriminator, and members of one JSON type ({kinds})"
        return None
    name = discriminator["propertyName"]
    mapping = discriminator.get("mapping", {})
    if sorted(mapping.values()) != sorted(m.get("$ref", "") for m in members):
        return "the mapping does not name every member once"
    for value, target in mapping.items():
        member = components[target[len(REF) :]]
        if name not in member.get("required", []):
            return f"{target}: `{name}` is not required"
        if enum_of(components, member.get("properties", {}).get(name, {})) != [value]:
            return f"{target}: `{name}` is not the single value {value!r}"
    return None


def test_every_union_a_client_reads_is_narrowed_by_a_discriminator(spec: Spec) -> None:
    components = spec.spec["components"]["schemas"]
    roots = list(response_schemas(spec.spec))
    reachable = closure(components, [n for _w, s in roots for n in refs(s)])
    places = [*roots, *((f"component {name}", components[name]) for name in sorted(reachable))]
    problems = []
    unions = 0
    for where, schema in places:
        for path, node in walk(schema):
            if isinstance(node, dict) and ("oneOf" in node or "anyOf" in node):
                unions += 1
                why = narrowing_problem(components, node)
                if why is not None:
                    problems.append(f"{where}{path}: {why}")
    assert unions > 20
    assert not problems, "\n".join(problems)
    # the deprecated unions stay for older clients, but nothing a client reads refers to them
    old = {*DEPRECATED, *NESTED_NAMES}
    assert not reachable & old, reachable & old
    assert all(components[name].get("deprecated") for name in old)


def test_events_of_every_game_are_named_apart_by_ruleset_then_type(spec: Spec) -> None:
    components = spec.spec["components"]["schemas"]
    for shape in ("FeedItemOutput", "StateAtOutput", "GameOutput", "RecordOutput", "WebhookData"):
        mapping = components[shape]["discriminator"]["mapping"]
        assert set(mapping) == set(RULESETS), shape
    for name in NAMES.values():
        union = components[f"{name}Event"]
        assert union["discriminator"]["propertyName"] == "type"
        item = components[f"{name}FeedItem"]["properties"]["event"]
        assert item == {"$ref": f"{REF}{name}Event"}
        record_event = components[f"{name}RecordEvent"]["properties"]
        assert f"{name}Event" in set(refs(record_event["data"]))
        assert f"{name}RecordedCommand" in set(refs(record_event["command"]))
        assert components[f"{name}Game"]["properties"]["options"]["$ref"].endswith(f"{name}Options")


def test_every_view_declares_every_key_required(spec: Spec) -> None:
    components = spec.spec["components"]["schemas"]
    views = [t[len(REF) :] for t in components["GameView"]["discriminator"]["mapping"].values()]
    problems = []
    for name in sorted(closure(components, views)):
        schema = components[name]
        properties = set(schema.get("properties", {}))
        if properties and set(schema.get("required", [])) != properties:
            problems.append(f"{name}: optional {sorted(properties - set(schema.get('required', [])))}")
    assert not problems, problems
    for name in views:  # the same `play` block in every view
        assert components[name]["properties"]["play"] == {
            "allOf": [{"$ref": f"{REF}TablePlay"}],
            "nullable": True,
        }, name


def descriptions(spec: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for path, node in walk(spec):
        if isinstance(node, dict):
            for key in ("description", "summary"):
                if isinstance(node.get(key), str) and "/example" not in path:
                    yield f"{path}/{key}", node[key]


def test_descriptions_hold_no_python_doc_markup(spec: Spec) -> None:
    bad = [
        (where, text[:120])
        for where, text in descriptions(spec.spec)
        if "``" in text or re.search(r":[a-z]+:`", text)
    ]
    assert not bad, bad


def test_command_descriptions_name_no_field_the_command_refuses(spec: Spec) -> None:
    """A command's request describes only fields it takes: a field only its recorded form has (one the
    table sets, e.g. `reason`) is not mentioned as if a client could send it."""
    components = spec.spec["components"]["schemas"]
    problems = []
    for path, item in spec.spec["paths"].items():
        op = item.get("post", {})
        if not op.get("operationId", "").startswith("games_commands_"):
            continue
        record_fields: set[str] = set()  # the fields of this command's recorded forms
        for name, schema in components.items():
            if name.endswith("CommandRecord") and schema["properties"]["type"]["enum"] == [op["summary"]]:
                record_fields |= set(schema["properties"]) - {"type", "seat"}
        body = op["requestBody"]["content"]["application/json"]["schema"]
        names = list(refs(body))
        taken = set()
        for n in names:
            taken |= set(components[n].get("properties", {}))
        texts = [op.get("description", ""), *(components[n].get("description", "") for n in names)]
        for text in texts:
            for field in re.findall(r"`([a-z_]+)`", text):
                if field in record_fields and field not in taken:
                    problems.append(f"{path}: `{field}`")
    assert not problems, problems


def test_every_command_documents_its_order_of_checks(spec: Spec) -> None:
    for path, item in spec.spec["paths"].items():
        op = item.get("post", {})
        if op.get("operationId", "").startswith("games_commands_"):
            assert "**Order of checks**" in op["description"], path
            assert "409 `wrong_step`" in op["description"], path


def test_rule_numbers_link_to_anchors_the_service_serves(spec: Spec) -> None:
    links: dict[str, set[str]] = {}
    bare = []
    for where, text in descriptions(spec.spec):
        for page, anchor in re.findall(r"\]\(/rules/([a-z_]+)#([A-Z]+[0-9.]*[0-9])\)", text):
            links.setdefault(page, set()).add(anchor)
        outside = re.sub(r"`[^`]*`|\[[^\]]*\]\([^)]*\)", "", text)
        bare += [(where, m.group(0)) for m in RULE_NUMBER.finditer(outside)]
    assert not bare, bare[:20]
    assert set(links) == set(RULESETS)
    assert sum(len(a) for a in links.values()) > 60
    client = Client(HTTP_HOST="localhost")
    for page, anchors in links.items():
        response = client.get(f"/rules/{page}")
        assert response.status_code == 200
        html = response.content.decode()
        missing = sorted(a for a in anchors if f'id="{a}"' not in html)
        assert not missing, (page, missing)


# --------------------------------------------------------------------------------------------------
# served bodies say their game
# --------------------------------------------------------------------------------------------------
def bot_game(slug: str) -> tuple[int, Api]:
    me = make_api()
    seats = seats_of(slug)
    r = me.post(
        "/api/v1/games",
        {
            "ruleset": slug,
            "seats": seats,
            "options": options_of(slug),
            "bots": ["sensible"] * (seats - 1),
        },
    )
    assert r.status_code == 201, r.content
    return r.json()["id"], me


@pytest.mark.django_db
@pytest.mark.parametrize("slug", sorted(RULESETS))
def test_feed_state_at_and_record_items_say_their_game(spec: Spec, slug: str) -> None:
    name = NAMES[slug]
    game_id, me = bot_game(slug)
    feed = me.get(f"/api/v1/games/{game_id}/events", after=0).json()
    assert feed["events"]
    for item in feed["events"]:
        assert item["ruleset"] == slug
        assert not spec.errors({"$ref": f"{REF}{name}FeedItem"}, item)
        assert not spec.errors({"$ref": f"{REF}FeedItemOutput"}, item)
        others = [n for s, n in NAMES.items() if s != slug]
        assert all(spec.errors({"$ref": f"{REF}{n}FeedItem"}, item) for n in others)  # narrowed apart
    state = me.get(f"/api/v1/games/{game_id}/state").json()
    assert state["game"]["ruleset"] == slug
    assert not spec.errors({"$ref": f"{REF}{name}Game"}, state["game"])
    assert state["state"]["play"]["seats"][0]["seat"] == 0  # the same `play` block in every game
    at = me.get(f"/api/v1/games/{game_id}/states/1").json()
    assert at["ruleset"] == slug
    assert not spec.errors({"$ref": f"{REF}{name}StateAt"}, at)

    play_to_end(game_id, {me.player.pk: me})
    record = me.get(f"/api/v1/games/{game_id}/record").json()
    assert record["ruleset"] == record["game"]["ruleset"] == slug
    assert not spec.errors({"$ref": f"{REF}{name}Record"}, record)
    assert not spec.errors({"$ref": f"{REF}RecordOutput"}, record)
    assert verify_record(record).ok
    old = {k: v for k, v in record.items() if k not in ("ruleset", "signature")}  # as made before
    assert verify_record(old).ok, verify_record(old).text()
    wrong = next(s for s in RULESETS if s != slug)
    verdict = verify_record({**old, "ruleset": wrong})
    assert not verdict.ok
    assert verdict.error is not None
    assert verdict.error.check == "format"


@pytest.mark.django_db
def test_a_view_before_the_start_has_every_key_null(spec: Spec) -> None:
    for slug, name in NAMES.items():
        me = make_api()
        r = me.post("/api/v1/games", {"ruleset": slug, "seats": seats_of(slug), "options": options_of(slug)})
        assert r.status_code == 201, r.content
        state = me.get(f"/api/v1/games/{r.json()['id']}/state").json()["state"]
        assert (state["ruleset"], state["started"], state["over"]) == (slug, False, False)
        assert state["play"] is None  # the table's block: null until the start
        if slug != "were_cats":  # Were-cats writes its own keys before the start (its empty table)
            assert {k for k, v in state.items() if v is not None} == {"ruleset", "started", "over"}
        assert not spec.errors({"$ref": f"{REF}{name}View"}, state)


@pytest.mark.django_db
def test_webhook_payloads_say_their_game(spec: Spec) -> None:
    for slug, name in NAMES.items():
        me = make_api()
        hook = me.post("/api/v1/me/webhooks", {"url": "http://127.0.0.1:9/hook", "events": ["game.event"]})
        assert hook.status_code == 201, hook.content
        bot_game_id = me.post(
            "/api/v1/games",
            {
                "ruleset": slug,
                "seats": seats_of(slug),
                "options": options_of(slug),
                "bots": ["sensible"] * (seats_of(slug) - 1),
            },
        ).json()["id"]
        deliveries = me.get(f"/api/v1/me/webhooks/{hook.json()['id']}/deliveries").json()
        items = deliveries["results"] if isinstance(deliveries, dict) else deliveries
        assert items
        for delivery in items:
            data = delivery["payload"]["data"]
            assert (data["ruleset"], data["game_id"]) == (slug, bot_game_id)
            assert not spec.errors({"$ref": f"{REF}{name}WebhookData"}, data)
            assert not spec.errors({"$ref": f"{REF}WebhookData"}, data)


def test_a_property_that_is_a_union_refers_to_it_plainly(spec: Spec) -> None:
    """A property holding a discriminated union (a game's events, by ``type``) is its plain ``$ref``, not
    ``allOf: [$ref]``, which generators read as inheritance and so drop the discriminator (openapi-typescript
    made the replay's events ``Omit<Event, "type">``). A nullable one (a record event's ``command``) keeps
    ``allOf``: OpenAPI 3.0 has no other way to say "this union or null"."""
    components = spec.spec["components"]["schemas"]
    wrapped = [
        f"{name}.{prop_name}"
        for name, schema in components.items()
        for prop_name, prop in schema.get("properties", {}).items()
        if len(prop.get("allOf", [])) == 1
        and not prop.get("nullable")
        and "discriminator" in components.get(prop["allOf"][0].get("$ref", "")[len(REF) :], {})
    ]
    assert not wrapped, wrapped
