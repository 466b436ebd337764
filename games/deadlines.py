"""Timers that keep asynchronous games moving: deadlines, deadline warnings and bot turns.

Every pending timer lives in PostgreSQL, on the game row (``Game.deadline_at``, ``Game.warn_at``,
``Game.bots_due_at``, all indexed and kept by :func:`games.services.append.track_waiting`). Nothing that
matters lives only in Redis (see ``PITFALLS.md``, "Celery and Redis"):

* :func:`sweep` runs on a static Celery beat schedule (``DEADLINE_SWEEP_INTERVAL``, 1 s by default). It claims
  due games with ``SELECT ... FOR UPDATE SKIP LOCKED`` (so several workers never wait on each other or apply a
  timer twice), ``CLAIM_BATCH`` per transaction with a savepoint per game, and applies them through the same
  service code as player commands (:func:`_drain`, :mod:`games.services.timers`).
* For punctuality, a deadline due within ``DEADLINE_ETA_HORIZON`` also gets a short ETA task, published by
  ``transaction.on_commit`` (:mod:`games.services.followups`); bots get a task ``BOT_TASK_DELAY`` after they
  may act. Every task carries the game and the step it was made for and is a no-op when stale (Celery on
  Redis delivers at least once). A deadline (or warning) task that finds its timer due sweeps every due
  deadline (or warning): many falling due at once are applied in batches by the first tasks that wake
  (:func:`expire`, :func:`warn`).
* A request that touches a game whose deadline passed applies it first (:func:`apply_due`), so correctness
  never depends on the worker (or Redis) being up.
* Outage fairness (R7.7): every sweep of deadlines records a heartbeat
  (:class:`games.models.TimerHeartbeat`). When it finds no sweep ran for ``DEADLINE_OUTAGE_AFTER`` seconds,
  deadlines that fell due inside that gap, or fall due within the grace after it, are extended to the end of
  the gap plus ``DEADLINE_OUTAGE_GRACE`` seconds (capped at the step's own duration) instead of being
  played; never to earlier than they were.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from critters_api.citus import is_citus

from .models import Game, GameStatus, TimerHeartbeat
from .roster import lock_game, lock_running
from .services import bots
from .services import timers as game_timers  # ``timers`` is sweep's argument

logger = logging.getLogger(__name__)

SWEEPER = game_timers.SWEEPER


# --------------------------------------------------------------------------------------------------
# the ETA tasks, the request path
# --------------------------------------------------------------------------------------------------
def expire(game_id: int, step_no: int) -> int:
    """The ETA task for step ``step_no``'s deadline; returns the events it appended to the game.

    Nothing when it is stale (the game is not running, is at another step, or its deadline is not due).
    Else it sweeps every deadline due (:func:`sweep` of deadlines only, with the outage check): deadlines
    falling due together are applied in batches by the first tasks that wake, and the others find theirs
    applied. If its own game was not among those swept (another transaction held it), it is applied alone,
    waiting for the lock (:func:`games.services.timers.game_expire`, a no-op if the holder applied it)."""
    swept = _sweep_if_pending(game_id, step_no, "deadline_at")
    if swept is not None:
        return swept
    return game_timers.game_expire(game_id=game_id, step_no=step_no)


def warn(game_id: int, step_no: int) -> int:
    """The ETA task for step ``step_no``'s deadline warning (a ``DeadlineNear`` event), as :func:`expire`:
    nothing when stale, else a sweep of every warning due; returns the events it appended to the game."""
    swept = _sweep_if_pending(game_id, step_no, "warn_at")
    if swept is not None:
        return swept
    with transaction.atomic():
        game = lock_running(game_id)
        if game is None or game.step_no != step_no:
            return 0
        before = game.version
        game_timers.warn_locked(game, timezone.now())
        return game.version - before


def _sweep_if_pending(game_id: int, step_no: int, column: str) -> int | None:
    """What an ETA task does first. 0 if the game is not running at step ``step_no`` with its ``column``
    timer due (one indexed read); else a sweep of every timer due on ``column``, and the events it appended
    to this game, or ``None`` when the sweep did not reach this game (another transaction held it)."""
    due = {f"{column}__lte": timezone.now()}
    if not Game.objects.filter(pk=game_id, status=GameStatus.RUNNING, step_no=step_no, **due).exists():
        return 0
    report = sweep(timers=(column,))
    if game_id in report.events or game_id in report.set_aside:
        return report.events.get(game_id, 0)
    return None


def is_due(game: Game) -> bool:
    """Whether ``game`` (as read) is running past its step's deadline (:func:`apply_due` then applies it)."""
    return (
        game.status == GameStatus.RUNNING
        and game.deadline_at is not None
        and game.deadline_at <= timezone.now()
    )


