"""REST views: webhook endpoints (CRUD), their deliveries with every attempt, and the cross-game inbox."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from critters_api.citus import one_connection_per_node
from critters_api.problems import Problem
from games.loading import load_state, ruleset_for
from games.models import Game, GameStatus, Seat
from games.selectors import seated_game_ids
from games.services.commands import etag_matches
from players.models import Player

from .delivery import fill_window, validate_url
from .models import Delivery, WebhookEndpoint
from .serializers import (
    DeliveryOutput,
    InboxOutput,
    WebhookCreatedOutput,
    WebhookCreateInput,
    WebhookOutput,
    WebhookUpdateInput,
)

MAX_ENDPOINTS = 10
DELIVERIES_PAGE = 50

WEBHOOK_ID = OpenApiParameter(
    "webhook_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The endpoint's id."
)

_WEBHOOK = {
    "id": 7,
    "url": "https://bot.example.com/critters/hook",
    "description": "my bot",
    "events": ["game.deadline_near", "game.your_turn"],
    "kind": "standard",
    "enabled": True,
    "consecutive_failures": 0,
    "failing_since": None,
    "retry_at": None,
    "last_failure": "",
    "last_failure_at": None,
    "disabled_at": None,
    "disabled_reason": "",
    "created_at": "2026-11-23T12:00:00Z",
}
_DELIVERY = {
    "id": "msg_2f1c0b7e9a5d4c3b8e6f1a2b3c4d5e6f",
    "type": "game.your_turn",
    "game_id": 42,
    "seq": 17,
    "status": "delivered",
    "attempts": 2,
    "next_attempt_at": "2026-11-23T12:01:02Z",
    "created_at": "2026-11-23T12:01:00Z",
    "delivered_at": "2026-11-23T12:01:31Z",
    "payload": {
        "type": "game.your_turn",
        "timestamp": "2026-11-23T12:01:00Z",
        "data": {
            "game_id": 42,
            "game_name": "Friday table",
            "ruleset": "goodcritters",
            "seat": 2,
            "seq": 17,
            "step_no": 4,
            "step": "choose",
            "due_at": "2026-11-23T12:11:00Z",
            "waiting_on": [0, 2, 3],
            "legal_commands": ["ChooseAction", "SendMessage"],
        },
    },
    "attempt_log": [
        {
            "number": 1,
            "started_at": "2026-11-23T12:01:00Z",
            "duration_ms": 10004,
            "status_code": None,
            "error": "ReadTimeout: timed out",
            "ok": False,
        },
        {
            "number": 2,
            "started_at": "2026-11-23T12:01:30Z",
            "duration_ms": 35,
            "status_code": 204,
            "error": "",
            "ok": True,
        },
    ],
}


def _me(request: Request) -> Player:
    user = request.user
    assert isinstance(user, Player)
    return user


def _endpoint_json(ep: WebhookEndpoint) -> dict[str, Any]:
    return {
        "id": ep.pk,
        "url": ep.url,
        "description": ep.description,
        "events": list(ep.events),
        "kind": ep.kind,
        "enabled": ep.enabled,
        "consecutive_failures": ep.consecutive_failures,
        "failing_since": ep.failing_since,
        "retry_at": ep.retry_at if ep.enabled else None,
        "last_failure": ep.last_failure,
        "last_failure_at": ep.last_failure_at,
        "disabled_at": ep.disabled_at,
        "disabled_reason": ep.disabled_reason,
        "created_at": ep.created_at,
    }


def _get_endpoint(request: Request, webhook_id: int) -> WebhookEndpoint:
    ep = WebhookEndpoint.objects.filter(player=_me(request), pk=webhook_id).first()
    if ep is None:
        raise Problem(404, "webhook_not_found", "No such webhook endpoint.")
    return ep


class WebhooksView(APIView):
    permission_classes = [IsAuthenticated]
    problem_statuses = {"POST": (409,)}

    @extend_schema(
        operation_id="me_webhooks_list",
        summary="Your webhook endpoints",
        description="Your endpoints, newest first. Secrets are never listed. A disabled endpoint says why in "
        "`disabled_reason` (the notice): re-enable it with PATCH `enabled: true`.",
        responses={200: WebhookOutput(many=True)},
        examples=[OpenApiExample("endpoints", value=_WEBHOOK, response_only=True)],
        tags=["notifications"],
    )
    def get(self, request: Request) -> Response:
        eps = WebhookEndpoint.objects.filter(player=_me(request))
        return Response(WebhookOutput([_endpoint_json(e) for e in eps], many=True).data)

    @extend_schema(
        operation_id="me_webhooks_create",
        summary="Register a webhook endpoint",
        description="Deliveries are POSTed as JSON, signed per Standard Webhooks (`webhook-id`, "
        "`webhook-timestamp`, `webhook-signature`) with the secret in this response (shown once). Types: "
        "`game.your_turn` (a step opened that waits on you), `game.deadline_near`, `game.started`, "
        "`game.ended`, `game.event` (every event of your games, redacted for your seat). `kind` `discord`, "
        "`slack` or `matrix` makes the URL a chat's incoming webhook: each delivery is one short message in "
        "that chat's JSON (\"alice, it's your turn in *first heist*, deadline in 3 h\" with a link), "
        "unsigned. "
        "Destinations that "
        "resolve to private, loopback or reserved addresses are refused (422 `webhook_destination_refused`). "
        f"At most {MAX_ENDPOINTS} endpoints per player (409 `too_many_webhooks`).",
        request=WebhookCreateInput,
        responses={201: WebhookCreatedOutput},
        examples=[
            OpenApiExample(
                "register",
                value={
                    "url": "https://bot.example.com/critters/hook",
                    "events": ["game.your_turn", "game.deadline_near"],
                    "description": "my bot",
                },
                request_only=True,
            ),
            OpenApiExample(
                "registered",
                value={**_WEBHOOK, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
                response_only=True,
                status_codes=["201"],
            ),
        ],
        tags=["notifications"],
    )
    def post(self, request: Request) -> Response:
        data = WebhookCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        validate_url(v["url"])
        me = _me(request)
        with transaction.atomic():
            Player.objects.select_for_update().filter(pk=me.pk).first()
            if WebhookEndpoint.objects.filter(player=me).count() >= MAX_ENDPOINTS:
                raise Problem(
                    409, "too_many_webhooks", f"At most {MAX_ENDPOINTS} webhook endpoints per player."
                )
            ep = WebhookEndpoint.objects.create(
                player=me, url=v["url"], events=v["events"], description=v["description"], kind=v["kind"]
            )
        out = {**_endpoint_json(ep), "secret": ep.secret}
        return Response(WebhookCreatedOutput(out).data, status=status.HTTP_201_CREATED)


class WebhookDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_webhooks_retrieve",
        summary="A webhook endpoint",
        description="One of your endpoints (without its secret).",
        parameters=[WEBHOOK_ID],
        responses={200: WebhookOutput},
        examples=[OpenApiExample("endpoint", value=_WEBHOOK, response_only=True)],
        tags=["notifications"],
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        return Response(WebhookOutput(_endpoint_json(_get_endpoint(request, webhook_id))).data)

    @extend_schema(
        operation_id="me_webhooks_update",
        summary="Change a webhook endpoint",
        description="Change the URL, the types or the description; `enabled: true` re-enables an endpoint "
        "that was disabled after failing (deliveries cancelled meanwhile are not re-sent: read the game's "
        "event feed to catch up), `enabled: false` pauses it. Re-enabling or a new `url` starts the "
        "endpoint's failure record over (`failing_since`), and deliveries held while it failed go at once.",
        parameters=[WEBHOOK_ID],
        request=WebhookUpdateInput,
        responses={200: WebhookOutput},
        examples=[
            OpenApiExample("re-enable", value={"enabled": True}, request_only=True),
            OpenApiExample("endpoint", value=_WEBHOOK, response_only=True),
        ],
        tags=["notifications"],
    )
    def patch(self, request: Request, webhook_id: int) -> Response:
        data = WebhookUpdateInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        if "url" in v:
            validate_url(v["url"])
        with transaction.atomic():
            one_connection_per_node(connection)  # Citus: the endpoint is written after its deliveries' reads
            ep = _get_endpoint(request, webhook_id)
            ep = WebhookEndpoint.objects.select_for_update().get(pk=ep.pk)
            fresh_start = "url" in v and v["url"] != ep.url
            for name in ("url", "events", "description"):
                if name in v:
                    setattr(ep, name, v[name])
            if "enabled" in v:
                if v["enabled"] and not ep.enabled:
                    ep.disabled_at = None
                    ep.disabled_reason = ""
                    fresh_start = True  # its failure record starts over
                elif not v["enabled"] and ep.enabled:
                    ep.disabled_at = timezone.now()
                    ep.disabled_reason = "Paused by its owner."
                ep.enabled = v["enabled"]
            if fresh_start:  # another receiver, or re-enabled: what was held is tried at once
                ep.consecutive_failures = 0
                ep.failing_since = None
                ep.retry_at = None
            ep.updated_at = timezone.now()
            ep.save()
            if fresh_start and ep.enabled:  # a window now, each success the next (delivery.fill_window)
                fill_window(ep, timezone.now())
        return Response(WebhookOutput(_endpoint_json(ep)).data)

    @extend_schema(
        operation_id="me_webhooks_delete",
        summary="Delete a webhook endpoint",
        description="The endpoint and its delivery records are deleted; nothing more is sent to it.",
        parameters=[WEBHOOK_ID],
        request=None,
        responses={204: None},
        tags=["notifications"],
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        ep = _get_endpoint(request, webhook_id)
        with transaction.atomic():
            one_connection_per_node(connection)  # Citus: its deliveries are deleted before it
            # the endpoint row first, as a delivery attempt locks it (then its deliveries): one lock order
            WebhookEndpoint.objects.select_for_update().filter(pk=ep.pk).first()
            ep.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeliveriesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_webhooks_deliveries_list",
        summary="An endpoint's deliveries and attempts",
        description=f"The endpoint's latest {DELIVERIES_PAGE} deliveries, newest first, each with its "
        "payload (as sent), status (`pending`, `delivered`, `failed` after every retry, `cancelled` when the "
        "endpoint was disabled) and every attempt (time, duration, HTTP status or error). Retries wait "
        "exponentially longer (base * 2^n, capped).",
        parameters=[WEBHOOK_ID],
        responses={200: DeliveryOutput(many=True)},
        examples=[OpenApiExample("deliveries", value=_DELIVERY, response_only=True)],
        tags=["notifications"],
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        ep = _get_endpoint(request, webhook_id)
        rows = Delivery.objects.filter(endpoint=ep).prefetch_related("attempt_log")[:DELIVERIES_PAGE]
        out = [
            {
                "id": d.id,
                "type": d.type,
                "game_id": d.game_id,
                "seq": d.seq,
                "status": d.status,
                "attempts": d.attempts,
                "next_attempt_at": d.next_attempt_at if d.status == "pending" else None,
                "created_at": d.created_at,
                "delivered_at": d.delivered_at,
                "payload": d.payload,
                "attempt_log": [
                    {
                        "number": a.number,
                        "started_at": a.started_at,
                        "duration_ms": a.duration_ms,
                        "status_code": a.status_code,
                        "error": a.error,
                        "ok": a.ok,
                    }
                    for a in d.attempt_log.all()
                ],
            }
            for d in rows
        ]
        return Response(DeliveryOutput(out, many=True).data)


# --------------------------------------------------------------------------------------------------
# inbox
# --------------------------------------------------------------------------------------------------
def _running(player: Player) -> QuerySet[Game]:
    """The player's running games, fetched by primary key (``games.selectors.seated_game_ids``)."""
    return Game.objects.filter(pk__in=seated_game_ids(player), status=GameStatus.RUNNING)


