"""The delivery queue, in-process (issue #26, items 3 and 4): a delivery a task holds is never enqueued
again, an endpoint never has more than its window queued, a failing endpoint is probed at least every
``WEBHOOK_PROBE_MAX_SECONDS``, and the first success after an outage makes everything held due and fills the
window, each success enqueueing the next. (The same with real workers: ``test_webhook_backlog.py``.)"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications import delivery as delivery_service
from notifications import outbox
from notifications.models import Delivery, DeliveryStatus, WebhookEndpoint
from tests.conftest import make_api

from .helpers import receiver
from .test_webhooks import new_game, register

pytestmark = pytest.mark.django_db

WINDOW = 3


class Enqueued:
    """Records what would be handed to Celery (instead of the broker)."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def __call__(self, ids: list[str], countdown: float | None = None) -> None:
        self.ids.extend(ids)


@pytest.fixture
def enqueued(monkeypatch: pytest.MonkeyPatch) -> Enqueued:
    recorder = Enqueued()
    monkeypatch.setattr(outbox, "enqueue", recorder)
    monkeypatch.setattr(delivery_service, "enqueue", recorder)
    return recorder


def _burst(game_id: int, apis: list[Any], n: int) -> None:
    for i in range(n):
        r = apis[i % len(apis)].command(game_id, "send-message", {"text": f"message {i}"})
        assert r.status_code == 200, r.content


def _claimed(endpoint_id: int) -> set[str]:
    return set(
        Delivery.objects.filter(
            endpoint_id=endpoint_id, status=DeliveryStatus.PENDING, queued_until__gt=timezone.now()
        ).values_list("pk", flat=True)
    )


