"""Several web nodes behind a load balancer, two workers and two beats, nodes dying mid-game.

Two web nodes run as the serve command runs one (gunicorn with uvicorn workers: the REST API and the live
streams on one port) against the test database and this run's Redis, behind Debian's HAProxy (round robin,
health-checked on ``/healthz``; ``scripts/test`` installs it with apt-get when it is missing and it can). Two
Celery workers each run with an embedded beat: two beat processes, as if started by mistake. Games of one
human seat (played by this test through the load balancer) and bot seats (played by the workers), with
short deadlines that the human sometimes lets pass, are played to the end while one web node is killed
(SIGKILL) and restarted and one worker is killed. Every command carries an Idempotency-Key; a client retries
on a 5xx or a connection error with the same key. Every game is followed by two live streams
(``/games/{id}/stream``), which resume with ``Last-Event-ID`` on whichever node answers.

What must hold: every acknowledged command is in the log exactly once; every stream saw every seq exactly
once, in order; no deadline (a step_no) was applied twice; every game's log verifies and replays to the
state the service serves. The figures are printed.
"""

from __future__ import annotations

import json
import random
import shutil
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.db import connection

from games import loading, store
from games.models import Event, Game, GameStatus, Seat
from tests.outside.driver import kebab, next_command
from tests.outside.live import GUNICORN, LiveServer
from tests.processes import ManagedProcess, free_port, http_ok
from tests.worker import CeleryWorkerProcess, database_url_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), pytest.mark.django_db(transaction=True)]

HAPROXY = shutil.which("haproxy") or next(
    (p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if Path(p).exists()), None
)
GAMES = 3
PLAY_SECONDS = 100.0  # the games are played to the end, within this bound
OPTIONS = {
    "fuzz_depth": "standard",
    "deadlines": {"distribute": 2, "choose": 2},
    "absence": {"extensions": 0, "autopilot_after": None},
    "warn_before": 0,
}


class AsgiNode(LiveServer):
    """A web node as ``scripts/serve`` runs one: gunicorn with uvicorn workers (REST and streams)."""

    def command(self) -> list[str]:
        return [
            str(GUNICORN),
            "critters_api.asgi:application",
            "--worker-class",
            "uvicorn.workers.UvicornWorker",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            "1",
            "--graceful-timeout",
            "2",
            "--access-logfile",
            str(self.access_path),
            "--error-logfile",
            "-",
        ]

    def wait_ready(self, timeout: float = 60.0) -> None:
        self.process.wait_until(lambda: http_ok(f"{self.url}/healthz", timeout=5), timeout)


HAPROXY_CFG = """
global
    maxconn 512
defaults
    mode http
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    timeout tunnel 120s
    retries 3
    option redispatch
frontend api
    bind 127.0.0.1:{port}
    default_backend web
backend web
    balance roundrobin
    option httpchk GET /healthz
    default-server inter 300ms fall 2 rise 2
{servers}
"""


class Balancer:
    def __init__(self, workdir: Path, nodes: list[AsgiNode]) -> None:
        assert HAPROXY is not None
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        servers = "\n".join(f"    server n{i} 127.0.0.1:{n.port} check" for i, n in enumerate(nodes))
        self.config = workdir / "haproxy.cfg"
        self.config.write_text(HAPROXY_CFG.format(port=self.port, servers=servers))
        self.process = ManagedProcess("haproxy", workdir / "haproxy.log", stop_timeout=10)

    def start(self) -> None:
        self.process.start([str(HAPROXY), "-db", "-f", str(self.config)])
        self.process.wait_until(lambda: http_ok(f"{self.url}/healthz", timeout=2), 20)

    def stop(self) -> None:
        self.process.stop()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[list[AsgiNode], Balancer, list[CeleryWorkerProcess]]]:
    if HAPROXY is None:
        pytest.skip("HAProxy is not installed (scripts/test installs it with apt-get when run as root)")
    from critters_api.celery import app

    app.control.purge()
    url = database_url_for(dict(connection.settings_dict))
    env = {"CACHE_KEY_PREFIX": f"multinode-{uuid.uuid4().hex[:8]}", "STREAM_POLL_SECONDS": "0.5"}
    nodes = [AsgiNode(tmp_path, url, extra_env=env) for _ in range(2)]
    workers = [CeleryWorkerProcess(tmp_path / f"w{i}", url, extra_env=env) for i in range(2)]
    for w in workers:
        w.workdir.mkdir()
    balancer = Balancer(tmp_path, nodes)
    try:
        for n in nodes:
            n.start()
        balancer.start()
        for w in workers:  # each with an embedded beat: two beats
            w.start()
        yield nodes, balancer, workers
    finally:
        for w in workers:
            w.stop()
        balancer.stop()
        for n in nodes:
            n.stop()


