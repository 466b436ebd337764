"""Fixtures for attacking the service from outside: the real service under gunicorn on the test database, and
HTTP players that sign up and log in through the API like any third party."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.worker import database_url_for

from .live import LiveServer

_names = itertools.count()
PASSWORD = "a long passphrase 42"


@pytest.fixture(scope="session")
def service_factory(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., LiveServer]]:
    """Start extra servers on the test database (with other settings, e.g. tight throttling)."""
    from django.db import connection

    with django_db_blocker.unblock():
        url = database_url_for(connection.settings_dict)
    started: list[LiveServer] = []

    def make(**kwargs: Any) -> LiveServer:
        server = LiveServer(tmp_path_factory.mktemp("live"), kwargs.pop("database_url", url), **kwargs)
        server.start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def service(service_factory: Callable[..., LiveServer]) -> LiveServer:
    """The service under gunicorn (2 workers x 4 threads) on pytest-django's test database."""
    return service_factory()


@pytest.fixture
def live(service: LiveServer) -> Iterator[LiveServer]:
    """The live server, failing the test if it answered any request with 500 meanwhile."""
    mark = len(service.access_lines())
    yield service
    errors = service.server_errors(since=mark)
    assert not errors, f"the live service answered 500 to: {errors}\n{service.log()[-3000:]}"


@dataclass
class HttpPlayer:
    """A player who signed up and logged in over HTTP; ``http`` sends its Bearer token."""

    username: str
    token: str
    http: httpx.Client

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.http.get(path, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        return self.http.post(path, json={} if json is None else json, **kwargs)


def sign_up(base_url: str, username: str | None = None) -> HttpPlayer:
    name = username or f"out{next(_names)}_{uuid.uuid4().hex[:6]}"
    with httpx.Client(base_url=base_url, timeout=30) as anon:
        r = anon.post("/api/v1/players", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        r = anon.post("/api/v1/auth/tokens", json={"username": name, "password": PASSWORD, "name": "outside"})
        assert r.status_code == 201, r.text
        token = r.json()["token"]
    http = httpx.Client(base_url=base_url, timeout=30, headers={"Authorization": f"Bearer {token}"})
    return HttpPlayer(name, token, http)


@pytest.fixture
def http_players(live: LiveServer) -> Iterator[Callable[[int], list[HttpPlayer]]]:
    made: list[HttpPlayer] = []

    def make(n: int) -> list[HttpPlayer]:
        players = [sign_up(live.url) for _ in range(n)]
        made.extend(players)
        return players

    yield make
    for p in made:
        p.http.close()
