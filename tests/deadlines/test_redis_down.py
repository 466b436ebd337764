"""With Redis unavailable the API still serves, and a passed deadline is applied on the next request.

The service runs as its own process (``manage.py runserver``) pointed at a Redis port where nothing listens
(the shared Redis is never stopped): Celery cannot publish, the throttle's cache cannot count, and no worker
runs at all. Requests still succeed, and the request that comes after a deadline applies it (R7.2, R7.5).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.utils import timezone

from games.models import Event, Game
from players.models import ApiToken, Player
from tests.worker import REPO_ROOT, database_url_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def server_without_redis(django_db_setup: None, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    from django.db import connection

    dead = _free_port()  # bound and released: nothing listens there
    port = _free_port()
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url_for(dict(connection.settings_dict)),
        REDIS_URL=f"redis://127.0.0.1:{dead}/0",
        DJANGO_SETTINGS_MODULE="critters_api.settings_test",
        PYTHONUNBUFFERED="1",
    )
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=REPO_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/api/v1/games", timeout=1)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start:\n{log.read_text()[-3000:]}") from None
                time.sleep(0.1)
        yield base, log
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _client(base: str, name: str) -> httpx.Client:
    player = Player.objects.create_user(username=name, password="a long passphrase 42")
    _token, raw = ApiToken.issue(player, "tests")
    return httpx.Client(base_url=base, headers={"Authorization": f"Bearer {raw}"}, timeout=10)


def test_with_redis_down_the_api_serves_and_a_request_applies_a_passed_deadline(
    server_without_redis: tuple[str, Path],
) -> None:
    base, log = server_without_redis
    clients = [_client(base, f"nored{i}") for i in range(4)]
    r = clients[0].post(
        "/api/v1/games",
        json={"seats": 4, "options": {"deadlines": {"distribute": 4}, "absence": {"extensions": 0}}},
    )
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    for c in clients[1:]:
        assert c.post(f"/api/v1/games/{gid}/join").status_code == 200
    game = Game.objects.get(pk=gid)
    assert game.status == "running"
    assert game.deadline_at is not None
    before: dict[str, Any] = clients[1].get(f"/api/v1/games/{gid}/state").json()
    assert before["state"]["step"] == "distribute"

    while timezone.now() <= game.deadline_at:  # a few seconds: the step's deadline passes
        time.sleep(0.05)
    assert not Event.objects.filter(game_id=gid, type="DeadlinePassed").exists()  # nothing else runs
    after = clients[1].get(f"/api/v1/games/{gid}/state")
    assert after.status_code == 200, after.text
    assert after.json()["state"]["step"] == "choose"  # the read applied R7.2 first
    passed = Event.objects.get(game_id=gid, type="DeadlinePassed")
    assert passed.data["step_no"] == game.step_no
    assert Event.objects.get(game_id=gid, type="LootDistributed").data["auto"] == "deadline"
    # and the API keeps serving commands
    r = clients[2].post(f"/api/v1/games/{gid}/commands/choose-action", json={"action": "skim"})
    assert r.status_code == 200, r.text
    text = log.read_text()
    assert "could not publish" in text  # the timers could not reach Redis: the request path covered it
    assert '" 500 ' not in text
