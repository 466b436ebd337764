"""The outbox: a receiver of ``games.signals.events_appended`` that writes the webhook deliveries caused by a
batch of events in the SAME transaction as the events (a notification exists exactly when its events do: none
lost, none phantom), and after commit publishes the stream hint and enqueues the deliveries.

Each payload is redacted for the receiving player's seat through the ruleset's ``redact_event`` (the same
function the event feed uses), so a webhook never carries another seat's secrets.

The viewer is decided here, once per batch, from the seat rows as they are when the events are appended
(a hand-over saves the seat's new player before it appends its events), and the payload is stored and
never changes (retries send the same bytes). So a delivery only ever carries what its endpoint's owner
could see at the time of its events, however late it is sent; once the owner no longer holds the seat
nothing more is written for them (endpoints belong to players: revoking a token changes nothing here).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from critters_api.celery import app as celery_app
from critters_api.db.base import prepared_cursor
from games.loading import load_state, ruleset_for
from games.models import Event, Game, Seat, SeatOffer
from games.roster import roster
from games.signals import events_appended

from . import hints, mail
from .models import Delivery, DeliveryStatus, MailSettings, NotificationType, WebhookEndpoint

logger = logging.getLogger(__name__)

DEADLINE_NEAR_EVENT = "DeadlineNear"
"""The event type (added by the deadlines service) behind ``game.deadline_near``: data ``step_no``,
``due_at``, ``seats``."""
GAME_STARTED_EVENT = "GameStarted"
DELIVER = "notifications.deliver"
"""The delivery task's name (registered by :mod:`notifications.tasks`): deliveries are enqueued by name."""


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value, cls=JSONEncoder))


@receiver(events_appended, dispatch_uid="notifications.outbox")
def on_events_appended(sender: Any, game: Game, events: Sequence[Event], **kwargs: Any) -> None:
    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: hints.publish(game_id, version))
    players = [s.player_id for s in roster(game).seats if s.player_id is not None]
    endpoints, mailed = _any_listener(players)  # one cheap statement on every append: most have neither
    ids = write_outbox(game, events) if endpoints else []
    if ids:
        transaction.on_commit(lambda: enqueue(ids))
    to_flush = mail.write_notices(game, events, players) if mailed else []
    if to_flush:
        transaction.on_commit(lambda: mail.enqueue_flush(to_flush))


@receiver(post_save, sender=SeatOffer, dispatch_uid="notifications.seat_offer")
def on_seat_offered(sender: Any, instance: SeatOffer, created: bool, **kwargs: Any) -> None:
    """A seat offered to a player: a mail notice in the offer's transaction."""
    if created:
        mail.notice_offer(instance)


def enqueue(delivery_ids: list[str], countdown: float | None = None) -> None:
    """Hand the deliveries, claimed (``Delivery.queued_until``), to Celery (after commit). A broker outage
    loses nothing: a delivery that could not be enqueued loses its claim, and the sweeper enqueues it."""
    for delivery_id in delivery_ids:
        try:  # the message deliver.apply_async would send (the task ignores its result)
            celery_app.send_task(DELIVER, (delivery_id,), countdown=countdown, ignore_result=True)
        except Exception:
            logger.warning("could not enqueue delivery %s; the sweeper will", delivery_id, exc_info=True)
            try:
                Delivery.objects.filter(pk=delivery_id).update(queued_until=None)
            except Exception:  # the claim lapses by itself (WEBHOOK_QUEUED_LEASE_SECONDS)
                logger.warning("could not release delivery %s", delivery_id, exc_info=True)


def _positions(game: Game, rs: Any, state: Any) -> dict[int, int]:
    """player id → seat position (from the fold: the seats' positions are written after the start batch)."""
    seats = list(
        Seat.objects.filter(game=game, player__isnull=False).values_list("player_id", "uid", "position")
    )
    order = rs.view_for(state, None).get("players")
    by_uid = {uid: i for i, uid in enumerate(order)} if isinstance(order, list) else {}
    out: dict[int, int] = {}
    for player_id, uid, position in seats:
        pos = by_uid.get(uid, position)
        if pos is not None:
            out[player_id] = pos
    return out


_ENDPOINTS_SQL = "SELECT 1 FROM notifications_webhookendpoint WHERE enabled AND player_id = ANY(%s)"
_ANY_LISTENER_SQL = f"SELECT EXISTS ({_ENDPOINTS_SQL}), EXISTS ({mail.SUBSCRIBED_SQL})"


def _any_listener(players: list[int]) -> tuple[bool, bool]:
    """Whether any of ``players`` (a game's seated players) has an enabled webhook endpoint, and whether any
    gets mail: one statement on every append (most games have neither; the full queries and the redaction
    follow only when one does)."""
    if not players:
        return False, False
    with prepared_cursor(connection) as cursor:
        cursor.execute(_ANY_LISTENER_SQL, [players, players])
        row = cursor.fetchone()
    return (bool(row[0]), bool(row[1])) if row else (False, False)


def _any_endpoint(game: Game) -> bool:
    """Whether a seated player of ``game`` has an enabled endpoint."""
    players = [s.player_id for s in roster(game).seats if s.player_id is not None]
    return _any_listener(players)[0]


