"""The event store: load a game's stream, append with an expected version, verify the hash chain.

One table (``games_event``), one row per event, ``(game, seq)`` unique. The caller holds the game row's lock
(``select_for_update`` inside ``transaction.atomic``) when appending, so one game's appends are serialized and
the unique constraint is the last-line concurrency guard. Each event's ``hash`` is SHA-256 over the canonical
JSON (sorted keys, no spaces, UTF-8) of its immutable stored fields including ``prev_hash``: a per-game chain
whose head is kept on the game row (``head_hash``, ``version`` = last seq). A second chain, the public one,
hashes each event as a spectator sees it while the game runs (``public_hash``, head ``public_head_hash``: see
``games.audit.public`` and docs/AUDIT.md); it holds no secret, so it is served at any time. Under public
chain 2 (``Game.public_chain``, games created since issue 28 item 15) each public hash also covers the
event's seal: a hash of its other facts salted with 16 random bytes (``Event.salt``) kept until the end.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, models
from psycopg.types.json import Jsonb

from critters_api.db.base import prepared_cursor

from .audit import public
from .audit.public import canonical_json
from .models import Event, Game
from .signals import events_appended

GENESIS_HASH = "0" * 64


class ConcurrencyError(Exception):
    """The game's version is not the one the append expected (a bug: callers hold the row lock)."""


def event_hash(
    *,
    game_id: int,
    seq: int,
    type: str,
    schema_version: int,
    data: Any,
    created_at: datetime,
    command_id: str,
    actor_id: int | None,
    prev_hash: str,
    command: Any = None,
) -> str:
    record = {
        "game": game_id,
        "seq": seq,
        "type": type,
        "schema_version": schema_version,
        "data": data,
        "created_at": created_at.isoformat(),
        "command_id": command_id,
        "actor": actor_id,
        "command": command,
        "prev_hash": prev_hash,
    }
    return hashlib.sha256(canonical_json(record)).hexdigest()


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append: its type, schema version and JSON form (``ruleset.event_to_json``)."""

    type: str
    schema_version: int
    data: dict[str, Any]


def load_stream(game_id: int, *, after: int = 0, limit: int | None = None) -> list[Event]:
    """A game's events with ``seq > after`` in order (at most ``limit``)."""
    qs = Event.objects.filter(game_id=game_id, seq__gt=after).order_by("seq")
    if limit is not None:
        qs = qs[:limit]
    return list(qs)


def load_data(game_id: int) -> list[dict[str, Any]]:
    """Just the JSON data of a game's events, in order (what a fold needs)."""
    return list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("data", flat=True))


def append(
    game: Game,
    events: Sequence[NewEvent],
    *,
    expected_version: int,
    command_id: str,
    actor_id: int | None,
    now: datetime,
    command: dict[str, Any] | None = None,
    also_set: Mapping[str, Any] | None = None,
) -> list[Event]:
    """Append ``events`` after ``expected_version`` and move the game's head, with the other fields of the
    game row in ``also_set`` (already set on ``game``), in one statement. The caller holds the game row's
    lock inside a transaction. ``command`` (the JSON of the command that decided these events) is stored on
    the first of them, inside the hash chain."""
    if game.version != expected_version:
        raise ConcurrencyError(f"game {game.pk} is at version {game.version}, not {expected_version}")
    if not events:
        return []
    prev = game.head_hash or GENESIS_HASH
    prev_public = game.public_head_hash or GENESIS_HASH
    created_at = now.isoformat()
    rows: list[Event] = []
    seq = expected_version
    sealed = game.public_chain >= 2
    for new in events:
        seq += 1
        batch_command = command if seq == expected_version + 1 else None
        salt = secrets.token_hex(16) if sealed else ""
        prev_public = public.public_hash(
            game_id=game.pk,
            seq=seq,
            type=new.type,
            schema_version=new.schema_version,
            public_data=public.spectator_data(game.ruleset, new.data),
            created_at=created_at,
            prev_public_hash=prev_public,
            seal=public.seal(
                salt, data=new.data, command=batch_command, command_id=command_id, actor=actor_id
            )
            if sealed
            else None,
        )
        digest = event_hash(
            game_id=game.pk,
            seq=seq,
            type=new.type,
            schema_version=new.schema_version,
            data=new.data,
            created_at=now,
            command_id=command_id,
            actor_id=actor_id,
            prev_hash=prev,
            command=batch_command,
        )
        rows.append(
            Event(
                game_id=game.pk,
                seq=seq,
                type=new.type,
                schema_version=new.schema_version,
                data=new.data,
                created_at=now,
                command_id=command_id,
                actor_id=actor_id,
                command=batch_command,
                prev_hash=prev,
                hash=digest,
                public_hash=prev_public,
                salt=salt,
            )
        )
        prev = digest
    game.version = seq
    game.head_hash = prev
    game.public_head_hash = prev_public
    game.revision += 1
    head = {"version": seq, "head_hash": prev, "public_head_hash": prev_public, "revision": game.revision}
    _write(game, rows, {**(also_set or {}), **head})
    events_appended.send(sender=Game, game=game, events=rows)
    return rows


