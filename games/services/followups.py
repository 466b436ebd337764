"""What follows a change to a game, once it commits: the timer and bot tasks it publishes.

Called by :func:`games.services.append.append_decided` inside the appending transaction. Every pending timer
lives in PostgreSQL, on the game row (kept by :func:`games.services.append.track_waiting`); the tasks
published here are for punctuality only, and the sweeper (:mod:`games.deadlines`) covers any that is lost.
Tasks are sent by name (the names :mod:`games.tasks` registers them under): what a task does on arrival is
the worker's business, not the publisher's.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from critters_api.celery import app as celery_app
from games.models import Game, GameStatus
from games.rules.core import Ruleset

logger = logging.getLogger(__name__)

# The names of the tasks published here (registered by games.tasks; tests/test_architecture.py checks that
# each is registered and takes the arguments sent).
PLAY_BOTS = "games.tasks.play_bots"
EXPIRE_DEADLINE = "games.tasks.expire_deadline"
WARN_DEADLINE = "games.tasks.warn_deadline"

_in_bots_play: contextvars.ContextVar[bool] = contextvars.ContextVar("in_bots_play", default=False)


def warn_at(rs: Ruleset[Any], state: Any) -> datetime | None:
    """When the current step's deadline warning is due (``None``: no deadline, or already warned)."""
    return rs.warn_at(state)


@contextlib.contextmanager
def bots_running() -> Iterator[None]:
    """Inside ``bots_play``: it keeps playing by itself, so no bot task is published for its own moves."""
    token = _in_bots_play.set(True)
    try:
        yield
    finally:
        _in_bots_play.reset(token)


def schedule_followups(
    game: Game, before: tuple[int | None, datetime | None, datetime | None, datetime | None]
) -> None:
    """After the game changed (inside the transaction; ``before`` = its step_no, deadline_at, warn_at and
    bots_due_at before the change): publish, once it commits, a short ETA task for a deadline or warning
    that is new and due soon, and a bot task when a machine seat has just got something to do. (A timer
    set beyond the horizon, or a task lost on the way, is the sweeper's: it runs every second or so.)"""
    if game.status != GameStatus.RUNNING:
        return
    now = timezone.now()
    horizon = now + timedelta(seconds=settings.DEADLINE_ETA_HORIZON)
    game_id, step_no = game.pk, game.step_no
    old_step, old_deadline, old_warn, old_bots = before
    if step_no is not None:
        for kind, at, old in (
            ("deadline", game.deadline_at, old_deadline),
            ("warning", game.warn_at, old_warn),
        ):
            if at is not None and at <= horizon and (at != old or step_no != old_step):
                transaction.on_commit(_publisher(kind, game_id, step_no, at))
    if game.bots_due_at is not None and old_bots is None and not _in_bots_play.get():
        transaction.on_commit(_publisher("bots", game_id, step_no, None))


def _publisher(kind: str, game_id: int, step_no: int | None, at: datetime | None) -> Any:
    def publish() -> None:
        _PUBLISHER.submit(_publish, kind, game_id, step_no, at)

    return publish


# Publishing happens on one background thread, never in the request: with the broker down, a publish
# takes seconds to fail (connection retries). After a failure, publishing pauses for BROKER_BACKOFF
# seconds (the sweeper and the request path cover every timer meanwhile; nothing is lost).
_PUBLISHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="timer-publish")
BROKER_BACKOFF = 5.0
_broker_down_until = 0.0


def _publish(kind: str, game_id: int, step_no: int | None, at: datetime | None) -> None:
    global _broker_down_until
    if time.monotonic() < _broker_down_until:
        return
    # the same messages as the tasks' own apply_async (they are registered with ignore_result=True)
    try:
        if kind == "bots":
            celery_app.send_task(
                PLAY_BOTS, (game_id,), countdown=settings.BOT_TASK_DELAY, retry=False, ignore_result=True
            )
        elif kind == "deadline":
            assert at is not None
            assert step_no is not None
            celery_app.send_task(
                EXPIRE_DEADLINE, (game_id, step_no, at.isoformat()), eta=at, retry=False, ignore_result=True
            )
        else:
            assert at is not None
            assert step_no is not None
            celery_app.send_task(
                WARN_DEADLINE, (game_id, step_no, at.isoformat()), eta=at, retry=False, ignore_result=True
            )
    except Exception:  # the broker is down: the sweeper and the request path cover it
        _broker_down_until = time.monotonic() + BROKER_BACKOFF
        logger.warning("could not publish the %s task of game %s (the sweeper covers it)", kind, game_id)


def flush_publisher(timeout: float = 10.0) -> None:
    """Wait until every task published so far has left (tests, and the benchmark)."""
    _PUBLISHER.submit(lambda: None).result(timeout=timeout)
