"""REST views of mail notifications: your address (verified by a link), your notification settings, and the
two links a mail carries (confirm the address; one-click unsubscribe, RFC 8058), which work without a login
(the token in the link is the proof) and change nothing on GET (mail scanners follow links)."""

from __future__ import annotations

import base64
import hashlib
import html
import math
import zoneinfo
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, JSONParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from critters_api.problems import Problem
from critters_api.serializers import StrictBooleanField, StrictCharField, StrictSerializer
from games.models import Seat
from players.models import Player

from . import mail
from .models import DeliveryMode, MailKind, MailNotice, MailSettings, MailStatus, NoticeStatus, OutgoingMail


def _me(request: Request) -> Player:
    user = request.user
    assert isinstance(user, Player)
    return user


# --------------------------------------------------------------------------------------------------
# serializers
# --------------------------------------------------------------------------------------------------
class EmailInput(StrictSerializer):
    email = serializers.EmailField(
        max_length=254, help_text="The address to verify (a link is mailed to it)."
    )


class EmailOutput(serializers.Serializer):
    address = serializers.CharField(
        allow_blank=True, help_text="The verified address mail goes to (empty: none yet)."
    )
    verified_at = serializers.DateTimeField(allow_null=True)
    pending_address = serializers.CharField(
        allow_blank=True,
        help_text="An address waiting for its link to be followed (it gets nothing else until then; the "
        "verified address, if any, keeps getting mail meanwhile).",
    )
    pending_since = serializers.DateTimeField(allow_null=True)


class NotificationSettingsOutput(serializers.Serializer):
    mail_enabled = serializers.BooleanField(
        help_text="Mail notifications on (false after a one-click unsubscribe: set it true again to resume)."
    )
    kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=MailKind.choices), help_text="What you are mailed about."
    )
    muted_games = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Games nothing is sent about, on any channel (mail, chat and signed webhooks).",
    )
    delivery = serializers.ChoiceField(choices=DeliveryMode.choices)
    digest_hour = serializers.IntegerField(min_value=0, max_value=23)
    time_zone = serializers.CharField(help_text="An IANA time zone, e.g. `Europe/Berlin`.")
    next_digest_at = serializers.DateTimeField(
        allow_null=True, help_text="When the next digest goes (digest)."
    )
    email = EmailOutput()


class KindsField(serializers.ListField):
    child = serializers.ChoiceField(choices=MailKind.choices)

    def to_internal_value(self, data: Any) -> list[str]:
        # the spec's maxItems counts what is sent (before duplicates are merged): refuse a longer list
        if isinstance(data, list) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return sorted(set(super().to_internal_value(data)))


class NotificationSettingsInput(StrictSerializer):
    mail_enabled = StrictBooleanField(required=False)
    kinds = KindsField(required=False, max_length=len(MailKind), help_text="What to be mailed about.")
    muted_games = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**31 - 1),
        required=False,
        max_length=1000,
        help_text="The whole list of muted games (games you have a seat in).",
    )
    delivery = serializers.ChoiceField(choices=DeliveryMode.choices, required=False)
    digest_hour = serializers.IntegerField(min_value=0, max_value=23, required=False)
    time_zone = StrictCharField(max_length=64, required=False)

    def validate_time_zone(self, value: str) -> str:
        try:
            zoneinfo.ZoneInfo(value)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise serializers.ValidationError("Not an IANA time zone (e.g. Europe/Berlin).") from None
        return value


class TokenInput(StrictSerializer):
    token = StrictCharField(max_length=200, help_text="The token from the mailed link.")


class UnsubscribeInput(serializers.Serializer):
    """RFC 8058's body (``List-Unsubscribe=One-Click``, form-encoded), as mail clients send it."""


UnsubscribeInput._declared_fields["List-Unsubscribe"] = serializers.ChoiceField(
    choices=["One-Click"], required=False, help_text="`One-Click` (RFC 8058)."
)


class UnsubscribedOutput(serializers.Serializer):
    unsubscribed = serializers.BooleanField()
    detail = serializers.CharField()


