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
import types
import typing
from collections.abc import Sequence
from typing import Any, Literal

from games.rules.core import Range, RulesetTypes
from games.rules.registry import RULESETS

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
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {key: self.schema(tp) for key, tp in hints.items()},
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
            properties[f.name] = _nullable(redacted.schema(hints[f.name]))
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
            properties[f.name] = self.schema(hints[f.name])
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


def ruleset_components() -> dict[str, Any]:
    components: dict[str, Any] = {"NullEnum": {"enum": [None]}}
    owners: dict[str, Any] = {}
    views: dict[str, str] = {}
    options: list[str] = []
    options_in: list[str] = []
    details: list[str] = []
    event_unions: dict[str, str] = {}
    command_unions: dict[str, str] = {}

    def add(name: str, schema: dict[str, Any]) -> None:
        if name in components:
            raise ValueError(f"two schemas are named {name}: give a ruleset a prefix")
        components[name] = schema

    for slug, rt in all_types():
        out = Builder(components, rt, owners=owners)
        views[slug] = out.typeddict(rt.view)
        options.append(out.typeddict(rt.options))
        options_in.append(out.sibling(request=True).typeddict(rt.options))
        if rt.error_details is not None:
            details.append(out.typeddict(rt.error_details))
        event_refs: dict[str, str] = {}
        for cls in rt.events:
            cls = typing.cast(Any, cls)
            name = f"{rt.prefix}{cls.TYPE}Event"
            if cls.TYPE in event_refs:
                raise ValueError(f"{slug}: two event classes are typed {cls.TYPE}")
            add(name, out.event(cls))
            event_refs[cls.TYPE] = name
        command_refs: dict[str, str] = {}
        for cls in rt.commands:
            cls = typing.cast(Any, cls)
            name = f"{rt.prefix}{cls.TYPE}CommandRecord"
            if cls.TYPE in command_refs:
                raise ValueError(f"{slug}: two command classes are typed {cls.TYPE}")
            add(name, out.recorded_command(cls))
            command_refs[cls.TYPE] = name
        event_unions[slug] = f"{rt.name}Event"
        add(
            event_unions[slug],
            _union(
                event_refs,
                description=f"An event of a `{slug}` game as the viewer may see it: one of its event types "
                "(see `type`).",
                discriminator="type",
            ),
        )
        command_unions[slug] = f"{rt.name}RecordedCommand"
        add(
            command_unions[slug],
            _union(
                command_refs,
                description=f"A command of a `{slug}` game as the record stores it: `type`, its fields and "
                "the acting `seat`.",
                discriminator="type",
            ),
        )
    by_ruleset = "; ".join(f"`{slug}`: `{name}`" for slug, name in event_unions.items())
    components["GameView"] = _union(
        views,
        description="The game as the viewer may see it (the ruleset's view; see `ruleset`): the viewer's "
        "secrets only, everything once the game is over.",
        discriminator="ruleset",
    )
    components["Event"] = _union(
        event_unions,
        description="An event as the viewer may see it, of the game's ruleset (the game's `ruleset`: "
        + by_ruleset
        + "), each a union by `type`. Rulesets reuse type names (e.g. `GameStarted`) with other shapes: "
        "read an event as its game's ruleset's.",
        discriminator=None,
        keyword="anyOf",
    )
    components["RecordedCommand"] = _union(
        command_unions,
        description="A command as the record stores it, of the game's ruleset (the game's `ruleset`: "
        + "; ".join(f"`{slug}`: `{name}`" for slug, name in command_unions.items())
        + "), each a union by `type`.",
        discriminator=None,
        keyword="anyOf",
    )
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
    components["RuleErrorDetails"] = _union(
        {n: n for n in details},
        description="What a rule error adds (`details` of a problem).",
        discriminator=None,
        keyword="anyOf",
    )
    return components
