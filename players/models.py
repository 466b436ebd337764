"""A player is the user model (AUTH_USER_MODEL). API tokens are hand-written (see docs/DECISIONS.md):
several named tokens per player, each stored only as a SHA-256 digest of a high-entropy secret, with a short
non-secret prefix for display."""

from __future__ import annotations

import hashlib
import secrets
from typing import ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models, transaction
from django.db.models.functions import Coalesce
from django.utils import timezone

TOKEN_PREFIX = "gct_"  # noqa: S105 - a public marker, not a secret
"""Every API token starts with this marker (easy to spot in logs and by secret scanners)."""


class Player(AbstractUser):
    display_name = models.CharField(max_length=64, blank=True)

    class Meta:
        db_table = "players_player"

    def __str__(self) -> str:
        return self.username

    @property
    def public_name(self) -> str:
        return self.display_name or self.username


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def active(self) -> ApiTokenQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiToken(models.Model):
    """``gct_<prefix>_<secret>``: the prefix (8 characters) is stored in clear to show which token is which;
    the whole token is stored only as its SHA-256 digest (the secret has 256 bits: a plain hash suffices)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=64)
    prefix = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects: ClassVar[ApiTokenQuerySet] = ApiTokenQuerySet.as_manager()  # type: ignore[assignment]

    class Meta:
        ordering: ClassVar = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({TOKEN_PREFIX}{self.prefix}_…)"

    @classmethod
    def issue(cls, player: Player, name: str, *, keep: ApiToken | None = None) -> tuple[ApiToken, str]:
        """Create a token; returns it with its secret, which is never available again.

        A player has at most ``MAX_TOKENS_PER_PLAYER`` live tokens: issuing one more revokes the least
        recently used (never used: by creation), as a service that signs out the oldest session on a new
        login does, so that logging in always works and nothing piles up without bound; never ``keep``,
        the token the request that asks for a new one came with. Serialized per player (the player's row
        is locked), so concurrent logins cannot overshoot the cap."""
        prefix = secrets.token_hex(4)
        secret = secrets.token_urlsafe(32)
        raw = f"{TOKEN_PREFIX}{prefix}_{secret}"
        cap = max(2, int(settings.MAX_TOKENS_PER_PLAYER))  # room for ``keep`` and the new one
        with transaction.atomic():
            Player.objects.select_for_update().filter(pk=player.pk).values_list("pk", flat=True).first()
            live = cls.objects.active().filter(player=player)
            excess = live.count() - (cap - 1)
            if keep is not None:
                live = live.exclude(pk=keep.pk)
            if excess > 0:
                oldest = live.order_by(
                    Coalesce("last_used_at", "created_at").asc(), "created_at", "id"
                ).values_list("pk", flat=True)[:excess]
                cls.objects.filter(pk__in=list(oldest)).update(revoked_at=timezone.now())
            token = cls.objects.create(player=player, name=name, prefix=prefix, digest=token_digest(raw))
        return token, raw

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None
