"""``python manage.py citus_distribute``: distribute the schema on a Citus coordinator (docs/SCALING.md, §3).

Run it after ``migrate``, on the coordinator; it is idempotent (a table already distributed is left alone)
and does nothing at all on a plain PostgreSQL (no ``citus`` extension), so deployment scripts may run it
everywhere. On Citus, in order:

1. Every unique constraint of a distributed table includes the distribution column (Citus enforces a
   uniqueness on one shard only): the primary key ``(id)`` of a co-located table becomes ``(game_id, id)``,
   and any other unique constraint without ``game_id`` gets it first (``attempt_unique_number``). Each is
   as strict as before: an id, a delivery, belongs to one game. A foreign key between two distributed
   tables goes by the game too (``(game_id, delivery_id)`` to the delivery's ``(game_id, id)``).
2. ``create_reference_table`` for the players, their tokens and their webhook endpoints.
3. ``create_distributed_table`` of ``games_game`` by ``id``, then every other game table by ``game_id``
   co-located with it (``colocate_with``): a game's rows live on one shard.

The framework's and the admin's tables stay local to the coordinator (those referring to the players
become Citus-managed local tables, which Citus requires for a foreign key to a reference table). A table
the map in :mod:`critters_api.citus` does not classify stops the command: a new table must be placed
deliberately.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from critters_api.citus import DISTRIBUTED, LOCAL, REFERENCE, is_citus


def _rows(sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return list(cursor.fetchall())


def _run(sql: str, params: list[Any] | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def _kinds() -> dict[str, str]:
    """Citus's kind of every table it manages: 'distributed', 'reference' or 'local'."""
    rows = _rows("SELECT table_name::text, citus_table_type FROM citus_tables")
    return {str(name): str(kind) for name, kind in rows}


def _constraints(table: str, kinds: str) -> list[tuple[str, str, list[str], str | None, list[str]]]:
    """``table``'s constraints of ``kinds`` ('p', 'u', 'f'): name, kind, columns, referenced table and
    columns (foreign keys)."""
    rows = _rows(
        """SELECT c.conname, c.contype,
                  ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
                        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i),
                  c.confrelid::regclass::text,
                  ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
                        JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i)
           FROM pg_constraint c WHERE c.conrelid = %s::regclass AND c.contype = ANY(%s) ORDER BY c.conname""",
        [table, list(kinds)],
    )
    return [
        (str(name), str(kind), list(cols), None if ref in (None, "-") else str(ref), list(refcols or []))
        for name, kind, cols, ref, refcols in rows
    ]


