"""Loading a game's state: the ruleset it is played under, and the fold of its log.

A fold continues from the process's cached fold of a prefix of the same chain when there is one
(:mod:`games.statecache`); :func:`full_replay` never uses the cache. Reads only: nothing here writes.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import connection

from critters_api.db.base import prepared_cursor
from games.rules.core import Ruleset
from games.rules.registry import get_ruleset

from . import statecache, store
from .models import Game


def ruleset_for(game: Game) -> Ruleset[Any]:
    return get_ruleset(game.ruleset)


_EVENTS_SQL = (
    "SELECT seq, prev_hash, hash, data FROM games_event WHERE game_id = %s AND seq > %s AND seq <= %s"
    " ORDER BY seq"
)


def _event_rows(game: Game, after: int) -> list[tuple[int, str, str, Any]]:
    """(seq, prev_hash, hash, data) of the game's events after ``after`` up to the game's version as read
    (plain SQL: this runs whenever a process's cached fold is behind, i.e. on most requests of a busy game
    served by several processes)."""
    with prepared_cursor(connection) as cursor:
        cursor.execute(_EVENTS_SQL, [game.pk, after, game.version])
        rows = cursor.fetchall()
    return [
        (seq, prev, digest, json.loads(data) if isinstance(data, str) else data)
        for seq, prev, digest, data in rows
    ]


def _tail(game: Game, after: int) -> list[list[Any]] | None:
    """The log's events after version ``after`` up to the game's version ([seq, prev_hash, hash, data] each),
    as read with the game (``tail_after`` of :func:`games.roster.lock_game` or :func:`games.roster.get_game`);
    ``None`` when they were not read with it, or do not reach its version (the statement waited for the lock,
    and its snapshot predates the events of the transaction it waited for)."""
    read = game.__dict__.get("_tail")
    if read is None or read[0] != after:
        return None
    rows: list[list[Any]] = [r for r in read[1] if r[0] <= game.version]
    if [r[0] for r in rows] != list(range(after + 1, game.version + 1)):
        return None
    return rows


def _rows_after(game: Game, after: int) -> list[tuple[int, str, str, Any]]:
    """The events after ``after``: as read with the game when they were (:func:`_tail`), else read now."""
    read = _tail(game, after)
    if read is not None:
        return [(seq, prev, digest, data) for seq, prev, digest, data in read]
    return _event_rows(game, after)


def cached_version(game_id: int) -> int:
    """The version of this process's cached fold of the game (0: none): what a read of the game should bring
    with it (``tail_after`` of :func:`games.roster.lock_game` and :func:`games.roster.get_game`)."""
    entry = statecache.get(game_id) if statecache.size() > 0 else None
    return entry.version if entry is not None else 0


def load_state(game: Game, ruleset: Ruleset[Any] | None = None) -> Any:
    """The game's state at its version as read: the fold of its log (continued from a cached fold of a
    prefix of the same chain when there is one, see :mod:`games.statecache`)."""
    rs = ruleset or ruleset_for(game)
    entry = statecache.get(game.pk) if statecache.size() > 0 else None
    if entry is not None and entry.ruleset_version == rs.version and entry.version <= game.version:
        if entry.version == game.version and entry.head_hash == game.head_hash:
            return entry.state
        rows = _rows_after(game, entry.version)
        if rows and rows[0][0] == entry.version + 1 and rows[0][1] == entry.head_hash:
            state = rs.fold((rs.event_from_json(row[3]) for row in rows), entry.state)
            remember_state(game.pk, rs, rows[-1][0], rows[-1][2], state)
            return state
    full = _rows_after(game, 0)
    state = rs.fold(rs.event_from_json(row[3]) for row in full)
    if full:
        remember_state(game.pk, rs, full[-1][0], full[-1][2], state)
    return state


def full_replay(game: Game) -> Any:
    """The fold of the whole log, never cached (for checks and tests)."""
    rs = ruleset_for(game)
    return rs.fold(rs.event_from_json(data) for data in store.load_data(game.pk))


def remember_state(game_id: int, rs: Ruleset[Any], version: int, head_hash: str, state: Any) -> None:
    statecache.put(game_id, statecache.Entry(rs.version, version, head_hash, state))
