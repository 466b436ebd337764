"""A year of play on one database: the request paths on a full database beside the same on an empty one.

    .venv/bin/python bench/bigdb.py [--events 10000000] [--running 10000] [--players 3000] [--small]
                                    [--samples 300] [--workers 2] [--threads 4] [--keep]

Creates (drops first) two scratch databases on $BENCH_PG (default ``postgres://postgres@127.0.0.1:5432``):
``critters_bench_bigdb_empty`` holds only the fixtures the measures read (a player with 1,000 games, 20 of
them running; 275 running games whose deadline has passed; 30 open games: ~250,000 events);
``critters_bench_bigdb_full`` holds the same fixtures (same rows, same ids) and then a year of play:
``--players`` players, ``--running`` running games and finished games until ``--events`` events are stored,
written with COPY from games the rules engine played (``bench/bigdb_fill.py``: every game's hash chain is its
own and valid). ``--small`` is a quick check (400,000 events, 1,000 running games, 300 players).

Then one gunicorn per database (production settings, ``--workers`` x ``--threads``); each measure alternates
the two servers request by request, so both see the same load from the rest of the machine:

* **command**: ``SendMessage`` on a running game (the heavy player's), p50/p99;
* **state**: ``GET /state`` of that game;
* **lobby**: ``GET /games`` (open games) and ``GET /games?status=running`` (games one may watch);
* **my games**: ``GET /me/games``, the first page of the heavy player's 1,000 games;
* **inbox**: ``GET /me/inbox`` (the heavy player's 20 running games wait on them);
* **record** and **verify** of old games: ``/record`` and ``/verify`` of the heavy player's finished games,
  the oldest first, each game once per database (not the same cached rows again and again);
* **sweep**: claim and apply a batch of 25 due deadlines (``games.deadlines.sweep`` in a separate process
  with the production settings, eleven batches alternating the two databases, the first one a warm-up),
  among 10,000 running games.

Prints each measure's p50/p99 on both, the ratio full/empty of the medians (goal: at most 1.2 on every
request path), both databases' sizes, the fill's time, and writes ``bench/results/bigdb.json``. The databases
are dropped at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bigdb_fill import Plan, fill  # noqa: E402
from bench.common import pct, recreate_database  # noqa: E402
from bench.service import machine, server_env  # noqa: E402
from tests.outside.live import LiveServer  # noqa: E402

DBNAMES = {"empty": "critters_bench_bigdb_empty", "full": "critters_bench_bigdb_full"}

HELPER = """
import json, sys, time
import django
django.setup()
from players.models import ApiToken, Player
from games import deadlines
from games.models import Game
what, arg = sys.argv[1], sys.argv[2]
if what == "token":
    print(json.dumps(ApiToken.issue(Player.objects.get(pk=int(arg)), "bench")[1]))
else:  # a sweep of one batch per line read (the benchmark alternates the two databases' sweepers)
    due = json.loads(arg)
    times, expired = [], 0
    for line in sys.stdin:
        if line.strip() != "sweep":
            break
        t0 = time.perf_counter()
        report = deadlines.sweep(limit=25, timers=("deadline_at",))
        times.append(time.perf_counter() - t0)
        expired += len(report.expired)
        print(json.dumps({"expired": len(report.expired)}), flush=True)
    now = deadlines.timezone.now()
    left = Game.objects.filter(pk__in=due, step_no__isnull=False, deadline_at__lte=now).count()
    print(json.dumps({"batch_seconds": times, "expired": expired, "still_due": left}), flush=True)
