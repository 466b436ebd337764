"""One contract for every game (issue #24): the spec's last post-processing hook.

* **Narrowing by game.** Every response shape that carries a game's event, recorded command, options or view
  (a feed item, a state-at read, a game, a record, a webhook's data) is split into one shape per ruleset,
  ``{Name}{Shape}`` (``GoodCrittersFeedItem``, ``LooseTriggersRecord``, ``WereCatsWebhookData``...), each
  with ``ruleset`` a single-value enum, and the shape's own name becomes their ``oneOf`` with the
  discriminator ``ruleset``. Inside a member, ``Event`` is the ruleset's ``{Name}Event`` (itself a ``oneOf``
  by ``type``): a typed client narrows by ``ruleset`` then by ``type``. The JSON served does not change but
  for the ``ruleset`` key added where it was missing (feed items, state-at reads, records). The old unions
  that cannot be narrowed (``Event``, ``RecordedCommand``, ``GameOptions``) stay, unreferenced, marked
  ``deprecated``.
* **Descriptions in Markdown.** The Python doc markup of docstrings (double backticks, ``:class:`` roles)
  becomes Markdown code spans.
* **Rule numbers link to the served rules.** ``R2.4``, ``LT3.1``, ``WC2.3``... in a description become links
  to ``/rules/{game}#{number}`` (``games.api.rules_pages``), absolute paths on the service.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

from games.rules.registry import RULESETS, rule_prefixes

from .bindings import ruleset_types
from .schema import REF, Builder

SPLIT_BY_RULESET: dict[str, str] = {
    "FeedItemOutput": "FeedItem",
    "StateAtOutput": "StateAt",
    "StatesOutput": "States",
    "GameOutput": "Game",
    "RecordOutput": "Record",
    "WebhookData": "WebhookData",
}
"""Component → the base of its per-ruleset members' names (``{Name}{base}``)."""

NESTED_NAMES: dict[str, str] = {
    "RecordGameOutput": "RecordGame",
    "RecordEventOutput": "RecordEvent",
    "StateItemOutput": "StateItem",
}
"""Components met inside a split one that need a per-ruleset copy too (they carry an event, a command or
options): the base of their copies' names."""

DEPRECATED: dict[str, str] = {
    "Event": "Deprecated: not narrowable (rulesets reuse event type names with other shapes). Read events "
    "through the shapes that carry their game (`FeedItemOutput`, `StateAtOutput`, `RecordOutput`, "
    "`WebhookData`: one member per ruleset by `ruleset`) as `{Name}Event`, a union by `type`.",
    "RecordedCommand": "Deprecated: not narrowable. A record's commands are `{Name}RecordedCommand` in "
    "the record's member of `RecordOutput` (by `ruleset`).",
    "GameOptions": "Deprecated: not narrowable. A game's options are `{Name}Options` in its member of "
    "`GameOutput` (by `ruleset`).",
}


GRAB_SOURCES: dict[str, Any] = {
    "GrabPileSource": {
        "type": "string",
        "enum": ["loot", "action", "discard"],
        "description": "A pile to grab from (LT4.2): `loot` (the Loot deck's top card), `action` (the Action "
        "deck's top card), `discard` (the discard pile's top card).",
    },
    "GrabDisplaySource": {
        "type": "string",
        "pattern": "^display:[0-9]+$",
        "maxLength": 100,
        "description": "A displayed Loot card to grab (LT4.2): `display:` and its slot as displayed now "
        "(`slot` of the view's `displayed`), in ASCII digits.",
    },
    "GrabSource": {
        "description": "One source of a Grab (LT4.2): a pile (`GrabPileSource`) or a displayed card "
        "(`GrabDisplaySource`); a client tells them apart by the value (`display:` starts the second).",
        "oneOf": [{"$ref": REF + "GrabPileSource"}, {"$ref": REF + "GrabDisplaySource"}],
    },
}
"""LT4.2's sources, typed (the rules' ``GRAB_SOURCE_PATTERN`` split into its two forms)."""


def type_grab_sources(schemas: dict[str, Any]) -> None:
    """The Grab command's ``sources`` (the request and the record's form) as a list of ``GrabSource``."""
    schemas.update(GRAB_SOURCES)
    for name, schema in schemas.items():
        if not name.endswith(("GrabCommandRequest", "GrabCommandRecord")):
            continue
        sources = schema.get("properties", {}).get("sources")
        if sources is not None and sources.get("type") == "array":
            sources["items"] = {"$ref": REF + "GrabSource"}


