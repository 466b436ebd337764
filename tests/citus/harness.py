"""A Citus cluster on this machine for the tests and the benchmark (``scripts/citus.py`` does the work), and
the clients that play the service over HTTP on it.

``start_cluster`` installs Citus with ``../shared/citus/install.sh`` when it is missing (as root), starts a
coordinator and workers (each its own PostgreSQL, run by the ``postgres`` user when this runs as root),
migrates the schema on the coordinator and distributes it (``manage.py citus_distribute``). When Citus cannot
run here, ``CitusUnavailable`` says why (the tests skip with that sentence).
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import psycopg

from tests.outside.driver import kebab, next_command
from tests.processes import REPO_ROOT


def cluster_module() -> ModuleType:
    """``scripts/citus.py`` (a script, not a package: loaded by path)."""
    name = "critters_scripts_citus"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / "citus.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# Fast, not durable (a test's throwaway cluster); logical WAL for the rebalancer's shard moves.
TEST_SETTINGS = {
    "wal_level": "logical",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "300",
}


def manage(database_url: str, *args: str) -> str:
    env = dict(os.environ, DATABASE_URL=database_url, DJANGO_SETTINGS_MODULE="critters_api.settings_test")
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


@contextmanager
def running_cluster(
    *, workers: int = 2, citus: bool = True, shard_count: int = 8, settings: dict[str, str] | None = None
) -> Iterator[Any]:
    """A cluster (``citus=False``: one plain PostgreSQL started the same way), migrated and distributed;
    stopped and removed afterwards. Raises the script's ``CitusUnavailable`` when Citus cannot run here."""
    mod = cluster_module()
    if citus:
        mod.ensure_installed()
    base = Path(tempfile.mkdtemp(prefix="critters-citus-" if citus else "critters-pg-"))
    base.chmod(0o755)  # the postgres user the servers run as (under root) must reach its directories
    cluster = mod.Cluster(base, citus=citus, settings=dict(settings or TEST_SETTINGS))
    try:
        cluster.up(workers)
        manage(cluster.url, "migrate", "--noinput", "-v0")
        manage(cluster.url, "citus_distribute", "--shard-count", str(shard_count))
        yield cluster
    finally:
        cluster.down(purge=True)


def query(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return list(conn.execute(sql, params).fetchall())


# ------------------------------------------------------------------------------------------------------
# players over HTTP
# ------------------------------------------------------------------------------------------------------
class Client:
    """One player's HTTP client; spreads its requests over ``bases`` (the web processes) in turn, and retries
    a 5xx or a connection error with the same request (and Idempotency-Key)."""

    def __init__(self, bases: list[str], token: str = "") -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.https = [httpx.Client(base_url=b, timeout=30, headers=headers) for b in bases]
        self.turn = random.randrange(len(bases))
        self.retries = 0
        self.server_errors = 0

    def call(self, method: str, path: str, body: Any = None, key: str | None = None) -> httpx.Response:
        headers = {"Idempotency-Key": key} if key else {}
        for _ in range(100):
            self.turn = (self.turn + 1) % len(self.https)
            try:
                r = self.https[self.turn].request(method, path, json=body, headers=headers)
            except httpx.TransportError:
                r = None
            if r is not None and r.status_code >= 500:
                self.server_errors += 1
            busy = r is not None and r.status_code == 409 and "idempotency_key_in_use" in r.text
            if r is not None and r.status_code < 500 and not busy:
                return r
            self.retries += 1
            time.sleep(0.1)
        raise AssertionError(f"{method} {path}: no answer after 100 tries")


def sign_up(bases: list[str], prefix: str = "ct") -> tuple[str, str]:
    name = f"{prefix}{uuid.uuid4().hex[:10]}"
    anon = Client(bases)
    r = anon.call("POST", "/api/v1/players", {"username": name, "password": "a long passphrase 42"})
    assert r.status_code in (201, 409), r.text
    r = anon.call(
        "POST", "/api/v1/auth/tokens", {"username": name, "password": "a long passphrase 42", "name": "t"}
    )
    assert r.status_code == 201, r.text
    return name, str(r.json()["token"])


NO_ABSENCE = {"extensions": 0, "autopilot_after": None}
# Short deadlines that the timers apply (the human seat lets some pass); bots in the other seats.
GAMES: dict[str, dict[str, Any]] = {
    "goodcritters": {
        "fuzz_depth": "standard",
        "deadlines": {"distribute": 2, "choose": 2},
        "absence": NO_ABSENCE,
        "warn_before": 1,
    },
    # a long game (every Loot card dealt, LT6.1): short Discussions, and the human seat on autopilot after
    # its first missed deadline (a bot's pace from then on)
    "loose_triggers": {
        "deadlines": {"give": 1, "choose": 1, "pick": 1, "aim": 0},
        "countdown": 1,
        "absence": {"extensions": 0, "autopilot_after": 1},
    },
    "were_cats": {
        "deadlines": {"setup": 2, "place": 2, "populate": 2, "act": 2},
        "absence": NO_ABSENCE,
        "max_rounds": 3,
    },
}


class Human(threading.Thread):
    """The one human seat of a game. In GoodCritters it plays from its served view (``next_command``)
    except on every third step, where it lets the deadline pass; in the other rulesets every step of its
    seat is played by the deadline. Meanwhile it talks at the table (``SendMessage``, each with its own
    Idempotency-Key) and reads the feed. Remembers every key the service acknowledged (200)."""

    def __init__(self, bases: list[str], token: str, game_id: int, ruleset: str, seed: int, seconds: float):
        super().__init__(daemon=True)
        self.client = Client(bases, token)
        self.game_id, self.ruleset = game_id, ruleset
        self.rnd = random.Random(seed)
        self.acked: list[str] = []
        self.deadline = time.monotonic() + seconds
        self.over = False
        self.error: BaseException | None = None
        self.said = 0

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
            self.said += 1
            if self.said % 3 == 1:
                key = f"talk-{self.game_id}-{self.said}-{uuid.uuid4().hex[:6]}"
                talk = {"text": f"hi {self.said}", "to": None}
                r = self.client.call("POST", f"{path}/commands/send-message", talk, key)
                if r.status_code == 200:
                    self.acked.append(key)
            waiting = view["waiting"]
            step = None
            if self.ruleset == "goodcritters" and waiting and waiting["you"] and waiting["step_no"] % 3:
                step = next_command(view, self.rnd)
            if step is not None:
                kind, body = step
                key = f"cmd-{self.game_id}-{view['version']}-{uuid.uuid4().hex[:8]}"
                r = self.client.call("POST", f"{path}/commands/{kebab(kind)}", body, key)
                if r.status_code == 200:
                    self.acked.append(key)
            feed = self.client.call("GET", f"{path}/events", None)
            assert feed.status_code == 200, feed.text
            time.sleep(0.25)


class Stream(threading.Thread):
    """Follows one game's live stream on one web process, resuming with Last-Event-ID after a cut."""

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


class Receiver:
    """A webhook receiver on loopback: keeps every message id and type it was sent and answers 200, except
    to its first ``fail_first`` requests (500: the endpoint is failing, then probed, then answers again)."""

    def __init__(self, fail_first: int = 0) -> None:
        self.received: list[tuple[str, str]] = []
        self.failed = 0
        received = self.received
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if receiver.failed < fail_first:
                    receiver.failed += 1
                    self.send_response(500)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                received.append((self.headers.get("webhook-id") or "", json.loads(body).get("type", "")))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
