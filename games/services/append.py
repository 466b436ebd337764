"""The end of every write to a running game: append what the ruleset decided, with the game row locked.

:func:`append_decided` folds the new events, denormalises onto the game row what it now waits on
(:func:`track_waiting`), appends the events and saves the row in one statement (:func:`games.store.append`),
caches the new fold and publishes the follow-up tasks on commit (:mod:`games.services.followups`).
:func:`system_command` decides and appends a command of the system (a timer's, the creator's).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.utils import timezone

from games import loading, store
from games.models import Game, GameStatus
from games.roster import machine_seats
from games.rules.core import Context, Ruleset

from . import followups


def append_decided(
    game: Game,
    rs: Ruleset[Any],
    command: Any,
    events: Sequence[Any],
    *,
    state: Any,
    command_id: str,
    actor_id: int | None,
    now: datetime,
    extra_fields: Sequence[str] = (),
) -> Any:
    """Append what ``rs.decide`` made of ``command`` (from ``state``) at ``now``, the game row locked, and
    return the new state. The command itself goes on the batch's first event so that the record can be
    re-decided by an auditor: its JSON form plus ``seat``, the acting seat (``null`` for system commands),
    which the JSON form never carries. The game row's head, what it waits on (and ``extra_fields``) are
    saved in the same statement as the events (:func:`games.store.append`)."""
    if not events:  # nothing happened: nothing to append or to save
        return state
    stored = {**rs.command_to_json(command), "seat": getattr(command, "seat", None)}
    new_state = rs.fold(events, state)
    before = (game.step_no, game.deadline_at, game.warn_at, game.bots_due_at)
    changed = track_waiting(game, rs, new_state)
    store.append(
        game,
        [store.NewEvent(e.TYPE, e.VERSION, rs.event_to_json(e)) for e in events],
        expected_version=game.version,
        command_id=command_id,
        actor_id=actor_id,
        now=now,
        command=stored,
        also_set={name: getattr(game, name) for name in (*changed, *extra_fields)},
    )
    loading.remember_state(game.pk, rs, game.version, game.head_hash, new_state)
    followups.schedule_followups(game, before)
    return new_state


def track_waiting(game: Game, rs: Ruleset[Any], state: Any) -> list[str]:
    """Denormalise onto ``game`` (not saved) what it waits on in ``state``, for listings and timers: the
    step, its deadline and warning, since when a machine seat has something to do, and the end of the game.
    Returns the names of the fields to save."""
    waiting = rs.waiting(state)
    game.step_no = waiting.step_no if waiting else None
    game.waiting_step = waiting.step if waiting else ""
    game.deadline_at = waiting.due_at if waiting else None
    game.warn_at = followups.warn_at(rs, state)
    due_bots = waiting is not None and bool(waiting.seats & machine_seats(game, rs, state))
    if not due_bots:
        game.bots_due_at = None
    elif game.bots_due_at is None:
        game.bots_due_at = timezone.now()
    fields = ["step_no", "waiting_step", "deadline_at", "warn_at", "bots_due_at"]
    if rs.is_terminal(state) and game.status != GameStatus.OVER:
        game.status = GameStatus.OVER
        game.ended_at = timezone.now()
        fields += ["status", "ended_at"]
    return fields


def system_command(
    game: Game, rs: Ruleset[Any], state: Any, command: Any, now: datetime, command_id: str
) -> Any:
    """Decide and append a system command on the locked ``game``; returns the new state (the old one when the
    command yields no events, e.g. a stale timer). Rule errors are the caller's."""
    events = rs.decide(state, command, Context(now=now))
    if not events:
        return state
    return append_decided(
        game, rs, command, events, state=state, command_id=command_id, actor_id=None, now=now
    )