class VerifiedOutput(serializers.Serializer):
    address = serializers.EmailField()
    verified_at = serializers.DateTimeField()


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------
def _email_json(ms: MailSettings) -> dict[str, Any]:
    return {
        "address": ms.email,
        "verified_at": ms.verified_at,
        "pending_address": ms.pending_email,
        "pending_since": ms.pending_since,
    }


def _settings_json(ms: MailSettings) -> dict[str, Any]:
    return {
        "mail_enabled": ms.mail_enabled,
        "kinds": sorted(ms.kinds or []),
        "muted_games": sorted(ms.muted_games or []),
        "delivery": ms.delivery,
        "digest_hour": ms.digest_hour,
        "time_zone": ms.time_zone,
        "next_digest_at": ms.next_digest_at if ms.delivery == DeliveryMode.DIGEST else None,
        "email": _email_json(ms),
    }


def _cancel_unsent(player_id: int, *, purposes: tuple[str, ...] = ("notice", "digest")) -> None:
    OutgoingMail.objects.filter(player_id=player_id, purpose__in=purposes, status=MailStatus.PENDING).update(
        status=MailStatus.CANCELLED
    )


_EMAIL = {
    "address": "bonnie@example.com",
    "verified_at": "2026-11-23T12:00:00Z",
    "pending_address": "",
    "pending_since": None,
}
_SETTINGS = {
    "mail_enabled": True,
    "kinds": ["deadline_near", "game_ended", "your_turn"],
    "muted_games": [42],
    "delivery": "immediate",
    "digest_hour": 8,
    "time_zone": "Europe/Berlin",
    "next_digest_at": None,
    "email": _EMAIL,
}


# --------------------------------------------------------------------------------------------------
# your address
# --------------------------------------------------------------------------------------------------
class EmailView(APIView):
    permission_classes = [IsAuthenticated]
    problem_statuses = {"PUT": (429,)}

    @extend_schema(
        operation_id="me_email_retrieve",
        summary="Your mail address",
        description="Your verified address and the one waiting for verification, if any. Only you see them.",
        responses={200: EmailOutput},
        examples=[OpenApiExample("address", value=_EMAIL, response_only=True)],
        tags=["notifications"],
    )
    def get(self, request: Request) -> Response:
        return Response(EmailOutput(_email_json(mail.settings_for(_me(request).pk))).data)

    @extend_schema(
        operation_id="me_email_set",
        summary="Set or change your mail address",
        description="Mails a link to the address; nothing else is sent to it until the link is followed "
        "(`POST /api/v1/email/verify`), within `MAIL_VERIFY_HOURS` (48 h). Until then your verified address, "
        "if any, keeps getting your mail. Asking again sends a new link (the old one stops working), at most "
        "one a minute (429 `verification_throttled`). Your own verified address again: nothing is sent.",
        request=EmailInput,
        responses={200: EmailOutput},
        examples=[
            OpenApiExample("set", value={"email": "bonnie@example.com"}, request_only=True),
            OpenApiExample(
                "pending",
                value={
                    **_EMAIL,
                    "pending_address": "bonnie@example.org",
                    "pending_since": "2026-11-24T09:00:00Z",
                },
                response_only=True,
            ),
        ],
        tags=["notifications"],
    )
    def put(self, request: Request) -> Response:
        data = EmailInput(data=request.data)
        data.is_valid(raise_exception=True)
        address = str(data.validated_data["email"]).strip()
        me = _me(request)
        mail.settings_for(me.pk)
        now = timezone.now()
        with transaction.atomic():
            ms = mail.settings_for(me.pk, lock=True)
            if address.lower() == ms.email.lower():
                ms.pending_email, ms.pending_digest, ms.pending_since = "", "", None
                ms.save(update_fields=["pending_email", "pending_digest", "pending_since"])
                _cancel_unsent(me.pk, purposes=("verification",))
                return Response(EmailOutput(_email_json(ms)).data)
            gap = float(settings.MAIL_MIN_INTERVAL_SECONDS)
            if ms.last_verification_at is not None and now < ms.last_verification_at + timedelta(seconds=gap):
                wait = math.ceil((ms.last_verification_at + timedelta(seconds=gap) - now).total_seconds())
                problem = Problem(
                    429, "verification_throttled", f"A link was mailed moments ago: ask again in {wait} s."
                )
                problem.headers["Retry-After"] = str(max(1, wait))
                raise problem
            mail.write_verification(ms, address, now)
        return Response(EmailOutput(_email_json(ms)).data)

    @extend_schema(
        operation_id="me_email_delete",
        summary="Remove your mail address",
        description="Both the verified and the pending address are forgotten; nothing more is "
        "mailed (mail not "
        "yet sent is cancelled).",
        request=None,
        responses={204: None},
        tags=["notifications"],
    )
    def delete(self, request: Request) -> Response:
        me = _me(request)
        mail.settings_for(me.pk)
        with transaction.atomic():
            ms = mail.settings_for(me.pk, lock=True)
            ms.email, ms.verified_at = "", None
            ms.pending_email, ms.pending_digest, ms.pending_since = "", "", None
            ms.save()
            _cancel_unsent(me.pk, purposes=("notice", "digest", "verification"))
            MailNotice.objects.filter(player_id=me.pk, status=NoticeStatus.PENDING).update(
                status=NoticeStatus.DROPPED
            )
        return Response(status=status.HTTP_204_NO_CONTENT)


class NotificationSettingsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_notifications_retrieve",
        summary="Your notification settings",
        description="What you are mailed about (`kinds`), muted games, and delivery: `immediate` "
        "(at most one "
        'mail a minute: a burst becomes one mail listing the games; no "your turn" mail while you have the '
        "game open or acted in it in the last few minutes) or `digest` (one mail a day at `digest_hour` in "
        "`time_zone`).",
        responses={200: NotificationSettingsOutput},
        examples=[OpenApiExample("settings", value=_SETTINGS, response_only=True)],
        tags=["notifications"],
    )
    def get(self, request: Request) -> Response:
        return Response(NotificationSettingsOutput(_settings_json(mail.settings_for(_me(request).pk))).data)

    @extend_schema(
        operation_id="me_notifications_update",
        summary="Change your notification settings",
        description="Only the fields sent change. `muted_games` is the whole list (games you have a seat in: "
        "422 `game_not_yours` otherwise); a muted game is silent on every channel. `mail_enabled: true` "
        "resumes mail after an unsubscribe.",
        request=NotificationSettingsInput,
        responses={200: NotificationSettingsOutput},
        examples=[
            OpenApiExample(
                "digest at 8 in Berlin",
                value={"delivery": "digest", "digest_hour": 8, "time_zone": "Europe/Berlin"},
                request_only=True,
            ),
            OpenApiExample("settings", value=_SETTINGS, response_only=True),
        ],
        tags=["notifications"],
    )
    def patch(self, request: Request) -> Response:
        data = NotificationSettingsInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        me = _me(request)
        if "muted_games" in v:
            wanted = set(v["muted_games"])
            mine = set(Seat.objects.filter(player=me, game_id__in=wanted).values_list("game_id", flat=True))
            if wanted - mine:
                raise Problem(
                    422,
                    "game_not_yours",
                    f"You have no seat in game(s) {sorted(wanted - mine)}: only your games can be muted.",
                )
        mail.settings_for(me.pk)
        now = timezone.now()
        with transaction.atomic():
            ms = mail.settings_for(me.pk, lock=True)
            for name in ("mail_enabled", "kinds", "delivery", "digest_hour", "time_zone"):
                if name in v:
                    setattr(ms, name, v[name])
            if "muted_games" in v:
                ms.muted_games = sorted(set(v["muted_games"]))
            ms.next_digest_at = (
                mail.next_digest_at(ms.digest_hour, ms.time_zone, now)
                if ms.delivery == DeliveryMode.DIGEST
                else None
            )
            ms.flush_at = now  # look at what is pending under the new settings
            ms.save()
            if not ms.mail_enabled:
                _cancel_unsent(me.pk)
        mail.enqueue_flush([me.pk])
        return Response(NotificationSettingsOutput(_settings_json(ms)).data)


