"""Live-stream benchmark: how many idle open streams one ASGI process holds, and the delay from a command's
commit to its event arriving on every open stream of the game, with 1,000 streams open.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/critters_bench REDIS_URL=redis://127.0.0.1:6379/5 \\
        .venv/bin/python bench/streams.py [--max-streams 5000] [--streams 1000] [--games 100] \\
        [--commits 300] [--rate 30] [--time-limit 240]

Everything on loopback. The database named by DATABASE_URL is a scratch one: it is created if missing and
migrated, and the benchmark adds its players and games to it. One uvicorn process (one event loop, the
production settings) serves the streams; the clients are raw asyncio HTTP/1.1 connections in this process
(cheaper than a full HTTP client per stream, so the client is not the bottleneck).

1. **Idle capacity**: open streams (``?after=<version>``: resumed, no snapshot) in batches of 250 until
   ``--max-streams`` are open, an open fails (error or 30 s without an answer), or half the time limit is
   spent; then hold them idle (3 s), count those still open and time ``/healthz``. Reports the number
   held, the open rate, the server's resident memory per stream and its CPU while they are idle.
2. **Commit → stream delay**: ``--streams`` streams over ``--games`` running games (spectators), then
   ``--commits`` public chat messages (R6.5) at ``--rate`` per second, each committed through the command
   service in this process; for each one, the delay from the end of its commit to its arrival on every
   stream of that game. Reports p50/p90/p99/max.

Prints the figures and writes them to ``bench/results/streams.json``. Bounded by ``--time-limit``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.processes import ManagedProcess, free_port, http_ok  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "critters_api.settings")
os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-0123456789-not-used-anywhere-else")
os.environ.setdefault("CONN_MAX_AGE", "60")
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ.setdefault("STREAM_KEEPALIVE_SECONDS", "15")
# every stream is opened with one spectator's token: its rate limit (1,200/min) would refuse the opens
os.environ.setdefault("THROTTLE_USER_RATE", "10000000/min")


def ensure_database(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


# --------------------------------------------------------------------------------------------------
# a minimal SSE client (HTTP/1.1, chunked)
# --------------------------------------------------------------------------------------------------
@dataclass
class Stream:
    game_id: int
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    arrivals: dict[int, float] = field(default_factory=dict)  # seq → monotonic arrival time
    keepalives: int = 0
    task: asyncio.Task[None] | None = None
    closed: bool = False

    async def pump(self) -> None:
        buffer = ""
        try:
            while True:
                size_line = await self.reader.readline()
                if not size_line:
                    break
                size = int(size_line.strip() or b"0", 16)
                if size == 0:
                    break
                chunk = await self.reader.readexactly(size + 2)
                now = time.monotonic()
                buffer += chunk[:-2].decode("utf-8")
                while "\n\n" in buffer:
                    message, buffer = buffer.split("\n\n", 1)
                    if message.startswith(":"):
                        self.keepalives += 1
                        continue
                    ident = None
                    kind = None
                    for line in message.split("\n"):
                        if line.startswith("id: "):
                            ident = int(line[4:])
                        elif line.startswith("event: "):
                            kind = line[7:]
                    if kind == "game_event" and ident is not None:
                        self.arrivals[ident] = now
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            self.closed = True

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        with contextlib.suppress(Exception):
            self.writer.close()


async def open_stream(port: int, game_id: int, token: str, after: int) -> Stream:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(
        (
            f"GET /api/v1/games/{game_id}/stream?after={after} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        writer.close()
        raise RuntimeError(f"stream open failed: {status!r}")
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    stream = Stream(game_id, reader, writer)
    stream.task = asyncio.get_running_loop().create_task(stream.pump())
    return stream


# --------------------------------------------------------------------------------------------------
# the benchmark
# --------------------------------------------------------------------------------------------------
def make_games(n: int) -> tuple[list[int], str]:
    """``n`` running 4-player games and a spectator's token."""
    from games import services
    from players.models import ApiToken, Player

    tag = f"b{int(time.time())}{random.randrange(1000)}"
    players = Player.objects.bulk_create(
        [Player(username=f"{tag}-{i}", password="!") for i in range(4 * n + 1)]  # noqa: S106 - unusable
    )
    _token, raw = ApiToken.issue(players[-1], "bench")
    games = []
    for g in range(n):
        seated = players[4 * g : 4 * g + 4]
        game = services.game_create(creator=seated[0], seats=4, options={}, name=f"bench {tag} {g}")
        for p in seated[1:]:
            services.game_join(game_id=game.pk, player=p)
        games.append(game.pk)
    return games, raw


