"""Sign up, log in for a token, profile, tokens: hashed at rest, shown once, revocable, Bearer only."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.test import Client

from players.models import ApiToken, Player
from tests.conftest import assert_problem

pytestmark = pytest.mark.django_db


def _json(client: Client, method: str, path: str, body: object = None, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return getattr(client, method)(path, body, content_type="application/json", headers=headers)


def test_sign_up_log_in_and_use_a_token() -> None:
    c = Client()
    r = _json(c, "post", "/api/v1/players", {"username": "bonnie", "password": "a long passphrase 42"})
    assert r.status_code == 201, r.content
    assert r.json()["username"] == "bonnie"
    assert "password" not in r.json()
    r = _json(
        c,
        "post",
        "/api/v1/auth/tokens",
        {"username": "bonnie", "password": "a long passphrase 42", "name": "laptop"},
    )
    assert r.status_code == 201, r.content
    token = r.json()["token"]
    assert token.startswith("gct_")
    assert r.json()["display"].startswith("gct_")
    r = _json(c, "get", "/api/v1/me", token=token)
    assert r.status_code == 200
    assert r.json()["username"] == "bonnie"
    r = _json(c, "patch", "/api/v1/me", {"display_name": "Bonnie P."}, token=token)
    assert r.status_code == 200
    assert r.json()["display_name"] == "Bonnie P."
    assert ApiToken.objects.get().last_used_at is not None


def test_sign_up_refusals() -> None:
    c = Client()
    assert_problem(
        _json(c, "post", "/api/v1/players", {"username": "bo", "password": "123"}), 422, "validation_error"
    )
    _json(c, "post", "/api/v1/players", {"username": "clyde", "password": "a long passphrase 42"})
    problem = assert_problem(
        _json(c, "post", "/api/v1/players", {"username": "CLYDE", "password": "x long pass 42"}),
        422,
        "validation_error",
    )
    assert "username" in problem["errors"]
    problem = assert_problem(
        _json(c, "post", "/api/v1/players", {"username": "dora", "password": "password"}), 422
    )
    assert "password" in problem["errors"]
    assert_problem(
        _json(
            c,
            "post",
            "/api/v1/players",
            {"username": "eve", "password": "a long passphrase 42", "is_staff": True},
        ),
        422,
        "validation_error",
    )
    assert not Player.objects.filter(username="eve").exists()


def test_wrong_password_is_401() -> None:
    c = Client()
    _json(c, "post", "/api/v1/players", {"username": "louie", "password": "a long passphrase 42"})
    assert_problem(
        _json(c, "post", "/api/v1/auth/tokens", {"username": "louie", "password": "nope"}),
        401,
        "invalid_credentials",
    )


def test_tokens_are_hashed_at_rest_shown_once_and_revocable() -> None:
    c = Client()
    _json(c, "post", "/api/v1/players", {"username": "kate", "password": "a long passphrase 42"})
    first = _json(
        c, "post", "/api/v1/auth/tokens", {"username": "kate", "password": "a long passphrase 42"}
    ).json()
    second = _json(c, "post", "/api/v1/me/tokens", {"name": "bot"}, token=first["token"]).json()
    assert second["token"] != first["token"]
    # hashed at rest: only the SHA-256 of the token is stored, and the prefix for display
    for raw in (first["token"], second["token"]):
        row = ApiToken.objects.get(digest=hashlib.sha256(raw.encode()).hexdigest())
        stored = " ".join(str(v) for v in ApiToken.objects.filter(pk=row.pk).values().get().values())
        assert raw not in stored
        assert raw.split("_", 2)[2] not in stored
    # shown once: never listed again
    listed = _json(c, "get", "/api/v1/me/tokens", token=first["token"])
    assert listed.status_code == 200
    assert {t["name"] for t in listed.json()} == {"default", "bot"}
    assert all("token" not in t for t in listed.json())
    assert second["token"] not in listed.content.decode()
    # revoked: 401 from then on; revoking again is 404
    r = _json(c, "delete", f"/api/v1/me/tokens/{second['id']}", token=first["token"])
    assert r.status_code == 204
    assert_problem(_json(c, "get", "/api/v1/me", token=second["token"]), 401, "authentication_failed")
    assert_problem(_json(c, "delete", f"/api/v1/me/tokens/{second['id']}", token=first["token"]), 404)
    assert _json(c, "get", "/api/v1/me", token=first["token"]).status_code == 200


def test_another_players_token_cannot_be_revoked() -> None:
    c = Client()
    for name in ("sammy", "al"):
        _json(c, "post", "/api/v1/players", {"username": name, "password": "a long passphrase 42"})
    sammy = _json(
        c, "post", "/api/v1/auth/tokens", {"username": "sammy", "password": "a long passphrase 42"}
    ).json()
    al = _json(
        c, "post", "/api/v1/auth/tokens", {"username": "al", "password": "a long passphrase 42"}
    ).json()
    assert_problem(_json(c, "delete", f"/api/v1/me/tokens/{sammy['id']}", token=al["token"]), 404)
    assert _json(c, "get", "/api/v1/me", token=sammy["token"]).status_code == 200


def test_unauthenticated_is_401_with_a_bearer_challenge() -> None:
    r = Client().get("/api/v1/me")
    assert_problem(r, 401, "not_authenticated")
    assert r["WWW-Authenticate"] == 'Bearer realm="api"'


def test_session_login_works_for_the_api_and_the_admin() -> None:
    Player.objects.create_user(
        username="op", password="a long passphrase 42", is_staff=True, is_superuser=True
    )
    c = Client()
    assert c.login(username="op", password="a long passphrase 42")
    assert c.get("/api/v1/me").json()["username"] == "op"
    assert c.get("/admin/games/event/").status_code == 200


def test_throttling_is_per_token_with_retry_after(settings: object) -> None:
    from django.conf import settings as dj

    c = Client()
    _json(c, "post", "/api/v1/players", {"username": "speedy", "password": "a long passphrase 42"})
    token = _json(
        c, "post", "/api/v1/auth/tokens", {"username": "speedy", "password": "a long passphrase 42"}
    ).json()["token"]
    old = dj.THROTTLE_USER_RATE
    dj.THROTTLE_USER_RATE = "3/min"
    try:
        statuses = [_json(c, "get", "/api/v1/me", token=token).status_code for _ in range(3)]
        assert statuses == [200, 200, 200]
        r = _json(c, "get", "/api/v1/me", token=token)
        problem = assert_problem(r, 429, "throttled")
        assert int(r["Retry-After"]) > 0
        assert problem["retry_after"] > 0
    finally:
        dj.THROTTLE_USER_RATE = old


def test_the_admin_shows_events_read_only() -> None:
    from tests.conftest import start_table

    table = start_table(4)
    Player.objects.create_user(
        username="root", password="a long passphrase 42", is_staff=True, is_superuser=True
    )
    c = Client()
    c.login(username="root", password="a long passphrase 42")
    from games.models import Event

    event = Event.objects.filter(game_id=table.game_id).first()
    assert event is not None
    assert c.get("/admin/games/event/").status_code == 200
    page = c.get(f"/admin/games/event/{event.pk}/change/")
    assert page.status_code == 200
    assert b"Save" not in page.content
    assert c.get(f"/admin/games/event/{event.pk}/delete/").status_code == 403
    assert c.get("/admin/games/event/add/").status_code == 403
    assert c.get(f"/admin/games/game/{table.game_id}/change/").status_code == 200
    assert c.get("/admin/players/player/").status_code == 200