def write_outbox(game: Game, events: Sequence[Event]) -> list[str]:
    """The deliveries ``events`` (just appended to ``game``, locked) cause; returns their ids."""
    if not events or not _any_endpoint(game):
        return []
    endpoints = list(WebhookEndpoint.objects.filter(enabled=True, player__seats__game=game).distinct())
    muted = set(  # a player who muted the game hears nothing of it on any channel
        MailSettings.objects.filter(
            player_id__in=[e.player_id for e in endpoints], muted_games__contains=[game.pk]
        ).values_list("player_id", flat=True)
    )
    endpoints = [e for e in endpoints if e.player_id not in muted]
    if not endpoints:
        return []
    rs = ruleset_for(game)
    state = load_state(game, rs)
    positions = _positions(game, rs, state)
    terminal = rs.is_terminal(state)
    waiting = rs.waiting(state)
    last = events[-1]
    base = {"game_id": game.pk, "game_name": game.name, "ruleset": game.ruleset}
    rows: list[Delivery] = []

    def add(endpoint: WebhookEndpoint, kind: str, seq: int, created: Any, data: dict[str, Any]) -> None:
        payload = {"type": kind, "timestamp": created, "data": {**base, **data}}
        rows.append(
            Delivery(
                endpoint=endpoint,
                game=game,
                seq=seq,
                type=kind,
                payload=_json(payload),
                created_at=last.created_at,
            )
        )

    already = set(
        Delivery.objects.filter(
            game=game,
            endpoint__in=endpoints,
            type__in=[NotificationType.YOUR_TURN, NotificationType.GAME_ENDED],
        ).values_list("endpoint_id", "type", "payload__data__step_no")
    )
    for endpoint in endpoints:
        seat = positions.get(endpoint.player_id)
        if seat is None:
            continue
        wanted = set(endpoint.events)
        redacted: list[tuple[Event, Any]] = [
            (e, rs.redact_event(rs.event_from_json(e.data), seat, terminal=terminal)) for e in events
        ]
        for row, red in redacted:
            common = {"seat": seat, "seq": row.seq, "event_type": row.type, "event": red}
            if NotificationType.EVENT in wanted:
                add(endpoint, NotificationType.EVENT, row.seq, row.created_at, common)
            if row.type == GAME_STARTED_EVENT and NotificationType.GAME_STARTED in wanted:
                add(endpoint, NotificationType.GAME_STARTED, row.seq, row.created_at, common)
            if row.type == DEADLINE_NEAR_EVENT and NotificationType.DEADLINE_NEAR in wanted:
                seats = row.data.get("seats")
                if seats is None or seat in seats:
                    add(
                        endpoint,
                        NotificationType.DEADLINE_NEAR,
                        row.seq,
                        row.created_at,
                        {**common, "step_no": row.data.get("step_no"), "due_at": row.data.get("due_at")},
                    )
        if (
            NotificationType.YOUR_TURN in wanted
            and waiting is not None
            and seat in waiting.seats
            and (endpoint.pk, NotificationType.YOUR_TURN.value, waiting.step_no) not in already
        ):
            add(
                endpoint,
                NotificationType.YOUR_TURN,
                last.seq,
                last.created_at,
                {
                    "seat": seat,
                    "seq": last.seq,
                    "step_no": waiting.step_no,
                    "step": waiting.step,
                    "due_at": waiting.due_at,
                    "waiting_on": sorted(waiting.seats),
                    "legal_commands": rs.legal_commands(state, seat),
                },
            )
        if (
            terminal
            and NotificationType.GAME_ENDED in wanted
            and not any(a[0] == endpoint.pk and a[1] == NotificationType.GAME_ENDED.value for a in already)
        ):
            scores = rs.scores(state)
            add(
                endpoint,
                NotificationType.GAME_ENDED,
                last.seq,
                last.created_at,
                {"seat": seat, "seq": last.seq, "scores": list(scores) if scores is not None else None},
            )
    return _claimed(rows)


def _claimed(rows: list[Delivery]) -> list[str]:
    """Write the rows; returns those to enqueue now, claimed (``queued_until``): an endpoint that answers
    gets at most its window (``WEBHOOK_ENDPOINT_CONCURRENCY``) held by tasks at once, the rest follow as its
    attempts succeed (``delivery.fill_window``); a failing endpoint gets nothing now (it is probed; what is
    held is sent when it answers again)."""
    if not rows:
        return []
    now = timezone.now()
    endpoints = {r.endpoint_id: r.endpoint for r in rows}
    busy = dict(
        Delivery.objects.filter(
            endpoint_id__in=list(endpoints), status=DeliveryStatus.PENDING, queued_until__gt=now
        )
        .order_by()
        .values("endpoint_id")
        .annotate(n=Count("pk"))
        .values_list("endpoint_id", "n")
    )
    room = {
        pk: (0 if e.failing_since is not None else settings.WEBHOOK_ENDPOINT_CONCURRENCY - busy.get(pk, 0))
        for pk, e in endpoints.items()
    }
    until = now + timedelta(seconds=settings.WEBHOOK_QUEUED_LEASE_SECONDS)
    out: list[str] = []
    for row in rows:
        if room[row.endpoint_id] > 0:
            room[row.endpoint_id] -= 1
            row.queued_until = until
            out.append(row.id)
    Delivery.objects.bulk_create(rows)
    return out
