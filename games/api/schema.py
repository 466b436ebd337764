"""Schema components for event payloads: one per event type of every ruleset (a single-value ``type`` enum
each, since openapi-python-client has no discriminator support), and ``Event``, a ``oneOf`` of them all.
Generated from the rulesets' event dataclasses. Fields a viewer may not see are null (at any depth)."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from games.rules.registry import RULESETS

from .bindings import event_classes


def _schema_for(tp: Any) -> dict[str, Any]:
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if args and type(None) in args and len(args) == 2:
        inner = args[0] if args[1] is type(None) else args[1]
        return {**_schema_for(inner), "nullable": True}
    if origin is typing.Literal:
        return {"type": "string", "enum": list(args)}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return {"type": "number"}
    if tp is str:
        return {"type": "string"}
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return {"type": "array", "items": {**_schema_for(args[0]), "nullable": True}}
    if origin is tuple:
        return {"type": "array", "items": {}}
    return {"type": "object", "additionalProperties": True}


def event_components() -> dict[str, Any]:
    components: dict[str, Any] = {}
    refs: list[dict[str, str]] = []
    for slug in sorted(RULESETS):
        for cls in event_classes(slug):
            name = f"{cls.TYPE}Event"
            if name in components:
                continue
            hints = typing.get_type_hints(cls)
            properties: dict[str, Any] = {
                "type": {"type": "string", "enum": [cls.TYPE]},
                "v": {
                    "type": "integer",
                    "description": "The event's schema version.",
                    "example": cls.VERSION,
                },
            }
            for f in dataclasses.fields(cls):
                properties[f.name] = {**_schema_for(hints[f.name]), "nullable": True}
            doc = (cls.__doc__ or "").strip()
            if doc.startswith(f"{cls.__name__}("):
                doc = ""
            components[name] = {
                "type": "object",
                "description": (doc + "\n\n" if doc else "")
                + f"Ruleset `{slug}`. Fields the viewer may not see are null.",
                "properties": properties,
                "required": ["type", "v", *[f.name for f in dataclasses.fields(cls)]],
            }
            refs.append({"$ref": f"#/components/schemas/{name}"})
    components["Event"] = {
        "description": "An event as the viewer may see it: one of the event types (see `type`).",
        "oneOf": refs,
    }
    return components
