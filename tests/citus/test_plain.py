"""On a plain PostgreSQL the Citus step does nothing, and every table has its place in the Citus map (quick
tier: a new table without a place would stop ``manage.py citus_distribute`` on a cluster)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from critters_api.citus import DISTRIBUTED, LOCAL, REFERENCE, is_citus

pytestmark = pytest.mark.django_db


def _primary_key(table: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT a.attname FROM pg_index i JOIN pg_attribute a
                   ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
               WHERE i.indrelid = %s::regclass AND i.indisprimary ORDER BY a.attnum""",
            [table],
        )
        return [row[0] for row in cursor.fetchall()]


def test_the_distribute_command_does_nothing_on_plain_postgresql() -> None:
    assert not is_citus(connection)
    out = StringIO()
    call_command("citus_distribute", stdout=out)
    assert "nothing to distribute" in out.getvalue()
    assert _primary_key("games_seat") == ["id"]  # as the migrations made it
    assert _primary_key("notifications_deliveryattempt") == ["id"]


def test_every_table_of_the_models_has_a_place_on_citus() -> None:
    tables = {m._meta.db_table for m in apps.get_models(include_auto_created=True)} | {"django_migrations"}
    placed = set(DISTRIBUTED) | set(REFERENCE) | set(LOCAL)
    assert tables - placed == set(), "docs/SCALING.md and critters_api/citus.py place every table"
    # every distributed table other than the game's is keyed by its game
    assert all(column == "game_id" for table, column in DISTRIBUTED.items() if table != "games_game")
