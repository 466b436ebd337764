"""Many concurrent clients against the service as it is deployed, and how many database connections it used.

Shared by ``tests/deploy/test_connections.py`` (a few seconds, asserted) and ``bench/connections.py`` (the
figures). Importable without Django.

The **topology** is started with the PRODUCTION settings (``critters_api.settings``: the connection pool
with its defaults, DEBUG off) on a scratch database of its own:

- ``script``: ``scripts/serve`` itself, the README's serve command (``PORT``, ``WEB_CONCURRENCY`` =
  ``--workers``; its Celery worker with embedded beat, concurrency 2);
- ``serve``: the web command line of ``scripts/serve`` (gunicorn with uvicorn workers, ASGI, ``--workers``
  processes, ``--forwarded-allow-ips ''``), and a Celery worker (prefork, ``--concurrency``) as it runs there;
- ``image``: the image's command (Dockerfile: gunicorn WSGI, ``WEB_WORKERS`` x ``WEB_THREADS`` gthread
  workers, ``--keep-alive 75``), and the same Celery worker.

The **load**: ``clients`` players in games of four (each client its own keep-alive connection and token, in
one asyncio process: ``bench/loadgen.py``'s raw HTTP/1.1 client), each in a loop for ``seconds``: ``GET
/api/v1/me``, ``GET /games/{id}/state``, ``POST /games/{id}/commands/send-message`` (a command: lock, fold,
decide, append). Meanwhile a sampler counts the backends of the scratch database in ``pg_stat_activity``
every 20 ms: the most at once is ``max_connections_used``, beside the bound the settings promise
(processes x ``DB_POOL_MAX_SIZE`` + Celery processes x (``DB_POOL_MIN_SIZE`` + 1)).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from tests.processes import REPO_ROOT, ManagedProcess, free_port, http_ok

BIN = Path(sys.executable).parent
GAME_SEATS = 4
SAMPLE_INTERVAL = 0.02

MAKE_TOKENS = """
import json, sys, uuid
import django
django.setup()
from players.models import ApiToken, Player
out = []
for _ in range(int(sys.argv[1])):
    player = Player.objects.create_user(username="c" + uuid.uuid4().hex[:12], password=None)
    out.append(ApiToken.issue(player, "load")[1])
print(json.dumps(out))
"""


def recreate_database(server: str, dbname: str) -> str:
    """Drop and create ``dbname`` on ``server`` (``postgres://user@host:port``), migrate it; its URL."""
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{dbname}"')
    url = f"{server}/{dbname}"
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "critters_api.settings_test"}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=REPO_ROOT, env=env, check=True
    )
    return url


def drop_database(server: str, dbname: str) -> None:
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')