class Client:
    """One player through the load balancer: retries a 5xx or a connection error (the same request, the same
    Idempotency-Key) until it gets an answer."""

    def __init__(self, base: str, token: str = "") -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=base, timeout=20, headers=headers)
        self.retries = 0

    def call(self, method: str, path: str, body: Any = None, key: str | None = None) -> httpx.Response:
        headers = {"Idempotency-Key": key} if key else {}
        for _ in range(200):
            try:
                r = self.http.request(method, path, json=body, headers=headers)
            except httpx.TransportError:
                r = None
            busy = r is not None and r.status_code == 409 and "idempotency_key_in_use" in r.text
            if r is not None and r.status_code < 500 and not busy:
                return r
            self.retries += 1
            time.sleep(0.1)
        raise AssertionError(f"{method} {path}: no answer after 200 tries")


def sign_up(base: str) -> tuple[str, str]:
    name = f"mn{uuid.uuid4().hex[:10]}"
    anon = Client(base)
    r = anon.call("POST", "/api/v1/players", {"username": name, "password": "a long passphrase 42"})
    assert r.status_code in (201, 409), r.text  # 409: the first try was applied, its answer lost
    r = anon.call(
        "POST", "/api/v1/auth/tokens", {"username": name, "password": "a long passphrase 42", "name": "t"}
    )
    assert r.status_code == 201, r.text
    return name, r.json()["token"]


class Stream(threading.Thread):
    """Follows one game's live stream, resuming with Last-Event-ID after every disconnection."""

    def __init__(self, base: str, token: str, game_id: int) -> None:
        super().__init__(daemon=True)
        self.base, self.token, self.game_id = base, token, game_id
        self.seqs: list[int] = []
        self.reconnects = 0
        self.ended = False
        self.stop = threading.Event()
        self.connected = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set() and not self.ended:
            headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
            params = {}
            if self.seqs:
                headers["Last-Event-ID"] = str(self.seqs[-1])
            else:
                params["after"] = "0"
            try:
                with httpx.stream(
                    "GET",
                    f"{self.base}/api/v1/games/{self.game_id}/stream",
                    headers=headers,
                    params=params,
                    timeout=httpx.Timeout(10, read=30),
                ) as r:
                    if r.status_code != 200:
                        time.sleep(0.2)
                        continue
                    self.connected.set()
                    event = ""
                    for line in r.iter_lines():
                        if line.startswith("event:"):
                            event = line.split(":", 1)[1].strip()
                        elif line.startswith("data:") and event == "game_event":
                            self.seqs.append(int(json.loads(line[5:])["seq"]))
                        elif line.startswith("data:") and event == "end":
                            self.ended = True
                            return
                        if self.stop.is_set():
                            return
            except httpx.HTTPError:
                pass
            if not self.stop.is_set() and not self.ended:
                self.reconnects += 1
                time.sleep(0.1)


class Human(threading.Thread):
    """Plays the one human seat of a game: acts when waited on, except on every third step, where it lets the
    deadline pass. Remembers the Idempotency-Key of every command the service acknowledged (200)."""

    def __init__(self, base: str, token: str, game_id: int, seed: int) -> None:
        super().__init__(daemon=True)
        self.client = Client(base, token)
        self.game_id = game_id
        self.rnd = random.Random(seed)
        self.acked: list[str] = []
        self.deadline = time.monotonic() + PLAY_SECONDS
        self.over = False
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.play()
        except BaseException as exc:  # reported by the test
            self.error = exc

    def play(self) -> None:
        path = f"/api/v1/games/{self.game_id}"
        while time.monotonic() < self.deadline:
            r = self.client.call("GET", f"{path}/state")
            assert r.status_code == 200, r.text
            view = r.json()
            if view["over"]:
                self.over = True
                return
            waiting = view["waiting"]
            if not waiting or not waiting["you"] or waiting["step_no"] % 3 == 0:
                time.sleep(0.15)
                continue
            step = next_command(view, self.rnd)
            if step is None:
                time.sleep(0.15)
                continue
            kind, body = step
            key = f"mn-{self.game_id}-{view['version']}-{uuid.uuid4().hex[:8]}"
            r = self.client.call("POST", f"{path}/commands/{kebab(kind)}", body, key)
            if r.status_code == 200:
                self.acked.append(key)


class Chatter(threading.Thread):
    """Table talk from the human's seat, back to back while the game runs: commands in flight when a node
    dies (each with its own Idempotency-Key, retried like any other)."""

    def __init__(self, human: Human, base: str, token: str) -> None:
        super().__init__(daemon=True)
        self.human = human
        self.client = Client(base, token)
        self.acked: list[str] = []

    def run(self) -> None:
        path = f"/api/v1/games/{self.human.game_id}/commands/send-message"
        n = 0
        while self.human.is_alive() and time.monotonic() < self.human.deadline:
            n += 1
            key = f"chat-{self.human.game_id}-{n}"
            r = self.client.call("POST", path, {"text": f"message {n}", "to": None}, key)
            if r.status_code == 200:
                self.acked.append(key)
            time.sleep(0.05)


