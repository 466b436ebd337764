"""Faults, from outside, on PRIVATE throwaway servers: the service (gunicorn, PRODUCTION settings: persistent
connections with health checks) runs against its own PostgreSQL and Redis, which the test crashes and
restarts mid-game.

- PostgreSQL crashed (``pg_ctl stop -m immediate``) and restarted: while it is down every request gets a 503
  problem+json with Retry-After (never a 500); the service recovers by itself; nothing acknowledged is lost;
  a command refused with 503 and retried with the same Idempotency-Key is applied exactly once.
- Redis stopped and started: the games go on (throttling fails open; nothing that decides a game is in Redis).
After each fault, every game's log replays to the state the API serves and its hash chain is valid."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from games.rules.registry import get_ruleset

from .conftest import HttpPlayer, sign_up
from .driver import kebab, next_command
from .live import LiveServer
from .private import PrivatePostgres, PrivateRedis, private_postgres, verify_chain

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

RULESET = get_ruleset("goodcritters")
RECOVERY_TIMEOUT = 30.0


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[PrivatePostgres, PrivateRedis, LiveServer]]:
    redis = PrivateRedis(tmp_path)
    redis.start()
    with private_postgres(tmp_path) as pg:
        server = LiveServer(
            tmp_path,
            pg.url,
            redis_url=redis.url,
            settings_module="critters_api.settings",
            extra_env={
                "SECRET_KEY": "fault-test-" + uuid.uuid4().hex,
                "ALLOWED_HOSTS": "127.0.0.1",
                "CONN_MAX_AGE": "60",
                "THROTTLE_USER_RATE": "100000/min",
                "THROTTLE_ANON_RATE": "100000/min",
                "CACHE_KEY_PREFIX": "faults",
            },
        )
        server.start()
        try:
            yield pg, redis, server
        finally:
            server.stop()
            redis.stop()


class Game:
    def __init__(self, server: LiveServer, players: int, rnd: random.Random) -> None:
        self.rnd = rnd
        self.people = [sign_up(server.url) for _ in range(players)]
        created = self.people[0].post("/api/v1/games", {"seats": players, "options": {"fuzz_depth": "short"}})
        assert created.status_code == 201, created.text
        self.id = created.json()["id"]
        for p in self.people[1:]:
            assert p.post(f"/api/v1/games/{self.id}/join").status_code == 200
        self.seats = sorted(self.people, key=lambda p: self.view(p)["viewer"])
        self.acked: list[str] = []  # Idempotency-Keys of the commands the service acknowledged (200)

    def view(self, p: HttpPlayer) -> dict[str, Any]:
        # right after an outage a web process that has not yet seen the database back answers 503 with
        # Retry-After (each process finds out on its own within a second or two): read again, as clients do
        start = time.monotonic()
        r = p.get(f"/api/v1/games/{self.id}/state")
        while r.status_code == 503 and time.monotonic() - start < RECOVERY_TIMEOUT:
            time.sleep(0.2)
            r = p.get(f"/api/v1/games/{self.id}/state")
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    def next(self) -> tuple[HttpPlayer, str, dict[str, Any]] | None:
        for p in self.seats:
            view = self.view(p)
            if view["over"]:
                return None
            step = next_command(view, self.rnd)
            if step is not None:
                return p, *step
        raise AssertionError("nobody has anything to do")

    def send(self, p: HttpPlayer, kind: str, body: dict[str, Any], key: str) -> httpx.Response:
        return p.post(
            f"/api/v1/games/{self.id}/commands/{kebab(kind)}", body, headers={"Idempotency-Key": key}
        )

    def play(self, commands: int) -> bool:
        """Up to ``commands`` acknowledged commands; False once the game is over."""
        for _ in range(commands):
            step = self.next()
            if step is None:
                return False
            p, kind, body = step
            key = uuid.uuid4().hex
            r = self.send(p, kind, body, key)
            assert r.status_code == 200, r.text
            self.acked.append(key)
        return True


def assert_unavailable(r: httpx.Response) -> None:
    assert r.status_code == 503, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["code"] == "database_unavailable"
    assert int(r.headers["Retry-After"]) > 0


def wait_until_served(p: HttpPlayer, path: str) -> float:
    start = time.monotonic()
    while time.monotonic() - start < RECOVERY_TIMEOUT:
        r = p.get(path)
        if r.status_code == 200:
            return time.monotonic() - start
        assert r.status_code == 503, (r.status_code, r.text[:300])
        time.sleep(0.2)
    raise AssertionError(f"the service did not recover within {RECOVERY_TIMEOUT}s")


def send_until_served(game: Game, p: HttpPlayer, kind: str, body: dict[str, Any], key: str) -> httpx.Response:
    """A command retried with the same Idempotency-Key while it gets 503 (as the docs tell clients): each web
    process finds the database back on its own, so one answer served does not mean the next is."""
    start = time.monotonic()
    while True:
        r = game.send(p, kind, body, key)
        if r.status_code != 503 or time.monotonic() - start > RECOVERY_TIMEOUT:
            return r
        assert r.json()["code"] == "database_unavailable", r.text
        time.sleep(0.2)


def assert_consistent(pg: PrivatePostgres, game: Game) -> None:
    """Nothing acknowledged is lost; the log replays to what every seat is served; the chain verifies."""
    command_ids = {
        row[0] for row in pg.query("SELECT command_id FROM games_event WHERE game_id = %s", (game.id,))
    }
    lost = [key for key in game.acked if key not in command_ids]
    assert not lost, f"acknowledged commands lost: {lost}"
    assert verify_chain(pg, game.id)
    log = [
        row[0] for row in pg.query("SELECT data FROM games_event WHERE game_id = %s ORDER BY seq", (game.id,))
    ]
    replay = RULESET.fold(RULESET.event_from_json(data) for data in log)
    for p in game.seats:
        served = game.view(p)
        assert served["version"] == len(log)
        assert served["state"] == RULESET.view_for(replay, served["viewer"])
    if RULESET.is_terminal(replay):  # a game finished through the outages verifies (docs/AUDIT.md)
        verdict = game.seats[0].get(f"/api/v1/games/{game.id}/verify")
        assert verdict.status_code == 200, verdict.text
        assert verdict.json()["ok"] is True, verdict.json()["error"]


def test_postgres_crash_and_redis_restart_mid_game(
    stack: tuple[PrivatePostgres, PrivateRedis, LiveServer],
) -> None:
    pg, redis, server = stack
    rnd = random.Random(7)
    games = [Game(server, 4, rnd), Game(server, 5, rnd)]
    for g in games:
        g.play(12)
        assert_consistent(pg, g)

    # --- PostgreSQL crashes -------------------------------------------------------------------------
    g = games[0]
    step = g.next()
    assert step is not None
    p, kind, body = step
    pg.stop("immediate")
    assert not pg.running()
    retry_key = uuid.uuid4().hex
    assert_unavailable(g.send(p, kind, body, retry_key))
    assert_unavailable(p.get(f"/api/v1/games/{g.id}/state"))
    assert_unavailable(p.get("/api/v1/me/games"))
    health = httpx.get(f"{server.url}/healthz")
    assert health.status_code == 503
    assert health.headers["content-type"].startswith("application/problem+json")

    pg.start()
    recovered_in = wait_until_served(p, f"/api/v1/games/{g.id}/state")
    # the refused command was not applied; sent again with the same key it is applied once
    r = send_until_served(g, p, kind, body, retry_key)
    assert r.status_code == 200, r.text
    assert "Idempotent-Replayed" not in r.headers
    again = send_until_served(g, p, kind, body, retry_key)
    assert again.status_code == 200
    assert again.headers.get("Idempotent-Replayed") == "true"
    g.acked.append(retry_key)
    rows = pg.query("SELECT count(DISTINCT seq) FROM games_event WHERE command_id = %s", (retry_key,))
    assert rows[0][0] >= 1
    for game in games:
        assert_consistent(pg, game)
        game.play(8)

    # --- Redis stops and starts -----------------------------------------------------------------------
    redis.stop()
    for game in games:
        game.play(6)  # the games go on without Redis
        assert_consistent(pg, game)
    redis.start()
    for game in games:
        while game.play(20):
            pass
        assert_consistent(pg, game)
        final = game.view(game.seats[0])
        assert final["over"] is True
    assert recovered_in < RECOVERY_TIMEOUT
    errors = server.server_errors()
    assert not errors, f"500s during the faults: {errors}\n{server.log()[-3000:]}"
