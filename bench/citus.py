"""The service on a Citus cluster beside the same service on a single PostgreSQL, in the same run.

    .venv/bin/python bench/citus.py [--games 8] [--seconds 15] [--rounds 2] [--workers 2] [--threads 4]

Starts, on this machine, a single PostgreSQL and a Citus cluster (a coordinator and two workers), both by
``scripts/citus.py`` with the same server settings (the same binaries; ``fsync`` off on both: a throwaway
benchmark database), migrates both and distributes the cluster's schema (``manage.py citus_distribute``,
8 shards). Citus is installed with ``../shared/citus/install.sh`` when it is missing (as root). Then for each
target the service under gunicorn (``--workers`` x ``--threads`` gthread, the test settings: rate limits
off) and, over HTTP with one keep-alive connection per client thread:

1. **commands**: ``--games`` running games (4 seats, the other three players' seats idle), one client each
   POSTing table talk (``SendMessage``) back to back for ``--seconds``: the command pipeline (authenticate,
   lock the game with its roster, fold from the state cache, decide, append an event, render the view).
2. **state reads**: the same clients GET their game's ``/state`` back to back for ``--seconds``.

The two targets are measured phase by phase in turn, ``--rounds`` times (the machine is shared: both see
the same load), and each figure is the median over the rounds: commands/s and reads/s, p50/p99 latency, and
the CPU seconds per command (per read) of each node's PostgreSQL (the postmaster and every backend, from
``psutil``) and of the gunicorn tree. Prints the figures and writes ``bench/results/citus.json`` with the
machine and its load average. Exits 1 if any request failed or answered 5xx.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.citus.harness import cluster_module, running_cluster, sign_up  # noqa: E402
from tests.outside.live import LiveServer  # noqa: E402

SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "300"}


def node_cpu(datadir: Path) -> float:
    """CPU seconds (user + system) of a PostgreSQL server's processes: its postmaster and every child."""
    try:
        pid = int((datadir / "postmaster.pid").read_text().splitlines()[0])
        root = psutil.Process(pid)
        total = 0.0
        for p in [root, *root.children(recursive=True)]:
            try:
                t = p.cpu_times()
                total += t.user + t.system + t.children_user + t.children_system
            except psutil.NoSuchProcess:
                pass
        return total
    except (OSError, ValueError, psutil.NoSuchProcess):
        return 0.0


def tree_cpu(pid: int) -> float:
    try:
        root = psutil.Process(pid)
        total = 0.0
        for p in [root, *root.children(recursive=True)]:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.NoSuchProcess:
                pass
        return total
    except psutil.NoSuchProcess:
        return 0.0


class Target:
    """One database (a single PostgreSQL or a Citus cluster) with the service in front of it."""

    def __init__(self, name: str, cluster: Any, workdir: Path, workers: int, threads: int) -> None:
        self.name, self.cluster = name, cluster
        env = {"CACHE_KEY_PREFIX": f"bench-citus-{uuid.uuid4().hex[:8]}", "DEBUG": "false"}
        self.server = LiveServer(
            workdir, cluster.url, workers=workers, threads=threads, extra_env=env, keepalive=75
        )
        self.games: list[tuple[str, int]] = []  # (token, game id)

    def start(self, games: int) -> None:
        self.server.start()
        bases = [self.server.url]
        for _ in range(games):
            _name, token = sign_up(bases, "bench")
            others = [sign_up(bases, "bench")[1] for _ in range(3)]
            with httpx.Client(base_url=self.server.url, timeout=30) as http:
                auth = {"Authorization": f"Bearer {token}"}
                r = http.post("/api/v1/games", json={"seats": 4}, headers=auth)
                assert r.status_code == 201, r.text
                game_id = r.json()["id"]
                for t in others:
                    r = http.post(
                        f"/api/v1/games/{game_id}/join", json={}, headers={"Authorization": f"Bearer {t}"}
                    )
                    assert r.status_code == 200, r.text
            self.games.append((token, game_id))

    def nodes(self) -> dict[str, Path]:
        return {n.name: n.datadir for n in self.cluster.nodes}

    def stop(self) -> None:
        self.server.stop()


