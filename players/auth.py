"""``Authorization: Bearer gct_…`` authentication (first in DEFAULT_AUTHENTICATION_CLASSES, so a missing
or bad credential is a 401 with a Bearer challenge, never a 403)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

from django.db import connection
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from critters_api import throttling
from critters_api.db.base import prepared_cursor

from .models import TOKEN_PREFIX, ApiToken, Player, token_digest

LAST_USED_RESOLUTION = timedelta(seconds=60)
"""``last_used_at`` is written at most once a minute per token (not one UPDATE per request)."""


# Every API request authenticates: one statement of plain SQL (the ORM would compile a join per request).
_TOKEN_FIELDS = [f.attname for f in ApiToken._meta.concrete_fields]
_PLAYER_FIELDS = [f.attname for f in Player._meta.concrete_fields]
_TOKEN_COLUMNS = ", ".join(
    [f't."{f.column}"' for f in ApiToken._meta.concrete_fields]
    + [f'p."{f.column}"' for f in Player._meta.concrete_fields]
)
_TOKEN_SQL = (
    f"SELECT {_TOKEN_COLUMNS} FROM players_apitoken t JOIN players_player p ON p.id = t.player_id "  # noqa: S608
    "WHERE t.digest = %s AND t.revoked_at IS NULL"
)


def find_token(digest: str) -> ApiToken | None:
    """The live (unrevoked) token with this digest, its player attached; ``None`` if there is none."""
    with prepared_cursor(connection) as cursor:
        cursor.execute(_TOKEN_SQL, [digest])
        row = cursor.fetchone()
    if row is None:
        return None
    n = len(_TOKEN_FIELDS)
    token = ApiToken.from_db(connection.alias, _TOKEN_FIELDS, row[:n])
    token.player = Player.from_db(connection.alias, _PLAYER_FIELDS, row[n:])
    return token


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Player, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        try:
            return self._authenticate(header)
        except exceptions.AuthenticationFailed:
            # failures are counted per client address: over THROTTLE_AUTH_FAILURE_RATE, a 429 instead of
            # the 401 (a failing credential never reaches the per-token or anonymous limits)
            throttling.authentication_failed(request)
            raise

    def _authenticate(self, header: list[bytes]) -> tuple[Player, ApiToken]:
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Invalid Authorization header: expected 'Bearer <token>'.")
        try:
            raw = header[1].decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed("Invalid token.") from exc
        if not raw.startswith(TOKEN_PREFIX) or len(raw) > 200 or "\x00" in raw:
            raise exceptions.AuthenticationFailed("Invalid token.")
        token = self.find(token_digest(raw))
        if token is None or not token.player.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return token.player, token

    def find(self, digest: str) -> ApiToken | None:
        """The live token with this digest (:func:`find_token`)."""
        return find_token(digest)

    def authenticate_header(self, request: Request) -> str:
        return f'{self.keyword} realm="api"'


TOKEN_CACHE_SECONDS = 60.0
"""How long a process keeps a token it read for :class:`GameCheckedTokenAuthentication`."""
TOKEN_CACHE_SIZE = 10_000

_tokens: dict[str, tuple[float, ApiToken]] = {}
_tokens_lock = threading.Lock()


def forget_token(digest: str) -> None:
    """Drop a token from this process's cache (it was found revoked, or its player inactive)."""
    with _tokens_lock:
        _tokens.pop(digest, None)


def forget_tokens() -> None:
    with _tokens_lock:
        _tokens.clear()


class GameCheckedTokenAuthentication(BearerTokenAuthentication):
    """The bearer token, from a per-process cache of the tokens read in the last ``TOKEN_CACHE_SECONDS``
    (no statement of its own), for views that check the token again in the statement that reads their game
    (``credential`` of :func:`games.roster.get_game` and :func:`games.roster.lock_game`, before anything
    else is decided): a token revoked, or a player deactivated, is refused there at once, by every process,
    however recently this one cached it. The player's username and staff flag are taken from that statement
    too. Only the hot per-game views use it (``GameView.token_checked_with_game``); every other view reads
    the token as :class:`BearerTokenAuthentication` does."""

    def find(self, digest: str) -> ApiToken | None:
        now = time.monotonic()
        hit = _tokens.get(digest)
        if hit is not None and hit[0] > now:
            return hit[1]
        token = find_token(digest)
        with _tokens_lock:
            if token is None or not token.player.is_active:  # refused now, and read again next time
                _tokens.pop(digest, None)
                return token
            if len(_tokens) >= TOKEN_CACHE_SIZE:  # tokens seen once: forget the oldest
                for stale in list(_tokens)[: TOKEN_CACHE_SIZE // 10]:
                    _tokens.pop(stale, None)
            _tokens[digest] = (now + TOKEN_CACHE_SECONDS, token)
        return token


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "players.auth.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token from `POST /api/v1/auth/tokens` or `POST /api/v1/me/tokens`.",
        }
