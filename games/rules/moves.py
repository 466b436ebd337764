"""Legal moves with their arguments (issue #24): the shape every game and the table fill, written once.

A :class:`Move` is one command a seat may send now, with one field per body field of that command, each saying
which values the field may take (a :class:`Choice` of values, a :class:`Subset` of them, a whole
:class:`Partition` of cards among seats, ...). A client that fills every field from its options and sends the
body ``{name: value, ...}`` sends a command the rules accept: the fields are computed by the rules, from the
same checks ``decide`` makes, and a property test plays every one (tests/rules/test_moves.py).

Where one field's values depend on another's (a Grab's slots, an accepted trade's cards), the move is listed
once per value of the field that decides (its field a :class:`Choice` of that one value), so that a client
that only picks from the options never sends a refused command. Where a full list would be too large the
field is a typed constraint instead (a :class:`Partition`, :class:`Counts` with a pool and a weight,
:class:`Groups`).

Pure: no Django, no I/O (``games.rules`` is the rules engine).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeAlias

from games.rules.core import JSON

Scalar: TypeAlias = int | str | bool | None


@dataclass(frozen=True, slots=True)
class Choice:
    """One value from ``options`` (ints, strings, booleans or null)."""

    name: str
    label: str
    options: tuple[Scalar, ...]
    required: bool = True
    KIND: ClassVar[str] = "choice"

    def json(self) -> JSON:
        return {"options": list(self.options)}


@dataclass(frozen=True, slots=True)
class Subset:
    """A list of ``min``..``max`` distinct values from ``options`` (any order); ``nullable``: null too."""

    name: str
    label: str
    options: tuple[Scalar, ...]
    min: int
    max: int
    nullable: bool = False
    required: bool = True
    KIND: ClassVar[str] = "subset"

    def json(self) -> JSON:
        return {"options": list(self.options), "min": self.min, "max": self.max, "nullable": self.nullable}


@dataclass(frozen=True, slots=True)
class Multiset:
    """A list of ``min``..``max`` values from ``options``, a value as often as wanted (any order)."""

    name: str
    label: str
    options: tuple[Scalar, ...]
    min: int
    max: int
    required: bool = True
    KIND: ClassVar[str] = "multiset"

    def json(self) -> JSON:
        return {"options": list(self.options), "min": self.min, "max": self.max}


@dataclass(frozen=True, slots=True)
class Integer:
    """A whole number from ``minimum`` to ``maximum``."""

    name: str
    label: str
    minimum: int
    maximum: int
    required: bool = True
    KIND: ClassVar[str] = "integer"

    def json(self) -> JSON:
        return {"minimum": self.minimum, "maximum": self.maximum}


@dataclass(frozen=True, slots=True)
class Text:
    """Free text of ``min_length``..``max_length`` characters."""

    name: str
    label: str
    min_length: int
    max_length: int
    required: bool = True
    KIND: ClassVar[str] = "text"

    def json(self) -> JSON:
        return {"min_length": self.min_length, "max_length": self.max_length}


@dataclass(frozen=True, slots=True)
class Partition:
    """A list of ``parts`` lists (part ``i`` for ``part_labels[i]``, e.g. seat ``i``) that together hold every
    value of ``items`` exactly once (a part may be empty)."""

    name: str
    label: str
    items: tuple[Scalar, ...]
    parts: int
    required: bool = True
    KIND: ClassVar[str] = "partition"

    def json(self) -> JSON:
        return {"items": list(self.items), "parts": self.parts}


@dataclass(frozen=True, slots=True)
class Sequence:
    """A list of exactly ``length`` values from ``options`` in the order given; a value of ``once`` at most
    once, any other as often as wanted."""

    name: str
    label: str
    options: tuple[Scalar, ...]
    length: int
    once: tuple[Scalar, ...] = ()
    required: bool = True
    KIND: ClassVar[str] = "sequence"

    def json(self) -> JSON:
        return {"options": list(self.options), "length": self.length, "once": list(self.once)}


@dataclass(frozen=True, slots=True)
class Counts:
    """An object ``{key: count}`` with every key of ``keys``, count ``key`` from 0 to ``maximum[i]``. The
    fields of one move with the same ``pool`` draw from the same ``maximum`` together (their counts added up
    stay within it). With ``min_weight``, ``sum(count[i] * weights[i])`` is at least ``min_weight``."""

    name: str
    label: str
    keys: tuple[str, ...]
    maximum: tuple[int, ...]
    pool: str | None = None
    weights: tuple[int, ...] | None = None
    min_weight: int | None = None
    required: bool = True
    KIND: ClassVar[str] = "counts"

    def json(self) -> JSON:
        return {
            "keys": list(self.keys),
            "maximum": list(self.maximum),
            "pool": self.pool,
            "weights": None if self.weights is None else list(self.weights),
            "min_weight": self.min_weight,
        }


@dataclass(frozen=True, slots=True)
class Group:
    options: tuple[Scalar, ...]
    count: int


@dataclass(frozen=True, slots=True)
class Groups:
    """A list holding exactly ``count`` distinct values from the ``options`` of each group (the groups do
    not overlap), in any order."""

    name: str
    label: str
    groups: tuple[Group, ...]
    required: bool = True
    KIND: ClassVar[str] = "groups"

    def json(self) -> JSON:
        return {"groups": [{"options": list(g.options), "count": g.count} for g in self.groups]}


Field: TypeAlias = Choice | Subset | Multiset | Integer | Text | Partition | Sequence | Counts | Groups
FIELD_KINDS: Final[tuple[type[Any], ...]] = (
    Choice,
    Subset,
    Multiset,
    Integer,
    Text,
    Partition,
    Sequence,
    Counts,
    Groups,
)


@dataclass(frozen=True, slots=True)
class Move:
    """A command ``command`` (its ``TYPE``) a seat may send now, its body fields' possible values."""

    command: str
    fields: tuple[Field, ...] = ()


@functools.cache
def command_path(command: str) -> str:
    """The command's URL segment: ``POST /api/v1/games/{id}/commands/<path>`` (``DistributeLoot`` →
    ``distribute-loot``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "-", command).lower()


def field_to_json(f: Field) -> JSON:
    out = f.json()
    out["name"] = f.name
    out["kind"] = f.KIND
    out["label"] = f.label
    out["required"] = f.required
    return out


def move_to_json(m: Move) -> JSON:
    return {
        "command": m.command,
        "path": command_path(m.command),
        "fields": [field_to_json(f) for f in m.fields],
    }


def moves_to_json(moves: list[Move]) -> list[JSON]:
    return [move_to_json(m) for m in moves]


__all__ = [
    "FIELD_KINDS",
    "Choice",
    "Counts",
    "Field",
    "Group",
    "Groups",
    "Integer",
    "Move",
    "Multiset",
    "Partition",
    "Scalar",
    "Sequence",
    "Subset",
    "Text",
    "command_path",
    "move_to_json",
    "moves_to_json",
]
