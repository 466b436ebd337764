"""Celery tasks: another interface to the services. Each takes ids, calls one service, and is idempotent
(it carries the game and the step it was made for, and is a no-op when stale), because Celery with Redis
delivers at least once (``acks_late``). See :mod:`games.deadlines` (a timer task that finds its timer due
sweeps every due timer of its kind). The timer and bot tasks are published by name
(:mod:`games.services.followups`, which names them)."""

from __future__ import annotations

import logging

from celery import shared_task

from . import deadlines
from .services import bots
from .services.followups import EXPIRE_DEADLINE, PLAY_BOTS, WARN_DEADLINE

logger = logging.getLogger(__name__)


@shared_task(name="games.tasks.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> dict[str, int]:
    """On the beat: claim and apply every due deadline, warning and overdue bot turn."""
    report = deadlines.sweep()
    counts = {
        "expired": len(report.expired),
        "extended": len(report.extended),
        "warned": len(report.warned),
        "bots": len(report.bots),
        "set_aside": len(report.set_aside),
    }
    if any(counts.values()):
        logger.info("deadline sweep: %s", counts)
    return counts


@shared_task(name=EXPIRE_DEADLINE, ignore_result=True)
def expire_deadline(game_id: int, step_no: int, due_at: str) -> int:
    """The short ETA task of one deadline (``due_at`` is informative): a no-op when stale or not yet due;
    when due, a sweep of every due deadline (:func:`games.deadlines.expire`). Logs the events it appended to
    this game (0 when another task's sweep applied it)."""
    applied = deadlines.expire(game_id, step_no)
    logger.info("expire_deadline game=%s step=%s due=%s: %s events", game_id, step_no, due_at, applied)
    return applied


@shared_task(name=WARN_DEADLINE, ignore_result=True)
def warn_deadline(game_id: int, step_no: int, warn_at: str) -> int:
    """The short ETA task of one deadline warning: a no-op when stale or already warned; when due, a sweep of
    every due warning (:func:`games.deadlines.warn`)."""
    return deadlines.warn(game_id, step_no)


@shared_task(name=PLAY_BOTS, ignore_result=True)
def play_bots(game_id: int) -> int:
    """Let the game's bots and autopilot seats act (a no-op when none has anything to do)."""
    return bots.bots_play(game_id)
