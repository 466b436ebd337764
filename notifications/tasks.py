"""Celery tasks: they take ids and call the delivery service. Idempotent (late acks, redelivery). They run on
the ``notifications`` queue (``CELERY_TASK_ROUTES``), never in front of a timer."""

from __future__ import annotations

import contextlib

from celery import shared_task

from . import delivery, mail
from .models import Delivery, DeliveryStatus, MailStatus, OutgoingMail
from .outbox import DELIVER


@shared_task(name=DELIVER, ignore_result=True)
def deliver(delivery_id: str) -> None:
    """One attempt (or nothing: held, stale, done). The delivery service enqueues what follows: the next
    deliveries of the endpoint's window after a success, this task again at the endpoint's next probe after
    a failure. A task that fails (the database went away) gives up its claim if it can, so that the sweeper
    enqueues the delivery again without waiting for the claim to lapse."""
    try:
        delivery.attempt_delivery(delivery_id)
    except Exception:
        with contextlib.suppress(Exception):
            Delivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING).update(queued_until=None)
        raise


@shared_task(name="notifications.sweep", ignore_result=True)
def sweep() -> int:
    """Every few seconds (beat): enqueue due deliveries that no task holds (retries past the countdown
    horizon, lost tasks, the probe of a failing endpoint), within each endpoint's window."""
    mails, flushes = mail.sweep()
    return len(delivery.enqueue_due()) + mails + flushes


@shared_task(name=mail.FLUSH, ignore_result=True)
def mail_flush(player_id: int) -> None:
    """Look at a player's pending mail notices: at most one mail within the pacing bound (idempotent)."""
    mail.flush(player_id)


@shared_task(name=mail.SEND, ignore_result=True)
def mail_send(mail_id: int) -> None:
    """One attempt at sending a mail (idempotent: a sent or claimed mail is left alone). A task that fails
    (the database went away) gives up its claim if it can; otherwise the claim lapses and the sweeper
    enqueues it again."""
    try:
        mail.send(mail_id)
    except Exception:
        with contextlib.suppress(Exception):
            OutgoingMail.objects.filter(pk=mail_id, status=MailStatus.PENDING).update(queued_until=None)
        raise