def apply_due(game_id: int) -> bool:
    """Before a request reads or acts on a game: apply its deadline if it has passed. True if applied."""
    now = timezone.now()
    if not Game.objects.filter(
        pk=game_id, status=GameStatus.RUNNING, deadline_at__isnull=False, deadline_at__lte=now
    ).exists():
        return False
    with transaction.atomic():
        game = lock_running(game_id)
        if game is None:
            return False
        before = game.version
        game_timers.open_locked(game, timezone.now())
        return game.version != before


# --------------------------------------------------------------------------------------------------
# the sweeper
# --------------------------------------------------------------------------------------------------
@dataclass
class SweepReport:
    """What one sweep did (for logs, tests and the benchmark)."""

    expired: list[int] = field(default_factory=list)
    extended: list[int] = field(default_factory=list)
    warned: list[int] = field(default_factory=list)
    bots: list[int] = field(default_factory=list)
    outage: tuple[datetime, datetime] | None = None
    events: dict[int, int] = field(default_factory=dict)  # game -> events appended by its deadline or warning
    set_aside: list[int] = field(default_factory=list)  # games whose deadline or warning failed (see _drain)


def heartbeat(now: datetime) -> tuple[datetime, datetime] | None:
    """Record this sweep; returns the outage window to honour (the last gap longer than
    ``DEADLINE_OUTAGE_AFTER`` between two sweeps), if any."""
    with transaction.atomic():
        row = TimerHeartbeat.objects.select_for_update().filter(name=SWEEPER).first()
        if row is None:
            TimerHeartbeat.objects.create(name=SWEEPER, at=now)
            return None
        if now - row.at > timedelta(seconds=settings.DEADLINE_OUTAGE_AFTER):
            row.outage_start, row.outage_end = row.at, now
            logger.warning("no deadline sweep from %s to %s: deadlines due then are extended", row.at, now)
        if now > row.at:
            row.at = now
        row.save()
        if row.outage_start is not None and row.outage_end is not None:
            return (row.outage_start, row.outage_end)
        return None


TIMERS = ("deadline_at", "warn_at", "bots_due_at")


def sweep(
    now: datetime | None = None, *, limit: int | None = None, timers: Collection[str] = TIMERS
) -> SweepReport:
    """Claim and apply every due deadline, warning and overdue bot turn (up to ``limit`` games of each;
    ``timers``: only those columns, as the ETA tasks do).

    ``now`` (tests, the benchmark) fixes the clock; by default the clock is read as each game is applied.
    Deadlines and warnings are claimed and applied ``CLAIM_BATCH`` games per transaction (:func:`_drain`).
    A game whose timer fails to apply (a bug) is logged and set aside for ``POISON_BACKOFF`` seconds, so it
    never blocks the others (its row is resynchronised by its next change). A sweep of deadlines records
    the heartbeat first (:func:`heartbeat`): deadlines due during an outage are extended, not played."""
    at = now or timezone.now()

    def clock() -> datetime:
        return timezone.now() if now is None else at

    batch = limit if limit is not None else settings.DEADLINE_SWEEP_BATCH
    report = SweepReport(outage=heartbeat(at) if "deadline_at" in timers else None)

    def expire_one(game: Game) -> None:
        # opened without applying the deadline: the sweep applies it itself, after its own outage check
        opened = game_timers.open_locked(game, clock(), apply_deadline=False)
        rs, state = opened.rs, opened.state
        before = game.version
        due = game.deadline_at
        if report.outage and due is not None:
            start, end = report.outage  # R7.7: due during the outage or within the grace after it
            if start < due <= end + timedelta(seconds=game_timers.outage_grace(rs, state)):
                state = game_timers.extend_for_outage(game, rs, state, clock(), end)
        if game.version != before:
            report.extended.append(game.pk)
        else:  # no outage, or nothing to extend (the end of a pause is not extended: R7.6, ruling 31)
            game_timers.expire_locked(game, rs, state, clock())
            if game.version == before:  # nothing to apply (cannot happen while rows are in sync)
                game.deadline_at = None
                game.save(update_fields=["deadline_at"])
            report.expired.append(game.pk)
        report.events[game.pk] = game.version - before

    def warn_one(game: Game) -> None:
        before = game.version
        game_timers.warn_locked(game, clock())
        if game.warn_at is not None and game.warn_at <= clock():
            game.warn_at = None  # refused or stale: off the list (never loop on it)
            game.save(update_fields=["warn_at"])
        report.warned.append(game.pk)
        report.events[game.pk] = game.version - before

    if "deadline_at" in timers:
        _drain("deadline_at", expire_one, batch, clock, report)
    if "warn_at" in timers:
        _drain("warn_at", warn_one, batch, clock, report)
    if "bots_due_at" not in timers:
        return report
    overdue = clock() - timedelta(seconds=settings.BOT_SWEEP_GRACE)
    for game_id in Game.objects.filter(status=GameStatus.RUNNING, bots_due_at__lte=overdue).values_list(
        "pk", flat=True
    )[:batch]:
        try:
            bots.bots_play(game_id)
        except Exception:
            _set_aside(game_id, "bots_due_at", clock())
            report.set_aside.append(game_id)
            continue
        report.bots.append(game_id)
    return report


