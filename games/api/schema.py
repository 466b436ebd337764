"""OpenAPI components generated from the rulesets' own types (``games.rules.core.RulesetTypes``): one generic
converter from Python types (TypedDicts, the event and command dataclasses, ``Literal``, ``X | None``, lists,
tuples) to OpenAPI 3.0 schemas, so that a ruleset adds only its types and nothing is written twice.

Per ruleset (``{Name}`` its ``RulesetTypes.name``, ``{p}`` its ``prefix``):

* ``{Name}View`` (the viewer's state) and the TypedDicts it uses, ``{Name}Options`` (options in full, a
  response) and ``{Name}OptionsRequest`` (every key optional, a request), ``{Name}ErrorDetails``;
* ``{p}{TYPE}Event`` per event type (fields a viewer may not see are null at any depth; the counts of
  ``redaction_extras`` are optional integers) and ``{p}{TYPE}CommandRecord`` per command as the record stores
  it (with the acting ``seat``), each with a single-value ``type`` enum;
* ``{Name}Event`` and ``{Name}RecordedCommand``: the ruleset's events and commands, a ``oneOf`` with the
  discriminator ``type`` (a type name is unique within a ruleset);

and the unions over every ruleset: ``GameView`` (discriminator ``ruleset``), ``Event`` and
``RecordedCommand`` (an ``anyOf`` of the per-ruleset unions: rulesets reuse type names, e.g. ``GameStarted``,
with other shapes, so a client reads an event by its game's ``ruleset``), ``GameOptions`` /
``GameOptionsRequest`` and ``RuleErrorDetails``.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Sequence
from typing import Any, Literal

from games.rules.core import NewGameRange, Range, RulesetTypes
from games.rules.registry import HOSTED, RULESETS

from .bindings import ruleset_types

REF = "#/components/schemas/"


def ref(name: str) -> dict[str, Any]:
    return {"$ref": REF + name}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return {"allOf": [schema], "nullable": True}
    if schema.get("nullable"):
        return schema
    if "enum" in schema:  # as drf-spectacular writes a nullable choice (what generated clients read)
        return {"oneOf": [schema, ref("NullEnum")]}
    return {**schema, "nullable": True}


def _described(schema: dict[str, Any], note: str | None) -> dict[str, Any]:
    if note is None:
        return schema
    if "$ref" in schema:
        schema = {"allOf": [schema]}
    return {**schema, "description": note}


def _deprecated(schema: dict[str, Any], note: str | None) -> dict[str, Any]:
    """A key kept for older clients (a TypedDict's ``__deprecated_keys__``: key → what to read instead)."""
    if note is None:
        return schema
    if "$ref" in schema:
        schema = {"allOf": [schema]}
    return {**schema, "deprecated": True, "description": f"Deprecated: {note}"}


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


def _doc(cls: Any) -> str:
    doc = (cls.__doc__ or "").strip()
    if doc.startswith((f"{cls.__name__}(", "dict() ->")):  # generated, not a description
        return ""
    return " ".join(doc.split())


class Builder:
    """Turns the Python types of one ruleset into schemas, adding a component per TypedDict met."""

    def __init__(
        self,
        components: dict[str, Any],
        rt: RulesetTypes,
        *,
        request: bool = False,
        redacted: bool = False,
        owners: dict[str, Any] | None = None,
    ) -> None:
        self.components = components
        self.rt = rt
        self.request = request
        self.redacted = redacted  # an event's field: null at any depth where the viewer may not see it
        self.owners: dict[str, Any] = {} if owners is None else owners  # component name → its TypedDict

    def sibling(self, *, request: bool = False, redacted: bool = False) -> Builder:
        return Builder(self.components, self.rt, request=request, redacted=redacted, owners=self.owners)

    def component_name(self, td: Any) -> str:
        """``{Name}{TypedDict}``, or the TypedDict's ``__spec_name__`` when rulesets share it."""
        name = td.__dict__.get("__spec_name__")
        if name is None:
            name = td.__name__ if td.__name__.startswith(self.rt.name) else self.rt.name + td.__name__
        return name + ("Request" if self.request else "")

    def schema(self, tp: Any) -> dict[str, Any]:
        tp = self.rt.substitutes.get(tp, tp)
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin in (typing.Union, types.UnionType):
            rest = [a for a in args if a is not type(None)]
            inner = self.schema(rest[0]) if len(rest) == 1 else {"oneOf": [self.schema(a) for a in rest]}
            return _nullable(inner) if len(rest) < len(args) else inner
        if origin in (typing.NotRequired, typing.Required):  # kept by include_extras: required is apart
            return self.schema(args[0])
        if origin is typing.Annotated:  # bounds the rules enforce (games.rules.core.Range)
            out = self.schema(args[0])
            for mark in tp.__metadata__:
                if isinstance(mark, Range):
                    out = {**out, **({} if mark.low is None else {"minimum": mark.low})}
                    out = {**out, **({} if mark.high is None else {"maximum": mark.high})}
            for mark in tp.__metadata__:  # a new game's bounds, on what a client sends (issue #28, item 14)
                if isinstance(mark, NewGameRange) and self.request:
                    out = {**out, "minimum": mark.low, "maximum": mark.high}
            return out
        if tp is typing.Any:  # any JSON value (e.g. an operator's setup, whose keys are the game's)
            return {}
        if origin is Literal:
            kind = "integer" if all(isinstance(a, int) for a in args) else "string"
            return {"type": kind, "enum": list(args)}
        if tp is bool:
            return {"type": "boolean"}
        if tp is int:
            return {"type": "integer"}
        if tp is float:
            return {"type": "number"}
        if tp is str:
            return {"type": "string"}
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": self.item(args[0])}
        if origin is tuple and args and len(set(args)) == 1:
            return {
                "type": "array",
                "items": self.item(args[0]),
                "minItems": len(args),
                "maxItems": len(args),
            }
        if origin in (list, frozenset, set, Sequence):
            return {"type": "array", "items": self.item(args[0])}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.schema(args[1])}
        if _is_typeddict(tp):
            return ref(self.typeddict(tp))
        raise TypeError(f"no OpenAPI schema for {tp!r} (add it to the ruleset's substitutes)")

    def item(self, tp: Any) -> dict[str, Any]:
        return _nullable(self.schema(tp)) if self.redacted else self.schema(tp)

    def typeddict(self, td: Any) -> str:
        name = self.component_name(td)
        owner = self.owners.setdefault(name, td)
        if owner is not td:
            raise ValueError(f"two TypedDicts make the component {name}: {owner!r} and {td!r}; rename one")
        if name in self.components:
            return name
        self.components[name] = {}  # a placeholder against recursion
        hints = typing.get_type_hints(td, include_extras=True)
        required = [] if self.request else [k for k in hints if k in td.__required_keys__]
        deprecated: dict[str, str] = td.__dict__.get("__deprecated_keys__", {})
        notes: dict[str, str] = td.__dict__.get("__descriptions__", {})  # a key's own description
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {
                key: _deprecated(_described(self.schema(tp), notes.get(key)), deprecated.get(key))
                for key, tp in hints.items()
            },
            "additionalProperties": False,
        }
        if required:
            schema["required"] = required
        doc = _doc(td)
        if doc:
            schema["description"] = doc
        self.components[name] = schema
        return name

    def event(self, cls: Any) -> dict[str, Any]:
        hints = typing.get_type_hints(cls)
        properties: dict[str, Any] = {
            "type": {"type": "string", "enum": [cls.TYPE]},
            "v": {"type": "integer", "description": "The event's schema version.", "example": cls.VERSION},
        }
        redacted = self.sibling(redacted=True)
        for f in dataclasses.fields(cls):
            properties[f.name] = _nullable(_closed(f) or redacted.schema(hints[f.name]))
        extras = self.rt.redaction_extras.get(cls.TYPE, ())
        for name in extras:
            if name in properties:
                raise ValueError(f"{cls.TYPE}: the redaction extra {name!r} is a field")
            properties[name] = {
                "type": "integer",
                "minimum": 0,
                "description": "A count the served form adds while the game runs (the size of what may be "
                "hidden); absent from the record and once the game is over.",
            }
        doc = _doc(cls)
        note = f"Ruleset `{self.rt.name}`. Fields the viewer may not see are null."
        if extras:
            note += " While the game runs, " + ", ".join(f"`{n}`" for n in extras) + " say how many."
        return {
            "type": "object",
            "description": (doc + "\n\n" if doc else "") + note,
            "properties": properties,
            "required": ["type", "v", *[f.name for f in dataclasses.fields(cls) if _always_there(f)]],
            "additionalProperties": False,
        }

    def recorded_command(self, cls: Any) -> dict[str, Any]:
        hints = typing.get_type_hints(cls)
        properties: dict[str, Any] = {"type": {"type": "string", "enum": [cls.TYPE]}}
        for f in dataclasses.fields(cls):
            if f.name == "seat":
                continue
            properties[f.name] = _closed(f) or self.schema(hints[f.name])
            if "description" in f.metadata:
                properties[f.name] = {**properties[f.name], "description": f.metadata["description"]}
        properties["seat"] = {
            "type": "integer",
            "nullable": True,
            "description": "The acting seat; null: the system (start, timers, the creator's tools).",
        }
        doc = _doc(cls)
        return {
            "type": "object",
            "description": (doc + "\n\n" if doc else "")
            + f"Ruleset `{self.rt.name}`, as the record stores it.",
            "properties": properties,
            "required": [
                "type",
                "seat",
                *[f.name for f in dataclasses.fields(cls) if f.name != "seat" and _always_there(f)],
            ],
            "additionalProperties": False,
        }


