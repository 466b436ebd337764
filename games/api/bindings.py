"""What the HTTP layer needs to know about each registered ruleset beyond the ``Ruleset`` protocol: its
player command classes and event classes (dataclasses), to generate typed request serializers, one endpoint
per command, and one schema component per event type.

All of it is declared by the game (:class:`games.rules.table.game.Game`; nothing is found by module path):
``types`` (its JSON shapes, with the table's added by the table) and ``field_choices``
(``{(TYPE, field): (choices...)}``, which turns string fields into enums; ``typing.Literal`` fields do that by
themselves).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from games.rules.core import RulesetTypes
from games.rules.registry import RULESETS, game_of


@cache
def ruleset_types(slug: str) -> RulesetTypes | None:
    """The ruleset's JSON shapes as types (the game's and the table's)."""
    found = getattr(RULESETS[slug], "types", None)
    return found if isinstance(found, RulesetTypes) else None


@cache
def player_command_classes(slug: str) -> tuple[type[Any], ...]:
    rt = ruleset_types(slug)
    if rt is not None:
        return tuple(rt.player_commands)
    return tuple(getattr(RULESETS[slug], "player_commands", ()))


@cache
def event_classes(slug: str) -> tuple[type[Any], ...]:
    rt = ruleset_types(slug)
    if rt is not None:
        return tuple(rt.events)
    return tuple(getattr(RULESETS[slug], "event_classes", ()))


@cache
def field_choices(slug: str) -> dict[tuple[str, str], tuple[str, ...]]:
    return dict(game_of(slug).field_choices)


def all_player_commands() -> dict[str, list[tuple[str, type[Any]]]]:
    """Command TYPE → [(ruleset slug, class)] over every registered ruleset."""
    out: dict[str, list[tuple[str, type[Any]]]] = {}
    for slug in RULESETS:
        for cls in player_command_classes(slug):
            out.setdefault(cls.TYPE, []).append((slug, cls))
    return out