def inbox_etag(player: Player) -> tuple[str, list[tuple[int, int, int]]]:
    """A cheap ETag: the caller's running games and their revisions (no fold needed to compare)."""
    rows = list(_running(player).order_by("pk").values_list("pk", "revision", "version"))
    digest = hashlib.sha256(repr((player.pk, rows)).encode()).hexdigest()[:32]
    return f'"inbox-{digest}"', rows


def inbox(player: Player) -> list[dict[str, Any]]:
    games = list(_running(player).order_by("pk"))
    positions = dict(
        Seat.objects.filter(player=player, game_id__in=[g.pk for g in games])
        .order_by()
        .values_list("game_id", "position")
    )
    out = []
    for game in games:
        seat = positions.get(game.pk)
        if seat is None:
            continue
        rs = ruleset_for(game)
        state = load_state(game, rs)
        waiting = rs.waiting(state)
        if waiting is None or seat not in waiting.seats:
            continue
        out.append(
            {
                "game_id": game.pk,
                "name": game.name,
                "ruleset": game.ruleset,
                "seat": seat,
                "version": game.version,
                "step_no": waiting.step_no,
                "step": waiting.step,
                "due_at": waiting.due_at,
                "legal_commands": rs.legal_commands(state, seat),
            }
        )
    far = timezone.now() + timedelta(days=36500)
    out.sort(key=lambda g: (g["due_at"] or far, g["game_id"]))
    return out