def _closed(f: dataclasses.Field[Any]) -> dict[str, Any] | None:
    """A string field of a closed set (``metadata["enum"]``: every value it ever held, old records' too):
    its enum."""
    values = f.metadata.get("enum")
    return None if values is None else {"type": "string", "enum": list(values)}


def _always_there(f: dataclasses.Field[Any]) -> bool:
    """Whether every stored form of an event or command has this field: not one with a default (a
    command stored before the field existed reads as the default) nor one an older event version lacks
    (``metadata["absent_before_version"]``): records of old games still validate."""
    return (
        f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
        and "absent_before_version" not in f.metadata
    )


def _union(
    refs: dict[str, str], *, description: str, discriminator: str | None, keyword: str = "oneOf"
) -> dict[str, Any]:
    """``refs``: discriminator value → component name."""
    schema: dict[str, Any] = {
        "description": description,
        keyword: [ref(n) for n in dict.fromkeys(refs.values())],
    }
    if discriminator is not None:
        schema["discriminator"] = {
            "propertyName": discriminator,
            "mapping": {value: REF + name for value, name in refs.items()},
        }
    return schema


def all_types() -> list[tuple[str, RulesetTypes]]:
    return [(slug, rt) for slug in sorted(RULESETS) if (rt := ruleset_types(slug)) is not None]