"""


def _helper_env(url: str, redis: str) -> dict[str, str]:
    return dict(
        os.environ,
        DATABASE_URL=url,
        REDIS_URL=redis,
        DJANGO_SETTINGS_MODULE="critters_api.settings",
        **server_env(),
    )


def helper(url: str, redis: str, *args: str) -> Any:
    proc = subprocess.run(
        [sys.executable, "-c", HELPER, *args],
        cwd=ROOT,
        env=_helper_env(url, redis),
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def sweeps(sites: list[Site], redis: str, batches: int) -> dict[str, Any]:
    """``batches`` sweeps of one batch of 25 due deadlines in each database, alternating (a sweeper process
    per database, the production settings); the first batch of each warms its process up (not counted)."""
    procs = {
        s.name: subprocess.Popen(
            [sys.executable, "-c", HELPER, "sweep", json.dumps(s.fx["due_games"])],
            cwd=ROOT,
            env=_helper_env(s.url, redis),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for s in sites
    }
    for _ in range(batches):
        for proc in procs.values():
            assert proc.stdin is not None
            assert proc.stdout is not None
            proc.stdin.write("sweep\n")
            proc.stdin.flush()
            proc.stdout.readline()
    out = {}
    for name, proc in procs.items():
        stdout, _ = proc.communicate("done\n", timeout=120)
        out[name] = json.loads(stdout.strip().splitlines()[-1])
    return out


def db_size(url: str) -> dict[str, Any]:
    with psycopg.connect(url) as conn:
        total = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        rows = conn.execute(
            "SELECT relname, pg_total_relation_size(c.oid), c.reltuples::bigint FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' "
            "ORDER BY 2 DESC LIMIT 6"
        ).fetchall()
        events = conn.execute("SELECT count(*) FROM games_event").fetchone()
    assert total
    assert events
    return {
        "bytes": total[0],
        "pretty": f"{total[0] / 2**30:.2f} GiB",
        "events": events[0],
        "largest_tables": {name: {"bytes": size, "rows": n} for name, size, n in rows},
    }


def summary(times: list[float]) -> dict[str, Any]:
    ms = [t * 1000 for t in times]
    return {
        "n": len(ms),
        "p50_ms": round(statistics.median(ms), 2) if ms else None,
        "p99_ms": round(pct(ms, 0.99), 2) if ms else None,
    }


class Site:
    """One database with its server and the heavy player's client."""

    def __init__(self, name: str, url: str, info: dict[str, Any], server: LiveServer, token: str) -> None:
        self.name = name
        self.url = url
        self.info = info
        self.fx = info["fixtures"]
        self.server = server
        self.client = httpx.Client(
            base_url=server.url, timeout=120, headers={"Authorization": f"Bearer {token}"}
        )
        self.messages = 0

    def timed(self, method: str, path: str, body: Any = None, ok: int = 200) -> float:
        t0 = time.perf_counter()
        r = self.client.request(method, path, json=body)
        elapsed = time.perf_counter() - t0
        if r.status_code != ok:
            raise RuntimeError(f"{self.name}: {method} {path} answered {r.status_code}: {r.text[:400]}")
        return elapsed

    def command(self) -> float:
        self.messages += 1
        game = self.fx["measure_game"]
        return self.timed(
            "POST",
            f"/api/v1/games/{game}/commands/send-message",
            {"text": f"bench message {self.messages}", "to": None},
        )


