"""Shared fixtures: players with API tokens, an API client per player, the no-500 safety net, and the audit
safety net (every finished game a test leaves in the database verifies)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from _pytest.nodeid import NodeId
from django.test import Client

from critters_api import testing
from games.audit import export
from games.audit.verify import verify_record
from games.models import Event, Game, GameStatus
from players.models import ApiToken, Player
from tests.worker import celery_worker_process  # noqa: F401

pytest_plugins = ["tests.spec_recorder"]

_names = itertools.count()

# pytest-xdist (``scripts/test`` runs ``-n 2 --dist loadgroup``): the tests that drive real infrastructure
# (browsers, servers, Celery workers, clusters, containers, faults) run one after another in one group, on one
# worker, so two of them never race for the machine's two cores; the rest share the other worker.
_HEAVY_DIRS = {"web", "citus", "deploy", "outside", "e2e"}
_HEAVY_FIXTURES = {"celery_worker_process", "web_server", "live_server", "citus_cluster", "compose", "images"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath / "tests"
    for item in items:
        parts = item.path.relative_to(root).parts if item.path.is_relative_to(root) else ()
        if (
            item.get_closest_marker("slow") is not None
            or (len(parts) > 1 and parts[0] in _HEAVY_DIRS)
            or _HEAVY_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        ):
            item.add_marker(pytest.mark.xdist_group("heavy"))
            if getattr(config.option, "loadgroup", False) and not item.nodeid.endswith("@heavy"):
                # what xdist 3.8 does for a group (the suffix its scheduler reads), in pytest 9's terms: a
                # node's id is a NodeId there, and xdist's own write to the old ``_nodeid`` is lost
                item._id = NodeId.parse(f"{item.nodeid}@heavy")


@pytest.fixture(autouse=True)
def no_server_errors() -> Iterator[None]:
    """A 500 is a bug: fail any test during which the service answered 500."""
    testing.SERVER_ERRORS.clear()
    yield
    errors = list(testing.SERVER_ERRORS)
    testing.SERVER_ERRORS.clear()
    assert not errors, f"the service answered 500 to: {errors}"


_DB_FIXTURES = ("db", "transactional_db", "live_server", "django_db_reset_sequences")


@pytest.fixture(autouse=True)
def finished_games_verify(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every finished game a test leaves in the database verifies (docs/AUDIT.md): run ``/verify``'s check
    on each at the test's teardown, before the database is rolled back, and fail the test if one does not.
    Only for tests that use the database (the fixture then depends on pytest-django's database set-up, so it
    tears down first)."""
    uses_db = request.node.get_closest_marker("django_db") is not None or any(
        name in request.fixturenames for name in _DB_FIXTURES
    )
    if not uses_db:
        yield
        return
    request.getfixturevalue("_django_db_helper")
    yield
    if "monkeypatch" in request.fixturenames:  # the test is over: its patches (a broken database...) too
        request.getfixturevalue("monkeypatch").undo()
    failures = []
    for game in Game.objects.filter(status=GameStatus.OVER).order_by("pk"):
        verdict = verify_record(export.game_record(game))
        if not verdict.ok:
            failures.append(f"game {game.pk}: {verdict.text()}")
    assert not failures, "finished games that fail /verify: " + "; ".join(failures)


@dataclass
class Api:
    """A test client that sends one player's Bearer token with every request."""

    player: Player
    token: str
    client: Client

    def _headers(self, headers: dict[str, str] | None) -> dict[str, str]:
        out = {"Authorization": f"Bearer {self.token}"}
        out.update(headers or {})
        return out

    def get(self, path: str, headers: dict[str, str] | None = None, **params: Any) -> Any:
        return self.client.get(path, params or None, headers=self._headers(headers))

    def post(
        self,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
        content_type: str = "application/json",
    ) -> Any:
        data = raw if raw is not None else json.dumps({} if body is None else body)
        return self.client.post(path, data, content_type=content_type, headers=self._headers(headers))

    def patch(self, path: str, body: Any, headers: dict[str, str] | None = None) -> Any:
        return self.client.patch(
            path, json.dumps(body), content_type="application/json", headers=self._headers(headers)
        )

    def delete(self, path: str, headers: dict[str, str] | None = None) -> Any:
        return self.client.delete(path, headers=self._headers(headers))

    def command(
        self, game_id: int, kebab_name: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Any:
        return self.post(f"/api/v1/games/{game_id}/commands/{kebab_name}", body, headers)


def make_api(username: str | None = None, *, staff: bool = False) -> Api:
    name = username or f"player{next(_names)}"
    player = Player.objects.create_user(username=name, password="a long passphrase 42", is_staff=staff)
    _token, raw = ApiToken.issue(player, "tests")
    return Api(player=player, token=raw, client=Client())


@pytest.fixture
def api_factory(db: None) -> Callable[..., Api]:
    return make_api


@pytest.fixture
def alice(api_factory: Callable[..., Api]) -> Api:
    return api_factory("alice")


def event_rows(game_id: int) -> list[tuple[int, str, str]]:
    return list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("seq", "type", "hash"))


def assert_problem(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, getattr(response, "content", b"")[:500])
    assert response["Content-Type"].startswith("application/problem+json"), response["Content-Type"]
    body: dict[str, Any] = json.loads(response.content)
    for member in ("type", "title", "status", "detail", "instance", "code"):
        assert member in body, body
    assert body["status"] == status
    if code is not None:
        assert body["code"] == code, body
    return body


def hand_over_to(creator: Api, game_id: int, seat: int, newcomer: Api) -> Any:
    """The creator hands ``seat`` to ``newcomer`` (issue #28, item 13: an offer, 202, that changes nothing
    until the newcomer accepts it); the newcomer accepts. Returns the acceptance's response (the game)."""
    body = {"to": "player", "player": newcomer.player.username}
    r = creator.post(f"/api/v1/games/{game_id}/seats/{seat}/hand-over", body)
    assert r.status_code == 202, r.content
    return newcomer.post(f"/api/v1/me/offers/{r.json()['id']}/accept")


@dataclass
class Table:
    """A running game of humans, each with an API client; ``apis[seat]`` sits in ``seat``."""

    game_id: int
    apis: list[Api]

    def state(self, seat: int) -> dict[str, Any]:
        response = self.apis[seat].get(f"/api/v1/games/{self.game_id}/state")
        assert response.status_code == 200, response.content
        body: dict[str, Any] = response.json()
        return body


def start_table(players: int = 4, options: dict[str, Any] | None = None) -> Table:
    apis = [make_api() for _ in range(players)]
    r = apis[0].post("/api/v1/games", {"seats": players, "options": options or {}})
    assert r.status_code == 201, r.content
    game_id = r.json()["id"]
    for api in apis[1:]:
        assert api.post(f"/api/v1/games/{game_id}/join").status_code == 200
    state = apis[0].get(f"/api/v1/games/{game_id}/state").json()
    assert state["game"]["status"] == "running"
    seat_of = {p["player"]: p["seat"] for p in state["game"]["players"]}
    by_seat = sorted(apis, key=lambda a: seat_of[a.player.username])
    return Table(game_id, by_seat)


@pytest.fixture
def table(db: None) -> Table:
    return start_table(4)
