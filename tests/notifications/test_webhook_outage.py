"""Webhook failure is decided over time, not by a burst (issue 13, item 9), with the REAL Celery worker
(+ beat) on the test database and a real receiver on loopback.

A receiver that fails for a few seconds gets every delivery once afterwards and its endpoint stays enabled;
one that fails for the whole (shrunk) disable window is disabled with a reason its owner can read; while an
endpoint fails, the others are held (one attempt per retry, not one per queued message)."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from standardwebhooks import Webhook

from notifications import delivery as delivery_service
from notifications.models import Delivery, DeliveryStatus, WebhookEndpoint
from tests.conftest import Api, make_api
from tests.worker import CeleryWorkerProcess

from .helpers import Receiver, receiver
from .test_webhooks import drain, new_game, register

BURST = 25
"""Messages sent while the receiver is down: with the game's own events, well over the 20 failures in a row
that disabled an endpoint before."""


@pytest.fixture
def fast_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's beat sweeps every half second (read when it starts); retries start at 0.2 s
    (settings_test)."""
    monkeypatch.setenv("WEBHOOK_SWEEP_SECONDS", "0.5")


@pytest.fixture
def short_disable_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker disables an endpoint after 6 s of nothing but failures (5 days in production)."""
    monkeypatch.setenv("WEBHOOK_DISABLE_AFTER_SECONDS", "6")


def _burst(apis: list[Api], game_id: int) -> None:
    for i in range(BURST):
        r = apis[i % len(apis)].command(game_id, "send-message", {"text": f"message {i}"})
        assert r.status_code == 200, r.content


def _statuses(endpoint_id: int) -> list[str]:
    return list(Delivery.objects.filter(endpoint_id=endpoint_id).values_list("status", flat=True))


def _failed_requests(rec: Receiver) -> int:
    with rec.lock:
        return sum(1 for r in rec.requests if r.answered >= 300)


@pytest.mark.django_db(transaction=True)
def test_a_receiver_down_for_seconds_gets_every_delivery_once_and_stays_enabled(
    fast_sweep: None, celery_worker_process: CeleryWorkerProcess
) -> None:
    apis = [make_api() for _ in range(4)]
    with receiver() as rec:
        rec.fail_for(3.0)
        hook = register(apis[0], rec.url, ["game.started", "game.your_turn", "game.event"])
        game_id = new_game(apis)
        _burst(apis, game_id)
        queued = Delivery.objects.filter(endpoint_id=hook["id"]).count()
        assert queued > 20 + 5

        def all_delivered() -> bool:
            statuses = _statuses(hook["id"])
            return bool(statuses) and all(s == DeliveryStatus.DELIVERED for s in statuses)

        celery_worker_process.wait_for(all_delivered, timeout=60)
        deliveries = {d.id for d in Delivery.objects.filter(endpoint_id=hook["id"])}
        with rec.lock:
            requests = list(rec.requests)
    # the outage was real: the first attempts failed, and it ended while the endpoint was still enabled
    assert any(r.answered == 500 for r in requests)
    ep = apis[0].get(f"/api/v1/me/webhooks/{hook['id']}").json()
    assert ep["enabled"] is True, ep
    assert ep["failing_since"] is None
    assert ep["retry_at"] is None
    assert ep["disabled_reason"] == ""
    # every delivery arrived exactly once (by webhook-id), signed, one body per id
    accepted = [r.headers["webhook-id"] for r in requests if r.answered == 204]
    assert sorted(accepted) == sorted(deliveries)
    bodies: dict[str, bytes] = {}
    for r in requests:
        headers = {k.lower(): v for k, v in r.headers.items()}
        Webhook(hook["secret"]).verify(r.body, headers)
        assert bodies.setdefault(headers["webhook-id"], r.body) == r.body
    # cheap while down: one attempt per retry of the endpoint, not one per queued message at every retry
    failed = sum(1 for r in requests if r.answered == 500)
    assert failed < queued, (failed, queued)


@pytest.mark.django_db(transaction=True)
def test_an_endpoint_failing_for_the_whole_window_is_disabled_and_its_owner_sees_why(
    fast_sweep: None, short_disable_window: None, celery_worker_process: CeleryWorkerProcess
) -> None:
    apis = [make_api() for _ in range(4)]
    with receiver(always_fail=True) as rec:
        hook = register(apis[0], rec.url, ["game.started", "game.your_turn", "game.event"])
        path = f"/api/v1/me/webhooks/{hook['id']}"
        game_id = new_game(apis)
        _burst(apis, game_id)
        first_failure = celery_worker_process.wait_for(lambda: rec.requests)[0].at
        # well inside the window: failing, but not disabled, whatever the number of queued deliveries
        time.sleep(max(0.0, first_failure + 2.0 - time.monotonic()))
        ep = apis[0].get(path).json()
        assert time.monotonic() - first_failure < 6.0, "the check came too late to prove anything"
        assert ep["enabled"] is True, ep
        assert ep["failing_since"] is not None
        assert "503" in ep["last_failure"]
        assert DeliveryStatus.PENDING in _statuses(hook["id"])

        celery_worker_process.wait_for(lambda: not WebhookEndpoint.objects.get(pk=hook["id"]).enabled, 30)
        with rec.lock:
            requests = len(rec.requests)
    ep = apis[0].get(path).json()
    assert ep["enabled"] is False
    assert ep["disabled_at"] is not None
    # not before the whole window failed, by the worker's own clock: the window starts when the first failed
    # attempt started, a little before the receiver saw it (the test's clock once said 5.994 s here)
    failing_for = datetime.fromisoformat(ep["disabled_at"]) - datetime.fromisoformat(ep["failing_since"])
    assert failing_for >= timedelta(seconds=6)
    assert "every attempt failed for" in ep["disabled_reason"]
    assert "HTTP 503" in ep["disabled_reason"]
    statuses = set(_statuses(hook["id"]))
    assert statuses <= {DeliveryStatus.CANCELLED, DeliveryStatus.FAILED}
    listed = apis[0].get(f"{path}/deliveries").json()
    assert {d["status"] for d in listed} <= {"cancelled", "failed"}
    # a few probes over 6 s, not every queued delivery at every retry
    queued = Delivery.objects.filter(endpoint_id=hook["id"]).count()
    assert requests < queued, (requests, queued)


# --------------------------------------------------------------------------------------------------
# the same rules, in-process (the delivery service called as the worker would)
# --------------------------------------------------------------------------------------------------
@pytest.mark.django_db
@override_settings(WEBHOOK_RETRY_BASE_SECONDS=1.0)
def test_a_burst_of_failures_holds_the_endpoint_instead_of_disabling_it() -> None:
    apis = [make_api() for _ in range(4)]
    with receiver(always_fail=True) as rec:
        hook = register(apis[0], rec.url, ["game.started", "game.your_turn", "game.event"])
        game_id = new_game(apis)
        _burst(apis, game_id)
        ids = list(Delivery.objects.filter(endpoint_id=hook["id"]).values_list("pk", flat=True))
        assert len(ids) > 20
        for delivery_id in ids:  # every task of the burst arrives at once
            delivery_service.attempt_delivery(delivery_id)
        assert _failed_requests(rec) == 1  # the first failure holds the others
        ep = WebhookEndpoint.objects.get(pk=hook["id"])
        assert ep.enabled
        assert ep.failing_since is not None
        assert ep.retry_at is not None
        assert Delivery.objects.filter(endpoint=ep, attempts=0).count() == len(ids) - 1
        # the sweeper hands out nothing for a held endpoint, then ONE probe when the hold is over
        assert delivery_service.due_deliveries() == []
        time.sleep(max(0.0, (ep.retry_at - timezone.now()).total_seconds()) + 0.05)
        (probe,) = delivery_service.due_deliveries()
        for delivery_id in ids:
            delivery_service.attempt_delivery(delivery_id)
        assert _failed_requests(rec) == 2
        assert Delivery.objects.get(pk=probe).attempts == 1  # a fresh delivery was tried, not the first again

        rec.always_fail = False
        drain()
    assert set(_statuses(hook["id"])) == {DeliveryStatus.DELIVERED}
    assert WebhookEndpoint.objects.get(pk=hook["id"]).failing_since is None


@pytest.mark.django_db
@override_settings(WEBHOOK_DISABLE_AFTER_SECONDS=1.0)
def test_an_endpoint_that_keeps_failing_is_disabled_with_a_notice_after_the_window() -> None:
    apis = [make_api() for _ in range(4)]
    with receiver(always_fail=True) as rec:
        hook = register(apis[0], rec.url, ["game.started", "game.event"])
        started = time.monotonic()
        new_game(apis)
        drain()
        elapsed = time.monotonic() - started
        probes = _failed_requests(rec)
    assert elapsed >= 1.0
    ep: dict[str, Any] = apis[0].get(f"/api/v1/me/webhooks/{hook['id']}").json()
    assert ep["enabled"] is False
    assert "every attempt failed for" in ep["disabled_reason"]
    assert "HTTP 503" in ep["disabled_reason"]
    assert probes <= 8  # the first failure, then one probe per retry: 0.2, 0.4, 0.8, 1.6 s
    statuses = set(Delivery.objects.values_list("status", flat=True))
    assert statuses <= {DeliveryStatus.FAILED, DeliveryStatus.CANCELLED}
    assert DeliveryStatus.CANCELLED in statuses
    # a disabled endpoint gets nothing new
    before = Delivery.objects.count()
    game2 = new_game([apis[0], make_api(), make_api(), make_api()])
    assert not Delivery.objects.filter(game_id=game2).exists()
    assert Delivery.objects.count() == before
    # re-enabled, its failure record starts over
    r = apis[0].patch(f"/api/v1/me/webhooks/{hook['id']}", {"enabled": True})
    assert r.status_code == 200
    assert r.json()["failing_since"] is None
    assert r.json()["consecutive_failures"] == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("last_failure_hours_ago", "disabled"),
    [(3.0, True), (13.0, False)],
    ids=["probes-kept-failing", "idle-gap-starts-a-new-run"],
)
def test_failing_continuously_means_failed_attempts_without_long_gaps(
    last_failure_hours_ago: float, disabled: bool
) -> None:
    """An endpoint whose run of failures began 6 days ago (past the 5-day window): a failed attempt
    disables it when its attempts kept failing (the last one 3 h ago), but not when nothing was tried for
    longer than two of the longest holds (12 h): that failure starts a new run. Days passing are stood for
    by the endpoint's recorded times."""
    apis = [make_api() for _ in range(4)]
    with receiver(always_fail=True) as rec:
        hook = register(apis[0], rec.url, ["game.started"])
        now = timezone.now()
        WebhookEndpoint.objects.filter(pk=hook["id"]).update(
            failing_since=now - timedelta(days=6),
            last_failure_at=now - timedelta(hours=last_failure_hours_ago),
            retry_at=now - timedelta(seconds=1),
            consecutive_failures=40,
        )
        game_id = new_game(apis)
        (pending,) = Delivery.objects.filter(game_id=game_id)
        delivery_service.attempt_delivery(pending.pk)
        assert len(rec.requests) == 1
    ep = apis[0].get(f"/api/v1/me/webhooks/{hook['id']}").json()
    assert ep["enabled"] is not disabled, ep
    if disabled:
        assert "every attempt failed for 6.0 days" in ep["disabled_reason"]
        assert "41 failed attempts" in ep["disabled_reason"]
    else:
        assert ep["consecutive_failures"] == 1
        since = datetime.fromisoformat(ep["failing_since"].replace("Z", "+00:00"))
        assert since >= now - timedelta(seconds=1)  # a new run, begun by this failure