def _shape(schema: dict[str, Any]) -> str:
    """A component's shape, its description aside (two rulesets' identical shapes become one component)."""
    return json.dumps({k: v for k, v in schema.items() if k != "description"}, sort_keys=True)


def _shared(
    made: list[tuple[str, RulesetTypes, Any, dict[str, Any]]], suffix: str
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, str]]]:
    """The components of ``made`` ((slug, types, class, schema) of each ruleset's events or commands) and each
    ruleset's ``TYPE → component name``. A shape several rulesets give a ``TYPE`` alike is one component:
    named ``{TYPE}{suffix}`` (GoodCritters' names; else, when free, for the table's shared shapes), else
    ``{Package}{TYPE}{suffix}`` after the package defining the class; other shapes ``{prefix}{TYPE}...``."""
    groups: dict[tuple[str, str], list[tuple[str, RulesetTypes, Any, dict[str, Any]]]] = {}
    for entry in made:
        groups.setdefault((entry[2].TYPE, _shape(entry[3])), []).append(entry)
    bare = {cls.TYPE for _slug, rt, cls, _schema in made if not rt.prefix}
    components: dict[str, dict[str, Any]] = {}
    by_slug: dict[str, dict[str, str]] = {}
    for (type_name, _), members in groups.items():
        slugs = [m[0] for m in members]
        if len(slugs) != len(set(slugs)):
            raise ValueError(f"{slugs[0]}: two classes are typed {type_name}")
        _slug, rt, cls, schema = members[0]
        if len(members) == 1:
            name = f"{rt.prefix}{type_name}{suffix}"
        elif any(not m[1].prefix for m in members) or type_name not in bare:
            name = f"{type_name}{suffix}"
        else:
            package = cls.__module__.split(".")[-2].title().replace("_", "")
            name = f"{package}{type_name}{suffix}"
        if len(members) > 1:
            rulesets = ", ".join(f"`{m[1].name}`" for m in members)
            schema = {
                **schema,
                "description": schema["description"].replace(f"Ruleset `{rt.name}`", f"Rulesets {rulesets}"),
            }
        if name in components:
            raise ValueError(f"two schemas are named {name}: give a ruleset a prefix")
        components[name] = schema
        for m in members:
            by_slug.setdefault(m[0], {})[type_name] = name
    return components, by_slug