class InboxView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_inbox_retrieve",
        summary="Games waiting on you",
        description="Your running games where you must act now, soonest deadline first (games without a "
        "deadline last), each with the step, its deadline and the commands you may send. Cheap to poll: "
        "send the ETag back as `If-None-Match` to get 304 while none of your games changed.",
        parameters=[
            OpenApiParameter(
                "If-None-Match",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                required=False,
                description="The ETag you have: 304 Not Modified (no body) while none of your games changed.",
            ),
            OpenApiParameter(
                "ETag",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                response=[200, 304],
                description="Changes whenever one of your running games changes.",
            ),
        ],
        responses={
            200: OpenApiResponse(InboxOutput, description="The games waiting on you."),
            304: OpenApiResponse(description="Not modified (your ETag is current)."),
        },
        examples=[
            OpenApiExample(
                "inbox",
                value={
                    "games": [
                        {
                            "game_id": 42,
                            "name": "Friday table",
                            "ruleset": "goodcritters",
                            "seat": 2,
                            "version": 17,
                            "step_no": 4,
                            "step": "choose",
                            "due_at": "2026-11-23T12:11:00Z",
                            "legal_commands": ["ChooseAction", "SendMessage"],
                        }
                    ]
                },
                response_only=True,
                status_codes=["200"],
            )
        ],
        tags=["notifications"],
    )
    def get(self, request: Request) -> Response:
        me = _me(request)
        etag, _rows = inbox_etag(me)
        inm = request.headers.get("If-None-Match")
        headers = {"ETag": etag, "Vary": "Authorization, Cookie", "Cache-Control": "private, no-cache"}
        if inm is not None and etag_matches(inm, etag):
            return Response(status=304, headers=headers)
        return Response(InboxOutput({"games": inbox(me)}).data, headers=headers)
