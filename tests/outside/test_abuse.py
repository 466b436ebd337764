"""Abuse from outside: per-token rate limits (429 + Retry-After, problem+json), request size limits (413),
tokens hashed at rest (nothing in any table holds a token's secret), and no secret (token, seed, salt) in
the server's logs while games are played and attacked with a logger at DEBUG."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable

import httpx
import pytest
from django.db import connection

from games.api.commands import kebab
from games.rules import rng
from players.models import ApiToken, Player

from .conftest import HttpPlayer, sign_up
from .live import LiveServer
from .secrets import RULESET, Oracle

pytestmark = pytest.mark.django_db(transaction=True)


def assert_problem(r: httpx.Response, status: int, code: str | None = None) -> dict[str, object]:
    assert r.status_code == status, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/problem+json"), r.headers
    body: dict[str, object] = r.json()
    assert body["status"] == status
    if code is not None:
        assert body["code"] == code, body
    return body


def test_rate_limits_are_per_token_with_retry_after(service_factory: Callable[..., LiveServer]) -> None:
    server = service_factory(
        extra_env={
            "THROTTLE_USER_RATE": "5/min",
            "THROTTLE_ANON_RATE": "4/min",
            "CACHE_KEY_PREFIX": f"outside-throttle-{uuid.uuid4().hex[:8]}",
        }
    )
    # anonymous (per address): guessing passwords is cut off after at most 4 tries a minute (the server's
    # readiness probes may have used some of them)
    statuses = []
    for _ in range(5):
        brute = httpx.post(
            f"{server.url}/api/v1/auth/tokens", json={"username": "nobody", "password": "y" * 12}
        )
        statuses.append(brute.status_code)
        if brute.status_code == 429:
            break
    assert statuses[-1] == 429, statuses
    assert set(statuses[:-1]) <= {401}, statuses
    body = assert_problem(brute, 429, "throttled")
    assert int(brute.headers["Retry-After"]) > 0
    assert body["retry_after"] == int(brute.headers["Retry-After"])

    player = Player.objects.create_user(
        username=f"thr{uuid.uuid4().hex[:8]}", password="a long passphrase 42"
    )
    _, alice_token = ApiToken.issue(player, "first")
    alice = HttpPlayer(
        player.username,
        alice_token,
        httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {alice_token}"}),
    )
    for _ in range(5):
        assert alice.get("/api/v1/me").status_code == 200
    limited = alice.get("/api/v1/me")
    body = assert_problem(limited, 429, "throttled")
    retry = int(limited.headers["Retry-After"])
    assert 0 < retry <= 60
    assert body["retry_after"] == retry
    # a command is throttled too, before it is applied
    assert_problem(alice.post("/api/v1/games", {"seats": 4}), 429, "throttled")
    assert alice.get("/api/v1/me/games").status_code == 429

    # the bucket is the token's: the same player's other token has its own (made on the main server's DB)
    _, raw = ApiToken.issue(player, "second")
    r = httpx.get(f"{server.url}/api/v1/me", headers={"Authorization": f"Bearer {raw}"})
    assert r.status_code == 200
    alice.http.close()


def test_oversized_and_malformed_requests_are_refused_cleanly(
    live: LiveServer, http_players: Callable[[int], list[HttpPlayer]]
) -> None:
    (p,) = http_players(1)
    created = p.post("/api/v1/games", {"seats": 4})
    game_id = created.json()["id"]
    version = created.json()["version"]
    huge = json.dumps({"text": "x" * (256 * 1024), "to": None}).encode()
    for path in (
        f"/api/v1/games/{game_id}/commands/send-message",
        "/api/v1/games",
        "/api/v1/me/tokens",
        "/api/v1/players",
    ):
        r = p.http.post(path, content=huge, headers={"Content-Type": "application/json"})
        assert_problem(r, 413, "request_too_large")
    deep = ("[" * 5000 + "]" * 5000).encode()
    r = p.http.post("/api/v1/games", content=deep, headers={"Content-Type": "application/json"})
    assert r.status_code in (400, 413, 422), r.text[:200]
    assert r.headers["content-type"].startswith("application/problem+json")
    r = p.http.get("/api/v1/games", params={"ruleset": "x" * 20000})
    assert 400 <= r.status_code < 500, r.status_code
    r = p.http.post(
        "/api/v1/games", content=b"\xff\xfe not json", headers={"Content-Type": "application/json"}
    )
    assert_problem(r, 400)
    r = p.http.post(
        "/api/v1/games", content=b"seats=4", headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert_problem(r, 415)
    assert p.get(f"/api/v1/games/{game_id}").json()["version"] == version


def _all_rows_text() -> str:
    """Every row of every table of the database, as JSON text (what an attacker with a dump would have)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' "
            "AND table_type = 'BASE TABLE'"
        )
        tables = [row[0] for row in cursor.fetchall()]
        chunks = []
        for table in tables:
            cursor.execute(f"SELECT coalesce(json_agg(t)::text, '') FROM \"{table}\" t")  # noqa: S608 - catalog names
            chunks.append(cursor.fetchone()[0])
    return "\n".join(chunks)


