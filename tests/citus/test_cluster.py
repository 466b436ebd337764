"""The service on a real Citus cluster (issue #27; docs/SCALING.md, §3): a coordinator and two workers on
this machine, the schema migrated and distributed by game (``manage.py citus_distribute``), two web processes
(gunicorn with uvicorn workers: REST and streams) and two Celery workers (each with a beat) on the
coordinator.

Round 1 plays full games of all three rulesets over HTTP: one human seat (which plays GoodCritters from its
served view and lets every third step's deadline pass, and only talks at the table in the other two, whose
steps the deadlines play), bots in the others, short deadlines (and a warning) applied by the two sweepers,
the feed read, a live stream per game, a webhook endpoint receiving the GoodCritters player's
notifications, a lobby game opened, joined and cancelled. Round 2 plays three more while a third worker
joins and the shards are rebalanced onto it (``citus_rebalance_start``, moves by logical replication while
the games write). Then the admin's pages are read as a superuser.

What must hold, in each round: every acknowledged command is in the log exactly once (lost 0, duplicated 0),
no deadline (a step) fired twice, every game ended and its record verifies (``/verify``), every stream saw
every seq once, in order, every webhook delivery was delivered and received, no 5xx. The figures are printed.

Citus is installed with ``../shared/citus/install.sh`` when it is missing and that script is beside the
checkout (as root); elsewhere the test skips saying why.
"""

from __future__ import annotations

import re
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.deploy.test_multinode import AsgiNode
from tests.worker import CeleryWorkerProcess

