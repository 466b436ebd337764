"""Inputs and outputs of the notifications API."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from critters_api.serializers import StrictBooleanField, StrictCharField, StrictSerializer
from games.api.serializers import LegalCommandsField

from .models import EndpointKind, NotificationType


class EventsField(serializers.ListField):
    child = serializers.ChoiceField(choices=NotificationType.choices)

    def to_internal_value(self, data: Any) -> list[str]:
        values = super().to_internal_value(data)
        if not values:
            raise serializers.ValidationError("Subscribe to at least one notification type.")
        return sorted(set(values))


class WebhookCreateInput(StrictSerializer):
    url = serializers.URLField(max_length=2000, help_text="Where to POST (http or https, a public address).")
    events = EventsField(help_text="The notification types to receive.", max_length=10)
    description = StrictCharField(max_length=200, required=False, default="", allow_blank=True)
    kind = serializers.ChoiceField(
        choices=EndpointKind.choices,
        required=False,
        default=EndpointKind.STANDARD,
        help_text="`standard`: signed JSON (Standard Webhooks); `discord`, `slack`, `matrix`: a chat's "
        "incoming webhook URL, posted a short message in its own format.",
    )


class WebhookUpdateInput(StrictSerializer):
    url = serializers.URLField(max_length=2000, required=False)
    events = EventsField(required=False, max_length=10)
    description = StrictCharField(max_length=200, required=False, allow_blank=True)
    enabled = StrictBooleanField(
        required=False,
        help_text="true re-enables a disabled endpoint (its failure record starts over); false pauses it.",
    )


class WebhookOutput(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    description = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=NotificationType.choices))
    kind = serializers.ChoiceField(choices=EndpointKind.choices)
    enabled = serializers.BooleanField()
    consecutive_failures = serializers.IntegerField(
        help_text="Failed attempts since the last 2xx (information: disabling goes by time, `failing_since`)."
    )
    failing_since = serializers.DateTimeField(
        allow_null=True,
        help_text="When the current run of failed attempts began (null while the endpoint answers 2xx). Once "
        "every attempt has failed for the disable window (5 days by default) the endpoint is disabled.",
    )
    retry_at = serializers.DateTimeField(
        allow_null=True,
        help_text="While failing: the next attempt (one delivery is tried; the others wait and follow at "
        "once when it succeeds).",
    )
    last_failure = serializers.CharField(help_text="The last failed attempt's HTTP status or error.")
    last_failure_at = serializers.DateTimeField(allow_null=True, help_text="When the last attempt failed.")
    disabled_at = serializers.DateTimeField(allow_null=True)
    disabled_reason = serializers.CharField(help_text="Why it was disabled (empty while enabled).")
    created_at = serializers.DateTimeField()


class WebhookCreatedOutput(WebhookOutput):
    secret = serializers.CharField(help_text="The signing secret (`whsec_…`): shown in this response only.")


class AttemptOutput(serializers.Serializer):
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    duration_ms = serializers.IntegerField()
    status_code = serializers.IntegerField(
        allow_null=True, help_text="The receiver's HTTP status (null: none)."
    )
    error = serializers.CharField(help_text="Why no answer came (timeout, refused destination…), or empty.")
    ok = serializers.BooleanField()


_REF = "#/components/schemas/"


WEBHOOK_DATA: dict[str, Any] = {
    "type": "object",
    "description": "What happened. Always: `game_id`, `game_name`, `ruleset`, `seat`, `seq`; "
    "`game.event`/`game.started`/`game.deadline_near`: the event (`event_type`, `event`, as you "
    "may see it); `game.your_turn`/`game.deadline_near`: the step and its deadline; "
    "`game.ended`: the scores. `ruleset` is the discriminator a typed client narrows `event` by.",
    "properties": {
        "game_id": {"type": "integer"},
        "game_name": {"type": "string"},
        "ruleset": {"type": "string"},
        "seat": {"type": "integer", "nullable": True},
        "seq": {"type": "integer"},
        "event_type": {"type": "string"},
        "event": {"$ref": _REF + "Event"},
        "step_no": {"type": "integer", "nullable": True},
        "step": {"type": "string"},
        "due_at": {"type": "string", "nullable": True},
        "waiting_on": {"type": "array", "items": {"type": "integer"}},
        "legal_commands": {"type": "array", "items": {"$ref": _REF + "LegalCommandsEnum"}},
        "scores": {"type": "array", "items": {"type": "integer"}, "nullable": True},
    },
    "required": ["game_id", "game_name", "ruleset", "seq"],
}
"""The ``data`` of a webhook's body (the component ``WebhookData``, split by ``ruleset`` into one shape per
game: ``games.api.contract``)."""


@extend_schema_field(
    {
        "type": "object",
        "description": "A webhook's JSON body (docs/NOTIFICATIONS.md), redacted for the endpoint's player.",
        "properties": {
            "type": {"type": "string", "enum": [t.value for t in NotificationType]},
            "timestamp": {"type": "string", "format": "date-time"},
            "data": {"$ref": _REF + "WebhookData"},
        },
        "required": ["type", "timestamp", "data"],
    }
)
class WebhookPayloadField(serializers.JSONField):
    pass


class DeliveryOutput(serializers.Serializer):
    id = serializers.CharField(help_text="The `webhook-id` (the same on every retry).")
    type = serializers.ChoiceField(choices=NotificationType.choices)
    game_id = serializers.IntegerField()
    seq = serializers.IntegerField()
    status = serializers.CharField()
    attempts = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField(allow_null=True)
    payload = WebhookPayloadField(help_text="The body as sent (redacted for you).")
    attempt_log = AttemptOutput(many=True)


class InboxItemOutput(serializers.Serializer):
    game_id = serializers.IntegerField()
    name = serializers.CharField()
    ruleset = serializers.CharField()
    seat = serializers.IntegerField()
    version = serializers.IntegerField()
    step_no = serializers.IntegerField()
    step = serializers.CharField()
    due_at = serializers.DateTimeField(allow_null=True)
    legal_commands = LegalCommandsField(help_text="Command types you may send now.")


class InboxOutput(serializers.Serializer):
    games = InboxItemOutput(many=True)