def test_tokens_are_hashed_at_rest(live: LiveServer, http_players: Callable[[int], list[HttpPlayer]]) -> None:
    players = http_players(2)
    extra = players[0].post("/api/v1/me/tokens", {"name": "bot"}).json()["token"]
    dump = _all_rows_text()
    for raw in [p.token for p in players] + [extra]:
        secret = raw.split("_", 2)[2]
        assert raw not in dump
        assert secret not in dump, "a token's secret is stored in clear"
        assert ApiToken.objects.filter(digest=hashlib.sha256(raw.encode()).hexdigest()).exists()
    # the API never shows a secret again
    listed = players[0].get("/api/v1/me/tokens").text
    assert extra not in listed
    assert extra.split("_", 2)[2] not in listed


def test_no_secret_reaches_the_logs(service_factory: Callable[..., LiveServer]) -> None:
    server = service_factory(extra_env={"LOG_LEVEL": "DEBUG"})
    players = [sign_up(server.url) for _ in range(4)]
    created = players[0].post(
        "/api/v1/games", {"seats": 4, "options": {"payoffs": True, "fuzz_depth": "short"}}
    )
    game_id = created.json()["id"]
    for p in players[1:]:
        assert p.post(f"/api/v1/games/{game_id}/join").status_code == 200
    viewer = {p.username: p.get(f"/api/v1/games/{game_id}/state").json()["viewer"] for p in players}
    assert sorted(viewer.values()) == [0, 1, 2, 3]
    seats = sorted(players, key=lambda p: viewer[p.username])
    # attacks that a careless server would log: a wrong token, a revoked one, a bad password
    httpx.get(f"{server.url}/api/v1/me", headers={"Authorization": f"Bearer {players[0].token}x"})
    httpx.post(
        f"{server.url}/api/v1/auth/tokens", json={"username": players[1].username, "password": "wrong pw 1"}
    )
    oracle = Oracle(game_id)
    sent = 0
    while sent < 150:
        oracle.advance()
        if RULESET.is_terminal(oracle.state):
            break
        for seat in range(4):
            command = RULESET.bot_command(oracle.state, seat, strategy="random", salt=sent)
            if command is None:
                continue
            body = dict(RULESET.command_to_json(command))
            kind = body.pop("type")
            r = seats[seat].post(f"/api/v1/games/{game_id}/commands/{kebab(kind)}", body)
            assert r.status_code == 200, r.text
            sent += 1
            break
        if sent % 10 == 0:  # and a rule error now and then
            seats[0].post(f"/api/v1/games/{game_id}/commands/give-gift", {"to": 0, "loot": [1]})
    assert sent >= 20
    oracle.advance()
    logs = server.log() + server.access_path.read_text()
    assert "GET /api/v1/me" in logs or "/api/v1/games" in logs, "the server logged nothing: the test is blind"
    secrets = [oracle.seed.hex()]
    secrets += [rng.salt(oracle.seed, f"salt/{k}").hex() for k in range(oracle.state.game.commit_no)]
    for p in players:
        secrets += [p.token, p.token.split("_", 2)[2]]
    for secret in secrets:
        assert secret not in logs, f"a secret reached the logs: {secret[:12]}…"
    for p in players:
        p.http.close()
