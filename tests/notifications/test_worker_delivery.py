"""Webhook delivery by a REAL Celery worker (+ beat) on the test database: enqueued after commit, retried
with backoff after failures, every delivery signed (Standard Webhooks) and sent under one id; a lost enqueue
is picked up by the beat sweeper."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from standardwebhooks import Webhook

from notifications import outbox
from notifications.models import Delivery, DeliveryStatus
from tests.conftest import make_api
from tests.worker import CeleryWorkerProcess

from .helpers import receiver
from .test_webhooks import new_game, register

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def fast_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's beat sweeps deliveries every half second (it reads this when it starts)."""
    monkeypatch.setenv("WEBHOOK_SWEEP_SECONDS", "0.5")


def all_delivered(game_id: int) -> bool:
    rows = list(Delivery.objects.filter(game_id=game_id).values_list("status", flat=True))
    return bool(rows) and all(s == DeliveryStatus.DELIVERED for s in rows)


def test_a_real_worker_delivers_signed_after_retries(
    fast_sweep: None, celery_worker_process: CeleryWorkerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    apis = [make_api() for _ in range(4)]
    with receiver(fail_first=2) as rec:
        hook = register(apis[0], rec.url, ["game.started", "game.your_turn", "game.event"])
        game_id = new_game(apis)
        celery_worker_process.wait_for(lambda: all_delivered(game_id), timeout=30)

        # an enqueue lost after the commit (the process died before it published): the delivery's claim
        # lapses (WEBHOOK_QUEUED_LEASE_SECONDS, made short here, where the claim is made) and the beat
        # sweeper sends it
        lost: list[Any] = []
        monkeypatch.setattr(outbox, "enqueue", lambda ids: lost.extend(ids))
        monkeypatch.setattr(settings, "WEBHOOK_QUEUED_LEASE_SECONDS", 2.0)
        assert apis[0].command(game_id, "send-message", {"text": "hi"}).status_code == 200
        assert lost
        celery_worker_process.wait_for(lambda: all_delivered(game_id), timeout=30)

        deliveries = {d.id: d for d in Delivery.objects.filter(game_id=game_id)}
        bodies: dict[str, bytes] = {}
        for req in rec.requests:
            headers = {k.lower(): v for k, v in req.headers.items()}
            Webhook(hook["secret"]).verify(req.body, headers)
            assert bodies.setdefault(headers["webhook-id"], req.body) == req.body
    assert set(bodies) == set(deliveries)
    assert sorted(r.headers["webhook-id"] for r in rec.accepted()) == sorted(deliveries)
    assert sum(d.attempts for d in deliveries.values()) == len(rec.requests) == len(deliveries) + 2
    assert set(lost) <= set(deliveries)