def versions(game_ids: list[int]) -> dict[int, int]:
    from games.models import Game

    return dict(Game.objects.filter(pk__in=game_ids).values_list("pk", "version"))


def chat(game_id: int, n: int) -> float:
    """Commit one public chat message in ``game_id``; returns the monotonic time right after the commit."""
    from games import services
    from games.models import Seat

    seat = Seat.objects.filter(game_id=game_id).select_related("player").order_by("index")[n % 4]
    assert seat.player is not None
    response = services.game_command(
        game_id=game_id,
        player=seat.player,
        command_json={"type": "SendMessage", "text": f"bench {n}"},
        render=lambda game, state, viewer: {},
    )
    done = time.monotonic()
    if response.status != 200:
        raise RuntimeError(f"chat refused: {response.body}")
    return done


class Server:
    """One uvicorn process (this process's environment) on ``port``, in its own process group, logging to
    ``log``."""

    def __init__(self, port: int, log: Path) -> None:
        self.port = port
        self.log = log
        self.process = ManagedProcess("uvicorn", log, stop_timeout=10)

    def start(self) -> None:
        uvicorn = Path(sys.executable).with_name("uvicorn")
        self.process.start(
            [
                str(uvicorn),
                "critters_api.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--no-access-log",
                "--backlog",
                "4096",
                "--timeout-graceful-shutdown",
                "2",
            ],
            cwd=ROOT,
        )
        self.process.wait_until(lambda: http_ok(f"http://127.0.0.1:{self.port}/healthz"), 30)

    def rss_mb(self) -> float:
        import psutil  # type: ignore[import-untyped]

        return float(psutil.Process(self.process.pid).memory_info().rss) / 2**20

    def cpu_percent(self, seconds: float) -> float:
        import psutil

        p = psutil.Process(self.process.pid)
        p.cpu_percent(None)
        time.sleep(seconds)
        return float(p.cpu_percent(None))

    def stop(self) -> None:
        self.process.stop()


async def healthz_ms(port: int) -> float:
    started = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    await writer.drain()
    await reader.read()
    writer.close()
    return (time.monotonic() - started) * 1000


async def capacity(
    server: Server, games: list[int], token: str, args: argparse.Namespace, deadline: float
) -> dict[str, Any]:
    heads = await asyncio.to_thread(versions, games)
    rss0 = server.rss_mb()
    streams: list[Stream] = []
    failure = ""
    slowest_open = 0.0
    opening_started = time.monotonic()
    batch = 250
    while len(streams) < args.max_streams and time.monotonic() < deadline:
        n = min(batch, args.max_streams - len(streams))
        started = time.monotonic()
        results = await asyncio.gather(
            *(
                asyncio.wait_for(open_stream(server.port, g, token, heads[g]), 30)
                for g in (games[(len(streams) + i) % len(games)] for i in range(n))
            ),
            return_exceptions=True,
        )
        took = time.monotonic() - started
        ok = [r for r in results if isinstance(r, Stream)]
        streams += ok
        slowest_open = max(slowest_open, took)
        bad = [r for r in results if not isinstance(r, Stream)]
        if bad:
            failure = f"{len(bad)} of a batch of {n} failed: {bad[0]!r}"
            break
    held = len(streams)
    open_seconds = time.monotonic() - opening_started
    rss1 = server.rss_mb()
    idle_cpu = await asyncio.to_thread(server.cpu_percent, 3.0)
    health = [await healthz_ms(server.port) for _ in range(5)]
    alive = sum(1 for s in streams if not s.closed)
    for s in streams:
        s.close()
    await asyncio.sleep(0.5)
    return {
        "max_streams_tried": args.max_streams,
        "held": held,
        "still_open_after_idle": alive,
        "stopped_because": failure or ("time limit" if held < args.max_streams else "reached --max-streams"),
        "server_rss_mb_before": round(rss0, 1),
        "server_rss_mb_with_streams": round(rss1, 1),
        "server_kb_per_stream": round((rss1 - rss0) * 1024 / held, 1) if held else None,
        "server_idle_cpu_percent": round(idle_cpu, 1),
        "healthz_ms_with_streams_p50": round(statistics.median(health), 1),
        "slowest_batch_of_250_opens_s": round(slowest_open, 2),
        "opens_per_s": round(held / open_seconds, 1) if open_seconds else None,
    }