# --------------------------------------------------------------------------------------------------
# the links in mails: no login, no side effect on GET
# --------------------------------------------------------------------------------------------------
_PAGE_STYLE = "body{font-family:sans-serif;max-width:40em;margin:2em auto;padding:0 1em}"
# no script at all, the one style by its hash, a form that posts only back here, never framed
PAGE_CSP = (
    "default-src 'none'; style-src 'sha256-"
    + base64.b64encode(hashlib.sha256(_PAGE_STYLE.encode()).digest()).decode()
    + "'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def _page(title: str, body: str, status: int = 200) -> HttpResponse:
    page = (
        f"<!doctype html><html><head><meta charset=utf-8>"
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_PAGE_STYLE}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>"
    )
    response = HttpResponse(page, content_type="text/html; charset=utf-8", status=status)
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    response["Content-Security-Policy"] = PAGE_CSP
    response["X-Content-Type-Options"] = "nosniff"
    return response


TOKEN_PARAM = OpenApiParameter(
    "token", OpenApiTypes.STR, OpenApiParameter.QUERY, required=True, description="The token from the link."
)
LINK_PAGES = {
    (200, "text/html"): OpenApiResponse(OpenApiTypes.STR, description="An HTML page."),
    (400, "text/html"): OpenApiResponse(
        OpenApiTypes.STR, description="An HTML page saying the link is incomplete (no `token`)."
    ),
}


def _incomplete_link(request: Request) -> HttpResponse | None:
    """The page for a link that lost its token (cut by a mail client): a 400 that says so in words."""
    if "token" in request.query_params:
        return None
    return _page("Incomplete link", "<p>This link is incomplete: open the whole link from the mail.</p>", 400)


def _form(action: str, fields: dict[str, str], label: str) -> str:
    inputs = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">' for k, v in fields.items()
    )
    button = f'<button type="submit">{label}</button>'
    return f'<form method="post" action="{html.escape(action)}">{inputs}{button}</form>'


def _wants_html(request: Request) -> bool:
    return request.content_type.startswith("application/x-www-form-urlencoded") and "text/html" in (
        request.headers.get("Accept") or ""
    )


class VerifyEmailView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []
    parser_classes = [JSONParser, FormParser]

    @extend_schema(
        operation_id="email_verify_page",
        summary="The confirmation page of a mailed link",
        description="What the link in a verification mail opens: a page with a button that confirms "
        "the address "
        "(a POST). A GET changes nothing (mail scanners follow links).",
        parameters=[TOKEN_PARAM],
        responses=LINK_PAGES,
        tags=["notifications"],
    )
    def get(self, request: Request) -> HttpResponse:
        incomplete = _incomplete_link(request)
        if incomplete is not None:
            return incomplete
        token = str(request.query_params.get("token", ""))[:200]
        return _page(
            "Confirm your address",
            "<p>Confirm that this address may receive game notifications.</p>"
            + _form(request.path, {"token": token}, "Confirm"),
        )

    @extend_schema(
        operation_id="email_verify",
        summary="Confirm a mail address",
        description="The token from the verification mail (JSON or a form, no login): the pending address "
        "becomes the one mail goes to. An unknown, used, replaced or expired token is 400 "
        "`email_token_invalid`.",
        request={"application/json": TokenInput, "application/x-www-form-urlencoded": TokenInput},
        responses={200: VerifiedOutput},
        examples=[
            OpenApiExample(
                "verify", value={"token": "k3Jp0w-rX2bT0aN9sQ4vYtE8uHc1LmZ6dFgWiOeAyR"}, request_only=True
            ),
            OpenApiExample(
                "verified",
                value={"address": "bonnie@example.com", "verified_at": "2026-11-23T12:00:00Z"},
                response_only=True,
            ),
        ],
        tags=["notifications"],
    )
    def post(self, request: Request) -> Response | HttpResponse:
        data = TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        digest = mail.token_digest(data.validated_data["token"])
        now = timezone.now()
        life = timedelta(hours=float(settings.MAIL_VERIFY_HOURS))
        with transaction.atomic():
            ms = (
                MailSettings.objects.select_for_update()
                .filter(pending_digest=digest)
                .exclude(pending_digest="")
            )
            row = ms.first()
            if row is None or row.pending_since is None or now > row.pending_since + life:
                raise Problem(400, "email_token_invalid", "This link is unknown, used, replaced or expired.")
            row.email, row.verified_at = row.pending_email, now
            row.pending_email, row.pending_digest, row.pending_since = "", "", None
            row.save()
            # mail written for the old address and not sent yet goes to the new one instead
            OutgoingMail.objects.filter(
                player_id=row.player_id, purpose__in=("notice", "digest"), status=MailStatus.PENDING
            ).update(to=row.email)
        if _wants_html(request):
            return _page("Address confirmed", "<p>Game notifications will be mailed to this address.</p>")
        return Response(VerifiedOutput({"address": row.email, "verified_at": row.verified_at}).data)