@override_settings(WEBHOOK_ENDPOINT_CONCURRENCY=WINDOW)
def test_the_sweeper_never_enqueues_a_queued_delivery_and_keeps_to_the_window(
    enqueued: Enqueued, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    """Issue #26 item 3: the sweeper enqueued again, every 10 s, hundreds of deliveries still in the queue.
    Now: what a task holds is not enqueued again, and an endpoint has at most its window queued."""
    apis = [make_api() for _ in range(4)]
    with receiver() as rec:
        hook = register(apis[0], rec.url, ["game.started", "game.event"])
        with django_capture_on_commit_callbacks(execute=True):
            game_id = new_game(apis)
            _burst(game_id, apis, 10)
        pending = Delivery.objects.filter(endpoint_id=hook["id"], status=DeliveryStatus.PENDING).count()
        assert pending > 3 * WINDOW
        # the outbox handed out the window, no more
        assert len(enqueued.ids) == WINDOW
        assert _claimed(hook["id"]) == set(enqueued.ids)
        # sweeps while those are queued: nothing (before: every due delivery, at every sweep)
        for _ in range(3):
            with django_capture_on_commit_callbacks(execute=True):
                assert delivery_service.enqueue_due() == []
        assert len(enqueued.ids) == WINDOW
        # the tasks run: each success enqueues the next one, never one still held
        for _ in range(2 * WINDOW):
            first = enqueued.ids[len(enqueued.ids) - WINDOW]
            with django_capture_on_commit_callbacks(execute=True):
                delivery_service.attempt_delivery(first)
            assert Delivery.objects.get(pk=first).status == DeliveryStatus.DELIVERED
            assert len(_claimed(hook["id"])) == WINDOW
        assert len(enqueued.ids) == len(set(enqueued.ids)) == 3 * WINDOW
        # a task lost (its claim lapses): the sweeper enqueues that one, once
        lost = enqueued.ids[-1]
        Delivery.objects.filter(pk=lost).update(queued_until=timezone.now() - timedelta(seconds=1))
        with django_capture_on_commit_callbacks(execute=True):
            assert delivery_service.enqueue_due() == [lost]
            assert delivery_service.enqueue_due() == []
        # every claim lapsed (Redis restarted): one sweep fills the window, with a few statements for the
        # endpoint, not a few per pending delivery (it took 10 s a sweep with hundreds pending)
        Delivery.objects.filter(endpoint_id=hook["id"]).update(queued_until=None)
        with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
            assert len(delivery_service.enqueue_due()) == WINDOW
        assert len(queries) <= 10, len(queries)


@override_settings(WEBHOOK_RETRY_BASE_SECONDS=30.0, WEBHOOK_PROBE_MAX_SECONDS=60.0)
def test_a_failing_endpoint_is_probed_at_least_every_minute_however_long_it_was_down() -> None:
    """Issue #26 item 4: after a 13-minute outage the next probe came 192 s after the receiver was back (the
    hold grew with the outage, up to 6 h). Now it is at most WEBHOOK_PROBE_MAX_SECONDS."""
    assert delivery_service.endpoint_hold_seconds(1.0) == 30.0
    assert delivery_service.endpoint_hold_seconds(45.0) == 45.0
    assert delivery_service.endpoint_hold_seconds(13 * 60.0) == 60.0
    assert delivery_service.endpoint_hold_seconds(3 * 86400.0) == 60.0


@override_settings(WEBHOOK_ENDPOINT_CONCURRENCY=WINDOW)
def test_the_first_success_after_an_outage_makes_everything_held_due_and_fills_the_window(
    enqueued: Enqueued, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    """Issue #26 item 4: after the outage, held deliveries (and the failed probes, whatever their own
    backoff) are due at once and go out a window at a time, each success bringing the next, until none
    is left: as fast as the receiver answers."""
    apis = [make_api() for _ in range(4)]
    with receiver(always_fail=True) as rec:
        hook = register(apis[0], rec.url, ["game.started", "game.event"])
        with django_capture_on_commit_callbacks(execute=True):
            game_id = new_game(apis)
            _burst(game_id, apis, 6)
        window = list(enqueued.ids)
        assert len(window) == WINDOW
        enqueued.ids.clear()
        for delivery_id in window:  # the window's tasks: the first fails, the others are held
            with django_capture_on_commit_callbacks(execute=True):
                delivery_service.attempt_delivery(delivery_id)
        endpoint = WebhookEndpoint.objects.get(pk=hook["id"])
        assert endpoint.failing_since is not None
        # while it is down: one task, the failed attempt's, comes back at retry_at and probes; nothing else
        for _ in range(2):
            (task,) = enqueued.ids
            with django_capture_on_commit_callbacks(execute=True):
                assert delivery_service.enqueue_due() == []
            endpoint.refresh_from_db()
            assert endpoint.retry_at is not None
            time.sleep(max(0.0, (endpoint.retry_at - timezone.now()).total_seconds()) + 0.05)
            enqueued.ids.clear()
            with django_capture_on_commit_callbacks(execute=True):
                delivery_service.attempt_delivery(task)
        assert len(rec.requests) == 3
        # a delivery whose own backoff has an hour to run (a probe that failed several times)
        backed_off = Delivery.objects.filter(
            endpoint=endpoint, status=DeliveryStatus.PENDING, attempts=1
        ).first()
        assert backed_off is not None
        Delivery.objects.filter(pk=backed_off.pk).update(
            attempts=4, next_attempt_at=timezone.now() + timedelta(hours=1)
        )
        total = Delivery.objects.filter(endpoint=endpoint).count()

        rec.always_fail = False
        (task,) = enqueued.ids
        endpoint.refresh_from_db()
        assert endpoint.retry_at is not None
        time.sleep(max(0.0, (endpoint.retry_at - timezone.now()).total_seconds()) + 0.05)
        enqueued.ids.clear()
        with django_capture_on_commit_callbacks(execute=True):
            delivery_service.attempt_delivery(task)  # the receiver answers: the window is filled
        assert len(enqueued.ids) == WINDOW
        # the tasks as a worker runs them, one after another: each success brings the next
        done = 0
        while done < len(enqueued.ids):
            with django_capture_on_commit_callbacks(execute=True):
                delivery_service.attempt_delivery(enqueued.ids[done])
            done += 1
            assert len(_claimed(hook["id"])) <= WINDOW
        assert len(enqueued.ids) == len(set(enqueued.ids)) == total - 1
    statuses = set(Delivery.objects.filter(endpoint_id=hook["id"]).values_list("status", flat=True))
    assert statuses == {DeliveryStatus.DELIVERED}, statuses
    assert len(rec.accepted()) == total