from .harness import (
    GAMES,
    Client,
    Human,
    Receiver,
    Stream,
    manage,
    query,
    sign_up,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

PLAY_SECONDS = 150.0  # each round's games are played to the end within this bound


@dataclass
class Figures:
    games: int = 0
    finished: int = 0
    acked: int = 0
    lost: int = 0
    duplicated: int = 0
    deadlines: int = 0
    fired_twice: int = 0
    verified: int = 0
    stream_gaps: int = 0
    stream_dups: int = 0
    reconnects: int = 0
    webhooks_delivered: int = 0
    webhooks_undelivered: int = 0
    webhooks_unreceived: int = 0
    retries: int = 0
    server_errors: int = 0
    seconds: float = 0.0
    unfinished: tuple[str, ...] = ()

    def line(self, label: str) -> str:
        return (
            f"{label}: {self.games} games ({self.finished} finished) in {self.seconds:.0f} s; commands "
            f"acknowledged {self.acked}, lost {self.lost}, duplicated {self.duplicated}; deadlines fired "
            f"{self.deadlines}, fired twice {self.fired_twice}; records verified {self.verified}; streams "
            f"seq gaps {self.stream_gaps}, duplicates {self.stream_dups} ({self.reconnects} reconnects); "
            "webhooks "
            f"delivered {self.webhooks_delivered}, undelivered {self.webhooks_undelivered}, not received "
            f"{self.webhooks_unreceived}; client retries {self.retries}, 5xx {self.server_errors}"
            + "".join(f"; {u}" for u in self.unfinished)
        )


def lobby(bases: list[str]) -> None:
    """Open a game, a second player joins it, the lobby and the players' lists show it, it is cancelled."""
    _a, token_a = sign_up(bases, "lob")
    _b, token_b = sign_up(bases, "lob")
    a, b = Client(bases, token_a), Client(bases, token_b)
    r = a.call("POST", "/api/v1/games", {"seats": 4, "options": GAMES["goodcritters"]})
    assert r.status_code == 201, r.text
    game_id = r.json()["id"]
    assert r.json()["status"] == "open"
    r = b.call("POST", f"/api/v1/games/{game_id}/join", {}, f"join-{uuid.uuid4().hex}")
    assert r.status_code in (200, 201), r.text
    listed = b.call("GET", "/api/v1/games")
    assert listed.status_code == 200, listed.text
    assert game_id in [g["id"] for g in listed.json()["results"]], listed.text
    assert b.call("GET", "/api/v1/games?status=running").status_code == 200
    mine = b.call("GET", "/api/v1/me/games")
    assert mine.status_code == 200, mine.text
    assert game_id in [g["id"] for g in mine.json()["results"]], mine.text
    assert b.call("GET", "/api/v1/me/inbox").status_code == 200
    assert a.call("GET", f"/api/v1/games/{game_id}").status_code == 200
    r = a.call("POST", f"/api/v1/games/{game_id}/cancel", {})
    assert r.status_code == 200, r.text


def play_round(
    url: str, nodes: list[AsgiNode], receiver: Receiver, during: Callable[[], None] | None = None
) -> Figures:
    bases = [n.url for n in nodes]
    lobby(bases)
    humans: list[Human] = []
    streams: list[Stream] = []
    endpoint = 0
    for i, (ruleset, options) in enumerate(GAMES.items()):
        _name, token = sign_up(bases)
        client = Client(bases, token)
        if ruleset == "goodcritters":
            r = client.call(
                "POST",
                "/api/v1/me/webhooks",
                {
                    "url": receiver.url,
                    "events": ["game.started", "game.your_turn", "game.deadline_near", "game.ended"],
                },
            )
            assert r.status_code == 201, r.text
            endpoint = r.json()["id"]
        r = client.call(
            "POST",
            "/api/v1/games",
            {"ruleset": ruleset, "seats": 4, "options": options, "bots": ["sensible", "random", "sensible"]},
        )
        assert r.status_code == 201, r.text
        game_id = r.json()["id"]
        humans.append(Human(bases, token, game_id, ruleset, seed=i, seconds=PLAY_SECONDS))
        streams.append(Stream(bases[i % len(bases)], token, game_id))
    for s in streams:
        s.start()
        assert s.connected.wait(30), "a stream did not open"
    started = time.monotonic()
    for h in humans:
        h.start()
    if during is not None:
        time.sleep(3)
        during()
    for h in humans:
        h.join(timeout=max(1.0, PLAY_SECONDS - (time.monotonic() - started)))
    for s in streams:
        s.join(timeout=20)
        s.stop.set()
    f = Figures(games=len(humans), seconds=time.monotonic() - started)
    for h in humans:
        assert h.error is None, repr(h.error)
        (status, version) = query(url, "SELECT status, version FROM games_game WHERE id = %s", (h.game_id,))[
            0
        ]
        f.finished += status == "over"
        if status != "over":
            f.unfinished += (f"{h.ruleset} game {h.game_id}: {status} at event {version}",)
        for key in h.acked:
            (n,) = query(
                url,
                "SELECT count(*) FROM games_event WHERE game_id = %s AND command_id = %s "
                "AND command IS NOT NULL",
                (h.game_id, key),
            )[0]
            f.lost += n == 0
            f.duplicated += n > 1
        f.acked += len(h.acked)
        passed = Counter(
            row[0]
            for row in query(
                url,
                "SELECT data->>'step_no' FROM games_event WHERE game_id = %s AND type = 'DeadlinePassed'",
                (h.game_id,),
            )
        )
        f.deadlines += sum(passed.values())
        f.fired_twice += sum(1 for n in passed.values() if n > 1)
        verdict = h.client.call("GET", f"/api/v1/games/{h.game_id}/verify")
        assert verdict.status_code == 200 or status != "over", verdict.text
        f.verified += verdict.status_code == 200 and bool(verdict.json()["ok"])
        record = h.client.call("GET", f"/api/v1/games/{h.game_id}/record")
        assert record.status_code == 200 or status != "over", record.text
        feed = h.client.call("GET", f"/api/v1/games/{h.game_id}/events")
        assert feed.status_code == 200, feed.text
        f.retries += h.client.retries
        f.server_errors += h.client.server_errors
        s = next(s for s in streams if s.game_id == h.game_id)
        f.stream_dups += len(s.seqs) - len(set(s.seqs))
        f.stream_gaps += int(s.seqs != list(range(1, version + 1)))
        f.reconnects += s.reconnects
    # every webhook delivery of the endpoint is delivered, and the receiver got it
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        (pending,) = query(
            url,
            "SELECT count(*) FROM notifications_delivery WHERE endpoint_id = %s AND status = 'pending'",
            (endpoint,),
        )[0]
        if pending == 0:
            break
        time.sleep(0.5)
    rows = query(url, "SELECT id, status FROM notifications_delivery WHERE endpoint_id = %s", (endpoint,))
    got = {message for message, _type in receiver.received}
    f.webhooks_delivered = sum(1 for _id, status in rows if status == "delivered")
    f.webhooks_undelivered = sum(1 for _id, status in rows if status != "delivered")
    f.webhooks_unreceived = sum(1 for message, _s in rows if message not in got)
    return f


def check(f: Figures) -> None:
    assert (f.lost, f.duplicated, f.fired_twice, f.stream_gaps, f.stream_dups) == (0, 0, 0, 0, 0), f
    assert f.finished == f.games, f"every game was played to its end within the bound: {f}"
    assert f.verified == f.games, f
    assert f.acked > 0, f
    assert f.deadlines > 0, f
    assert f.webhooks_delivered > 0, f
    assert (f.webhooks_undelivered, f.webhooks_unreceived) == (0, 0), f
    assert f.server_errors == 0, f


def admin_pages(bases: list[str], url: str) -> None:
    """The admin, as a superuser: its index, the games' and events' lists, a game's page, the players."""
    name = f"admin{uuid.uuid4().hex[:6]}"
    env_password = "an admin passphrase 42"
    manage_env = {"DJANGO_SUPERUSER_PASSWORD": env_password}
    import os

    os.environ.update(manage_env)
    try:
        manage(url, "createsuperuser", "--noinput", "--username", name, "--email", f"{name}@example.org")
    finally:
        os.environ.pop("DJANGO_SUPERUSER_PASSWORD", None)
    (game_id,) = query(url, "SELECT id FROM games_game WHERE status = 'over' ORDER BY id LIMIT 1")[0]
    with httpx.Client(base_url=bases[0], timeout=30, follow_redirects=True) as http:
        page = http.get("/admin/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token is not None, page.text[:500]
        r = http.post(
            "/admin/login/?next=/admin/",
            data={"username": name, "password": env_password, "csrfmiddlewaretoken": token.group(1)},
            headers={"Referer": f"{bases[0]}/admin/login/"},
        )
        assert r.status_code == 200, r.text[:500]
        assert "logout" in r.text.lower(), r.text[:500]
        for path in (
            "/admin/",
            "/admin/games/game/",
            "/admin/games/game/?status__exact=over",
            f"/admin/games/game/{game_id}/change/",
            f"/admin/games/event/?game__id__exact={game_id}",
            "/admin/games/seat/",
            "/admin/games/commandresult/",
            "/admin/players/player/",
        ):
            r = http.get(path)
            assert r.status_code == 200, f"{path}: {r.status_code}\n{r.text[:2000]}"


def test_three_rulesets_on_citus_then_a_third_worker_and_a_rebalance_while_games_run(
    citus_cluster: Any, tmp_path: Path
) -> None:
    cluster = citus_cluster
    from critters_api.celery import app

    app.control.purge()
    url = cluster.url
    env = {
        "CACHE_KEY_PREFIX": f"citus-{uuid.uuid4().hex[:8]}",
        "STREAM_POLL_SECONDS": "0.5",
        "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
        "WEBHOOK_SWEEP_SECONDS": "2",
        "WEBHOOK_RETRY_BASE_SECONDS": "1",
        "WEBHOOK_PROBE_MAX_SECONDS": "2",
        "WEBHOOK_TIMEOUT_SECONDS": "5",
        "WEBHOOK_QUEUED_LEASE_SECONDS": "15",
    }
    nodes = [AsgiNode(tmp_path, url, extra_env=env) for _ in range(2)]
    workers = [CeleryWorkerProcess(tmp_path / f"w{i}", url, extra_env=env) for i in range(2)]
    for w in workers:
        w.workdir.mkdir()
    try:
        for n in nodes:
            n.start()
        for w in workers:
            w.start()
        # the receiver fails its first requests: the endpoint is failing, probed, then answers again
        with Receiver(fail_first=3) as receiver:
            first = play_round(url, nodes, receiver)
            print(
                "\n" + first.line("citus, coordinator + 2 workers") + f"; receiver failures {receiver.failed}"
            )
            assert receiver.failed == 3
            check(first)

            moved: dict[str, Any] = {}

            def rebalance() -> None:
                worker = cluster.add_worker()
                cluster.psql(cluster.coordinator, "SELECT citus_rebalance_start()")
                t0 = time.monotonic()
                state = ""
                while time.monotonic() - t0 < 120:
                    state = cluster.psql(cluster.coordinator, "SELECT state FROM citus_rebalance_status()")
                    if state in ("finished", "failed", "cancelled", ""):
                        break
                    time.sleep(0.5)
                moved["state"], moved["seconds"] = state, time.monotonic() - t0
                moved["shards"] = int(
                    cluster.psql(
                        cluster.coordinator,
                        f"SELECT count(*) FROM pg_dist_shard_placement WHERE nodeport = {int(worker.port)}",  # noqa: S608
                    )
                )

            second = play_round(url, nodes, receiver, during=rebalance)
            print(
                second.line("citus, a third worker joined and the shards rebalanced while the games ran")
                + f"; rebalance {moved.get('state')} in {moved.get('seconds', 0):.0f} s, "
                f"{moved.get('shards')} shard placements on the new worker"
            )
            assert moved.get("state") == "finished", moved
            assert moved["shards"] > 0, moved
            check(second)
        admin_pages([n.url for n in nodes], url)
    finally:
        for w in workers:
            w.stop()
        for n in nodes:
            n.stop()
    for n in nodes:
        assert not n.server_errors(), n.log()[-3000:]
