"""What the HTTP layer needs to know about each registered ruleset beyond the ``Ruleset`` protocol: its
player command classes and event classes (dataclasses), to generate typed request serializers, one endpoint
per command, and one schema component per event type.

Found by convention: a ruleset object may list them itself (``player_commands``, ``event_classes``); else
``games.rules.<slug>.commands.PLAYER_COMMANDS`` and ``games.rules.<slug>.events.EVENT_CLASSES``. Optional
``FIELD_CHOICES`` (``{(TYPE, field): (choices...)}``) in the commands module turns string fields into enums;
``typing.Literal`` fields do that by themselves.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from games.rules.core import RulesetTypes
from games.rules.registry import RULESETS


def _module_attr(slug: str, module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(f"games.rules.{slug}.{module}"), name)
    except (ImportError, AttributeError):
        return None


@cache
def ruleset_types(slug: str) -> RulesetTypes | None:
    """The ruleset's JSON shapes as types (``types`` on it, else ``games.rules.<slug>.types.TYPES``)."""
    found = getattr(RULESETS[slug], "types", None) or _module_attr(slug, "types", "TYPES")
    return found if isinstance(found, RulesetTypes) else None


@cache
def player_command_classes(slug: str) -> tuple[type[Any], ...]:
    rt = ruleset_types(slug)
    if rt is not None:
        return tuple(rt.player_commands)
    rs = RULESETS[slug]
    classes = getattr(rs, "player_commands", None) or _module_attr(slug, "commands", "PLAYER_COMMANDS") or ()
    return tuple(classes)


@cache
def event_classes(slug: str) -> tuple[type[Any], ...]:
    rt = ruleset_types(slug)
    if rt is not None:
        return tuple(rt.events)
    rs = RULESETS[slug]
    classes = getattr(rs, "event_classes", None) or _module_attr(slug, "events", "EVENT_CLASSES") or ()
    return tuple(classes)


@cache
def field_choices(slug: str) -> dict[tuple[str, str], tuple[str, ...]]:
    found = getattr(RULESETS[slug], "field_choices", None) or _module_attr(slug, "commands", "FIELD_CHOICES")
    return dict(found) if found else {}


def all_player_commands() -> dict[str, list[tuple[str, type[Any]]]]:
    """Command TYPE → [(ruleset slug, class)] over every registered ruleset."""
    out: dict[str, list[tuple[str, type[Any]]]] = {}
    for slug in RULESETS:
        for cls in player_command_classes(slug):
            out.setdefault(cls.TYPE, []).append((slug, cls))
    return out
