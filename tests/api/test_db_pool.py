"""The connection pool of the production settings (``DB_POOL_MAX_SIZE``, critters_api/db/base.py), in
process over Django's test client: a request borrows a pooled connection and gives it back; the request
path's prepared statements survive on it; borrowing costs no round trip; a connection given back in a failed
transaction comes back clean; and a request that finds every connection busy gets the documented 503
``database_unavailable`` with ``Retry-After`` (issue 13, item 4).

The test suite runs without a pool (critters_api/settings_test.py); these tests switch one on for their own
duration, as the production settings do (CONN_MAX_AGE 0)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from django.core.handlers.exception import response_for_exception
from django.db import OperationalError, connection
from django.test import Client, RequestFactory

from critters_api.db.base import reachability
from players.models import ApiToken, Player
from tests.conftest import assert_problem, start_table
from tests.processes import free_port

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN_LOOKUP = "FROM players_apitoken t JOIN"


@pytest.fixture
def pool() -> Iterator[Any]:
    """A pool of at most one connection, so that every request gets the same one back."""
    connection.close()
    options = connection.settings_dict["OPTIONS"]
    assert connection.settings_dict["CONN_MAX_AGE"] == 0
    options["pool"] = {"min_size": 1, "max_size": 1, "timeout": 0.5, "name": "test"}
    wrapper: Any = connection  # the PostgreSQL backend's wrapper (pool, close_pool)
    try:
        yield wrapper.pool
    finally:
        wrapper.close()
        wrapper.close_pool()
        options.pop("pool", None)


@pytest.fixture
def token() -> str:
    player = Player.objects.create_user(username=f"pooled{id(object())}", password=None)
    _token, raw = ApiToken.issue(player, "tests")
    connection.close()
    return raw


def me(client: Client, token: str) -> Any:
    return client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})


def backend() -> tuple[int, dict[str, Any]]:
    """This thread's connection's server process, and when each of its prepared statements was prepared."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        row = cursor.fetchone()
        assert row is not None
        cursor.execute("SELECT statement, prepare_time FROM pg_prepared_statements")
        prepared = dict(cursor.fetchall())
    return row[0], prepared


def test_prepared_statements_live_on_in_the_pool(pool: Any, token: str) -> None:
    client = Client()
    seen = []
    for _ in range(3):
        assert me(client, token).status_code == 200
        pid, prepared = backend()
        lookups = {s: t for s, t in prepared.items() if TOKEN_LOOKUP in s}
        assert len(lookups) == 1
        seen.append((pid, next(iter(lookups.values()))))
        connection.close()  # what the end of a request does: the connection goes back to the pool
        assert connection.connection is None
    assert len(set(seen)) == 1, seen  # the same server process, the statement prepared only once
    assert pool.get_stats()["pool_max"] == 1