def make_tokens(url: str, n: int) -> list[str]:
    """``n`` players with a token each, made in the database (password hashing is not what is measured)."""
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "critters_api.settings_test"}
    proc = subprocess.run(
        [sys.executable, "-c", MAKE_TOKENS, str(n)],
        cwd=REPO_ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    tokens: list[str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return tokens


@dataclass
class Topology:
    kind: str = "serve"  # "script" (scripts/serve), "serve" (its web command line) or "image" (Dockerfile)
    workers: int = 2  # web processes (serve: WEB_CONCURRENCY's default; image: WEB_WORKERS')
    threads: int = 8  # image only: WEB_THREADS
    celery_concurrency: int = 2  # scripts/serve's
    env: dict[str, str] = field(default_factory=dict)  # extra environment (e.g. DB_POOL_MAX_SIZE)

    def __post_init__(self) -> None:
        if self.kind == "script":  # what scripts/serve runs: a timers and a notifications worker of 2 each
            self.celery_concurrency = 4

    def web_command(self, port: int) -> list[str]:
        if self.kind == "script":
            return [str(REPO_ROOT / "scripts" / "serve")]
        if self.kind == "serve":  # scripts/serve's web command line
            return [
                str(BIN / "gunicorn"),
                "critters_api.asgi:application",
                "--worker-class",
                "uvicorn.workers.UvicornWorker",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(self.workers),
                "--graceful-timeout",
                "5",
                "--forwarded-allow-ips",
                "",
            ]
        if self.kind == "image":  # the Dockerfile's CMD
            return [
                str(BIN / "gunicorn"),
                "critters_api.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(self.workers),
                "--threads",
                str(self.threads),
                "--keep-alive",
                "75",
            ]
        raise ValueError(self.kind)

    def setting(self, name: str, default: int) -> int:
        """A pool setting as the servers get it: from ``env`` only (``running`` does not pass this process's
        DB_POOL_* on), else the settings' default."""
        return int(self.env.get(name, default))

    def connection_bound(self) -> int:
        """What the settings promise: every web process's pool full, every Celery process's kept ones."""
        pool_max = self.setting("DB_POOL_MAX_SIZE", 10)
        pool_min = self.setting("DB_POOL_MIN_SIZE", 0)
        return self.workers * pool_max + self.celery_concurrency * (pool_min + 1)


@contextmanager
def running(topology: Topology, database_url: str, redis_url: str, workdir: Path) -> Iterator[str]:
    """The topology's web server and Celery worker on ``database_url``, production settings; its base URL."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DB_POOL", "CONN_MAX_AGE"))},
        "DJANGO_SETTINGS_MODULE": "critters_api.settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SECRET_KEY": "load-" + uuid.uuid4().hex,
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        "CACHE_KEY_PREFIX": f"load-{uuid.uuid4().hex[:8]}",
        "STREAM_CHANNEL_PREFIX": f"load-{uuid.uuid4().hex[:8]}",
        # one client is as fast as it can go: the per-token limit (1200/min) is not what is measured
        "THROTTLE_USER_RATE": "10000000/min",
        "LOG_LEVEL": "WARNING",
        "PORT": str(port),
        "WEB_CONCURRENCY": str(topology.workers),
        **topology.env,
    }
    web = ManagedProcess("the web server", workdir / f"web-{port}.log")
    worker = ManagedProcess("the celery worker", workdir / f"celery-{port}.log")
    try:
        web.start(topology.web_command(port), env=env)
        if topology.kind != "script":  # scripts/serve starts its own
            worker.start(
                [
                    str(BIN / "celery"),
                    "-A",
                    "critters_api",
                    "worker",
                    "--loglevel=WARNING",
                    f"--concurrency={topology.celery_concurrency}",
                    "-n",
                    f"load-{port}@%h",
                ],
                env=env,
            )
        base = f"http://127.0.0.1:{port}"
        web.wait_until(lambda: http_ok(f"{base}/healthz"), timeout=120)
        yield base
    finally:
        web.stop()
        worker.stop()


class ConnectionSampler:
    """Counts the backends of one database in ``pg_stat_activity`` on a thread, until stopped."""

    def __init__(self, server: str, dbname: str) -> None:
        self.server = server
        self.dbname = dbname
        self.samples: list[int] = []
        self.states: Counter[str] = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ConnectionSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        with psycopg.connect(f"{self.server}/postgres", autocommit=True) as conn:
            while not self._stop.is_set():
                rows = conn.execute(
                    "SELECT coalesce(state, '?') FROM pg_stat_activity WHERE datname = %s", [self.dbname]
                ).fetchall()
                self.samples.append(len(rows))
                self.states.update(r[0] for r in rows)
                self._stop.wait(SAMPLE_INTERVAL)

    @property
    def max(self) -> int:
        return max(self.samples, default=0)


async def _load(base: str, tokens: list[str], clients: int, seconds: float) -> dict[str, Any]:
    from bench.loadgen import Game, Stats, TransportError

    host, port = base.removeprefix("http://").split(":")
    stats = Stats()
    groups = [tokens[i : i + GAME_SEATS] for i in range(0, len(tokens), GAME_SEATS)]
    games = [await Game.create(host, int(port), group, GAME_SEATS, {}, stats) for group in groups]
    seats = [(game, seat) for game in games for seat in range(GAME_SEATS)][:clients]
    latencies: list[float] = []
    kinds: Counter[str] = Counter()
    stats.start = time.monotonic() + 0.5  # every coroutine running by then
    stats.end = stats.start + seconds

    async def client(game: Game, seat: int) -> None:
        conn = game.conns[seat]
        requests = [
            ("GET", "/api/v1/me", None, "me"),
            ("GET", game.state_path, None, "state"),
            ("POST", f"/api/v1/games/{game.id}/commands/send-message", None, "command"),
        ]
        n = 0
        while time.monotonic() < stats.end:
            for method, path, _body, kind in requests:
                n += 1
                body = b'{"text": "seat %d says %d", "to": null}' % (seat, n) if method == "POST" else None
                t0 = time.monotonic()
                try:
                    await conn.request(method, path, body)
                except TransportError:
                    continue
                t1 = time.monotonic()
                if stats.start <= t0 and t1 <= stats.end:
                    latencies.append(t1 - t0)
                    kinds[kind] += 1

    await asyncio.gather(*(client(game, seat) for game, seat in seats))
    for game in games:
        game.close()
    ordered = sorted(latencies)

    def q(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000 if ordered else float("nan")

    return {
        "requests": len(latencies),
        "requests_per_second": len(latencies) / seconds,
        "by_kind": dict(kinds),
        "p50_ms": q(0.50),
        "p99_ms": q(0.99),
        "mean_ms": statistics.fmean(latencies) * 1000 if latencies else float("nan"),
        "statuses": {str(k): v for k, v in sorted(stats.statuses.items())},
        "server_errors": sum(v for k, v in stats.statuses.items() if k >= 500),
        "server_error_samples": stats.server_errors,
        "transport_errors": stats.transport_errors,
        "transport_samples": stats.transport_samples,
    }


def tokens_for(clients: int) -> int:
    """Players needed for ``clients`` clients: whole games of four (a few seats may stay idle)."""
    return -(-clients // GAME_SEATS) * GAME_SEATS


def run_load(
    base: str, server: str, dbname: str, tokens: list[str], clients: int, seconds: float
) -> dict[str, Any]:
    """``clients`` concurrent clients for ``seconds`` (``tokens_for(clients)`` tokens: the games are set up
    first, then the clients run); the figures, with the most database connections seen at once."""
    needed = tokens_for(clients)
    assert len(tokens) >= needed
    with ConnectionSampler(server, dbname) as sampler:
        figures = asyncio.run(_load(base, tokens[:needed], clients, seconds))
    figures["concurrency"] = clients
    figures["seconds"] = seconds
    figures["max_connections_used"] = sampler.max
    figures["connection_states"] = dict(sampler.states)
    return figures


def describe(figures: dict[str, Any]) -> str:
    return (
        f"{figures['concurrency']:>3} clients: {figures['requests_per_second']:7.1f} requests/s, "
        f"p50 {figures['p50_ms']:6.1f} ms, p99 {figures['p99_ms']:7.1f} ms, "
        f"5xx {figures['server_errors']}, transport errors {figures['transport_errors']}, "
        f"max connections {figures['max_connections_used']}"
    )
