"""Concurrent clients against the README's serve command, and the database connections it used.

    .venv/bin/python bench/connections.py [--clients 1,16,64] [--seconds 10] [--runs 3]
                                          [--topology script|serve|image] [--workers N]

Creates (drops first) its own database ``critters_bench_connections`` on $BENCH_PG (default
``postgres://postgres@127.0.0.1:5432``), migrates it, makes the players and their tokens in the database, and
starts the service with the PRODUCTION settings (the connection pool with its defaults; only the per-token
rate limit is lifted, so that one client may go as fast as it can):

- ``script`` (default): ``scripts/serve`` itself, the README's serve command (gunicorn with uvicorn workers,
  ``WEB_CONCURRENCY`` = ``--workers``, default 2; its Celery worker and beat);
- ``serve``: the same web command line and a Celery worker, started directly;
- ``image``: the image's command (Dockerfile: gunicorn gthread, ``--workers`` x ``--threads``) and a worker.

Then for each concurrency, ``--runs`` times: that many clients (games of four, one keep-alive connection and
token each, one asyncio process) loop over ``GET /api/v1/me``, ``GET /games/{id}/state`` and ``POST
/games/{id}/commands/send-message`` for ``--seconds``, while ``pg_stat_activity`` is sampled every 20 ms
(``tests/deploy/serve_load.py``). Prints per run: concurrency, requests/s, p50/p99, 5xx, the most
connections at once, beside the bound of the settings (web processes x ``DB_POOL_MAX_SIZE`` + Celery
processes x (``DB_POOL_MIN_SIZE`` + 1)) and PostgreSQL's ``max_connections``; then the median run of each
concurrency and its requests/s as a ratio to one client's. Writes ``bench/results/connections.json``.
Exits 1 on any 5xx or transport error, or if the connections ever exceeded the bound.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.deploy.serve_load import (  # noqa: E402
    Topology,
    describe,
    drop_database,
    make_tokens,
    recreate_database,
    run_load,
    running,
    tokens_for,
)

DBNAME = "critters_bench_connections"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", default="1,16,64", help="comma-separated concurrencies")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=3, help="runs per concurrency (the median is reported)")
    parser.add_argument("--topology", choices=["script", "serve", "image"], default="script")
    parser.add_argument("--workers", type=int, default=None, help="web processes (default: 2; image: 3)")
    parser.add_argument("--threads", type=int, default=8, help="image only: threads per process")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()

    concurrencies = [int(c) for c in args.clients.split(",")]
    workers = args.workers or (3 if args.topology == "image" else 2)
    topology = Topology(kind=args.topology, workers=workers, threads=args.threads)
    server = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        row = conn.execute("SHOW max_connections").fetchone()
        max_connections = int(row[0]) if row else 0

    print(f"setting up {DBNAME} ...", flush=True)
    url = recreate_database(server, DBNAME)
    tokens = make_tokens(url, tokens_for(max(concurrencies)))
    runs: dict[int, list[dict[str, Any]]] = {c: [] for c in concurrencies}
    workdir = Path(tempfile.mkdtemp(prefix="bench-connections-"))
    try:
        with running(topology, url, redis_url, workdir) as base:
            bound = topology.connection_bound()
            print(
                f"{args.topology}: {workers} web processes, connection bound {bound} "
                f"(PostgreSQL max_connections {max_connections}); logs in {workdir}",
                flush=True,
            )
            for _ in range(args.runs):
                for clients in concurrencies:
                    figures = run_load(base, server, DBNAME, tokens, clients, args.seconds)
                    runs[clients].append(figures)
                    print("  " + describe(figures), flush=True)
    finally:
        if not args.keep:
            drop_database(server, DBNAME)

    def median_run(rs: list[dict[str, Any]]) -> dict[str, Any]:
        ordered = sorted(rs, key=lambda r: r["requests_per_second"])
        return ordered[(len(ordered) - 1) // 2]

    medians = {c: median_run(rs) for c, rs in runs.items()}
    base_rate = medians[min(concurrencies)]["requests_per_second"] if 1 in concurrencies else float("nan")
    print("median runs:")
    summary = []
    for clients, m in medians.items():
        ratio = m["requests_per_second"] / base_rate if base_rate else float("nan")
        most = max(r["max_connections_used"] for r in runs[clients])
        print(f"  {describe(m)} (x{ratio:.2f} one client's requests/s; most connections in any run {most})")
        summary.append(
            {
                "concurrency": clients,
                "requests_per_second": m["requests_per_second"],
                "p50_ms": m["p50_ms"],
                "p99_ms": m["p99_ms"],
                "server_errors": sum(r["server_errors"] for r in runs[clients]),
                "max_connections_used": most,
                "ratio_to_one_client": ratio,
            }
        )
    failures = [
        r
        for rs in runs.values()
        for r in rs
        if r["server_errors"] or r["transport_errors"] or r["max_connections_used"] > bound
    ]
    out = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average": os.getloadavg(),
            "python": platform.python_version(),
        },
        "topology": args.topology,
        "web_processes": workers,
        "seconds": args.seconds,
        "connection_bound": bound,
        "postgres_max_connections": max_connections,
        "summary": summary,
        "runs": {str(c): rs for c, rs in runs.items()},
    }
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    (results / "connections.json").write_text(json.dumps(out, indent=2, default=str))
    print(f"wrote {results / 'connections.json'}")
    if failures:
        print(f"FAILED: {len(failures)} run(s) with 5xx, transport errors or connections over the bound")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
