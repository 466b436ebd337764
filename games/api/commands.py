"""One typed request serializer and one endpoint per player command, generated from the rulesets' command
dataclasses (so a second ruleset needs no new API code). Supported field types: int, str, bool,
``tuple[int, ...]``, ``tuple[tuple[int, ...], ...]``, ``tuple[str, ...]``, ``Literal[...]`` and ``X | None``.
The acting seat (``seat``) is never a request field: it comes from the authenticated player."""

from __future__ import annotations

import dataclasses
import re
import typing
from functools import cache
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from rest_framework import serializers

from critters_api.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    StrictSerializer,
)

from .bindings import all_player_commands, field_choices, ruleset_types

MAX_INT = 2**31 - 1
MAX_LIST = 200
MAX_TEXT = 2000
MAX_ITEM_TEXT = 100  # a string in a list
MAX_SEATS = 64  # a list per seat


def kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def snake(name: str) -> str:
    return kebab(name).replace("-", "_")


class FullMatch(RegexValidator):
    """A string matches ``regex`` whole (Python's ``$`` would let a trailing newline through; the spec's
    pattern, read by JSON Schema, would not): the pattern the spec declares, checked as it means."""

    def __call__(self, value: Any) -> None:
        regex = typing.cast(re.Pattern[str], self.regex)  # compiled by RegexValidator
        if not isinstance(value, str) or regex.fullmatch(value) is None:
            raise ValidationError(self.message, code=self.code, params={"value": value})


def _field_for(
    tp: Any,
    *,
    choices: tuple[str, ...] | None,
    help_text: str,
    substitutes: Any = None,
    minimum: int = 0,
    pattern: str | None = None,
    **kwargs: Any,
) -> serializers.Field:
    """The API field of ``tp``; ``pattern`` (a str, or each str of a list): a regular expression it matches
    whole (declared in the spec)."""
    substitutes = substitutes or {}
    if tp in substitutes and typing.is_typeddict(substitutes[tp]):
        return _nested(substitutes[tp], help_text=help_text, **kwargs)
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if args and type(None) in args and len(args) == 2:
        inner = args[0] if args[1] is type(None) else args[1]
        return _field_for(
            inner,
            choices=choices,
            help_text=help_text,
            substitutes=substitutes,
            minimum=minimum,
            pattern=pattern,
            allow_null=True,
            **kwargs,
        )
    if origin is typing.Literal:
        return StrictChoiceField(choices=list(args), help_text=help_text, **kwargs)
    if tp is bool:
        return StrictBooleanField(help_text=help_text, **kwargs)
    if tp is int:
        return StrictIntegerField(min_value=minimum, max_value=MAX_INT, help_text=help_text, **kwargs)
    if tp is str:
        if choices:
            return StrictChoiceField(choices=list(choices), help_text=help_text, **kwargs)
        return StrictCharField(
            max_length=MAX_TEXT,
            allow_blank=pattern is None,  # a blank string skips the validators: the pattern decides
            trim_whitespace=False,
            help_text=help_text,
            validators=_matching(pattern),
            **kwargs,
        )
    if (origin is list and len(args) == 1) or (origin is tuple and len(args) == 2 and args[1] is Ellipsis):
        return _list_field(args[0], help_text=help_text, pattern=pattern, **kwargs)
    raise TypeError(f"no API field for {tp!r}")


def _matching(pattern: str | None) -> list[FullMatch]:
    return [] if pattern is None else [FullMatch(pattern, message=f"must match {pattern}")]


def _list_field(item: Any, *, help_text: str, pattern: str | None = None, **kwargs: Any) -> serializers.Field:
    """A list. Its largest valid body must stay well under the request size limit (else a valid request
    would get a 413): a string item is short (an id, a source), a list of lists has one per seat at most.
    ``pattern``: each string item matches it whole."""
    if item is str:
        child: serializers.Field = StrictCharField(
            max_length=MAX_ITEM_TEXT,
            allow_blank=pattern is None,  # a blank string skips the validators: the pattern decides
            trim_whitespace=False,
            validators=_matching(pattern),
        )
        return serializers.ListField(child=child, max_length=MAX_LIST, help_text=help_text, **kwargs)
    nested = typing.get_origin(item) in (list, tuple)
    child = _field_for(item, choices=None, help_text="")
    limit = MAX_SEATS if nested else MAX_LIST
    return serializers.ListField(child=child, max_length=limit, help_text=help_text, **kwargs)


