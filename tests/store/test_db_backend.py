"""The database backend (critters_api/db/base.py): the health check costs no round trip for an idle
connection that has nothing to read, and a connection the server ended is found unusable (and Django
reconnects); the request path's plain-SQL statements are prepared once per connection, Django's own are
not, and a setting turns preparing off."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.db import OperationalError, connection, transaction
from django.test import Client
from django.test.utils import override_settings

from critters_api.db.base import prepared_cursor
from players.models import ApiToken, Player

pytestmark = pytest.mark.django_db(transaction=True)


def count_queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = psycopg.Cursor.execute

    def execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(str(query))
        return original(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", execute)
    return seen


def test_an_idle_healthy_connection_is_usable_without_a_query(monkeypatch: pytest.MonkeyPatch) -> None:
    connection.ensure_connection()
    seen = count_queries(monkeypatch)
    assert connection.is_usable()
    assert seen == []


def test_a_connection_the_server_ended_is_unusable_and_replaced() -> None:
    connection.ensure_connection()
    assert connection.connection is not None
    pid = connection.connection.info.backend_pid
    dsn = connection.connection.info.dsn
    with psycopg.connect(dsn, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    for _ in range(50):  # the server's goodbye reaches the socket
        if not connection.is_usable():
            break
        time.sleep(0.02)
    assert not connection.is_usable()
    connection.close()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        row = cursor.fetchone()
    assert row is not None
    assert row[0] != pid


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def test_the_request_paths_statements_are_prepared_once_per_connection() -> None:
    player = Player.objects.create_user(username="prep", password=None)
    _token, raw = ApiToken.issue(player, "tests")
    client = Client()
    connection.close()  # a new connection: nothing prepared yet
    for _ in range(3):
        r = client.get("/api/v1/me", headers={"Authorization": f"Bearer {raw}"})
        assert r.status_code == 200
    token_lookups = [s for s in prepared_statements() if "FROM players_apitoken t JOIN" in s]
    assert len(token_lookups) == 1  # prepared by the first request, reused by the next two


def test_a_prepared_cursor_reads_like_any_other() -> None:
    with prepared_cursor(connection) as cursor:
        cursor.execute("SELECT %s::int + 1, now(), %s", [41, "text"])
        row = cursor.fetchone()
    assert row is not None
    assert row[0] == 42
    assert row[1].utcoffset() == timedelta(0)  # aware, in UTC, as Django's cursors load it
    assert row[2] == "text"
    with connection.cursor() as cursor:  # Django's cursor binds on the client and prepares nothing
        for _ in range(10):
            cursor.execute("SELECT %s::int * 2", [21])
    assert not any("* 2" in s for s in prepared_statements())


def test_preparing_can_be_turned_off() -> None:
    connection.close()
    with override_settings(DB_PREPARED_STATEMENTS=False):
        for _ in range(3):
            with prepared_cursor(connection) as cursor:
                cursor.execute("SELECT %s::int + 2", [40])
                assert cursor.fetchone() == (42,)
        assert prepared_statements() == []
    connection.close()


def _alter_token_name_length(length: int) -> None:
    """What a migration does, from another connection (as the migrate service would)."""
    assert connection.connection is not None
    with psycopg.connect(connection.connection.info.dsn, autocommit=True) as other:
        other.execute(f"ALTER TABLE players_apitoken ALTER COLUMN name TYPE varchar({int(length)})")


def test_statements_outdated_by_a_schema_change_are_prepared_again() -> None:
    """A migration that changes a returned column's type makes PostgreSQL refuse the prepared statement
    ("cached plan must not change result type"). Outside a transaction the statement is prepared again at
    once; inside one, the transaction gets a retryable OperationalError (the API's 503) and the next
    attempt works."""
    player = Player.objects.create_user(username="schema", password=None)
    token, _raw = ApiToken.issue(player, "tests")
    sql = "SELECT name FROM players_apitoken WHERE id = %s"

    def read() -> str:
        with prepared_cursor(connection) as cursor:
            cursor.execute(sql, [token.pk])
            row = cursor.fetchone()
        assert row is not None
        return str(row[0])

    assert read() == read() == "tests"  # prepared, then reused
    try:
        _alter_token_name_length(65)
        assert read() == "tests"  # outside a transaction: prepared again, no error
        _alter_token_name_length(64)
        with pytest.raises(OperationalError), transaction.atomic():
            read()
        assert read() == "tests"
    finally:
        _alter_token_name_length(64)
