"""The "who acts now" block (``Acting``) and the legal moves with their arguments (``Move``) of a state read
and of every command's answer (issue #24): typed exactly, a field's ``kind`` the discriminator of the
``MoveField`` union (each variant with a single-value enum), no free-form object. The rules fill them
(``games.rules.moves``, ``Table.acting``); docs/CLIENTS.md says how a client uses them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

_SCALAR: dict[str, Any] = {
    "oneOf": [{"type": "integer"}, {"type": "string"}, {"type": "boolean"}],
    "nullable": True,
    "description": "A value as the command's field takes it: an integer (a seat, a card, a slot, -1 for "
    "none), a string (an action, a coin kind, a source) or a boolean; null where the field takes null.",
}


@extend_schema_field(_SCALAR)
class ScalarField(serializers.JSONField):
    """One value of a field (a JSON scalar)."""


def _options(help_text: str) -> serializers.ListField:
    return serializers.ListField(child=ScalarField(), help_text=help_text)


def _kind(kind: str) -> serializers.Field:
    """The variant's discriminator: a string enum of the one value ``kind``."""
    about = f"Always `{kind}`: the variant's discriminator."
    schema = {"type": "string", "enum": [kind], "description": about}
    field_class = extend_schema_field(schema)(type(f"{kind.title()}KindField", (serializers.CharField,), {}))
    return field_class()


class _FieldBase(serializers.Serializer):
    name = serializers.CharField(help_text="The body field's name (the key to send).")
    # (a field's own keys: the serializer's metaclass takes them as declared fields, not as attributes)
    label = serializers.CharField(help_text="What the field is, in a few words for people.")  # type: ignore[assignment]
    required = serializers.BooleanField(  # type: ignore[assignment]
        help_text="Whether the command needs the field (false: it has a default). A client may always "
        "send it."
    )


class MoveFieldChoice(_FieldBase):
    """One value from `options`."""

    kind = _kind("choice")
    options = _options("The values the field may take (at least one).")


class MoveFieldSubset(_FieldBase):
    """A list of `min` to `max` distinct values from `options`, in any order; null too when `nullable`
    (e.g. a message's `to`: null is public)."""

    kind = _kind("subset")
    options = _options("The values the list's items may take.")
    min = serializers.IntegerField(help_text="The fewest items.")
    max = serializers.IntegerField(help_text="The most items.")
    nullable = serializers.BooleanField(help_text="Whether null may be sent instead of a list.")


class MoveFieldMultiset(_FieldBase):
    """A list of `min` to `max` values from `options`, a value as often as wanted, in any order."""

    kind = _kind("multiset")
    options = _options("The values the list's items may take.")
    min = serializers.IntegerField(help_text="The fewest items.")
    max = serializers.IntegerField(help_text="The most items.")


class MoveFieldInteger(_FieldBase):
    """A whole number from `minimum` to `maximum`."""

    kind = _kind("integer")
    minimum = serializers.IntegerField()
    maximum = serializers.IntegerField()


class MoveFieldText(_FieldBase):
    """Free text of `min_length` to `max_length` characters, not only white space."""

    kind = _kind("text")
    min_length = serializers.IntegerField()
    max_length = serializers.IntegerField()


class MoveFieldPartition(_FieldBase):
    """A list of `parts` lists (list `i` for seat `i`) that together hold every value of `items` exactly
    once; a list may be empty (GoodCritters' distribution, R2.2)."""

    kind = _kind("partition")
    items = _options("The values to share out, each exactly once.")
    parts = serializers.IntegerField(help_text="How many lists (one per seat).")


class MoveFieldSequence(_FieldBase):
    """A list of exactly `length` values from `options`, in the order given; a value of `once` at most once,
    any other as often as wanted (Loose Triggers' Grab sources, LT4.2)."""

    kind = _kind("sequence")
    options = _options("The values the list's items may take.")
    length = serializers.IntegerField(help_text="How many items, exactly.")
    once = _options("The options that may appear at most once.")