def alternate(
    sites: list[Site], measure: Any, samples: int, rounds: int | None = None
) -> dict[str, list[float]]:
    """``samples`` calls of ``measure(site, i)`` per site, in ``rounds`` blocks alternating the sites
    (default: one call each in turn, so that both see the same moment of the shared machine's load)."""
    rounds = rounds or samples
    out: dict[str, list[float]] = {s.name: [] for s in sites}
    per = max(1, samples // rounds)
    i = 0
    while i < samples:
        for site in sites:
            for k in range(i, min(samples, i + per)):
                out[site.name].append(measure(site, k))
        i += per
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--events", type=int, default=10_000_000, help="events in the full database, at least"
    )
    parser.add_argument("--running", type=int, default=10_000, help="running games in the full database")
    parser.add_argument("--players", type=int, default=3000)
    parser.add_argument("--templates", type=int, default=400, help="distinct games the rules engine plays")
    parser.add_argument("--small", action="store_true", help="a quick check: 400,000 events, 1,000 running")
    parser.add_argument("--samples", type=int, default=300, help="commands and state reads per database")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--keep", action="store_true", help="keep the two databases")
    parser.add_argument(
        "--reuse", action="store_true", help="measure databases kept by an earlier --keep run"
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "bigdb.json"))
    parser.add_argument("--pg", default=os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432"))
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/5"))
    args = parser.parse_args()
    if args.small:
        args.events, args.running, args.players = 400_000, 1000, 300

    results: dict[str, Any] = {
        "machine": {
            **machine(),
            "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        },
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "args": {k: v for k, v in vars(args).items() if k not in ("pg", "redis", "out")},
    }
    plans = {
        "empty": Plan.small(),
        "full": Plan(
            events=args.events, running=args.running, players=args.players, templates=args.templates
        ),
    }
    plans["empty"].templates = args.templates
    infos: dict[str, dict[str, Any]] = {}
    urls: dict[str, str] = {}
    for name, plan in plans.items():
        info_file = Path(tempfile.gettempdir()) / f"{DBNAMES[name]}.json"
        if args.reuse:
            urls[name] = f"{args.pg}/{DBNAMES[name]}"
            infos[name] = json.loads(info_file.read_text())
            continue
        print(f"{name}: creating {DBNAMES[name]}", flush=True)
        urls[name] = recreate_database(args.pg, DBNAMES[name])

        def progress(message: str, db: str = name) -> None:
            print(f"  {db}: {message}", flush=True)

        infos[name] = fill(urls[name], plan, progress=progress)
        info_file.write_text(json.dumps(infos[name]))
        sizes = db_size(urls[name])
        infos[name]["size"] = sizes
        print(
            f"  {name}: {infos[name]['events']:,} events, {infos[name]['games']:,} games "
            f"({infos[name]['finished_games']:,} finished, {infos[name]['running_games']:,} running, "
            f"{infos[name]['open_games']:,} open), {infos[name]['players']:,} players; {sizes['pretty']}; "
            f"filled in {infos[name]['fill_seconds']} s "
            f"(+ {infos[name]['vacuum_analyze_seconds']} s VACUUM ANALYZE)",
            flush=True,
        )
    for name in plans:
        infos[name]["size"] = db_size(urls[name])
    assert infos["empty"]["fixtures"] == infos["full"]["fixtures"], (
        "the fixtures differ between the databases"
    )
    results["databases"] = infos

    workdir = Path(tempfile.mkdtemp(prefix="bench-bigdb-"))
    sites: list[Site] = []
    try:
        for name in plans:
            server = LiveServer(
                workdir,
                urls[name],
                redis_url=args.redis,
                workers=args.workers,
                threads=args.threads,
                settings_module="critters_api.settings",
                extra_env=server_env({"CACHE_KEY_PREFIX": f"bigdb-{uuid.uuid4().hex[:8]}"}),
                keepalive=75,
            )
            server.start()
            token = helper(urls[name], args.redis, "token", str(infos[name]["fixtures"]["heavy_player"]))
            sites.append(Site(name, urls[name], infos[name], server, token))
        measures: dict[str, dict[str, list[float]]] = {}
        fx = sites[0].fx
        n = args.samples
        paths: dict[str, tuple[Any, int]] = {
            "command": (lambda s, i: s.command(), n),
            "state": (lambda s, i: s.timed("GET", f"/api/v1/games/{fx['measure_game']}/state"), n),
            "lobby_open": (lambda s, i: s.timed("GET", "/api/v1/games"), n // 2),
            "lobby_running": (lambda s, i: s.timed("GET", "/api/v1/games?status=running"), n // 2),
            "my_games": (lambda s, i: s.timed("GET", "/api/v1/me/games"), n // 2),
            "inbox": (lambda s, i: s.timed("GET", "/api/v1/me/inbox"), n // 4),
        }
        for measure, _count in paths.values():  # warm every process's statements and caches
            alternate(sites, measure, 4 * args.workers, rounds=1)
        for name, (measure, count) in paths.items():
            measures[name] = alternate(sites, measure, count)
            print(f"  measured {name}", flush=True)
        old = fx["old_game"]
        olds = list(range(old, old + max(10, min(200, n // 3))))
        measures["record"] = alternate(
            sites, lambda s, i: s.timed("GET", f"/api/v1/games/{olds[i]}/record"), len(olds)
        )
        verdicts: dict[str, list[bool]] = {s.name: [] for s in sites}

        def verify(s: Site, i: int) -> float:
            t0 = time.perf_counter()
            r = s.client.get(f"/api/v1/games/{olds[i]}/verify")
            elapsed = time.perf_counter() - t0
            if r.status_code != 200:
                raise RuntimeError(f"{s.name}: verify {olds[i]} answered {r.status_code}: {r.text[:300]}")
            verdicts[s.name].append(bool(r.json()["ok"]))
            return elapsed

        measures["verify"] = alternate(sites, verify, len(olds))
        for site in sites:
            if not all(verdicts[site.name]):
                raise RuntimeError(f"{site.name}: /verify found a game's record wrong: {verdicts[site.name]}")
        print("  measured record, verify (every verdict ok)", flush=True)
        swept = sweeps(sites, args.redis, len(fx["due_games"]) // 25)
        measures["sweep_batch_of_25"] = {k: v["batch_seconds"][1:] for k, v in swept.items()}
        results["sweeps"] = swept
        errors = {site.name: site.server.server_errors() for site in sites}
    finally:
        for site in sites:
            site.client.close()
            site.server.stop()
    results["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    table: dict[str, Any] = {}
    print()
    print(f"{'measure':<22} {'empty p50/p99 ms':>20} {'full p50/p99 ms':>20} {'ratio (p50)':>12}")
    for name, by_site in measures.items():
        e, f = summary(by_site["empty"]), summary(by_site["full"])
        ratio = round(f["p50_ms"] / e["p50_ms"], 3) if e["p50_ms"] else None
        table[name] = {
            "empty": e,
            "full": f,
            "ratio_p50": ratio,
            "ratio_p99": round(f["p99_ms"] / e["p99_ms"], 3),
        }
        mark = "" if ratio is not None and ratio <= 1.2 else "  (over 1.2)"
        print(
            f"{name:<22} {e['p50_ms']:>9} / {e['p99_ms']:<9} {f['p50_ms']:>9} / {f['p99_ms']:<9} "
            f"{ratio:>12}{mark}"
        )
    results["measures"] = table
    for name in plans:
        i = infos[name]
        print(f"{name}: {i['size']['pretty']}, {i['size']['events']:,} events, {i['games']:,} games")
    expired = {k: v["expired"] for k, v in swept.items()}
    print(
        f"sweeps: expired {expired} (batches of 25), still due after: "
        f"{ {k: v['still_due'] for k, v in swept.items()} }"
    )
    results["server_errors"] = errors
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=str) + "\n")
    print(f"written {out}")
    if not args.keep:
        with psycopg.connect(f"{args.pg}/postgres", autocommit=True) as conn:
            for name in DBNAMES.values():
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    if any(errors.values()):
        print(f"the service answered 500: {errors}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
