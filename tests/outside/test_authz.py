"""Object-level authorization, driven by the SERVED schema (endpoints added later are covered as they appear):
every operation whose path names a game, or an object a player owns (a token, a webhook, ...), is called with
another player's credentials. It must answer a problem (never 2xx, never 5xx: a private game and another
player's objects are 404 to outsiders) and change nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from games.models import Event, Game

from .conftest import HttpPlayer
from .live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

METHODS = ("get", "post", "put", "patch", "delete")
PARAM = re.compile(r"\{([^}]+)\}")
# documented exception: the live stream answers 503 `stream_needs_asgi` from a WSGI worker to anyone
WSGI_ONLY_503 = {"games_stream"}


def served_schema(base_url: str) -> dict[str, Any]:
    r = httpx.get(
        f"{base_url}/api/schema/", headers={"Accept": "application/vnd.oai.openapi+json"}, timeout=30
    )
    assert r.status_code == 200, r.text[:300]
    schema: dict[str, Any] = r.json()
    return schema


def request_example(operation: dict[str, Any]) -> Any:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    for example in content.get("examples", {}).values():
        return example.get("value", {})
    return {}


def offline(example: Any) -> Any:
    """The example with every URL pointed at loopback: this machine has no DNS, and the test settings allow
    loopback destinations (e.g. for webhooks)."""
    if isinstance(example, dict):
        return {k: offline(v) for k, v in example.items()}
    if isinstance(example, list):
        return [offline(v) for v in example]
    if isinstance(example, str) and example.startswith(("http://", "https://")):
        return "http://127.0.0.1:9/outside-hook"
    return example


def call(player: HttpPlayer, method: str, path: str, body: Any) -> httpx.Response:
    if method in ("get", "delete"):
        return player.http.request(method.upper(), path)
    return player.http.request(method.upper(), path, json=body)


def assert_refused(r: httpx.Response, operation: dict[str, Any], allowed: set[int], where: str) -> None:
    if operation.get("operationId") in WSGI_ONLY_503 and r.status_code == 503:
        return
    assert r.status_code in allowed, f"{where}: {r.status_code} {r.text[:300]}"
    assert r.headers["content-type"].startswith("application/problem+json"), where


def fill(path: str, values: dict[str, Any]) -> str:
    return PARAM.sub(lambda m: str(values.get(m.group(1), 1)), path)


def snapshot(game_id: int) -> tuple[int, int, int]:
    game = Game.objects.get(pk=game_id)
    return game.version, game.revision, Event.objects.filter(game_id=game_id).count()


def test_outsiders_get_nothing_from_a_private_game(
    live: LiveServer, http_players: Callable[[int], list[HttpPlayer]]
) -> None:
    a, b, c, d, outsider = http_players(5)
    created = a.post("/api/v1/games", {"seats": 4, "options": {"payoffs": True}, "allow_spectators": False})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for p in (b, c, d):
        assert p.post(f"/api/v1/games/{game_id}/join").status_code == 200
    # the seated players have something to hide: a chosen action
    seated = a.get(f"/api/v1/games/{game_id}/state").json()
    assert seated["game"]["status"] == "running"
    before = snapshot(game_id)

    schema = served_schema(live.url)
    tried = 0
    for path, item in schema["paths"].items():
        if "{game_id}" not in path:
            continue
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            url = fill(path, {"game_id": game_id})
            r = call(outsider, method, url, request_example(operation))
            # a game you may not watch does not exist for you (reads); writes are refused
            allowed = {404} if method == "get" else {403, 404, 409}
            assert_refused(r, operation, allowed, f"outsider {method.upper()} {path}")
            assert str(game_id) not in r.headers.get("ETag", ""), f"{path}: an ETag of a hidden game"
            tried += 1
    assert tried >= 20
    assert snapshot(game_id) == before, "an outsider's request changed the game"
    # and the hidden game is not listed for the outsider among running games
    listed = outsider.get("/api/v1/games", params={"status": "running"}).json()
    assert game_id not in [g["id"] for g in listed["results"]]


def test_only_the_creator_runs_the_lobby(
    live: LiveServer, http_players: Callable[[int], list[HttpPlayer]]
) -> None:
    a, b = http_players(2)
    created = a.post("/api/v1/games", {"seats": 4})
    game_id = created.json()["id"]
    assert b.post(f"/api/v1/games/{game_id}/join").status_code == 200
    before = snapshot(game_id)
    seats_before = a.get(f"/api/v1/games/{game_id}").json()["players"]
    for action, body in (("start", {}), ("cancel", {}), ("bots", {"strategy": "random"})):
        r = b.post(f"/api/v1/games/{game_id}/{action}", body)
        assert r.status_code == 403, (action, r.text)
        assert r.headers["content-type"].startswith("application/problem+json")
    assert snapshot(game_id) == before
    assert a.get(f"/api/v1/games/{game_id}").json()["players"] == seats_before


def test_another_players_objects_are_not_found(
    live: LiveServer, http_players: Callable[[int], list[HttpPlayer]]
) -> None:
    """Every owned object family in the schema (``/api/v1/me/<things>/{id}...``): made by its owner with the
    schema's own request example, then every operation on it tried with another player's token."""
    owner, other = http_players(2)
    schema = served_schema(live.url)
    families: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for path, item in schema["paths"].items():
        params = PARAM.findall(path)
        if not params or "game_id" in params:
            continue
        collection = path.split("/{", 1)[0]
        for method in METHODS:
            if method in item:
                families.setdefault(collection, []).append((path, method, item[method]))
    assert "/api/v1/me/tokens" in families, sorted(families)

    # offers of a seat are made by a game's creator (a hand-over to a person), not by posting to the
    # collection: another player's accept and decline of them are refused in tests/table/test_seat_offers.py
    families.pop("/api/v1/me/offers", None)
    for collection, operations in families.items():
        create = schema["paths"].get(collection, {}).get("post")
        assert create is not None, f"{collection}: no way to make one to attack"
        made = owner.post(collection, offline(request_example(create)))
        assert made.status_code == 201, f"{collection}: the schema's example was refused: {made.text[:300]}"
        obj = made.json()
        obj_id = obj["id"]
        for path, method, operation in operations:
            url = fill(path, dict.fromkeys(PARAM.findall(path), obj_id))
            r = call(other, method, url, request_example(operation))
            assert_refused(r, operation, {403, 404}, f"other player {method.upper()} {path}")
            assert str(obj.get("token", "\x00")) not in r.text
        # still there, untouched, for its owner
        listed = owner.get(collection)
        assert listed.status_code == 200
        body = listed.json()
        items = body["results"] if isinstance(body, dict) else body
        assert obj_id in [i["id"] for i in items], f"{collection}: another player's request removed it"
        if "token" in obj:  # a token another player tried to revoke still works
            r = httpx.get(f"{live.url}/api/v1/me", headers={"Authorization": f"Bearer {obj['token']}"})
            assert r.status_code == 200