def test_borrowing_a_pooled_connection_costs_no_round_trip(
    pool: Any, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Django's own pool would ask every borrowed connection an empty query first."""
    client = Client()
    assert me(client, token).status_code == 200
    connection.close()
    executed: list[str] = []
    original = psycopg.Connection.execute

    def execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        executed.append(str(query))
        return original(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "execute", execute)
    connection.ensure_connection()
    assert executed == []
    monkeypatch.undo()
    assert me(client, token).status_code == 200


def test_a_connection_the_server_ended_is_not_handed_out(pool: Any, token: str) -> None:
    client = Client()
    assert me(client, token).status_code == 200
    pid, _prepared = backend()
    dsn = connection.connection.info.dsn
    connection.close()
    with psycopg.connect(dsn, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
        for _ in range(100):  # the server process has said goodbye and exited
            if not other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchall():
                break
            time.sleep(0.02)
    assert me(client, token).status_code == 200
    new_pid, _prepared = backend()
    assert new_pid != pid


def test_a_connection_given_back_in_a_failed_transaction_comes_back_clean(pool: Any, token: str) -> None:
    client = Client()
    assert me(client, token).status_code == 200
    pid, _prepared = backend()
    # a request that dies inside a transaction after an error, and whose connection goes back as it is
    connection.set_autocommit(False)
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 12345")
        with pytest.raises(Exception, match="division by zero"):
            cursor.execute("SELECT 1 / 0")
    assert connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
    connection.close()
    connection.autocommit = True  # Django's bookkeeping of the wrapper (the pool's connection is reset)
    r = me(client, token)
    assert r.status_code == 200, r.content
    new_pid, prepared = backend()
    assert new_pid == pid  # the same connection, rolled back by the pool
    assert connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('statement_timeout')")
        assert cursor.fetchone() == ("0",)
    assert any(TOKEN_LOOKUP in s for s in prepared)  # prepared again after the rollback dropped it
    for _ in range(2):
        assert me(client, token).status_code == 200


def test_a_request_that_finds_every_connection_busy_gets_a_503(pool: Any, token: str) -> None:
    client = Client()
    held = pool.getconn()  # the pool's only connection, busy elsewhere
    try:
        r = me(client, token)
        body = assert_problem(r, 503, "database_unavailable")
        assert r["Retry-After"] == "2"
        assert body["detail"] == "The database is not available; retry shortly."
        connection.close()
        health = client.get("/healthz")
        assert_problem(health, 503, "database_unavailable")
    finally:
        pool.putconn(held)
    connection.close()
    assert me(client, token).status_code == 200


def test_a_waiting_long_poll_does_not_hold_a_pooled_connection(pool: Any) -> None:
    """``GET /events?wait=`` sleeps between looks at the game: meanwhile its connection is back in the pool,
    so one waiting reader per connection cannot starve every other request (here the pool has one)."""
    table = start_table(4)
    api = table.apis[0]
    version = table.state(0)["version"]
    connection.close()
    polled: list[Any] = []

    def long_poll() -> None:
        try:
            polled.append(api.get(f"/api/v1/games/{table.game_id}/events", after=str(version), wait="2"))
        finally:
            connection.close()

    waiter = threading.Thread(target=long_poll)
    started = time.monotonic()
    waiter.start()
    time.sleep(0.3)  # the reader is waiting
    statuses = []
    for _ in range(3):
        statuses.append(api.get("/api/v1/me").status_code)
        connection.close()
    waiter.join(timeout=10)
    assert statuses == [200, 200, 200]
    assert polled[0].status_code == 200
    assert polled[0].json()["events"] == []
    assert time.monotonic() - started >= 2


def test_a_database_error_outside_a_view_is_the_same_503() -> None:
    """What Django does with an exception raised in a middleware (outside any view's process_exception):
    handler500, which answers a database failure (a pool timeout) with the 503, not a 500."""
    request = RequestFactory().get("/api/v1/me")
    try:
        raise OperationalError("couldn't get a connection after 5.00 sec")
    except OperationalError as exc:
        response = response_for_exception(request, exc)
    body = assert_problem(response, 503, "database_unavailable")
    assert response["Retry-After"] == "2"
    assert "5.00" not in body["detail"]
    try:
        raise ValueError("a bug")
    except ValueError as exc:
        bug = response_for_exception(request, exc)
    assert bug.status_code == 500


@pytest.fixture
def unreachable_pool(token: str) -> Iterator[Any]:
    """A pool whose server does not answer (nothing listens on its port) until a test says it is back."""
    connection.close()
    settings_dict = connection.settings_dict
    port = settings_dict["PORT"]
    settings_dict["PORT"] = str(free_port())
    settings_dict["OPTIONS"]["pool"] = {"min_size": 0, "max_size": 1, "timeout": 0.5, "reconnect_timeout": 1}
    wrapper: Any = connection
    try:
        yield wrapper.pool
    finally:
        settings_dict["PORT"] = port
        wrapper.close()
        wrapper.close_pool()
        settings_dict["OPTIONS"].pop("pool", None)
        reachability.failing = False
        reachability.probed_at = 0.0


def test_while_the_database_is_down_requests_fail_at_once_and_recover_at_once(
    unreachable_pool: Any, token: str
) -> None:
    """Without a pool a refused connection is a 503 at once; a pool would make every request wait out
    DB_POOL_TIMEOUT for a connection that cannot come. After the first failure the 503s are immediate, and
    the first request after the server is back is served."""
    client = Client()
    assert_problem(me(client, token), 503, "database_unavailable")
    connection.close()
    took = []
    for _ in range(10):
        started = time.monotonic()
        r = me(client, token)
        took.append(time.monotonic() - started)
        assert_problem(r, 503, "database_unavailable")
        assert r["Retry-After"] == "2"
        connection.close()
    assert max(took) < 0.4, took  # not the pool's 0.5 s wait
    # the server is back (at the address the pool connects to)
    unreachable_pool.kwargs["port"] = connection.settings_dict["PORT"] = _real_port()
    time.sleep(reachability.PROBE_INTERVAL)
    started = time.monotonic()
    r = me(client, token)
    assert r.status_code == 200, r.content
    assert time.monotonic() - started < 0.5
    connection.close()
    assert me(client, token).status_code == 200


def _real_port() -> str:
    parts = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/x"))
    return str(parts.port or 5432)
