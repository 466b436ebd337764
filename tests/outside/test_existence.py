"""No existence oracle (R8.3: nothing through any route): a caller who may not see a private game gets, on
EVERY game-scoped route and method, exactly the answer a game id that does not exist gets: the same status,
the same problem code and detail, the same headers that matter. The routes are read from the URL conf, so a
new route is covered without touching this test. The private games are of every registered ruleset, and a
command route is sent the body of each ruleset that has that command (issue #28 item 8: a body shaped by the
game's ruleset, checked before access, told a hidden game and its ruleset from a missing id). Over real HTTP
against the ASGI application (the live stream is served only there)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from games.api import examples
from games.api.bindings import all_player_commands
from games.models import Game
from games.rules.registry import DEFAULT_RULESET, RULESETS, get_ruleset
from tests.conftest import Api, make_api
from tests.notifications.helpers import AsgiServer

pytestmark = pytest.mark.django_db(transaction=True)

ALWAYS = ("GET", "POST", "DELETE")  # and any other method the view has
_PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")


def game_routes() -> list[tuple[str, Any]]:
    """Every URL pattern with a ``game_id``: (its full route, its view callback)."""
    found: list[tuple[str, Any]] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern) and "<int:game_id>" in prefix + str(p.pattern):
                # the game's id may sit in an including prefix (the commands are under one)
                found.append((prefix + str(p.pattern), p.callback))

    walk(get_resolver().url_patterns, "")
    return found


ROUTES = game_routes()


def fill(route: str, game_id: int) -> str:
    """The route with ``game_id`` and plausible values for the other parameters (seat 0, event 1)."""

    def value(match: re.Match[str]) -> str:
        converter, name = match.group(1) or "str", match.group(2)
        if name == "game_id":
            return str(game_id)
        assert converter == "int", f"give {route} a value for <{converter}:{name}> in this test"
        return "1" if name == "seq" else "0"

    return "/" + _PARAM.sub(value, route)


def bodies_for(callback: Any) -> list[dict[str, Any]]:
    """Well-formed bodies for the route, so that the request goes as deep as it can: for a command, the
    body of each ruleset that has the command (``ChooseAction`` is ``{"action": ...}`` in GoodCritters,
    ``{"card": ...}`` in Loose Triggers), each sent to the games of every ruleset."""
    view = getattr(callback, "view_class", None)
    command = getattr(view, "command_type", "")
    if command:
        slugs = [slug for slug, _cls in all_player_commands()[command]]
        bodies = [dict(v) for slug in slugs for _label, v in examples.command_examples(command, [slug])]
        return list({json.dumps(b, sort_keys=True): b for b in bodies}.values()) or [{}]
    name = getattr(view, "__name__", "")
    if name == "HandOverView":
        return [{"to": "bot", "strategy": "sensible"}]
    if name == "BotsView":
        return [{"strategy": "sensible"}]
    return [{}]


@pytest.fixture(scope="module")
def server(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AsgiServer]:
    s = AsgiServer(tmp_path_factory.mktemp("asgi") / "uvicorn.log")
    s.start()
    try:
        yield s
    finally:
        s.stop()


def private_games() -> dict[str, int]:
    """Private games an outsider may not see: one running (with an open step and a deadline) of every
    registered ruleset (its sample's seats and options), and of the default ruleset also one paused and one
    cancelled before its start (pausing and cancelling are the table's, the same for every ruleset). Keyed
    ``ruleset/kind``."""
    out: dict[str, int] = {}
    for slug in RULESETS:
        sample = getattr(get_ruleset(slug), "sample", None)
        seats = sample.seats if sample is not None else get_ruleset(slug).seat_range()[0]
        options = {**(dict(sample.options) if sample is not None else {}), "pause_by": "creator"}
        apis = [make_api() for _ in range(seats)]
        for kind in ("running", "paused", "cancelled") if slug == DEFAULT_RULESET else ("running",):
            body = {"ruleset": slug, "seats": seats, "options": options, "allow_spectators": False}
            r = apis[0].post("/api/v1/games", body)
            assert r.status_code == 201, r.content
            game_id = r.json()["id"]
            if kind == "cancelled":
                assert apis[0].post(f"/api/v1/games/{game_id}/cancel").status_code == 200
            else:
                for api in apis[1:]:
                    assert api.post(f"/api/v1/games/{game_id}/join").status_code == 200
                assert Game.objects.get(pk=game_id).status == "running"
            if kind == "paused":
                assert apis[0].post(f"/api/v1/games/{game_id}/pause").status_code == 200
            out[f"{slug}/{kind}"] = game_id
    return out


def answer(r: httpx.Response, path: str) -> dict[str, Any]:
    """What a caller learns from a response (the request's path, echoed in ``instance``, set aside)."""
    content_type = r.headers.get("content-type", "")
    body: Any = r.content.decode(errors="replace")
    if content_type.startswith(("application/problem+json", "application/json")) and r.content:
        body = json.loads(r.content)
        if isinstance(body, dict) and body.get("instance") == path:
            body["instance"] = "(the request's path)"
    return {
        "status": r.status_code,
        "content-type": content_type,
        "allow": r.headers.get("allow"),
        "www-authenticate": r.headers.get("www-authenticate"),
        "body": body,
    }


def request(server: AsgiServer, caller: Api | None, method: str, path: str, body: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {caller.token}"} if caller is not None else {}
    content = json.dumps(body).encode() if method in ("POST", "PUT", "PATCH") else None
    if content is not None:
        headers["Content-Type"] = "application/json"
    return httpx.request(method, server.base_url + path, headers=headers, content=content, timeout=10)


def test_the_url_conf_has_the_game_routes_this_test_means() -> None:
    """The discovery itself: the routes the issue names are among those checked."""
    routes = {route for route, _ in ROUTES}
    for expected in (
        "api/v1/games/<int:game_id>",
        "api/v1/games/<int:game_id>/pause",
        "api/v1/games/<int:game_id>/seats/<int:seat>/hand-over",
        "api/v1/games/<int:game_id>/record",
        "api/v1/games/<int:game_id>/stream",
        "api/v1/games/<int:game_id>/commands/send-message",
        "games/<int:game_id>/replay",
    ):
        assert expected in routes, sorted(routes)


@pytest.mark.parametrize(("route", "callback"), ROUTES, ids=[route for route, _ in ROUTES])
def test_a_private_game_answers_exactly_as_a_missing_one(
    server: AsgiServer, route: str, callback: Any
) -> None:
    games = private_games()
    outsider = make_api()
    missing = (Game.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000
    versions = {kind: Game.objects.get(pk=pk).version for kind, pk in games.items()}
    bodies = bodies_for(callback)
    view = getattr(callback, "view_class", None)
    extra = [m.upper() for m in ("put", "patch") if view is not None and hasattr(view, m)]
    for caller in (outsider, None):
        for method in (*ALWAYS, *extra):
            for body in bodies if method in ("POST", "PUT", "PATCH") else bodies[:1]:
                path = fill(route, missing)
                expected = answer(request(server, caller, method, path, body), path)
                for kind, game_id in games.items():
                    path = fill(route, game_id)
                    got = answer(request(server, caller, method, path, body), path)
                    who = "an outsider" if caller else "an anonymous caller"
                    assert got == expected, f"{method} {route} {body} for {who} on a {kind} private game"
    # and nothing an outsider sent changed any of them
    assert {kind: Game.objects.get(pk=pk).version for kind, pk in games.items()} == versions
    assert server.proc is not None
    assert server.proc.poll() is None


def test_who_may_see_a_running_game_still_gets_409_for_its_record_and_replay(server: AsgiServer) -> None:
    """Only the outsider of a private game gets the missing game's answer: a member of it, and anyone for
    a game open to spectators, learn that the record is not public yet."""
    apis = [make_api() for _ in range(4)]
    private = apis[0].post("/api/v1/games", {"seats": 4, "allow_spectators": False}).json()["id"]
    public = apis[0].post("/api/v1/games", {"seats": 4}).json()["id"]
    for game_id in (private, public):
        for api in apis[1:]:
            assert api.post(f"/api/v1/games/{game_id}/join").status_code == 200
    for caller, game_id in ((apis[2], private), (make_api(), public)):
        r = request(server, caller, "GET", f"/api/v1/games/{game_id}/record", None)
        assert r.status_code == 409, r.text
        assert r.json()["code"] == "game_not_over"
    # the replay page (HTML for people) knows a browser's session, not a token: a member logged in sees
    # the 409 of the private game, anyone the public game's
    browser = Client()
    browser.force_login(apis[2].player)
    cookies = {"sessionid": browser.cookies["sessionid"].value}
    for game_id, jar in ((private, cookies), (public, {})):
        r = httpx.get(f"{server.base_url}/games/{game_id}/replay", cookies=jar, timeout=10)
        assert r.status_code == 409, r.text
        assert r.json()["code"] == "game_not_over"
    r = httpx.get(f"{server.base_url}/games/{private}/replay", timeout=10)
    assert r.status_code == 404  # and without the session it is the outsider's answer
