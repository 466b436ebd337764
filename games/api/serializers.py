"""Lobby inputs and the typed outputs of the games API."""

from __future__ import annotations

import typing
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from critters_api.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    StrictSerializer,
)
from games.api.bindings import ruleset_types
from games.api.commands import field_for
from games.api.move_serializers import ActingOutput, MoveOutput
from games.models import GameStatus
from games.rules.registry import DEFAULT_RULESET, RULESETS
from games.services.lobby import BOT_STRATEGIES


@extend_schema_field({"$ref": "#/components/schemas/GameOptionsRequest"})
class OptionsField(serializers.JSONField):
    """A new game's options: the ruleset's own (``GameOptionsRequest``, generated from its types)."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError("Expected a JSON object.")
        return data


@extend_schema_field({"$ref": "#/components/schemas/GameOptions"})
class OptionsOutputField(serializers.JSONField):
    """A game's options in full (``GameOptions``)."""


class _OperatorSetupBase(StrictSerializer):
    """Operators only: fix the seed and/or the deal and seat order. The game is then marked `fair: false`.
    Besides ``seed`` and ``seat_order``, the keys of the game's own setup (each ruleset's ``Setup`` type):
    a key another ruleset's game does not know is refused with 422 ``invalid_setup``."""

    seed = StrictCharField(
        required=False, min_length=64, max_length=64, help_text="32 bytes as 64 hex digits (else random)."
    )
    seat_order = serializers.ListField(
        child=StrictIntegerField(min_value=0, max_value=63),
        required=False,
        max_length=64,
        help_text="Lobby seat indexes in the order they sit (seat 0 first).",
    )

    def validate_seed(self, value: str) -> str:
        try:
            bytes.fromhex(value)
        except ValueError as exc:
            raise serializers.ValidationError("Not hex.") from exc
        return value


_SEAT_RANGES = {slug: RULESETS[slug].seat_range() for slug in sorted(RULESETS)}
_SEATS_HELP = (
    "How many seats: "
    + ", ".join(f"`{slug}` {low} to {high}" for slug, (low, high) in _SEAT_RANGES.items())
    + ". Others are refused with 422 `invalid_seats`."
)


@extend_schema_field(
    {
        "type": "integer",
        "minimum": min(low for low, _ in _SEAT_RANGES.values()),
        "maximum": max(high for _, high in _SEAT_RANGES.values()),
    }
)
class SeatsField(StrictIntegerField):
    """The ruleset checks its own range (422 ``invalid_seats``); the spec declares the widest one."""


def _setup_fields() -> dict[str, Any]:
    """Every ruleset's setup keys (but the seat order and the seed, given above), typed from its ``Setup``."""
    owners: dict[str, list[str]] = {}
    types: dict[str, Any] = {}
    for slug in sorted(RULESETS):
        rt = ruleset_types(slug)
        if rt is None or rt.setup is None:
            continue
        for key, tp in typing.get_type_hints(rt.setup).items():
            if key in ("seats", "fixed_seed"):
                continue
            owners.setdefault(key, []).append(slug)
            types.setdefault(key, tp)
    return {
        key: field_for(tp, choices=None, help_text=f"Ruleset {', '.join(owners[key])}.", required=False)
        for key, tp in types.items()
    }


OperatorSetupInput = type(
    "OperatorSetupInput",
    (_OperatorSetupBase,),
    {**_setup_fields(), "__doc__": _OperatorSetupBase.__doc__, "__module__": __name__},
)


class GameCreateInput(StrictSerializer):
    ruleset = StrictChoiceField(choices=sorted(RULESETS), default=DEFAULT_RULESET, required=False)
    name = StrictCharField(max_length=100, required=False, allow_blank=True, default="")
    seats = SeatsField(min_value=1, max_value=64, help_text=_SEATS_HELP)
    options = OptionsField(required=False, default=dict)
    allow_spectators = StrictBooleanField(required=False, default=True)
    join = StrictBooleanField(required=False, default=True, help_text="Take seat 0 yourself (default).")
    bots = serializers.ListField(
        child=StrictChoiceField(choices=list(BOT_STRATEGIES)),
        required=False,
        default=list,
        max_length=64,
        help_text="Bot seats to add now (by strategy). When every seat is taken the game starts at once.",
    )
    setup = OperatorSetupInput(required=False, help_text="Operators only.")


class JoinInput(StrictSerializer):
    seat = StrictIntegerField(
        required=False,
        min_value=0,
        max_value=63,
        allow_null=True,
        help_text="A free lobby seat (else the first).",
    )


class BotInput(StrictSerializer):
    strategy = StrictChoiceField(choices=list(BOT_STRATEGIES), default="sensible", required=False)
    seat = StrictIntegerField(required=False, min_value=0, max_value=63, allow_null=True)


class EmptyInput(StrictSerializer):
    """No fields."""


class SeatOutput(serializers.Serializer):
    seat = serializers.IntegerField(help_text="Lobby seat before the start; the game's seat number after it.")
    player = serializers.CharField(allow_null=True, help_text="Username (null for a bot).")
    display_name = serializers.CharField()
    bot = serializers.ChoiceField(choices=list(BOT_STRATEGIES), allow_null=True)


class GameOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    ruleset = serializers.CharField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    creator = serializers.CharField()
    seats = serializers.IntegerField()
    taken = serializers.IntegerField()
    players = SeatOutput(many=True)
    your_seat = serializers.IntegerField(allow_null=True, required=False)
    options = OptionsOutputField()
    allow_spectators = serializers.BooleanField()
    fair = serializers.BooleanField(help_text="False when an operator fixed the seed, deck or seat order.")
    version = serializers.IntegerField(help_text="The number of events in the game's log.")
    waiting_step = serializers.CharField(allow_null=True)
    deadline_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    ended_at = serializers.DateTimeField(allow_null=True)


class GamePageOutput(serializers.Serializer):
    next = serializers.URLField(allow_null=True, help_text="The next page (null on the last).")
    previous = serializers.URLField(allow_null=True)
    results = GameOutput(many=True)


class WaitingOutput(serializers.Serializer):
    """What the game waits on: a view of `acting` (its step, and the seats it marks `waited_on`). It waits on
    nobody in a Loose Triggers Countdown, while anyone may `Aim` there: read `acting` for who may act."""

    step_no = serializers.IntegerField()
    step = serializers.CharField()
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="Seats that still have to act.")
    due_at = serializers.DateTimeField(allow_null=True)
    you = serializers.BooleanField(help_text="Whether the game waits on you.")


@extend_schema_field({"$ref": "#/components/schemas/GameView"})
class ViewField(serializers.JSONField):
    """The ruleset's view (``GameView``: a union by ruleset, generated from each ruleset's types)."""


def command_names() -> list[str]:
    """Every player command name of every ruleset (the values of ``legal_commands``)."""
    from .bindings import all_player_commands

    return sorted(all_player_commands())


class LegalCommandsField(serializers.ListField):
    child = serializers.ChoiceField(choices=command_names())


class PublicHeadOutput(serializers.Serializer):
    """The public hash chain's head (docs/AUDIT.md, "The public chain"): save it to check the game's record
    later (`python -m games.audit.verify RECORD --checkpoint SEQ:HASH`)."""

    seq = serializers.IntegerField(help_text="The last event's number (0: no event yet).")
    hash = serializers.CharField(
        help_text="Its public hash: SHA-256 over what a spectator sees of every event up to `seq` (64 hex "
        "digits; 64 zeros before the first event)."
    )


class ViewerStateOutput(serializers.Serializer):
    game = GameOutput()
    version = serializers.IntegerField()
    public_head = PublicHeadOutput(help_text="The public chain's head at `version`.")
    viewer = serializers.IntegerField(allow_null=True, help_text="Your seat; null for a spectator.")
    state = ViewField()
    legal_commands = LegalCommandsField(help_text="Command types you may send now.")
    waiting = WaitingOutput(allow_null=True)
    acting = ActingOutput(
        allow_null=True, help_text="Who acts now and with what (null before the start and once over)."
    )
    moves = MoveOutput(
        many=True,
        help_text="Your legal commands with their arguments (empty for a spectator, and once over): "
        "`legal_commands` with the values each field may take.",
    )
    over = serializers.BooleanField()
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)


@extend_schema_field({"$ref": "#/components/schemas/Event"})
class EventField(serializers.JSONField):
    pass


@extend_schema_field({"allOf": [{"$ref": "#/components/schemas/RecordedCommand"}], "nullable": True})
class RecordedCommandField(serializers.JSONField):
    pass


class FeedItemOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    event = EventField()
    hash = serializers.CharField(
        allow_null=True, help_text="The event's chain hash (only once the game is over)."
    )
    public_hash = serializers.CharField(
        help_text="The event's public chain hash (over what a spectator sees: served at any time)."
    )
    seal = serializers.CharField(
        allow_null=True,
        help_text="Public chain 2: the event's seal, SHA-256 of its salt and its other facts (unredacted "
        "data, command, command id, actor), which its public hash covers (docs/AUDIT.md); null for a game "
        "under public chain 1.",
    )


class FeedOutput(serializers.Serializer):
    events = FeedItemOutput(many=True)
    next_after = serializers.IntegerField(help_text="Pass as `after` to get the next events.")
    version = serializers.IntegerField()
    more = serializers.BooleanField(help_text="More events are already there (raise `limit` or ask again).")
    over = serializers.BooleanField()
    head_hash = serializers.CharField(
        allow_null=True, help_text="The chain's head (only once the game is over)."
    )
    public_head = PublicHeadOutput(help_text="The public chain's head at `version`.")


class QuerySerializer(serializers.Serializer):
    """Query parameters: an empty value (``?status=``) is refused (400 ``invalid_query``), not taken for
    an absent one."""

    def to_internal_value(self, data: Any) -> Any:
        blank = [str(name) for name in self.fields if name in data and data.get(name) == ""]
        if blank:
            raise serializers.ValidationError({name: ["May not be empty."] for name in blank})
        return super().to_internal_value(data)


class FeedQuery(QuerySerializer):
    after = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**31 - 1)
    limit = serializers.IntegerField(required=False, default=200, min_value=1, max_value=1000)
    wait = serializers.FloatField(required=False, default=0, min_value=0, max_value=30)


class GameListQuery(QuerySerializer):
    status = serializers.ChoiceField(choices=GameStatus.choices, required=False, default=GameStatus.OPEN)
    ruleset = serializers.ChoiceField(choices=sorted(RULESETS), required=False)
    free_seats = serializers.BooleanField(required=False, default=False)


__all__ = ["OpenApiTypes"]