class UnsubscribeView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []
    parser_classes = [FormParser, JSONParser]

    @extend_schema(
        operation_id="email_unsubscribe_page",
        summary="The unsubscribe page of a mail",
        description="The `List-Unsubscribe` link opened in a browser: a page with a button (a POST). A GET "
        "changes nothing.",
        parameters=[TOKEN_PARAM],
        responses=LINK_PAGES,
        tags=["notifications"],
    )
    def get(self, request: Request) -> HttpResponse:
        incomplete = _incomplete_link(request)
        if incomplete is not None:
            return incomplete
        return _page(
            "Unsubscribe",
            "<p>Stop all notification mail to this address?</p>"
            + _form(request.get_full_path(), {"List-Unsubscribe": "One-Click"}, "Unsubscribe"),
        )

    @extend_schema(
        operation_id="email_unsubscribe",
        summary="One-click unsubscribe (RFC 8058)",
        description="The POST a mail client sends for `List-Unsubscribe-Post: "
        "List-Unsubscribe=One-Click`, with "
        "the token of the mail's `List-Unsubscribe` URL, without a login: mail notifications are turned off "
        "(`mail_enabled: false`) and mail not yet sent is cancelled. Doing it twice is fine. A bad "
        "token is 400 "
        "`email_token_invalid`.",
        parameters=[TOKEN_PARAM],
        request={"application/x-www-form-urlencoded": UnsubscribeInput, "application/json": UnsubscribeInput},
        responses={200: UnsubscribedOutput},
        examples=[
            OpenApiExample(
                "unsubscribed",
                value={"unsubscribed": True, "detail": "No more notification mail will be sent."},
                response_only=True,
            )
        ],
        tags=["notifications"],
    )
    def post(self, request: Request) -> Response | HttpResponse:
        player_id = mail.player_of_unsubscribe_token(str(request.query_params.get("token", ""))[:500])
        if player_id is None or not Player.objects.filter(pk=player_id).exists():
            raise Problem(400, "email_token_invalid", "This link is unknown or damaged.")
        mail.settings_for(player_id)
        with transaction.atomic():
            ms = mail.settings_for(player_id, lock=True)
            ms.mail_enabled = False
            ms.flush_at = None
            ms.save(update_fields=["mail_enabled", "flush_at"])
            _cancel_unsent(player_id)
            MailNotice.objects.filter(player_id=player_id, status=NoticeStatus.PENDING).update(
                status=NoticeStatus.DROPPED
            )
        if _wants_html(request):
            return _page("Unsubscribed", "<p>No more notification mail will be sent.</p>")
        return Response({"unsubscribed": True, "detail": "No more notification mail will be sent."})