async def delay(
    server: Server, games: list[int], token: str, args: argparse.Namespace, deadline: float
) -> dict[str, Any]:
    heads = await asyncio.to_thread(versions, games)
    streams: list[Stream] = []
    for start in range(0, args.streams, 250):
        n = min(250, args.streams - start)
        streams += await asyncio.gather(
            *(
                open_stream(
                    server.port,
                    games[(start + i) % len(games)],
                    token,
                    heads[games[(start + i) % len(games)]],
                )
                for i in range(n)
            )
        )
    by_game: dict[int, list[Stream]] = {}
    for s in streams:
        by_game.setdefault(s.game_id, []).append(s)
    await asyncio.sleep(1.0)
    commits: list[tuple[int, int, float]] = []  # (game, seq, committed at)
    interval = 1.0 / args.rate
    next_at = time.monotonic()
    rng = random.Random(7)
    for n in range(args.commits):
        if time.monotonic() > deadline:
            break
        game_id = rng.choice(games)
        done = await asyncio.to_thread(chat, game_id, n)
        heads[game_id] += 1
        commits.append((game_id, heads[game_id], done))
        next_at += interval
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    settle = time.monotonic() + 10
    while time.monotonic() < settle and not all(
        seq in s.arrivals for game_id, seq, _ in commits for s in by_game[game_id]
    ):
        await asyncio.sleep(0.05)
    delays = []
    missing = 0
    for game_id, seq, done in commits:
        for s in by_game[game_id]:
            if seq in s.arrivals:
                delays.append((s.arrivals[seq] - done) * 1000)
            else:
                missing += 1
    for s in streams:
        s.close()
    return {
        "open_streams": len(streams),
        "games": len(by_game),
        "commits": len(commits),
        "rate_per_s": args.rate,
        "deliveries_measured": len(delays),
        "missing": missing,
        "delay_ms_p50": round(percentile(delays, 0.5), 2),
        "delay_ms_p90": round(percentile(delays, 0.9), 2),
        "delay_ms_p99": round(percentile(delays, 0.99), 2),
        "delay_ms_max": round(max(delays), 2) if delays else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-streams", type=int, default=5000)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--rate", type=float, default=30.0)
    parser.add_argument("--time-limit", type=float, default=240.0)
    args = parser.parse_args()
    started = time.monotonic()
    deadline = started + args.time_limit

    database_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/critters_bench")
    os.environ["DATABASE_URL"] = database_url
    ensure_database(database_url)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    games, token = make_games(args.games)

    try:
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ImportError, ValueError, OSError):
        pass

    results_dir = ROOT / "bench" / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    server = Server(free_port(), results_dir / "streams-uvicorn.log")
    server.start()
    try:
        cap = asyncio.run(capacity(server, games, token, args, started + args.time_limit / 2))
        lat = asyncio.run(delay(server, games, token, args, deadline))
    finally:
        server.stop()

    out = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "seconds": round(time.monotonic() - started, 1),
        "idle_capacity": cap,
        "commit_to_stream": lat,
    }
    (results_dir / "streams.json").write_text(json.dumps(out, indent=2) + "\n")
    print(
        f"idle streams held by one ASGI process: {cap['held']} ({cap['stopped_because']}; "
        f"{cap['opens_per_s']} opens/s)"
    )
    print(
        f"  server memory {cap['server_rss_mb_before']} → {cap['server_rss_mb_with_streams']} MB "
        f"(~{cap['server_kb_per_stream']} KB/stream), idle CPU {cap['server_idle_cpu_percent']}%, "
        f"/healthz {cap['healthz_ms_with_streams_p50']} ms, all still open: {cap['still_open_after_idle']}"
    )
    print(
        f"commit → stream with {lat['open_streams']} open streams over {lat['games']} games, "
        f"{lat['commits']} commits at {lat['rate_per_s']}/s ({lat['deliveries_measured']} deliveries, "
        f"{lat['missing']} missing): p50 {lat['delay_ms_p50']} ms, p90 {lat['delay_ms_p90']} ms, "
        f"p99 {lat['delay_ms_p99']} ms, max {lat['delay_ms_max']} ms"
    )
    print(f"wrote {results_dir / 'streams.json'}")


if __name__ == "__main__":
    main()