def _client_order(components: dict[str, Any], names: list[str]) -> list[str]:
    """``names`` (of components with a single-value ``type``) in the order a client should try them: by
    type, the one needing more keys first, so that a client that takes the first alternative whose required
    keys are all there (openapi-python-client) takes the right one."""

    def key(name: str) -> tuple[str, int, str]:
        schema = components[name]
        return schema["properties"]["type"]["enum"][0], -len(schema.get("required", [])), name

    return sorted(dict.fromkeys(names), key=key)


def ruleset_components() -> dict[str, Any]:
    components: dict[str, Any] = {"NullEnum": {"enum": [None]}}
    owners: dict[str, Any] = {}
    views: dict[str, str] = {}
    options: list[str] = []
    options_in: list[str] = []
    details: list[str] = []
    events: list[tuple[str, RulesetTypes, Any, dict[str, Any]]] = []
    commands: list[tuple[str, RulesetTypes, Any, dict[str, Any]]] = []
    for slug, rt in all_types():
        out = Builder(components, rt, owners=owners)
        views[slug] = out.typeddict(rt.view)
        options.append(out.typeddict(rt.options))
        options_in.append(out.sibling(request=True).typeddict(rt.options))
        if rt.error_details is not None:
            details.append(out.typeddict(rt.error_details))
        events += [(slug, rt, cls, out.event(cls)) for cls in rt.events]
        commands += [(slug, rt, cls, out.recorded_command(cls)) for cls in rt.commands]
    unions: dict[str, dict[str, str]] = {"Event": {}, "RecordedCommand": {}}
    for made, suffix, top in ((events, "Event", "Event"), (commands, "CommandRecord", "RecordedCommand")):
        shared, by_slug = _shared(made, suffix)
        for name, schema in shared.items():
            if name in components:
                raise ValueError(f"two schemas are named {name}: give a ruleset a prefix")
            components[name] = schema
        for slug, rt in all_types():
            union = f"{rt.name}{top}"
            if union in components:
                raise ValueError(f"two schemas are named {union}")
            what = (
                "An event of a `{}` game as the viewer may see it"
                if top == "Event"
                else ("A command of a `{}` game as the record stores it (its fields and the acting `seat`)")
            )
            components[union] = _union(
                by_slug[slug],
                description=what.format(slug) + ": one of its types (see `type`).",
                discriminator="type",
            )
            unions[top][slug] = union
    listing = "; ".join(f"`{slug}`: `{name}`" for slug, name in unions["Event"].items())
    components["GameView"] = _union(
        views,
        description="The game as the viewer may see it (the ruleset's view; see `ruleset`): the viewer's "
        "secrets only, everything once the game is over.",
        discriminator="ruleset",
    )
    every_event = [
        n
        for union in unions["Event"].values()
        for n in components[union]["discriminator"]["mapping"].values()
    ]
    components["Event"] = {
        "description": "An event as the viewer may see it, of the game's ruleset (the game's `ruleset`; each "
        f"ruleset's events are a union by `type`: {listing}). Rulesets reuse type names (e.g. `GameStarted`) "
        "with other shapes: read an event as one of its game's ruleset's; in this list, of two shapes of a "
        "type, the one needing more keys comes first.",
        "anyOf": [ref(n) for n in _client_order(components, [n.rsplit("/", 1)[1] for n in every_event])],
    }
    every_command = [
        n.rsplit("/", 1)[1]
        for union in unions["RecordedCommand"].values()
        for n in components[union]["discriminator"]["mapping"].values()
    ]
    components["RecordedCommand"] = {
        "description": "A command as the record stores it, of the game's ruleset ("
        + "; ".join(f"`{slug}`: `{name}`" for slug, name in unions["RecordedCommand"].items())
        + "): `type`, its fields and the acting `seat`. Of two shapes of a type, the one needing more keys "
        "comes first.",
        "anyOf": [ref(n) for n in _client_order(components, every_command)],
    }
    components["GameOptions"] = _union(
        {n: n for n in options},
        description="The game's options in full (every key, defaults included), as its ruleset defines them: "
        + "; ".join(f"`{slug}`: `{name}`" for slug, name in zip(views, options, strict=True))
        + ".",
        discriminator=None,
        keyword="anyOf",
    )
    components["GameOptionsRequest"] = _union(
        {n: n for n in options_in},
        description="Options for a new game, the shape of its `ruleset` ("
        + "; ".join(f"`{slug}`: `{name}`" for slug, name in zip(views, options_in, strict=True))
        + "); missing keys take the defaults. Unknown keys or bad values are refused with 422 "
        "`invalid_options` (`details.key` names the option).",
        discriminator=None,
        keyword="anyOf",
    )
    components["RuleErrorDetails"] = _merged(components, details)
    return components