class Command(BaseCommand):
    help = "Distribute the schema on a Citus coordinator (docs/SCALING.md); does nothing on plain PostgreSQL."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--shard-count", type=int, default=None, help="shards of games_game (default: citus.shard_count)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not is_citus(connection):
            self.stdout.write("not a Citus database (no citus extension): nothing to distribute")
            return
        tables = {str(r[0]) for r in _rows("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        known = set(DISTRIBUTED) | set(REFERENCE) | set(LOCAL)
        unplaced = sorted(tables - known)
        if unplaced:
            raise CommandError(
                f"tables with no place in critters_api.citus (distributed, reference or local): {unplaced}"
            )
        done = {table for table, kind in _kinds().items() if kind == "distributed"}
        if set(DISTRIBUTED) <= done:
            self.stdout.write("the schema is distributed already")
            return
        self._pending_fks = []
        # the event log's append-only trigger (it only refuses UPDATE, DELETE and TRUNCATE: it reads and
        # writes nothing) goes to every shard; Citus asks for this setting before it distributes a table
        # with triggers
        _run("SET citus.enable_unsafe_triggers = on")
        for table, column in DISTRIBUTED.items():
            if table not in done:
                self._include_key(table, column)
        for table, column in DISTRIBUTED.items():
            if table in done:
                continue
            if table == "games_game":
                if options["shard_count"]:
                    _run(
                        "SELECT create_distributed_table(%s, %s, shard_count => %s)",
                        [table, column, options["shard_count"]],
                    )
                else:
                    _run("SELECT create_distributed_table(%s, %s)", [table, column])
            else:
                _run(
                    "SELECT create_distributed_table(%s, %s, colocate_with => 'games_game')", [table, column]
                )
            self.stdout.write(f"{table}: distributed by {column}")
        # the reference tables after the distributed ones: a reference table referred to by a local table
        # makes that table a Citus-managed local table, which could no longer be distributed (nor made a
        # reference table: their foreign keys between themselves are put back afterwards too)
        kinds = _kinds()
        for table in REFERENCE:
            if kinds.get(table) == "reference":
                continue
            for name, _kind, cols, ref, refcols in _constraints(table, "f"):
                if ref in REFERENCE:
                    _run(f"ALTER TABLE {_quote(table)} DROP CONSTRAINT {_quote(name)}")
                    self._pending_fks.append((table, name, cols, ref, refcols))
        for table in REFERENCE:
            if kinds.get(table) != "reference":
                _run("SELECT create_reference_table(%s)", [table])
                self.stdout.write(f"{table}: reference table")
        self._restore_foreign_keys()
        self.stdout.write("the schema is distributed")

    # ------------------------------------------------------------------------------------------
    _pending_fks: list[tuple[str, str, list[str], str, list[str]]]

    def _include_key(self, table: str, column: str) -> None:
        """Make every unique constraint of ``table`` (and every foreign key to it) include ``column``."""
        with transaction.atomic():
            # its foreign keys to the tables that become reference tables: put back once those are
            # (a distributed table cannot refer to a plain local table)
            for name, _kind, cols, ref, refcols in _constraints(table, "f"):
                if ref in REFERENCE:
                    _run(f"ALTER TABLE {_quote(table)} DROP CONSTRAINT {_quote(name)}")
                    self._pending_fks.append((table, name, cols, ref, refcols))
            # foreign keys from another distributed table to a key of this one that lacks the game
            for other, other_column in DISTRIBUTED.items():
                for name, _kind, cols, ref, refcols in _constraints(other, "f"):
                    if ref == table and column not in refcols:
                        _run(f"ALTER TABLE {_quote(other)} DROP CONSTRAINT {_quote(name)}")
                        self._pending_fks.append(
                            (other, name, [other_column, *cols], table, [column, *refcols])
                        )
            for name, kind, cols, _ref, _refcols in _constraints(table, "pu"):
                if column in cols or column == "id":
                    continue
                what = "PRIMARY KEY" if kind == "p" else "UNIQUE"
                new = ", ".join(_quote(c) for c in [column, *cols])
                _run(
                    f"ALTER TABLE {_quote(table)} DROP CONSTRAINT {_quote(name)}, "
                    f"ADD CONSTRAINT {_quote(name)} {what} ({new})"
                )
                self.stdout.write(f"{table}: {name} is now {what} ({column}, {', '.join(cols)})")
            lacking = _rows(
                """SELECT i.indexrelid::regclass::text FROM pg_index i
                   WHERE i.indrelid = %s::regclass AND i.indisunique AND NOT EXISTS (
                       SELECT 1 FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attname = %s
                       AND a.attnum = ANY(i.indkey))""",
                [table, column],
            )
            if lacking:
                raise CommandError(f"{table}: unique indexes without {column}: {[r[0] for r in lacking]}")

    def _restore_foreign_keys(self) -> None:
        for table, name, cols, ref, refcols in self._pending_fks:
            _run(
                f"ALTER TABLE {_quote(table)} ADD CONSTRAINT {_quote(name)} FOREIGN KEY "
                f"({', '.join(_quote(c) for c in cols)}) REFERENCES {_quote(ref)} "
                f"({', '.join(_quote(c) for c in refcols)}) DEFERRABLE INITIALLY DEFERRED"
            )
            self.stdout.write(f"{table}: {name} now references {ref} ({', '.join(refcols)})")
