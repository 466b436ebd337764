"""Enough connections (issue 13, item 4): the service as deployed, with its production settings, serves 64
concurrent clients with no 5xx and a bounded number of database connections.

Two topologies (``tests/deploy/serve_load.py``): ``scripts/serve`` itself, the README's serve command
(gunicorn with uvicorn workers, ASGI: each request runs on its own executor thread, where persistent
connections per thread piled up until PostgreSQL refused clients; its Celery worker and beat), and the
image's command (gunicorn gthread, WSGI) with a Celery worker as docker-compose.yml runs one beside it. A
scratch database on the test PostgreSQL server; a few seconds of load each. The number of backends of that
database never exceeds what the settings promise (web processes x ``DB_POOL_MAX_SIZE`` + Celery processes
x (``DB_POOL_MIN_SIZE`` + 1)), well under PostgreSQL's ``max_connections``.

``scripts/serve`` also shows that the web server does not take the peer address from ``X-Forwarded-For``
(uvicorn would, for a loopback peer, unless ``--forwarded-allow-ips`` is empty): the login limit holds.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import psycopg
import pytest

from .serve_load import (
    Topology,
    describe,
    drop_database,
    make_tokens,
    recreate_database,
    run_load,
    running,
    tokens_for,
)

pytestmark = [pytest.mark.timeout(300)]

CLIENTS = 64
SECONDS = 4.0


@pytest.fixture(scope="module")
def scratch() -> Iterator[tuple[str, str, str, list[str]]]:
    """(server, database name, its URL, tokens) on the test PostgreSQL server."""
    parts = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/critters"))
    server = f"{parts.scheme}://{parts.netloc}"
    dbname = f"{parts.path.lstrip('/') or 'critters'}_load_{uuid.uuid4().hex[:6]}"
    url = recreate_database(server, dbname)
    try:
        yield server, dbname, url, make_tokens(url, tokens_for(CLIENTS))
    finally:
        drop_database(server, dbname)


def redis_url() -> str:
    return os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def max_connections(server: str) -> int:
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        row = conn.execute("SHOW max_connections").fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize(
    "topology",
    [
        pytest.param(Topology(kind="script", workers=2), id="scripts-serve-asgi"),
        pytest.param(Topology(kind="image", workers=3, threads=8), id="image-wsgi"),
    ],
)
def test_64_clients_no_5xx_and_bounded_connections(
    topology: Topology, scratch: tuple[str, str, str, list[str]], tmp_path: Path
) -> None:
    server, dbname, url, tokens = scratch
    bound = topology.connection_bound()
    assert bound < max_connections(server)
    with running(topology, url, redis_url(), tmp_path) as base:
        figures = run_load(base, server, dbname, tokens, CLIENTS, SECONDS)
    print(describe(figures))
    assert figures["server_errors"] == 0, figures
    assert figures["transport_errors"] == 0, figures
    assert set(figures["statuses"]) <= {"200", "201"}, figures["statuses"]  # 201: the games set up
    counts = figures["by_kind"]
    for kind in ("me", "state", "command"):
        assert counts.get(kind, 0) > 0, counts
    assert 0 < figures["max_connections_used"] <= bound, (figures["max_connections_used"], bound)


def test_the_serve_topology_keys_the_login_limit_on_the_peer(
    scratch: tuple[str, str, str, list[str]], tmp_path: Path
) -> None:
    _server, _dbname, url, _tokens = scratch
    topology = Topology(kind="script", workers=1, env={"THROTTLE_ANON_RATE": "5/min"})
    with running(topology, url, redis_url(), tmp_path) as base:
        statuses = []
        for n in range(8):
            r = httpx.post(
                f"{base}/api/v1/auth/tokens",
                json={"username": "nobody", "password": f"guess {n}", "name": "t"},
                headers={"X-Forwarded-For": f"10.77.{n}.1"},
                timeout=30,
            )
            statuses.append(r.status_code)
    assert statuses[:5] == [401] * 5, statuses
    assert statuses[5:] == [429] * 3, statuses
