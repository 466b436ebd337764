"""Webhook endpoints (per player), the outbox of deliveries (written in the same transaction as the events
that caused them) and every delivery attempt."""

from __future__ import annotations

import base64
import secrets
import uuid
from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone


class NotificationType(models.TextChoices):
    """What an endpoint subscribes to; the ``type`` of the webhook payload."""

    YOUR_TURN = "game.your_turn", "A step opened that waits on you"
    DEADLINE_NEAR = "game.deadline_near", "A step that waits on you is close to its deadline"
    GAME_STARTED = "game.started", "A game you sit in started"
    GAME_ENDED = "game.ended", "A game you sit in ended"
    EVENT = "game.event", "Every event of your games (redacted for your seat)"


def new_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` + base64 of 32 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def new_message_id() -> str:
    return f"msg_{uuid.uuid4().hex}"


class WebhookEndpoint(models.Model):
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=2000)
    description = models.CharField(max_length=200, blank=True, default="")
    events = models.JSONField(help_text="The notification types this endpoint receives.")
    secret = models.CharField(
        max_length=100,
        default=new_secret,
        help_text="The signing secret (needed in clear to sign; shown to its owner once, at creation).",
    )
    enabled = models.BooleanField(default=True)
    consecutive_failures = models.PositiveIntegerField(
        default=0, help_text="Failed attempts since the last 2xx (information only: disabling goes by time)."
    )
    failing_since = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the current run of failures began (null while the endpoint answers 2xx). The "
        "endpoint is disabled once every attempt has failed for WEBHOOK_DISABLE_AFTER_SECONDS.",
    )
    retry_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="While failing: no attempt to this endpoint before this time (one probe at a time; the "
        "other deliveries are held, not attempted).",
    )
    last_failure = models.CharField(max_length=300, blank=True, default="")
    last_failure_at = models.DateTimeField(null=True, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering: ClassVar = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.player_id}: {self.url}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Waiting to be sent (or re-sent)"
    DELIVERED = "delivered", "The receiver answered 2xx"
    FAILED = "failed", "Every attempt failed"
    CANCELLED = "cancelled", "The endpoint was disabled or deleted before delivery"


class Delivery(models.Model):
    """One notification for one endpoint: its id (``webhook-id``) and payload never change across retries."""

    id = models.CharField(primary_key=True, max_length=40, default=new_message_id)
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveIntegerField(help_text="The seq of the event that caused the notification.")
    type = models.CharField(max_length=32, choices=NotificationType.choices)
    payload = models.JSONField(help_text="The JSON body, already redacted for the endpoint's player.")
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING, db_index=True
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)
    queued_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="While a task for this delivery is queued or running: until when that claim holds "
        "(null: no task holds it). Nothing enqueues a delivery another task holds, and an endpoint has "
        "at most WEBHOOK_ENDPOINT_CONCURRENCY held at once; a claim whose task was lost lapses at this time.",
    )

    class Meta:
        ordering: ClassVar = ["-created_at", "-seq"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["endpoint", "game", "seq", "type"], name="delivery_unique_cause"),
        ]
        indexes: ClassVar = [
            models.Index(fields=["status", "next_attempt_at"]),
            models.Index(fields=["endpoint", "status", "queued_until"], name="delivery_endpoint_queued"),
        ]

    def __str__(self) -> str:
        return f"{self.id} {self.type} → {self.endpoint_id} ({self.status})"


class DeliveryAttempt(models.Model):
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    # the delivery's game, copied: the table is distributed by game on Citus, co-located with its delivery
    # (docs/SCALING.md), so an attempt is written on the shard of its delivery and of the command's game
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True, default="")
    response_excerpt = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering: ClassVar = ["delivery", "number"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["delivery", "number"], name="attempt_unique_number"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}: {self.status_code or self.error}"

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300
