"""Celery tasks: they take ids and call the delivery service. Idempotent (late acks, redelivery)."""

from __future__ import annotations

from celery import shared_task

from . import delivery
from .outbox import DELIVER

COUNTDOWN_HORIZON = 300.0
"""Retries due within this many seconds get a short countdown task; later ones are left to the sweeper
(long ETA tasks are not a timer store, see PITFALLS)."""


@shared_task(name=DELIVER, ignore_result=True)
def deliver(delivery_id: str) -> None:
    delay = delivery.attempt_delivery(delivery_id)
    if delay is not None and delay <= COUNTDOWN_HORIZON:
        deliver.apply_async((delivery_id,), countdown=delay)


@shared_task(name="notifications.sweep", ignore_result=True)
def sweep() -> int:
    """Every few seconds (beat): enqueue every due pending delivery (retries, and lost enqueues)."""
    ids = delivery.due_deliveries()
    for delivery_id in ids:
        deliver.delay(delivery_id)
    return len(ids)