_EVENT_FIELDS = [f for f in Event._meta.concrete_fields if not f.primary_key]
_EVENT_INSERT = "INSERT INTO {} ({}) VALUES ".format(  # noqa: S608 - names from the model
    Event._meta.db_table, ", ".join(f'"{f.column}"' for f in _EVENT_FIELDS)
)
_EVENT_ROW = "(" + ", ".join(["%s"] * len(_EVENT_FIELDS)) + ")"
# How each column's value becomes a parameter. The event's values already have the columns' Python types
# (ints, strings, an aware datetime), so Django's per-field preparation, a large share of the append's
# Python time, is skipped: plain JSON is wrapped for psycopg as Django would, the rest is passed as is.


def _is_json(f: Any) -> bool:
    if isinstance(f, models.JSONField) and f.encoder is None:
        return True
    if isinstance(f, models.IntegerField | models.CharField | models.DateTimeField | models.ForeignKey):
        return False
    raise TypeError(f"games.store._write does not know how to pass Event.{f.name} ({type(f).__name__})")


_EVENT_PARAMS = [(f.attname, _is_json(f)) for f in _EVENT_FIELDS]


def _write(game: Game, rows: Sequence[Event], head: Mapping[str, Any]) -> None:
    """Insert ``rows`` and update the game row's ``head`` fields in one statement (one round trip): a
    data-modifying WITH runs exactly once, in the same snapshot and transaction as the UPDATE."""
    params: list[Any] = []
    for row in rows:
        for attname, is_json in _EVENT_PARAMS:
            value = getattr(row, attname)
            params.append(Jsonb(value) if is_json and value is not None else value)
    assignments = []
    for name, value in head.items():
        field = Game._meta.get_field(name)
        assignments.append(f'"{field.column}" = %s')  # type: ignore[union-attr]
        params.append(field.get_db_prep_save(value, connection))  # type: ignore[union-attr]
    params.append(game.pk)
    values = ", ".join([_EVENT_ROW] * len(rows))
    update = f"UPDATE games_game SET {', '.join(assignments)} WHERE id = %s"  # noqa: S608 - model names
    sql = f"WITH appended AS ({_EVENT_INSERT}{values}) {update}"
    with prepared_cursor(connection) as cursor:
        cursor.execute(sql, params)


def verify_chain(game_id: int, events: Iterable[Event] | None = None) -> bool:
    """Recompute every hash of the game's log from the stored fields, the public chain's too; True when both
    chains and the game's heads agree."""
    game = Game.objects.only("version", "head_hash", "public_head_hash", "ruleset", "public_chain").get(
        pk=game_id
    )
    prev = prev_public = GENESIS_HASH
    expected_seq = 0
    for event in events if events is not None else load_stream(game_id):
        expected_seq += 1
        if event.seq != expected_seq or event.prev_hash != prev:
            return False
        digest = event_hash(
            game_id=game_id,
            seq=event.seq,
            type=event.type,
            schema_version=event.schema_version,
            data=event.data,
            created_at=event.created_at,
            command_id=event.command_id,
            actor_id=event.actor_id,
            prev_hash=event.prev_hash,
            command=event.command,
        )
        prev_public = public.public_hash(
            game_id=game_id,
            seq=event.seq,
            type=event.type,
            schema_version=event.schema_version,
            public_data=public.spectator_data(game.ruleset, event.data),
            created_at=event.created_at.isoformat(),
            prev_public_hash=prev_public,
            seal=public.seal(
                event.salt,
                data=event.data,
                command=event.command,
                command_id=event.command_id,
                actor=event.actor_id,
            )
            if game.public_chain >= 2
            else None,
        )
        if digest != event.hash or prev_public != event.public_hash:
            return False
        prev = digest
    return (
        game.version == expected_seq
        and (game.head_hash or GENESIS_HASH) == prev
        and (game.public_head_hash or GENESIS_HASH) == prev_public
    )
