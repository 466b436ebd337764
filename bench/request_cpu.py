"""Server CPU per request in one process, one thread, no HTTP server: what a tree's request path costs,
for comparing two trees back to back on a loaded machine (process CPU time, not wall time).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<scratch> REDIS_URL=redis://127.0.0.1:6379/<n> \\
        .venv/bin/python bench/request_cpu.py [--requests 2000] [--warmup 200] [--profile stream|reads|bots]

Runs ``django.test.Client`` against the production settings (``critters_api.settings``; a bench-only
``SECRET_KEY``, the per-token limit lifted as ``bench/service.py`` does) on the given database, migrated
first (use a scratch one: it adds players and games). Measures, after ``--warmup`` requests each:

- **stream**: table talk (``SendMessage``) from every seat of a 6-seat game in turn, as ``bench/service.py``'s
  command stream sends it;
- **stream, cache behind**: the same, the process's cached fold of the game one command behind before each
  command (as in a server of several processes, where each one's cache misses the others' commands);
- **reads**: ``GET /state`` of a 5-seat game a few moves in (options as ``bench/service.py``'s readers), and
  of a GoodCritters game with the Payoff rules (its ``moves`` are the dearest to compute);
- **bots**: the bots' loop (a state read of the seat the game waits on, then its command), games replaced
  when over.

Prints ms of process CPU per request (user + system) and the SQL statements per request. ``--profile`` runs
one of them under cProfile and prints the top of it by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ["DJANGO_SETTINGS_MODULE"] = "critters_api.settings"
os.environ.setdefault("SECRET_KEY", "bench-" + uuid.uuid4().hex)
os.environ.setdefault("THROTTLE_USER_RATE", "10000000/min")
os.environ.setdefault("THROTTLE_ANON_RATE", "10000000/min")
os.environ.setdefault("CACHE_KEY_PREFIX", f"bench-{uuid.uuid4().hex[:8]}")
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from games import statecache  # noqa: E402
from players.models import ApiToken, Player  # noqa: E402
from tests.outside.driver import kebab, next_command  # noqa: E402


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def client(token: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {token}")


def ok(r: Any, what: str) -> dict[str, Any]:
    if r.status_code >= 300:
        raise RuntimeError(f"{what}: {r.status_code} {r.content[:300]!r}")
    body: dict[str, Any] = json.loads(r.content)
    return body


class Game:
    def __init__(self, clients: list[Client], options: dict[str, Any]) -> None:
        self.clients = clients
        r = clients[0].post(
            "/api/v1/games", {"seats": len(clients), "options": options}, content_type="application/json"
        )
        self.id = ok(r, "create")["id"]
        for c in clients[1:]:
            ok(c.post(f"/api/v1/games/{self.id}/join", {}, content_type="application/json"), "join")
        views = [ok(c.get(f"/api/v1/games/{self.id}/state"), "state") for c in clients]
        order = sorted(range(len(clients)), key=lambda i: views[i]["viewer"])
        self.clients = [clients[i] for i in order]
        self.view = views[0]

    def step(self, rnd: random.Random) -> bool:
        """One bot command (a state read first); True when over."""
        waiting = self.view["waiting"]
        if self.view["over"] or waiting is None:
            return True
        for seat in waiting["seats"]:
            c = self.clients[seat]
            view = ok(c.get(f"/api/v1/games/{self.id}/state"), "state")
            self.view = view
            if view["over"]:
                return True
            picked = next_command(view, rnd)
            if picked is None:
                continue
            kind, body = picked
            r = c.post(
                f"/api/v1/games/{self.id}/commands/{kebab(kind)}", body, content_type="application/json"
            )
            self.view = ok(r, kind)
            return bool(self.view["over"])
        raise RuntimeError("the game waits on seats that have nothing to do")


def tokens(n: int) -> list[str]:
    out = []
    for _ in range(n):
        p = Player.objects.create_user(username="r" + uuid.uuid4().hex[:12], password=None)
        out.append(ApiToken.issue(p, "bench")[1])
    return out


SHOW_SQL = "--sql" in sys.argv
BLOCKS = 5


def measure(name: str, fn: Any, n: int, warmup: int, profile: bool) -> dict[str, Any]:
    for i in range(warmup):
        fn(i)
    prof = cProfile.Profile(time.process_time) if profile else None
    blocks = max(1, min(BLOCKS, n // 50))
    per = n // blocks
    samples = []
    w0 = time.perf_counter()
    done = 0
    for _ in range(blocks):
        c0 = cpu()
        if prof:
            prof.enable()
        for _ in range(per):
            fn(warmup + done)
            done += 1
        if prof:
            prof.disable()
        samples.append((cpu() - c0) * 1000 / per)
    w1 = time.perf_counter()
    samples.sort()
    counted = min(n, 50)  # statements counted apart: the capturing cursor costs CPU of its own
    with CaptureQueriesContext(connection) as q:
        for i in range(counted):
            fn(warmup + done + i)
    out = {
        "cpu_ms": round(samples[len(samples) // 2], 3),
        "cpu_ms_best": round(samples[0], 3),
        "wall_ms": round((w1 - w0) * 1000 / done, 3),
        "statements": round(len(q.captured_queries) / counted, 2),
    }
    if SHOW_SQL:
        for query in q.captured_queries[-12:]:
            print("   SQL:", str(query.get("sql"))[:160].replace("\n", " "))
    print(
        f"{name:24s} {out['cpu_ms']:6.3f} ms CPU/request (median of {blocks} blocks; best "
        f"{out['cpu_ms_best']:.3f})  {out['statements']:5.2f} statements/request",
        flush=True,
    )
    if prof:
        st = pstats.Stats(prof)
        st.sort_stats("cumulative").print_stats(70)
        st.sort_stats("tottime").print_stats(40)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--profile", choices=["stream", "behind", "reads", "payoff-reads", "bots"], default=None)
    ap.add_argument("--only", default="stream,behind,reads,payoff-reads,bots")
    ap.add_argument("--no-migrate", action="store_true")
    ap.add_argument("--sql", action="store_true", help="print the last statements counted")
    args = ap.parse_args()
    if not args.no_migrate:
        call_command("migrate", verbosity=0)
    rnd = random.Random(7)
    toks = tokens(6)
    clients = [client(t) for t in toks]
    only = args.only.split(",")
    results: dict[str, Any] = {}

    if "stream" in only or "behind" in only:
        stream = Game(clients[:6], {})

        def talk(i: int) -> None:
            c = stream.clients[i % 6]
            ok(
                c.post(
                    f"/api/v1/games/{stream.id}/commands/send-message",
                    {"text": f"seat says {i}", "to": None},
                    content_type="application/json",
                ),
                "talk",
            )

        if "stream" in only:
            results["stream"] = measure(
                "stream (SendMessage)", talk, args.requests, args.warmup, args.profile == "stream"
            )
        if "behind" in only:
            previous: list[Any] = [None]

            def talk_behind(i: int) -> None:
                talk(i)
                entry = statecache.get(stream.id)
                if previous[0] is not None:  # the cache one command behind the game, as another process's
                    statecache.clear()
                    statecache.put(stream.id, previous[0])
                previous[0] = entry

            results["behind"] = measure(
                "stream, cache behind", talk_behind, args.requests, args.warmup, args.profile == "behind"
            )

    if "reads" in only:
        g = Game(clients[:5], {})
        for _ in range(15):
            if g.step(rnd):
                break

        def read(i: int) -> None:
            ok(g.clients[i % 5].get(f"/api/v1/games/{g.id}/state"), "read")

        results["reads"] = measure("state reads", read, args.requests, args.warmup, args.profile == "reads")

    if "payoff-reads" in only:
        pg = Game(clients[:6], {"payoffs": True})
        for _ in range(20):
            if pg.step(rnd):
                break

        def pread(i: int) -> None:
            ok(pg.clients[i % 6].get(f"/api/v1/games/{pg.id}/state"), "read")

        results["payoff-reads"] = measure(
            "state reads, payoffs", pread, args.requests, args.warmup, args.profile == "payoff-reads"
        )

    if "bots" in only:
        options: list[dict[str, Any]] = [{}, {"payoffs": True}, {"fuzz_depth": "short"}]
        holder = {"g": Game(clients[:5], {})}

        def bot(i: int) -> None:
            if holder["g"].step(rnd):
                holder["g"] = Game(clients[: 4 + rnd.randrange(3)], rnd.choice(options))

        results["bots"] = measure(
            "bots (read + command)", bot, args.requests // 2, args.warmup // 2, args.profile == "bots"
        )
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
