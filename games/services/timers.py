"""What each timer does to one game, the game row locked: a passed deadline (:func:`expire_locked`), a
deadline warning (:func:`warn_locked`), a deadline extended after a timer outage (:func:`extend_for_outage`,
R7.7).

The same code for every path that finds a timer due: the sweeper and the ETA tasks (:mod:`games.deadlines`),
the bots, and a player's request (correctness never waits on the worker). A paused game's timer is the end of
its pause: applied as a deadline, never extended.
"""

from __future__ import annotations

import logging
import math
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.loading import load_state, ruleset_for
from games.models import Game, TimerHeartbeat
from games.roster import lock_running
from games.rules.core import RuleError, Ruleset

from .append import system_command

logger = logging.getLogger(__name__)

SWEEPER = "deadlines"  # the deadline sweeper's heartbeat row (games.deadlines.heartbeat)


@dataclass(slots=True)
class Opened:
    """A locked game brought up to date: its ruleset and its state (a passed deadline applied)."""

    game: Game
    rs: Ruleset[Any]
    state: Any


def open_locked(game: Game, now: datetime, *, state: Any = None, apply_deadline: bool = True) -> Opened:
    """The one opening of every write to a running game, the game row locked (:func:`games.roster.lock_game`):
    its ruleset, the fold of its log (``state`` when the caller already holds the fold at the game's version)
    and, with ``apply_deadline``, the step's deadline applied first if it has passed at ``now`` (correctness
    never waits on the worker). Player commands, bots, the deadline task, a read that finds a deadline due and
    the sweeper all start here."""
    rs = ruleset_for(game)
    if state is None:
        state = load_state(game, rs)
    due = game.deadline_at
    if apply_deadline and game.step_no is not None and due is not None and due <= now:
        state = expire_locked(game, rs, state, now)
    return Opened(game, rs, state)


def expire_locked(game: Game, rs: Ruleset[Any], state: Any, now: datetime) -> Any:
    """Apply the deadline of the locked game's current step if it has passed at ``now`` (R7.2/R7.3, R7.5);
    the same path for the sweeper, the ETA task and a request that finds the deadline passed.

    R7.7 first: a deadline that fell due during an outage (:func:`outage_window`), or falls due within the
    grace after it, is extended, not played. A request that reaches the game the moment the database is back,
    before the sweeper has run again and recorded the outage, sees it here too (no sweep for longer than
    ``DEADLINE_OUTAGE_AFTER``), so no default is ever played ahead of its extension."""
    waiting = rs.waiting(state)
    if waiting is None or waiting.due_at is None or waiting.due_at > now:
        return state
    window = outage_window(now)
    if window is not None:
        start, end = window
        if start < waiting.due_at <= end + timedelta(seconds=outage_grace(rs, state)):
            before = game.version
            extended = extend_for_outage(game, rs, state, now, end)
            if game.version != before:
                return extended
    step_no = waiting.step_no
    return system_command(
        game, rs, state, rs.expire_command(step_no), now, f"expire:{step_no}:{uuid.uuid4().hex[:8]}"
    )


def game_expire(*, game_id: int, step_no: int, now: datetime | None = None) -> int:
    """A deadline timer fired for step ``step_no``: apply the ruleset's expire command (a no-op when stale:
    another step, not due yet, or the game is not running). Returns the number of events appended."""
    with transaction.atomic():
        game = lock_running(game_id)
        if game is None or game.step_no != step_no:
            return 0
        before = game.version
        open_locked(game, now or timezone.now())
        return game.version - before


def warn_locked(game: Game, now: datetime) -> None:
    """Warn of the locked game's deadline (a ``DeadlineNear`` event) if the warning is due at ``now``; a
    refused warning is logged and taken off the game row (never retried)."""
    opened = open_locked(game, now, apply_deadline=False)
    rs, state = opened.rs, opened.state
    if game.step_no is None or game.warn_at is None or game.warn_at > now:
        return
    try:
        system_command(
            game, rs, state, rs.warn_command(game.step_no), now, f"warn:{game.step_no}:{uuid.uuid4().hex[:8]}"
        )
    except RuleError:
        logger.exception("the deadline warning of game %s was refused", game.pk)
        game.warn_at = None
        game.save(update_fields=["warn_at"])


def outage_window(now: datetime) -> tuple[datetime, datetime] | None:
    """The outage whose deadlines R7.7 extends, as seen at ``now``: while no deadline sweep has run for
    longer than ``DEADLINE_OUTAGE_AFTER`` (the service is down, or has just come back and the sweeper has not
    run yet), from the last sweep until now; else the last outage the sweeper recorded; None when there is
    none, or when no sweeper ever ran here (nothing to judge by)."""
    row = TimerHeartbeat.objects.filter(name=SWEEPER).first()
    if row is None:
        return None
    if now - row.at > timedelta(seconds=settings.DEADLINE_OUTAGE_AFTER):
        return (row.at, now)
    if row.outage_start is not None and row.outage_end is not None:
        return (row.outage_start, row.outage_end)
    return None


def outage_grace(rs: Ruleset[Any], state: Any) -> int:
    """The grace after an outage for the step waiting in ``state``: ``DEADLINE_OUTAGE_GRACE`` seconds, at most
    the step's full duration (R7.7)."""
    step_seconds = rs.step_seconds(state) or settings.DEADLINE_OUTAGE_GRACE
    return max(1, min(settings.DEADLINE_OUTAGE_GRACE, step_seconds))


def extend_for_outage(
    game: Game, rs: Ruleset[Any], state: Any, now: datetime, outage_end: datetime | None = None
) -> Any:
    """Extend the step's deadline that fell due during the outage ending at ``outage_end`` (``now`` if not
    given), or falls due within the grace after it, to the end of the outage plus the grace (R7.7); the new
    state. The same state when nothing is extended: the grace after the outage is over by ``now``, the new
    deadline would not be later than the one the step has (an extension never brings a deadline earlier), or
    the game is paused (its timer is the end of its pause, which is applied, not extended)."""
    waiting = rs.waiting(state)
    assert waiting is not None
    grace = outage_grace(rs, state)
    until = (outage_end or now) + timedelta(seconds=grace)
    seconds = min(grace, math.ceil((until - now).total_seconds()))
    if seconds < 1:
        return state
    return system_command(
        game,
        rs,
        state,
        rs.extend_command(waiting.step_no, seconds, "outage"),
        now,
        f"outage:{waiting.step_no}:{uuid.uuid4().hex[:8]}",
    )