def _merged(components: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """``RuleErrorDetails``: one object with every key any ruleset's error details may hold (each optional:
    which are there depends on the code), so that a client reads it without narrowing; a key means one thing
    in every ruleset (two shapes of a key are refused here)."""
    properties: dict[str, Any] = {}
    owners: dict[str, list[str]] = {}
    for name in names:
        for key, schema in components[name].get("properties", {}).items():
            if key in properties and _shape(properties[key]) != _shape(schema):
                raise ValueError(f"error details key {key!r} has two shapes: name them apart")
            properties.setdefault(key, schema)
            owners.setdefault(key, []).append(name.removesuffix("ErrorDetails"))
    return {
        "type": "object",
        "description": "What a rule error adds (`details` of a problem): the keys of every game's "
        + ", ".join(f"`{n}`" for n in names)
        + " in one object, each there only with the codes that give it.",
        "properties": {
            key: {
                **schema,
                "description": (schema.get("description", "") + " " if schema.get("description") else "")
                + "In "
                + ", ".join(owners[key])
                + ".",
            }
            if "$ref" not in schema
            else schema
            for key, schema in properties.items()
        },
        "additionalProperties": False,
    }


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Post-processing hook (settings ``SPECTACULAR_SETTINGS``): the components generated from the rulesets'
    types, and the registered games named in the spec's description (the settings name none)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(ruleset_components())
    info = result.setdefault("info", {})
    games = ", ".join(f"{game.name} (`{slug}`)" for slug, game in HOSTED.items())
    info["description"] = info.get("description", "").replace("{games}", games)
    return result
