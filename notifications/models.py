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


class EndpointKind(models.TextChoices):
    """How a webhook endpoint's deliveries are written: the same deliveries (the same pipeline, retries and
    SSRF guard), each kind an adapter that turns the payload into the body the receiver expects."""

    STANDARD = "standard", "Signed JSON (Standard Webhooks)"
    DISCORD = "discord", "A Discord incoming webhook ({content})"
    SLACK = "slack", "A Slack incoming webhook ({text}, mrkdwn)"
    MATRIX = "matrix", "A Matrix hookshot-style generic webhook ({text, html})"


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
    kind = models.CharField(
        max_length=16,
        choices=EndpointKind.choices,
        default=EndpointKind.STANDARD,
        help_text="standard: signed JSON; discord, slack, matrix: a chat's incoming webhook.",
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
    # (no constraint in the database: its delivery's keeps the game, and checking one at the worker's commit
    # would wait for the game row a command holds while that command waits for the endpoint the worker
    # holds: a deadlock)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+", db_constraint=False)
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


# --------------------------------------------------------------------------------------------------
# chat webhooks (a kind of endpoint) and mail (issue #23)
# --------------------------------------------------------------------------------------------------
class MailKind(models.TextChoices):
    """What a player can be told by mail (each can be switched off in the notification settings)."""

    YOUR_TURN = "your_turn", "A step opened that waits on you"
    DEADLINE_NEAR = "deadline_near", "A step that waits on you is close to its deadline (the game's warning)"
    AUTOPILOT = "autopilot", "You were put on autopilot"
    GAME_STARTED = "game_started", "A game you sit in started"
    GAME_ENDED = "game_ended", "A game you sit in ended"
    SEAT_OFFERED = "seat_offered", "A game's creator offered you a seat"
    PRIVATE_MESSAGE = "private_message", "Someone sent you a private message in a game"


class DeliveryMode(models.TextChoices):
    IMMEDIATE = "immediate", "At once (at most one mail a minute: a burst becomes one mail)"
    DIGEST = "digest", "One mail a day, at the hour you pick in your time zone"


def all_mail_kinds() -> list[str]:
    return [k.value for k in MailKind]


class MailSettings(models.Model):
    """A player's address and notification settings (one row per player, made on first use). The address
    is used only once verified, and is never shown to anyone but its owner."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_settings", primary_key=True
    )
    email = models.EmailField(blank=True, default="", help_text="The verified address (empty: none).")
    verified_at = models.DateTimeField(null=True, blank=True)
    pending_email = models.EmailField(blank=True, default="", help_text="An address waiting for its link.")
    pending_digest = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="SHA-256 of the pending address's verification token.",
    )
    pending_since = models.DateTimeField(null=True, blank=True)
    mail_enabled = models.BooleanField(
        default=True, help_text="False after a one-click unsubscribe (or when the player turns mail off)."
    )
    kinds = models.JSONField(default=all_mail_kinds, help_text="The MailKind values mailed.")
    muted_games = models.JSONField(default=list, help_text="Game ids nothing is sent about (any channel).")
    delivery = models.CharField(max_length=16, choices=DeliveryMode.choices, default=DeliveryMode.IMMEDIATE)
    digest_hour = models.PositiveSmallIntegerField(default=8)
    time_zone = models.CharField(max_length=64, default="UTC")
    next_digest_at = models.DateTimeField(null=True, blank=True)
    last_mail_at = models.DateTimeField(
        null=True, blank=True, help_text="When the last notification mail was composed (the pacing bound)."
    )
    last_sent_at = models.DateTimeField(
        null=True, blank=True, help_text="When a notice or digest was last handed to the SMTP server."
    )
    last_sent_mail = models.BigIntegerField(
        null=True, blank=True, help_text="Which mail that was (its own retries do not wait for the interval)."
    )
    last_verification_at = models.DateTimeField(null=True, blank=True)
    flush_at = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="When the player's pending notifications should be looked at next (null: nothing pending).",
    )

    def __str__(self) -> str:
        return f"mail settings of {self.player_id}"


class NoticeStatus(models.TextChoices):
    PENDING = "pending", "Waiting for the next mail (or the digest)"
    MAILED = "mailed", "In a mail"
    DROPPED = "dropped", "No longer true when its mail was composed (the step was over), or muted"


class MailNotice(models.Model):
    """One fact a player is to be told by mail, written in the transaction of the events (or the offer)
    that caused it, already redacted for the player (``data`` holds only what their own view shows)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=32, choices=MailKind.choices)
    key = models.CharField(max_length=64, help_text="What makes it unique in its game (a step, a seq).")
    data = models.JSONField()
    status = models.CharField(max_length=16, choices=NoticeStatus.choices, default=NoticeStatus.PENDING)
    created_at = models.DateTimeField(default=timezone.now)
    mail = models.ForeignKey(
        "OutgoingMail", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering: ClassVar = ["created_at", "id"]
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["player", "game", "kind", "key"], name="mail_notice_unique_cause"
            ),
        ]
        indexes: ClassVar = [models.Index(fields=["player", "status"], name="mail_notice_player_status")]

    def __str__(self) -> str:
        return f"{self.kind} for {self.player_id} in {self.game_id} ({self.status})"


class MailStatus(models.TextChoices):
    PENDING = "pending", "To be sent (or re-sent)"
    SENT = "sent", "Accepted by the SMTP server"
    FAILED = "failed", "Every attempt failed"
    CANCELLED = "cancelled", "The address changed or mail was turned off before it went"


def new_mail_message_id() -> str:
    return f"{uuid.uuid4().hex}"


class OutgoingMail(models.Model):
    """One composed mail: its Message-ID is fixed when it is written, so a retry (or a worker that died after
    the server took it) sends the same message; ``status = sent`` is the sent marker."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    purpose = models.CharField(max_length=16, help_text="verification | notice | digest")
    to = models.EmailField()
    message_id = models.CharField(max_length=100, unique=True, default=new_mail_message_id)
    subject = models.CharField(max_length=300)
    text = models.TextField()
    html = models.TextField()
    unsubscribe_url = models.CharField(max_length=2000, blank=True, default="")
    status = models.CharField(max_length=16, choices=MailStatus.choices, default=MailStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True, default="")
    next_attempt_at = models.DateTimeField(default=timezone.now)
    queued_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["created_at", "id"]
        indexes: ClassVar = [models.Index(fields=["status", "next_attempt_at"], name="outgoing_mail_due")]

    def __str__(self) -> str:
        return f"mail {self.pk} ({self.purpose}) to {self.player_id}: {self.status}"