class MoveFieldCounts(_FieldBase):
    """An object with every key of `keys`, each a count from 0 to its `maximum` (same order as `keys`). The
    counts fields of one move with the same `pool` share the maximum: their counts added up stay within it.
    With `min_weight`, the sum of each count times its `weights` entry is at least `min_weight` (Were-cats'
    coins: `{"penny": 1, "nickel": 0, "dime": 2}`; a cat's meal weighted by each victim's claw, WC2.3)."""

    kind = _kind("counts")
    keys = serializers.ListField(child=serializers.CharField(), help_text="The object's keys.")
    maximum = serializers.ListField(
        child=serializers.IntegerField(), help_text="The most of each key (same order as `keys`)."
    )
    pool = serializers.CharField(
        allow_null=True, help_text="Fields of the move with the same pool draw from one `maximum` together."
    )
    weights = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="Each key's weight (with `min_weight`)."
    )
    min_weight = serializers.IntegerField(
        allow_null=True, help_text="The least weighted sum of the counts (null: no such bound)."
    )


class MoveFieldGroup(serializers.Serializer):
    options = _options("The group's values.")
    count = serializers.IntegerField(help_text="How many distinct values of this group, exactly.")


class MoveFieldGroups(_FieldBase):
    """A list holding exactly `count` distinct values of each group's `options` (the groups do not overlap),
    in any order (GoodCritters: the cards that match a trade's wanted values, one group per value)."""

    kind = _kind("groups")
    groups = MoveFieldGroup(many=True)


FIELD_SERIALIZERS: tuple[type[serializers.Serializer], ...] = (
    MoveFieldChoice,
    MoveFieldSubset,
    MoveFieldMultiset,
    MoveFieldInteger,
    MoveFieldText,
    MoveFieldPartition,
    MoveFieldSequence,
    MoveFieldCounts,
    MoveFieldGroups,
)

MoveField = PolymorphicProxySerializer(
    component_name="MoveField",
    serializers={cls.__name__.removeprefix("MoveField").lower(): cls for cls in FIELD_SERIALIZERS},
    resource_type_field_name="kind",
    many=True,
)


class MoveOutput(serializers.Serializer):
    """A command you may send now, with the values each body field may take: fill every field from what it
    offers and POST `{name: value, ...}` to `commands/{path}`; the rules accept it. Where one field's values
    depend on another's, the command is listed once per value of the field that decides."""

    command = serializers.CharField(help_text="The command's type name.")
    path = serializers.CharField(help_text="POST /api/v1/games/{id}/commands/{path}.")
    fields = MoveField  # type: ignore[assignment]  # a declared field (the metaclass takes it), not .fields


class ActingSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField(
        allow_null=True, help_text="The seat's holder: a username as in `game.players[]` (null for a bot)."
    )
    commands = serializers.ListField(
        child=serializers.CharField(),
        help_text="The step's commands the seat may send now (not those any seat may send at any time while "
        "the game runs: Resign, SendMessage, VotePause, TakeBackSeat). Empty for a seat on autopilot (the "
        "service's bot plays it).",
    )
    waited_on = serializers.BooleanField(
        help_text="The step waits on the seat: it owes a play, or its ready flag is down. A seat may act "
        "without being waited on (Loose Triggers' Countdown: anyone may Aim, nobody must)."
    )
    ready = serializers.BooleanField(
        allow_null=True, help_text="Its ready flag, in a step with ready flags (null in the others)."
    )
    autopilot = serializers.BooleanField(help_text="A bot plays the seat for its absent player.")


class ActingOutput(serializers.Serializer):
    """Who acts now, the same in every game. `waiting`, `state.play.waiting_on` (GoodCritters: its
    seats' flags), Were-cats' `state.turn` and Loose Triggers' `state.pending_seat` are views of it."""

    step = serializers.CharField(allow_null=True, help_text="The step's name (the ruleset's own step names).")
    step_no = serializers.IntegerField(help_text="New for each step (a timer for it carries it).")
    due_at = serializers.DateTimeField(
        allow_null=True, help_text="When the step's time is up (null: no deadline, or paused)."
    )
    paused = serializers.BooleanField()
    pause_until = serializers.DateTimeField(
        allow_null=True, help_text="While paused: when the pause ends by itself (R7.6), else null."
    )
    ready_flags = serializers.BooleanField(help_text="The step closes once every seat in it is ready (R2.4).")
    seats = ActingSeatOutput(many=True, help_text="Every seat that may act in the step now, by seat.")
    you = serializers.BooleanField(help_text="Your seat is among `seats`.")