def per_ruleset_names() -> dict[str, tuple[str, dict[str, str]]]:
    """slug → (the ruleset's spec name, union component → the ruleset's own component)."""
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for slug in sorted(RULESETS):
        rt = ruleset_types(slug)
        if rt is None:
            continue
        names = Builder({}, rt)
        out[slug] = (
            rt.name,
            {
                "Event": f"{rt.name}Event",
                "RecordedCommand": f"{rt.name}RecordedCommand",
                "GameOptions": names.component_name(rt.options),
                "GameView": names.component_name(rt.view),
            },
        )
    return out


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        target = node.get("$ref")
        if isinstance(target, str) and target.startswith(REF):
            yield target[len(REF) :]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _rewrite(node: Any, names: dict[str, str]) -> None:
    if isinstance(node, dict):
        target = node.get("$ref")
        if isinstance(target, str) and target.startswith(REF) and target[len(REF) :] in names:
            node["$ref"] = REF + names[target[len(REF) :]]
        for value in node.values():
            _rewrite(value, names)
    elif isinstance(node, list):
        for value in node:
            _rewrite(value, names)


def split_by_ruleset(schemas: dict[str, Any]) -> None:
    rulesets = per_ruleset_names()
    unions = {"Event", "RecordedCommand", "GameOptions", "GameView"}
    originals = {name: copy.deepcopy(schemas[name]) for name in [*SPLIT_BY_RULESET, *NESTED_NAMES]}
    for nested in NESTED_NAMES:
        if not set(_refs(originals[nested])) & unions:
            raise ValueError(f"{nested} carries nothing of a game's: take it out of NESTED_NAMES")
    for name, base in SPLIT_BY_RULESET.items():
        original = originals[name]
        mapping: dict[str, str] = {}
        for slug, (spec_name, own) in rulesets.items():
            names = {
                **own,
                **{nested: f"{spec_name}{b}" for nested, b in NESTED_NAMES.items()},
            }
            for nested, nested_base in NESTED_NAMES.items():
                if nested in set(_refs(original)):
                    made = f"{spec_name}{nested_base}"
                    if made not in schemas:
                        member = copy.deepcopy(originals[nested])
                        _rewrite(member, names)
                        schemas[made] = member
            member = copy.deepcopy(original)
            _rewrite(member, names)
            member["properties"]["ruleset"] = {
                "type": "string",
                "enum": [slug],
                "description": f"`{slug}`: the discriminator of `{name}`.",
            }
            required = member.setdefault("required", [])
            if "ruleset" not in required:
                required.insert(0, "ruleset")
            member_name = f"{spec_name}{base}"
            if member_name in schemas:
                raise ValueError(f"the component {member_name} exists already")
            member["description"] = (
                f"{original.get('description', '').strip()}\n\nA `{slug}` game's (see `{name}`)."
            ).strip()
            schemas[member_name] = member
            mapping[slug] = member_name
        schemas[name] = {
            "description": (
                f"{original.get('description', '').strip()}\n\nOne shape per game, told apart by `ruleset`: "
                + ", ".join(f"`{slug}`: `{n}`" for slug, n in mapping.items())
                + "."
            ).strip(),
            "oneOf": [{"$ref": REF + n} for n in mapping.values()],
            "discriminator": {"propertyName": "ruleset", "mapping": {s: REF + n for s, n in mapping.items()}},
        }
    for name, base in NESTED_NAMES.items():  # every use of them is now a ruleset's copy: kept, deprecated
        if any(name in set(_refs(s)) for other, s in schemas.items() if other != name):
            raise ValueError(f"{name} is still referenced: split what refers to it")
        schemas[name] = {
            **schemas[name],
            "deprecated": True,
            "description": f"Deprecated: each game has its own copy, `{{Name}}{base}`, in its member of the "
            "shape that carries it (told apart by `ruleset`).\n\n" + schemas[name].get("description", ""),
        }
    for name, note in DEPRECATED.items():
        schemas[name] = {
            **schemas[name],
            "deprecated": True,
            "description": note + "\n\n" + schemas[name].get("description", ""),
        }


# --------------------------------------------------------------------------------------------------
# descriptions: Markdown, with rule numbers linked to the served rules
# --------------------------------------------------------------------------------------------------
_ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|obj|exc|ref):`~?([^`]+)`")
_DOUBLE = re.compile(r"``([^`]+?)``")
RULE_PAGES = rule_prefixes()
"""A rule number's prefix → the game whose served rules page (``/rules/{slug}``) has its anchor: each game
declares its prefix (``rule_prefix``; ``R``: RULES.md, GoodCritters and the table's R7)."""

