"""The database backend's health check (critters_api/db/base.py): no round trip for an idle connection that
has nothing to read; a connection the server ended is found unusable (and Django reconnects)."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest
from django.db import connection

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