field_for = _field_for  # the API field of a Python type (lobby inputs use it too)


def _nested(td: Any, *, help_text: str, **kwargs: Any) -> serializers.Field:
    """A TypedDict as a nested object (every key optional on input, as the rules read it)."""
    return _nested_class(td)(help_text=help_text, **kwargs)


@cache
def _nested_class(td: Any) -> type[StrictSerializer]:
    attrs: dict[str, Any] = {
        key: _field_for(tp, choices=None, help_text="", required=False)
        for key, tp in typing.get_type_hints(td).items()
    }
    attrs["__doc__"] = (td.__doc__ or "").strip()
    attrs["Meta"] = type("Meta", (), {"ref_name": f"{td.__name__}Input"})
    return type(f"{td.__name__}InputSerializer", (StrictSerializer,), attrs)


def command_serializer(slug: str, cls: type[Any], *, name: str | None = None) -> type[StrictSerializer]:
    """The request serializer of player command ``cls``: every field but ``seat`` and those the system
    alone sets (field metadata ``system``); an int field's ``minimum`` (metadata) defaults to 0; a string
    field's (or string list's) ``pattern`` (metadata), if any, is declared and checked."""
    hints = typing.get_type_hints(cls)
    choices = field_choices(slug)
    rt = ruleset_types(slug)
    substitutes = rt.substitutes if rt is not None else {}
    attrs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name == "seat" or f.metadata.get("system"):
            continue
        kwargs: dict[str, Any] = {}
        if f.default is not dataclasses.MISSING:
            kwargs["required"] = False
        help_text = ""
        if "none" in f.metadata:  # "none" is null in a request, or the rules' own value, as before (#24)
            kwargs["allow_null"] = True
            help_text = f"null for none (`{f.metadata['none']}`, the older form, is read the same)."
            attrs[f"validate_{f.name}"] = _none_as(f.metadata["none"])
        attrs[f.name] = _field_for(
            hints[f.name],
            choices=choices.get((cls.TYPE, f.name)),
            help_text=help_text,
            substitutes=substitutes,
            minimum=f.metadata.get("minimum", 0),
            pattern=f.metadata.get("pattern"),
            **kwargs,
        )
    doc = (cls.__doc__ or "").strip()
    if doc.startswith(f"{cls.__name__}("):  # the dataclass's generated signature, not a description
        doc = ""
    attrs["__doc__"] = doc or f"The {cls.TYPE} command."
    ref = name or f"{cls.TYPE}Command"
    attrs["Meta"] = type("Meta", (), {"ref_name": ref})
    return type(f"{ref}Serializer", (StrictSerializer,), attrs)


def _none_as(value: Any) -> Any:
    """A field's validator that reads null as the rules' own "none" (``metadata["none"]``, e.g. -1): the
    command is built, stored and recorded as it always was."""

    def validate(self: Any, given: Any) -> Any:
        return value if given is None else given

    return validate


def _shape(cls: type[Any]) -> tuple[tuple[str, str], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, repr(hints[f.name])) for f in dataclasses.fields(cls) if f.name != "seat")


def command_specs() -> list[tuple[str, dict[str, type[StrictSerializer]]]]:
    """[(TYPE, {ruleset slug: request serializer})] for every player command of every ruleset. Rulesets
    that give a command name the same shape share one serializer; where two shapes share a name (e.g.
    ``ChooseAction``: GoodCritters' ``action``, Loose Triggers' ``card``), each ruleset has its own, named
    after the ruleset, and the endpoint takes the one of the game's ruleset."""
    out = []
    for type_name, variants in sorted(all_player_commands().items()):
        shapes: dict[tuple[tuple[str, str], ...], list[tuple[str, type[Any]]]] = {}
        for slug, cls in variants:
            shapes.setdefault(_shape(cls), []).append((slug, cls))
        by_slug: dict[str, type[StrictSerializer]] = {}
        for group in shapes.values():
            slug, cls = group[0]
            name = None
            if len(shapes) > 1:
                rt = ruleset_types(slug)
                name = f"{rt.name if rt is not None else slug}{type_name}Command"
            serializer = command_serializer(slug, cls, name=name)
            for member, _cls in group:
                by_slug[member] = serializer
        out.append((type_name, by_slug))
    return out
