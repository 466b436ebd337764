"""One typed request serializer and one endpoint per player command, generated from the rulesets' command
dataclasses (so a second ruleset needs no new API code). Supported field types: int, str, bool,
``tuple[int, ...]``, ``tuple[tuple[int, ...], ...]``, ``tuple[str, ...]``, ``Literal[...]`` and ``X | None``.
The acting seat (``seat``) is never a request field: it comes from the authenticated player."""

from __future__ import annotations

import dataclasses
import re
import typing
from typing import Any

from rest_framework import serializers

from critters_api.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    StrictSerializer,
)

from .bindings import all_player_commands, field_choices

MAX_INT = 2**31 - 1
MAX_LIST = 200
MAX_TEXT = 2000


def kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def snake(name: str) -> str:
    return kebab(name).replace("-", "_")


def _field_for(
    tp: Any, *, choices: tuple[str, ...] | None, help_text: str, **kwargs: Any
) -> serializers.Field:
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if args and type(None) in args and len(args) == 2:
        inner = args[0] if args[1] is type(None) else args[1]
        return _field_for(inner, choices=choices, help_text=help_text, allow_null=True, **kwargs)
    if origin is typing.Literal:
        return StrictChoiceField(choices=list(args), help_text=help_text, **kwargs)
    if tp is bool:
        return StrictBooleanField(help_text=help_text, **kwargs)
    if tp is int:
        return StrictIntegerField(min_value=0, max_value=MAX_INT, help_text=help_text, **kwargs)
    if tp is str:
        if choices:
            return StrictChoiceField(choices=list(choices), help_text=help_text, **kwargs)
        return StrictCharField(
            max_length=MAX_TEXT, allow_blank=True, trim_whitespace=False, help_text=help_text, **kwargs
        )
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        child = _field_for(args[0], choices=None, help_text="")
        return serializers.ListField(child=child, max_length=MAX_LIST, help_text=help_text, **kwargs)
    raise TypeError(f"no API field for {tp!r}")


def command_serializer(slug: str, cls: type[Any]) -> type[StrictSerializer]:
    hints = typing.get_type_hints(cls)
    choices = field_choices(slug)
    attrs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name == "seat":
            continue
        kwargs: dict[str, Any] = {}
        if f.default is not dataclasses.MISSING:
            kwargs["required"] = False
        attrs[f.name] = _field_for(
            hints[f.name], choices=choices.get((cls.TYPE, f.name)), help_text="", **kwargs
        )
    doc = (cls.__doc__ or "").strip()
    if doc.startswith(f"{cls.__name__}("):  # the dataclass's generated signature, not a description
        doc = ""
    attrs["__doc__"] = doc or f"The {cls.TYPE} command."
    attrs["Meta"] = type("Meta", (), {"ref_name": f"{cls.TYPE}Command"})
    return type(f"{cls.TYPE}CommandSerializer", (StrictSerializer,), attrs)


def command_specs() -> list[tuple[str, type[Any], type[StrictSerializer]]]:
    """[(TYPE, dataclass, serializer)] for every player command of every ruleset (the first ruleset's shape
    wins when two rulesets share a command name: they must agree on it)."""
    out = []
    for type_name, variants in sorted(all_player_commands().items()):
        slug, cls = variants[0]
        out.append((type_name, cls, command_serializer(slug, cls)))
    return out