# Games claimed and applied per transaction (see _drain, and the burst figures in bench/README.md).
CLAIM_BATCH = 25

# The status is written in the statement, not bound: the planner must see ``status = 'running'`` to use the
# partial index of the column's running games (``game_running_<column>``), even with a generic plan.
_CLAIM_SQL = {
    column: f"""SELECT id FROM games_game WHERE status = '{GameStatus.RUNNING.value}' AND "{column}" <= %s
        ORDER BY "{column}" LIMIT %s FOR UPDATE SKIP LOCKED"""  # noqa: S608 (fixed names and value)
    for column in ("deadline_at", "warn_at")
}


# On Citus (docs/SCALING.md, §3) ``FOR UPDATE`` is refused on a statement over several shards: the due games
# are listed without a lock (every shard reads its partial index), then each is claimed by a statement
# routed to its own shard (``id = %s``), which re-checks that it is running and due once it holds the row.
_DUE_SQL = {
    column: f"""SELECT id FROM games_game WHERE status = '{GameStatus.RUNNING.value}' AND "{column}" <= %s
        ORDER BY "{column}" LIMIT %s"""  # noqa: S608 (fixed names and value)
    for column in ("deadline_at", "warn_at")
}
_CLAIM_ONE_SQL = {
    column: f"""SELECT id FROM games_game WHERE id = %s AND status = '{GameStatus.RUNNING.value}'
        AND "{column}" <= %s FOR UPDATE SKIP LOCKED"""  # noqa: S608 (fixed names and value)
    for column in ("deadline_at", "warn_at")
}
# Due games listed per claimed one on Citus: some of those listed may be held by another sweeper.
_CANDIDATES_PER_CLAIM = 2


def _claim(column: str, now: datetime, count: int) -> list[int]:
    """Lock up to ``count`` running games due on ``column`` at ``now`` (earliest first); their ids. Rows that
    another transaction holds are skipped: two sweepers never claim the same game, nor wait on each other.
    One statement on PostgreSQL; on Citus a list of the due games, then one routed claim per game."""
    with connection.cursor() as cursor:
        if not is_citus(connection):
            cursor.execute(_CLAIM_SQL[column], [now, count])
            return [row[0] for row in cursor.fetchall()]
        cursor.execute(_DUE_SQL[column], [now, count * _CANDIDATES_PER_CLAIM])
        claimed: list[int] = []
        for (game_id,) in cursor.fetchall():
            cursor.execute(_CLAIM_ONE_SQL[column], [game_id, now])
            if cursor.fetchone() is not None:
                claimed.append(game_id)
                if len(claimed) == count:
                    break
        return claimed


def _drain(
    column: str, apply: Callable[[Game], None], limit: int, clock: Callable[[], datetime], report: SweepReport
) -> None:
    """Claim up to ``limit`` games due on ``column`` and ``apply`` each, ``CLAIM_BATCH`` per transaction.

    Each claimed game is read again by :func:`games.roster.lock_game` (the row is already ours; it comes with
    its roster, as for a player's command) and applied under its own savepoint: a game whose ``apply`` raises
    is rolled back alone and set aside (in the same transaction) while the rest of its batch commits, so it
    never blocks the others. A batch shares one BEGIN, one claim and one COMMIT instead of spending them on
    every game. The price: every row of a batch stays locked until the batch commits, so a player's command on
    one of them waits for the rest (at most ``CLAIM_BATCH`` expiries, tens of milliseconds), and its events
    become visible together."""
    done = 0
    while done < limit:
        with transaction.atomic():
            claimed = _claim(column, clock(), min(CLAIM_BATCH, limit - done))
            for game_id in claimed:
                try:
                    with transaction.atomic():
                        apply(lock_game(game_id))
                except Exception:
                    _set_aside(game_id, column, clock())
                    report.set_aside.append(game_id)
        done += len(claimed)
        if len(claimed) < CLAIM_BATCH:
            return


POISON_BACKOFF = 60.0


def _set_aside(game_id: int, column: str, now: datetime) -> None:
    logger.exception("the %s timer of game %s failed; retried in %ss", column, game_id, POISON_BACKOFF)
    Game.objects.filter(pk=game_id).update(**{column: now + timedelta(seconds=POISON_BACKOFF)})