RULE_NUMBER = re.compile(
    rf"(?<![\w/#\[.-])({'|'.join(sorted(map(re.escape, RULE_PAGES), key=lambda p: (-len(p), p)))})"
    r"(\d+(?:\.\d+)*)(?![\w\]]|\.\d)"
)
"""A rule number as the spec cites it: ``R2.4``, ``LT3.1``, ``WC2.3``... (a registered game's prefix); not
one already linked."""


def rule_link(prefix: str, number: str) -> str:
    return f"/rules/{RULE_PAGES[prefix]}#{prefix}{number}"


def markdown(text: str) -> str:
    """``text`` with Python doc markup as Markdown code spans."""
    text = _ROLE.sub(lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", text)
    return _DOUBLE.sub(r"`\1`", text)


def _link_rules(text: str) -> str:
    out = []
    for i, part in enumerate(re.split(r"(`[^`]*`|\[[^\]]*\]\([^)]*\))", text)):
        if i % 2:  # a code span or a link: as it is
            out.append(part)
            continue
        out.append(RULE_NUMBER.sub(lambda m: f"[{m.group(0)}]({rule_link(m.group(1), m.group(2))})", part))
    return "".join(out)


def _descriptions(node: Any) -> Iterator[tuple[dict[str, Any], str]]:
    """Every (object, key) of the spec holding prose: ``description`` and ``summary`` strings."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("description", "summary") and isinstance(value, str):
                yield node, key
            elif key not in ("example", "examples", "enum", "default"):
                yield from _descriptions(value)
    elif isinstance(node, list):
        for value in node:
            yield from _descriptions(value)


def clean_descriptions(result: dict[str, Any]) -> None:
    for holder, key in _descriptions(result):
        holder[key] = _link_rules(markdown(holder[key]))


PLAYER_IN_STATE = (
    "The seat's holder now, by player id: `p<number>` for a person, `bot<seat>` for a bot (the record's "
    "`uid`). Not a username: a game's `players[]` (`SeatOutput`) maps each seat to its `player` username "
    "and `display_name`."
)
PLAYERS_IN_STATE = (
    "The seats' holders now, in seat order, by player id (`p<number>`, `bot<seat>`: see `player`)."
)


def document_player(schemas: dict[str, Any]) -> None:
    """``player`` means one thing per place, said where it is: a player id in the game's state (every view and
    ``play``), a username in ``game.players[]`` (``SeatOutput``) and the record's seats."""
    views = [ref[len(REF) :] for ref in schemas["GameView"]["discriminator"]["mapping"].values()]
    seen: set[str] = set()
    todo = list(views)
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        todo += list(_refs(schemas[name]))
        properties = schemas[name].get("properties", {})
        if properties.get("player", {}).get("type") == "string":
            properties["player"] = {**properties["player"], "description": PLAYER_IN_STATE}
        if properties.get("players", {}).get("type") == "array":
            properties["players"] = {**properties["players"], "description": PLAYERS_IN_STATE}


def plain_union_refs(schemas: dict[str, Any]) -> None:
    """A property that is one discriminated union (``{"allOf": [{"$ref": union}], "description": ...}``, as
    drf-spectacular writes a described reference) becomes the reference itself, its words moved to the
    object's description: generators read ``allOf`` as inheritance and drop the union's discriminator
    (openapi-typescript made a game's events ``Omit<Event, "type">`` there), while a plain ``$ref`` is the
    union as declared."""
    for schema in schemas.values():
        for name, prop in schema.get("properties", {}).items():
            parts = prop.get("allOf")
            if not (isinstance(parts, list) and len(parts) == 1 and set(prop) <= {"allOf", "description"}):
                continue
            ref = parts[0].get("$ref", "")
            target = schemas.get(ref[len(REF) :]) if ref.startswith(REF) else None
            if target is None or "discriminator" not in target:
                continue
            schema["properties"][name] = {"$ref": ref}
            if prop.get("description"):
                schema["description"] = (
                    f"{schema.get('description', '').strip()}\n\n`{name}`: {prop['description']}"
                ).strip()


def one_contract(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Post-processing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]), after every other."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    split_by_ruleset(schemas)
    plain_union_refs(schemas)
    type_grab_sources(schemas)
    document_player(schemas)
    clean_descriptions(result)
    return result