def run_phase(target: Target, kind: str, seconds: float) -> dict[str, Any]:
    """Every client back to back for ``seconds``; latencies of the requests that end inside the window."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    start = threading.Barrier(len(target.games) + 1)
    window: dict[str, float] = {}

    def client(token: str, game_id: int) -> None:
        mine: list[float] = []
        bad = 0
        with httpx.Client(
            base_url=target.server.url, timeout=30, headers={"Authorization": f"Bearer {token}"}
        ) as http:
            start.wait()
            n = 0
            while time.monotonic() < window["end"]:
                n += 1
                t0 = time.monotonic()
                try:
                    if kind == "commands":
                        r = http.post(
                            f"/api/v1/games/{game_id}/commands/send-message",
                            json={"text": f"m{n}", "to": None},
                        )
                    else:
                        r = http.get(f"/api/v1/games/{game_id}/state")
                    ok = r.status_code == 200
                except httpx.HTTPError:
                    ok = False
                t1 = time.monotonic()
                if not ok:
                    bad += 1
                elif t1 <= window["end"]:
                    mine.append(t1 - t0)
        with lock:
            latencies.extend(mine)
            errors[0] += bad

    threads = [threading.Thread(target=client, args=g) for g in target.games]
    for t in threads:
        t.start()
    before = {name: node_cpu(d) for name, d in target.nodes().items()}
    web_before = tree_cpu(target.server.process.pid)
    window["end"] = time.monotonic() + seconds
    began = time.monotonic()
    start.wait()
    for t in threads:
        t.join()
    elapsed = min(time.monotonic(), window["end"]) - began
    after = {name: node_cpu(d) for name, d in target.nodes().items()}
    web = tree_cpu(target.server.process.pid) - web_before
    n = len(latencies)
    lat = sorted(latencies)
    return {
        "requests": n,
        "per_second": n / elapsed if elapsed > 0 else 0.0,
        "p50_ms": 1000 * lat[n // 2] if n else None,
        "p99_ms": 1000 * lat[min(n - 1, int(n * 0.99))] if n else None,
        "errors": errors[0],
        "cpu_ms_per_request": {
            **{name: 1000 * (after[name] - before[name]) / max(n, 1) for name in before},
            "gunicorn": 1000 * web / max(n, 1),
        },
    }


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def med(values: list[float]) -> float:
        return round(statistics.median(values), 3)

    out: dict[str, Any] = {
        key: med([r[key] for r in runs if r[key] is not None]) for key in ("per_second", "p50_ms", "p99_ms")
    }
    out["requests"] = sum(r["requests"] for r in runs)
    out["errors"] = sum(r["errors"] for r in runs)
    out["cpu_ms_per_request"] = {
        name: med([r["cpu_ms_per_request"][name] for r in runs]) for name in runs[0]["cpu_ms_per_request"]
    }
    out["rounds"] = runs
    return out


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }


def describe(name: str, kind: str, r: dict[str, Any]) -> str:
    cpu = ", ".join(f"{node} {ms:.2f}" for node, ms in r["cpu_ms_per_request"].items())
    return (
        f"  {name:<16} {kind:<12} {r['per_second']:8.1f}/s  p50 {r['p50_ms']:7.1f} ms  "
        f"p99 {r['p99_ms']:7.1f} ms"
        f"  CPU ms per request: {cpu}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=8, help="games, one client each")
    parser.add_argument("--seconds", type=float, default=15.0, help="each phase's window")
    parser.add_argument(
        "--rounds", type=int, default=2, help="each phase, each target, this many times in turn"
    )
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    args = parser.parse_args(argv[1:])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "critters_api.settings_test")
    mod = cluster_module()
    try:
        mod.ensure_installed()
    except mod.CitusUnavailable as exc:
        print(f"bench/citus.py cannot run here: {exc}", file=sys.stderr)
        return 2
    results: dict[str, Any] = {"machine": machine(), "args": vars(args), "started_at": time.time()}
    work = Path(tempfile.mkdtemp(prefix="bench-citus-"))
    with ExitStack() as stack:
        single = stack.enter_context(running_cluster(workers=0, citus=False, settings=SETTINGS))
        citus = stack.enter_context(running_cluster(workers=2, shard_count=8, settings=SETTINGS))
        targets = [
            Target("postgresql", single, work / "pg", args.workers, args.threads),
            Target("citus (1+2)", citus, work / "citus", args.workers, args.threads),
        ]
        for t in targets:
            t.server.workdir.mkdir(parents=True, exist_ok=True)
            t.start(args.games)
            stack.callback(t.stop)
        raw: dict[str, dict[str, list[dict[str, Any]]]] = {
            t.name: {"commands": [], "reads": []} for t in targets
        }
        for _round in range(args.rounds):
            for kind in ("commands", "reads"):
                for t in targets:
                    raw[t.name][kind].append(run_phase(t, kind, args.seconds))
        summary = {
            name: {kind: median_of(runs) for kind, runs in kinds.items()} for name, kinds in raw.items()
        }
    results["targets"] = summary
    base, dist = summary["postgresql"], summary["citus (1+2)"]
    results["ratios_citus_over_postgresql"] = {
        kind: {
            "throughput": round(dist[kind]["per_second"] / base[kind]["per_second"], 3),
            "p50": round(dist[kind]["p50_ms"] / base[kind]["p50_ms"], 3),
            "p99": round(dist[kind]["p99_ms"] / base[kind]["p99_ms"], 3),
        }
        for kind in ("commands", "reads")
    }
    results["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print(
        f"\nThe service on one PostgreSQL and on Citus (coordinator + 2 workers, 8 shards), {args.games} "
        "clients, "
        f"{args.seconds:.0f} s windows, median of {args.rounds} rounds; load average "
        f"{results['machine']['load_average_1_5_15']} -> {results['load_average_at_end']}"
    )
    for name, kinds in summary.items():
        for kind, r in kinds.items():
            print(describe(name, kind, r))
    for kind, ratio in results["ratios_citus_over_postgresql"].items():
        print(
            f"  citus / postgresql, {kind}: throughput {ratio['throughput']}, p50 {ratio['p50']}, "
            f"p99 {ratio['p99']}"
        )
    out = ROOT / "bench" / "results" / "citus.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=str))
    print(f"written {out}")
    failed = sum(r["errors"] for kinds in summary.values() for r in kinds.values())
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
