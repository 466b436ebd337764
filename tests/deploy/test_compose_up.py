"""`docker compose up`, for real (issue #26): the README's production path, run on a Docker engine.

``scripts/docker-images images`` makes sure of the engine (Debian's docker.io and docker-compose, a dockerd
started when none answers) and of local images built from Debian's packages (a debootstrapped bookworm,
Python 3.11, PostgreSQL 15, Redis), since no image registry can be reached here; it prints the variables
that make docker-compose.yml use them (BASE_IMAGE, POSTGRES_IMAGE, REDIS_IMAGE) and the host's pip index
settings. Then, under a compose project of its own, on free host ports:

1. the service image is built from the Dockerfile (``compose build``) and the stack brought up
   (``compose up -d``): postgres, redis, migrate (runs once, exits 0), web, stream, worker, notifications and
   beat, each long-running one healthy by its own healthcheck (beat, which has none, running);
2. a player signs up and plays a game against three bots to its end through the published web port; the
   record verifies (``/verify``) and the stream service replays every event of it;
3. web and worker are scaled to two (``--scale web=2 --scale worker=2``, the web replicas on a published
   port range), and a player plays games back to back, through whichever web replica answers, while
   - one web and one worker container are ``docker kill``ed: requests are still answered and the bots still
     move; the engine takes ``docker kill`` for an operator's stop, so the restart policy leaves them down
     and ``compose up -d --scale ...`` starts them again;
   - the main process of the other web and worker container is SIGKILLed (a crash, as the engine sees one):
     the restart policy (``unless-stopped``) brings both back, healthy, by itself, while the game goes on;
   every game played to its end verifies;
4. ``compose down -v`` removes every container, the network and the volume; the service image is removed
   (its dependency layer stays cached under ``critters-local/app-dependencies``, like the base images).

The time each phase took is printed. The README's "Production" section says what this runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.outside.driver import kebab, next_command

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

ROOT = Path(__file__).resolve().parents[2]
HELPER = ROOT / "scripts" / "docker-images"
DEPENDENCIES_CACHE = "critters-local/app-dependencies:latest"
PASSWORD = "a long passphrase 42"
OPTIONS = {"deadlines": {"distribute": 5, "choose": 5}, "warn_before": 0}
BOTS = ["sensible", "random", "sensible"]
# What docker-compose.yml reads from the environment: the test sets its own, nothing leaks in from the host.
COMPOSE_VARIABLES = (
    "SECRET_KEY",
    "POSTGRES_PASSWORD",
    "ALLOWED_HOSTS",
    "DB_POOL_MAX_SIZE",
    "WEB_WORKERS",
    "WEB_THREADS",
    "TRUSTED_PROXY_COUNT",
    "WORKER_CONCURRENCY",
    "POSTGRES_MAX_CONNECTIONS",
    "APP_IMAGE",
    "BASE_IMAGE",
    "POSTGRES_IMAGE",
    "REDIS_IMAGE",
    "WEB_PORTS",
    "STREAM_PORT",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_TRUSTED_HOST",
)
LONG_RUNNING = ("postgres", "redis", "web", "stream", "worker", "notifications", "beat")


def run(cmd: list[str], *, env: dict[str, str] | None = None, timeout: float = 120) -> str:
    """Run ``cmd``; its output, or an AssertionError with it."""
    done = subprocess.run(
        cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, (
        f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def compose_command() -> list[str]:
    """``docker compose`` (the v2 plugin) where it is installed, else ``docker-compose`` (Debian's)."""
    if (
        shutil.which("docker")
        and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0
    ):
        return ["docker", "compose"]
    assert shutil.which("docker-compose"), "neither `docker compose` nor `docker-compose` is installed"
    return ["docker-compose"]


def free_port_range(n: int) -> int:
    """The first of ``n`` consecutive TCP ports that nothing listens on, on any address."""
    rnd = random.Random()
    for _ in range(200):
        first = rnd.randrange(20000, 45000)
        socks = []
        try:
            for port in range(first, first + n):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                socks.append(s)
                s.bind(("0.0.0.0", port))  # noqa: S104 - probing that the port is free on every address
            return first
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise AssertionError(f"no {n} consecutive free ports")


@dataclass
class Container:
    id: str
    name: str
    service: str
    status: str  # running, exited, restarting, ...
    exit_code: int
    health: str | None  # starting, healthy, unhealthy; None without a healthcheck
    restarts: int
    pid: int
    web_port: int | None  # the host port published for 8000/tcp (web)

    @property
    def ready(self) -> bool:
        return self.status == "running" and self.health in (None, "healthy")


class Stack:
    """One compose project of docker-compose.yml, on its own host ports, with its own secrets."""

    def __init__(self, images: dict[str, str]) -> None:
        self.project = f"critters-compose-{uuid.uuid4().hex[:8]}"
        web = free_port_range(7)
        self.stream_port = web + 6
        env = {k: v for k, v in os.environ.items() if k not in COMPOSE_VARIABLES}
        env.update(images)
        env.update(
            {
                "APP_IMAGE": f"{self.project}:test",
                "SECRET_KEY": secrets.token_urlsafe(50),
                "POSTGRES_PASSWORD": secrets.token_urlsafe(16),
                "WEB_PORTS": f"{web}-{web + 5}",
                "STREAM_PORT": str(self.stream_port),
            }
        )
        self.env = env
        self.compose_name = " ".join(compose_command())
        self.compose_cmd = [
            *self.compose_name.split(),
            "-p",
            self.project,
            "-f",
            str(ROOT / "docker-compose.yml"),
        ]

    def compose(self, *args: str, timeout: float = 300) -> str:
        return run([*self.compose_cmd, *args], env=self.env, timeout=timeout)

    def logs(self, tail: int = 40) -> str:
        done = subprocess.run(
            [*self.compose_cmd, "logs", "--no-color", "--tail", str(tail)],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return done.stdout[-6000:] + done.stderr[-2000:]

    def containers(self) -> list[Container]:
        ids = run(
            ["docker", "ps", "-aq", "--filter", f"label=com.docker.compose.project={self.project}"]
        ).split()
        if not ids:
            return []
        out = []
        for c in json.loads(run(["docker", "inspect", *ids])):
            state = c["State"]
            bindings = (c["NetworkSettings"].get("Ports") or {}).get("8000/tcp") or []
            out.append(
                Container(
                    id=c["Id"],
                    name=c["Name"].lstrip("/"),
                    service=c["Config"]["Labels"]["com.docker.compose.service"],
                    status=state["Status"],
                    exit_code=state["ExitCode"],
                    health=(state.get("Health") or {}).get("Status"),
                    restarts=c["RestartCount"],
                    pid=state["Pid"],
                    web_port=int(bindings[0]["HostPort"]) if bindings else None,
                )
            )
        return sorted(out, key=lambda c: c.name)

    def of(self, service: str) -> list[Container]:
        return [c for c in self.containers() if c.service == service]

    def web_urls(self) -> list[str]:
        return [
            f"http://127.0.0.1:{c.web_port}" for c in self.of("web") if c.status == "running" and c.web_port
        ]

    def wait(self, what: str, check: Callable[[list[Container]], bool], timeout: float = 180) -> float:
        """Seconds until ``check`` holds of the project's containers; fails with their states and logs."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if check(self.containers()):
                return time.monotonic() - started
            time.sleep(1)
        states = "\n".join(f"{c.name}: {c.status} {c.health} exit {c.exit_code}" for c in self.containers())
        raise AssertionError(f"{what}: not within {timeout} s\n{states}\n{self.logs()}")

    def wait_ready(self, replicas: dict[str, int], timeout: float = 180) -> float:
        def ready(containers: list[Container]) -> bool:
            migrated = [c for c in containers if c.service == "migrate"]
            if not migrated or any(c.status != "exited" or c.exit_code != 0 for c in migrated):
                return False
            return all(
                sum(1 for c in containers if c.service == s and c.ready) == replicas.get(s, 1)
                for s in LONG_RUNNING
            )

        return self.wait(f"every service ready ({replicas or 'one of each'})", ready, timeout)


class Client:
    """One player's HTTP client over every running web replica: requests go round the replicas; a refused
    connection or a 5xx is retried (the same request, the same Idempotency-Key) on the next, the list of
    replicas read again from Docker, until an answer comes or ``patience`` runs out; a 429 is retried after
    its ``Retry-After``."""

    def __init__(self, stack: Stack, token: str = "", patience: float = 90) -> None:
        self.stack = stack
        self.urls = stack.web_urls()
        self.turn = 0
        self.patience = patience
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(timeout=20, headers=headers)
        self.answered: dict[str, int] = {}
        self.retries = 0
        self.longest = 0.0  # the longest a call waited for its answer (retries included), in seconds

    def call(self, method: str, path: str, body: Any = None, key: str | None = None) -> httpx.Response:
        headers = {"Idempotency-Key": key} if key else {}
        started = time.monotonic()
        deadline = started + self.patience
        while True:
            if not self.urls:
                self.urls = self.stack.web_urls()
            if self.urls:
                url = self.urls[self.turn % len(self.urls)]
                self.turn += 1
                try:
                    r = self.http.request(method, url + path, json=body, headers=headers)
                except httpx.TransportError:
                    r = None
                busy = r is not None and r.status_code == 409 and "idempotency_key_in_use" in r.text
                if r is not None and r.status_code == 429:  # throttled: wait as told, as a client does
                    time.sleep(float(r.headers.get("Retry-After", "1")))
                    assert time.monotonic() < deadline, f"{method} {path}: throttled for {self.patience} s"
                    continue
                if r is not None and r.status_code < 500 and not busy:
                    self.answered[url] = self.answered.get(url, 0) + 1
                    self.longest = max(self.longest, time.monotonic() - started)
                    return r
            self.retries += 1
            assert time.monotonic() < deadline, (
                f"{method} {path}: no web replica answered in {self.patience} s"
            )
            time.sleep(0.3)
            self.urls = self.stack.web_urls()


def sign_up(stack: Stack) -> str:
    name = f"ct{uuid.uuid4().hex[:10]}"
    anon = Client(stack)
    r = anon.call("POST", "/api/v1/players", {"username": name, "password": PASSWORD})
    assert r.status_code in (201, 409), r.text  # 409: a first try was applied, its answer lost
    r = anon.call("POST", "/api/v1/auth/tokens", {"username": name, "password": PASSWORD, "name": "compose"})
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


class Player(threading.Thread):
    """Plays games against three bots through ``Client``, one after the other, until ``stop`` is set (the
    game it is in is played to its end) or ``games`` are over. Notes when it sees the game moved on by
    others (a bot's move or a deadline, both the worker's doing), so the test can tell the bots still move."""

    def __init__(self, stack: Stack, token: str, games: int = 100, seed: int = 0) -> None:
        super().__init__(daemon=True)
        self.client = Client(stack, token)
        self.rnd = random.Random(seed)
        self.games_left = games
        self.stop = threading.Event()
        self.finished: list[int] = []
        self.acted = 0
        self.progress: list[float] = []  # monotonic times at which the game had moved on without us
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while self.games_left and not self.stop.is_set():
                self.play_one()
                self.games_left -= 1
        except BaseException as exc:  # reported by the test
            self.error = exc

    def play_one(self, bound: float = 240) -> None:
        r = self.client.call(
            "POST", "/api/v1/games", {"seats": 4, "options": OPTIONS, "bots": BOTS}, f"new-{uuid.uuid4().hex}"
        )
        assert r.status_code == 201, r.text
        assert r.json()["status"] == "running"
        game_id: int = r.json()["id"]
        path = f"/api/v1/games/{game_id}"
        started = time.monotonic()
        seen = 0
        while time.monotonic() - started < bound:
            r = self.client.call("GET", f"{path}/state")
            assert r.status_code == 200, r.text
            view = r.json()
            if (
                view["version"] > seen
            ):  # events since our last command or look: a bot or a deadline (the worker)
                if seen:
                    self.progress.append(time.monotonic())
                seen = view["version"]
            if view["over"]:
                self.finished.append(game_id)
                return
            step = next_command(view, self.rnd)
            if step is None:
                time.sleep(0.2)
                continue
            kind, body = step
            r = self.client.call(
                "POST",
                f"{path}/commands/{kebab(kind)}",
                body,
                f"{game_id}-{view['version']}-{uuid.uuid4().hex[:6]}",
            )
            if r.status_code == 200:  # the body is our view just after our command
                self.acted += 1
                seen = max(seen, r.json()["version"])
        raise AssertionError(f"game {game_id} not over within {bound} s")

    def moved_since(self, t: float) -> int:
        return sum(1 for p in self.progress if p > t)


def browser_page_served(client: Client, game_id: int) -> None:
    """The image carries the browser client (issue #22; the Dockerfile's ``web`` stage builds it): the table
    page's shell names its bundle and stylesheet, and both are served."""
    shell = client.call("GET", f"/play/games/{game_id}")
    assert shell.status_code == 200, shell.text[:300]
    assets = re.findall(r'(?:src|href)="(/static/web/[^"?]+)', shell.text)
    assert sorted(a.rsplit(".", 1)[-1] for a in assets) == ["css", "js"], assets
    for asset in assets:
        r = client.call("GET", asset)
        assert r.status_code == 200, asset
        assert len(r.content) > 1000, asset


def verify(client: Client, game_id: int) -> None:
    r = client.call("GET", f"/api/v1/games/{game_id}/verify")
    assert r.status_code == 200, r.text
    assert r.json()["ok"], r.json()


def stream_replay(stack: Stack, token: str, game_id: int) -> list[int]:
    """The seqs the stream service sends for a finished game, from the start to its end."""
    seqs: list[int] = []
    event = ""
    with httpx.stream(
        "GET",
        f"http://127.0.0.1:{stack.stream_port}/api/v1/games/{game_id}/stream",
        params={"after": "0"},
        headers={"Authorization": f"Bearer {token}", "Accept": "text/event-stream"},
        timeout=httpx.Timeout(10, read=30),
    ) as r:
        assert r.status_code == 200, r.read()
        for line in r.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "game_event":
                seqs.append(int(json.loads(line[5:])["seq"]))
            elif line.startswith("data:") and event == "end":
                return seqs
    raise AssertionError("the stream closed before its end event")


@pytest.fixture(scope="module")
def images() -> dict[str, str]:
    """The engine and the local images (``scripts/docker-images images``), as compose variables."""
    if os.geteuid() != 0 and subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        pytest.skip(
            "no Docker engine answers and only root can install and start one (scripts/docker-images)"
        )
    started = time.monotonic()
    out = run([str(HELPER), "images"], timeout=1200)
    print(f"\ncompose: engine and local base images ready in {time.monotonic() - started:.0f} s")
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


@pytest.fixture
def stack(images: dict[str, str]) -> Iterator[Stack]:
    stack = Stack(images)
    try:
        yield stack
    finally:
        with contextlib.suppress(Exception):
            stack.compose("down", "-v", "--remove-orphans", timeout=180)
        image = stack.env["APP_IMAGE"]
        # Keep the dependency layer as a build cache (the next build reuses it), like the base images.
        with contextlib.suppress(Exception):
            history = run(["docker", "history", "--no-trunc", "--format", "{{.ID}}\t{{.CreatedBy}}", image])
            layer = next(
                line.split("\t")[0]
                for line in history.splitlines()
                if "requirements.txt" in line and line[:1] != "<"
            )
            old = subprocess.run(
                ["docker", "image", "inspect", "-f", "{{.Id}}", DEPENDENCIES_CACHE],
                capture_output=True,
                text=True,
            ).stdout.strip()
            run(["docker", "tag", layer, DEPENDENCIES_CACHE])
            if (
                old
                and old != run(["docker", "image", "inspect", "-f", "{{.Id}}", DEPENDENCIES_CACHE]).strip()
            ):
                subprocess.run(["docker", "rmi", old], capture_output=True)
        subprocess.run(["docker", "rmi", image], capture_output=True)


def test_compose_up_plays_scales_and_recovers_from_killed_containers(stack: Stack) -> None:
    """Issue #26, "docker compose up, for real": build, up, play, scale to two, kill, recover, down."""
    timings: dict[str, float] = {}
    t = time.monotonic()
    stack.compose("build", "web", timeout=900)
    timings["build"] = time.monotonic() - t

    # 1. up: everything healthy, the migration run once
    t = time.monotonic()
    stack.compose("up", "-d", timeout=300)
    stack.wait_ready({})
    timings["up, all healthy"] = time.monotonic() - t
    assert len(stack.of("beat")) == 1

    # 2. a game against three bots, through the published web port; its record verifies, the stream replays it
    t = time.monotonic()
    token = sign_up(stack)
    first = Player(stack, token, games=1, seed=1)
    first.run()
    assert first.error is None, repr(first.error)
    assert first.finished
    assert first.acted > 0
    verify(first.client, first.finished[0])
    version = first.client.call("GET", f"/api/v1/games/{first.finished[0]}").json()["version"]
    assert stream_replay(stack, token, first.finished[0]) == list(range(1, version + 1))
    browser_page_served(first.client, first.finished[0])
    timings["first game"] = time.monotonic() - t

    # 3. two web and two worker replicas
    t = time.monotonic()
    scaled = {"web": 2, "worker": 2}
    stack.compose("up", "-d", "--no-recreate", "--scale", "web=2", "--scale", "worker=2", timeout=300)
    stack.wait_ready(scaled)
    timings["scaled to two, healthy"] = time.monotonic() - t
    assert len(set(stack.web_urls())) == 2

    t = time.monotonic()
    player = Player(stack, sign_up(stack), seed=2)
    player.start()
    time.sleep(5)
    assert player.is_alive(), repr(player.error)
    assert player.acted > 0

    # docker kill: one web, one worker. The other replicas carry the game on.
    web_a, web_b = stack.of("web")
    worker_a, worker_b = stack.of("worker")
    killed_at = time.monotonic()
    run(["docker", "kill", web_b.id, worker_b.id])
    stack.wait(
        "the killed containers are down",
        lambda cs: all(c.status == "exited" for c in cs if c.id in (web_b.id, worker_b.id)),
        30,
    )
    acted = player.acted
    stack.wait(
        "the game goes on with one web and one worker",
        lambda cs: player.moved_since(killed_at) >= 5 and player.acted >= acted + 2,
        90,
    )
    assert player.is_alive(), repr(player.error)
    left_down = [
        c.name for c in stack.containers() if c.id in (web_b.id, worker_b.id) and c.status != "running"
    ]
    stack.compose("up", "-d", "--no-recreate", "--scale", "web=2", "--scale", "worker=2", timeout=300)
    stack.wait_ready(scaled)
    timings["docker kill web + worker, back"] = time.monotonic() - t

    # A crash: SIGKILL to the main process of the other web and worker. The restart policy brings them back.
    t = time.monotonic()
    crashed_at = time.monotonic()
    now = {c.id: c for c in stack.containers()}
    acted = player.acted
    for c in (web_a, worker_a):
        os.kill(now[c.id].pid, signal.SIGKILL)
    stack.wait(
        "the game goes on after the crash",
        lambda cs: player.moved_since(crashed_at) >= 5 and player.acted >= acted + 2,
        90,
    )
    stack.wait(
        "the crashed web and worker restarted by the restart policy, healthy",
        lambda cs: (
            all(c.restarts >= 1 and c.ready for c in cs if c.id in (web_a.id, worker_a.id))
            and sum(1 for c in cs if c.service in scaled and c.ready) == 4
        ),
        180,
    )
    timings["crash web + worker, restarted"] = time.monotonic() - t

    # The player finishes the game it is in; every game it played verifies.
    t = time.monotonic()
    player.stop.set()
    player.join(timeout=300)
    assert not player.is_alive(), "the last game did not end in time"
    assert player.error is None, repr(player.error)
    assert player.finished, "no game was played to its end"
    for game_id in player.finished:
        verify(player.client, game_id)
    timings["games finished, verified"] = time.monotonic() - t
    answered_by = sorted(player.client.answered.values())
    # Requests kept being answered: a call whose replica died was answered by the other one at once.
    assert player.client.longest < 15, f"a request waited {player.client.longest:.1f} s for an answer"

    # 4. down: nothing of the project is left
    t = time.monotonic()
    stack.compose("down", "-v", "--remove-orphans", timeout=180)
    assert stack.containers() == []
    assert not run(
        ["docker", "volume", "ls", "-q", "--filter", f"label=com.docker.compose.project={stack.project}"]
    ).split()
    assert not run(
        ["docker", "network", "ls", "-q", "--filter", f"label=com.docker.compose.project={stack.project}"]
    ).split()
    timings["down"] = time.monotonic() - t

    print(
        f"\ncompose ({stack.compose_name}): "
        + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items())
        + f"; games played {1 + len(player.finished)}, commands acted {first.acted + player.acted}, "
        f"client retries {player.client.retries}, longest wait for an answer {player.client.longest:.1f} s, "
        f"requests answered per web port {answered_by}; "
        f"left down by docker kill until compose up: {left_down}"
    )