def test_two_nodes_two_workers_two_beats_and_crashes_lose_and_repeat_nothing(
    cluster: tuple[list[AsgiNode], Balancer, list[CeleryWorkerProcess]],
) -> None:
    nodes, balancer, workers = cluster
    base = balancer.url
    humans: list[Human] = []
    streams: list[Stream] = []
    chatters: list[Chatter] = []
    for g in range(GAMES):
        _name, token = sign_up(base)
        creator = Client(base, token)
        r = creator.call(
            "POST",
            "/api/v1/games",
            {"seats": 4, "options": OPTIONS, "bots": ["sensible", "random", "sensible"]},
        )
        assert r.status_code == 201, r.text
        game_id = r.json()["id"]
        assert r.json()["status"] == "running"
        humans.append(Human(base, token, game_id, seed=g))
        chatters.append(Chatter(humans[-1], base, token))
        streams += [Stream(base, token, game_id), Stream(base, token, game_id)]
    # the streams open first, one after the other: HAProxy's round robin puts half of them on each node
    for s in streams:
        s.start()
        assert s.connected.wait(20), "a stream did not open"
    for t in (*humans, *chatters):
        t.start()

    started = time.monotonic()
    time.sleep(4)
    assert all(not h.over for h in humans), "a game ended before the faults: make the games longer"
    workers[0].kill()  # a worker (and its beat) dies: the other worker and beat carry on
    time.sleep(2)
    assert all(not h.over for h in humans), "a game ended before the faults: make the games longer"
    nodes[0].process.kill()  # a web node dies (SIGKILL to its process group) mid-game ...
    time.sleep(2)
    nodes[0].start()  # ... and comes back
    for h in humans:
        h.join(timeout=max(1.0, PLAY_SECONDS - (time.monotonic() - started)))
    for s in streams:
        s.join(timeout=15)
        s.stop.set()
    played = time.monotonic() - started
    for h in humans:
        assert h.error is None, repr(h.error)

    lost = duplicated = 0
    fired_twice = 0
    deadlines_fired = 0
    for c in chatters:
        c.join(timeout=30)
    for h, c in zip(humans, chatters, strict=True):
        game = Game.objects.get(pk=h.game_id)
        for key in (*h.acked, *c.acked):
            batches = Event.objects.filter(game_id=h.game_id, command_id=key, command__isnull=False).count()
            lost += batches == 0
            duplicated += batches > 1
        passed = Counter(
            e["step_no"]
            for e in Event.objects.filter(game_id=h.game_id, type="DeadlinePassed").values_list(
                "data", flat=True
            )
        )
        deadlines_fired += sum(passed.values())
        fired_twice += sum(1 for n in passed.values() if n > 1)
        # the log verifies and replays to the state the service serves (through the balancer)
        assert store.verify_chain(h.game_id)
        rs = loading.ruleset_for(game)
        served = h.client.call("GET", f"/api/v1/games/{h.game_id}/state").json()
        assert served["version"] == game.version
        assert served["viewer"] == Seat.objects.get(game_id=h.game_id, player__isnull=False).position
        assert served["state"] == rs.view_for(loading.full_replay(game), served["viewer"])
    stream_gaps = stream_dups = 0
    for s in streams:
        version = Game.objects.get(pk=s.game_id).version
        stream_dups += len(s.seqs) - len(set(s.seqs))
        stream_gaps += int(s.seqs != list(range(1, len(s.seqs) + 1)))
        assert s.ended, "every stream reached the end of its game"
        assert s.seqs[-1] == version  # ... having seen every event: with no gap or duplicate, 1..version
    finished = sum(1 for h in humans if Game.objects.get(pk=h.game_id).status == GameStatus.OVER)
    acked = sum(len(h.acked) for h in humans) + sum(len(c.acked) for c in chatters)
    retries = sum(h.client.retries for h in humans) + sum(c.client.retries for c in chatters)
    reconnects = sum(s.reconnects for s in streams)
    print(
        f"\nmulti-node: {GAMES} games ({finished} finished) in {played:.0f} s through HAProxy over 2 web "
        f"nodes (one killed and restarted), 2 workers + 2 beats (one worker killed); commands acknowledged "
        f"{acked}, lost {lost}, duplicated {duplicated}; client retries {retries}; deadlines fired "
        f"{deadlines_fired}, fired twice {fired_twice}; streams {len(streams)}, reconnects {reconnects}, seq "
        f"gaps {stream_gaps}, seq duplicates {stream_dups}"
    )
    assert (lost, duplicated, fired_twice, stream_gaps, stream_dups) == (0, 0, 0, 0, 0)
    assert finished == GAMES, "every game was played to its end within the bound"
    assert acked > 0
    assert deadlines_fired > 0
    assert reconnects > 0, "no stream was cut by the dead node: the resume was not exercised"
    for n in nodes:
        assert not n.server_errors(), n.log()[-3000:]
