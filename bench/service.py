"""Service benchmark over HTTP, on the real PostgreSQL, beside pgbench doing the same transaction shape.

    .venv/bin/python bench/service.py [--games 12] [--clients 4] [--seconds 20] [--workers 3] [--threads 4]

Creates (drops first) its own database ``critters_bench_service`` on $BENCH_PG (default
``postgres://postgres@127.0.0.1:5432``), migrates it, starts the service under gunicorn (production settings,
``--workers`` x ``--threads``) on loopback, and measures:

1. **commands**: ``--games`` concurrent games (4-8 seats, every seat an HTTP player with its own token),
   driven by outside bots (``tests/outside/driver.py``: each seat decides from its own served view) from
   ``--clients`` client processes, for ``--seconds``: commands/s and the p50/p99 latency of the command
   POSTs. A game that ends is replaced by a new one.
2. **pgbench**, in the same run on the same server: a custom script doing a command's transaction shape (lock
   the game row, insert N event rows with a jsonb payload and a hash, update the game's head; N = the mean
   events per command of step 1), with as many clients as step 1 had games; and the ratio HTTP / pgbench
   (target >= 25%).
3. **reads**: viewer-state GETs (``/state``) from as many readers as games for ``--seconds``/2: p50/p99.
4. **long game**: one game whose log is grown to 1,000+ events; the latency of the same command (SendMessage)
   at about event 10 and at event 1,000 (median of ``--samples``), with the per-process state cache on
   (default settings) and off (``STATE_CACHE_SIZE=0``: every command folds the whole log). Target: < 1.2.

Prints the figures and writes ``bench/results/service.json`` (with the machine) so a later run can be
compared.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import pct, recreate_database  # noqa: E402
from tests.outside.driver import kebab, next_command  # noqa: E402
from tests.outside.live import LiveServer  # noqa: E402

DBNAME = "critters_bench_service"
OPTIONS: list[dict[str, Any]] = [{}, {"payoffs": True}, {"fuzz_depth": "short"}]
PGBENCH = next(
    (p for p in ("/usr/lib/postgresql/15/bin/pgbench", "/usr/bin/pgbench") if Path(p).exists()), "pgbench"
)


# --------------------------------------------------------------------------------------------------
# setup
# --------------------------------------------------------------------------------------------------


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        "SECRET_KEY": "bench-" + uuid.uuid4().hex,
        "ALLOWED_HOSTS": "127.0.0.1",
        "CONN_MAX_AGE": "60",
        "THROTTLE_USER_RATE": "10000000/min",
        "THROTTLE_ANON_RATE": "10000000/min",
        "CACHE_KEY_PREFIX": f"bench-{uuid.uuid4().hex[:8]}",
        "LOG_LEVEL": "WARNING",
    }
    env.update(extra or {})
    return env


MAKE_TOKENS = """
import json, sys, uuid
import django
django.setup()
from players.models import ApiToken, Player
out = []
for _ in range(int(sys.argv[1])):
    player = Player.objects.create_user(username="b" + uuid.uuid4().hex[:12], password=None)
    out.append(ApiToken.issue(player, "bench")[1])
print(json.dumps(out))
"""


def make_tokens(url: str, n: int) -> list[str]:
    """``n`` players with an API token each, made directly in the database (signing up over HTTP would
    spend the setup on password hashing, which is not what is measured)."""
    env = dict(os.environ, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="critters_api.settings_test")
    proc = subprocess.run(
        [sys.executable, "-c", MAKE_TOKENS, str(n)],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    tokens: list[str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return tokens


class HttpGame:
    """One game of HTTP players (one keep-alive client and token per seat)."""

    def __init__(
        self, base: str, tokens: list[str], seats: int, rnd: random.Random, options: dict[str, Any]
    ) -> None:
        self.rnd = rnd
        tokens = tokens[:seats]
        self.clients = [
            httpx.Client(base_url=base, timeout=60, headers={"Authorization": f"Bearer {t}"}) for t in tokens
        ]
        r = self.clients[0].post("/api/v1/games", json={"seats": seats, "options": options})
        r.raise_for_status()
        self.id = r.json()["id"]
        for c in self.clients[1:]:
            c.post(f"/api/v1/games/{self.id}/join", json={}).raise_for_status()
        views = [self.get_state(c) for c in self.clients]
        order = sorted(range(seats), key=lambda i: views[i]["viewer"])
        self.clients = [self.clients[i] for i in order]
        self.note(views[0])

    def note(self, view: dict[str, Any]) -> None:
        """What any seat's view says publicly: whom the game waits on, whether it is over, its version."""
        self.waiting = view["waiting"]
        self.over = bool(view["over"])
        self.version = int(view["version"])

    def get_state(self, client: httpx.Client) -> dict[str, Any]:
        r = client.get(f"/api/v1/games/{self.id}/state")
        r.raise_for_status()
        body: dict[str, Any] = r.json()
        return body

    def step(self, latencies: list[float]) -> tuple[bool, int]:
        """Send one command (from the first seat the game waits on); (over, events it added)."""
        if self.over or self.waiting is None:
            return True, 0
        for seat in self.waiting["seats"]:
            view = self.get_state(self.clients[seat])
            self.note(view)
            if self.over:
                return True, 0
            step = next_command(view, self.rnd)
            if step is None:
                continue
            kind, body = step
            t0 = time.perf_counter()
            r = self.clients[seat].post(f"/api/v1/games/{self.id}/commands/{kebab(kind)}", json=body)
            latencies.append(time.perf_counter() - t0)
            r.raise_for_status()
            new = r.json()
            self.note(new)
            return self.over, new["version"] - view["version"]
        raise RuntimeError("the game waits on seats that have nothing to do")

    def close(self) -> None:
        for c in self.clients:
            c.close()


# --------------------------------------------------------------------------------------------------
# 1. command throughput (client processes, a thread per game)
# --------------------------------------------------------------------------------------------------
def _client_process(args: tuple[str, list[list[str]], float, int]) -> dict[str, Any]:
    base, token_sets, seconds, seed = args
    games = len(token_sets)
    latencies: list[float] = []
    events = [0]
    commands = [0]
    lock = threading.Lock()
    start_barrier = threading.Barrier(games)
    window: dict[str, float] = {}

    def run(index: int) -> None:
        rnd = random.Random(seed * 1000 + index)
        tokens = token_sets[index]
        game = HttpGame(base, tokens, 4 + rnd.randrange(5), rnd, rnd.choice(OPTIONS))
        start_barrier.wait()
        with lock:
            window.setdefault("start", time.perf_counter())
        end = window["start"] + seconds
        mine: list[float] = []
        n_events = n_commands = 0
        while time.perf_counter() < end:
            over, added = game.step(mine)
            n_events += added
            n_commands += 1 if added else 0
            if over:
                game.close()
                game = HttpGame(base, tokens, 4 + rnd.randrange(5), rnd, rnd.choice(OPTIONS))
        game.close()
        with lock:
            latencies.extend(mine)
            events[0] += n_events
            commands[0] += n_commands

    threads = [threading.Thread(target=run, args=(i,)) for i in range(games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"latencies": latencies, "events": events[0], "commands": commands[0]}


def command_throughput(
    base: str, tokens: list[str], games: int, clients: int, seconds: float
) -> dict[str, Any]:
    sets = [tokens[8 * g : 8 * g + 8] for g in range(games)]
    per = [sets[i::clients] for i in range(clients)]
    with multiprocessing.get_context("spawn").Pool(clients) as pool:
        t0 = time.perf_counter()
        results = pool.map(_client_process, [(base, p, seconds, i + 1) for i, p in enumerate(per) if p])
        wall = time.perf_counter() - t0
    latencies = [x for r in results for x in r["latencies"]]
    commands = sum(r["commands"] for r in results)
    events = sum(r["events"] for r in results)
    return {
        "games": games,
        "client_processes": clients,
        "seconds": seconds,
        "wall_seconds_incl_setup": round(wall, 1),
        "commands": commands,
        "events": events,
        "events_per_command": round(events / commands, 2) if commands else None,
        "commands_per_second": round(commands / seconds, 1),
        "latency_ms": {
            "p50": round(pct(latencies, 0.5) * 1000, 1),
            "p99": round(pct(latencies, 0.99) * 1000, 1),
        },
    }


# --------------------------------------------------------------------------------------------------
# 2. pgbench, the same transaction shape
# --------------------------------------------------------------------------------------------------
PGBENCH_SETUP = """
DROP TABLE IF EXISTS bench_event; DROP TABLE IF EXISTS bench_game;
CREATE TABLE bench_game (id bigint PRIMARY KEY, version integer NOT NULL, head_hash varchar(64) NOT NULL,
                         revision integer NOT NULL DEFAULT 0, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE bench_event (id bigserial PRIMARY KEY, game_id bigint NOT NULL REFERENCES bench_game(id),
    seq integer NOT NULL, type varchar(64) NOT NULL, schema_version smallint NOT NULL,
    data jsonb NOT NULL, created_at timestamptz NOT NULL, command_id varchar(255) NOT NULL,
    command jsonb, actor_id bigint, prev_hash varchar(64) NOT NULL, hash varchar(64) NOT NULL,
    UNIQUE (game_id, seq));
INSERT INTO bench_game (id, version, head_hash)
    SELECT g, 0, repeat('0', 64) FROM generate_series(1, {games}) g;
"""

PGBENCH_SCRIPT = """\\set g random(1, {games})
BEGIN;
SELECT version FROM bench_game WHERE id = :g FOR UPDATE;
INSERT INTO bench_event (game_id, seq, type, schema_version, data, created_at, command_id, command, actor_id,
                         prev_hash, hash)
  SELECT :g, v.version + i, 'ActionChosen', 1,
         jsonb_build_object('type', 'ActionChosen', 'v', 1, 'seat', 2, 'action', 'rob', 'commit_no', i,
                            'commitment', md5(random()::text) || md5(random()::text), 'unready', '[]'::jsonb),
         now(), md5(random()::text),
         CASE WHEN i = 1 THEN '{{"type": "ChooseAction", "seat": 2}}'::jsonb END, 1,
         md5(random()::text) || md5(random()::text), md5(random()::text) || md5(random()::text)
  FROM (SELECT version FROM bench_game WHERE id = :g) v, generate_series(1, {events}) i;
UPDATE bench_game SET version = version + {events}, head_hash = md5(random()::text) || md5(random()::text),
                      revision = revision + 1, updated_at = now() WHERE id = :g;
COMMIT;
"""


def pgbench(pg: str, games: int, events: int, seconds: int) -> dict[str, Any]:
    url = f"{pg}/{DBNAME}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(PGBENCH_SETUP.format(games=games))
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(PGBENCH_SCRIPT.format(games=games, events=events))
        script = f.name
    try:
        proc = subprocess.run(
            [PGBENCH, "-n", "-f", script, "-c", str(games), "-j", "2", "-T", str(seconds), url],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        os.unlink(script)
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", proc.stdout)
    lat = re.search(r"latency average = ([0-9.]+) ms", proc.stdout)
    assert m, proc.stdout
    return {
        "clients": games,
        "events_per_transaction": events,
        "seconds": seconds,
        "tps": round(float(m.group(1)), 1),
        "latency_avg_ms": float(lat.group(1)) if lat else None,
    }


# --------------------------------------------------------------------------------------------------
# 3. viewer-state reads
# --------------------------------------------------------------------------------------------------
def state_reads(base: str, tokens: list[str], readers: int, seconds: float) -> dict[str, Any]:
    rnd = random.Random(99)
    games = [HttpGame(base, tokens[5 * i : 5 * i + 5], 5, rnd, {}) for i in range(max(1, readers // 4))]
    for g in games:  # a few moves in, so there is something to fold and redact
        for _ in range(15):
            if g.step([])[0]:
                break
    latencies: list[float] = []
    lock = threading.Lock()
    end = time.perf_counter() + seconds

    def read(i: int) -> None:
        g = games[i % len(games)]
        client = g.clients[i % len(g.clients)]
        mine = []
        while time.perf_counter() < end:
            t0 = time.perf_counter()
            client.get(f"/api/v1/games/{g.id}/state").raise_for_status()
            mine.append(time.perf_counter() - t0)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g in games:
        g.close()
    return {
        "readers": readers,
        "reads_per_second": round(len(latencies) / seconds, 1),
        "latency_ms": {
            "p50": round(pct(latencies, 0.5) * 1000, 2),
            "p99": round(pct(latencies, 0.99) * 1000, 2),
        },
    }


# --------------------------------------------------------------------------------------------------
# 4. a command at event ~10 vs event ~1,000
# --------------------------------------------------------------------------------------------------
def long_game(base: str, tokens: list[str], samples: int) -> dict[str, Any]:
    rnd = random.Random(5)
    game = HttpGame(base, tokens, 4, rnd, {"payoffs": True})
    speaker = game.clients[0]
    url = f"/api/v1/games/{game.id}/commands/send-message"

    def measure() -> tuple[float, int]:
        times = []
        version = 0
        for i in range(samples):
            t0 = time.perf_counter()
            r = speaker.post(url, json={"text": f"message {i}", "to": None})
            times.append(time.perf_counter() - t0)
            r.raise_for_status()
            version = r.json()["version"]
        return statistics.median(times), version

    early, v_early = measure()
    version = v_early
    for _ in range(30):  # some real moves (the game stays running: a game takes ~300 commands)
        game.step([])
    assert not game.over, "the long game ended early"
    version = game.version
    while version < 1000:  # then grow the log to 1,000 events (a message is an event like any other)
        r = speaker.post(url, json={"text": "padding", "to": None})
        r.raise_for_status()
        version = r.json()["version"]
    late, v_late = measure()
    game.close()
    return {
        "command": "SendMessage",
        "samples": samples,
        "early": {"events_before": v_early - samples, "median_ms": round(early * 1000, 2)},
        "late": {"events_before": v_late - samples, "median_ms": round(late * 1000, 2)},
        "ratio": round(late / early, 3),
    }


def describe(lg: dict[str, Any]) -> str:
    early, late = lg["early"], lg["late"]
    return (
        f"after {early['events_before']} events {early['median_ms']} ms vs after {late['events_before']} "
        f"events {late['median_ms']} ms: ratio {lg['ratio']}"
    )


# --------------------------------------------------------------------------------------------------
def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    with psycopg.connect("postgres://postgres@127.0.0.1:5432/postgres") as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "postgres": row[0] if row else "",
        "platform": platform.platform(),
        "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--pg", default=os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432"))
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/5"))
    args = parser.parse_args()

    url = recreate_database(args.pg, DBNAME)
    tokens = make_tokens(url, 8 * max(args.games, 2))
    workdir = Path(tempfile.mkdtemp(prefix="bench-service-"))
    results: dict[str, Any] = {
        "machine": machine(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    server = LiveServer(
        workdir,
        url,
        redis_url=args.redis,
        workers=args.workers,
        threads=args.threads,
        settings_module="critters_api.settings",
        extra_env=server_env(),
    )
    server.start()
    try:
        results["server"] = {
            "gunicorn_workers": args.workers,
            "threads": args.threads,
            "settings": "production",
        }
        cmd = command_throughput(server.url, tokens, args.games, args.clients, args.seconds)
        results["commands"] = cmd
        print(
            f"commands: {cmd['commands_per_second']}/s over {cmd['games']} games "
            f"(p50 {cmd['latency_ms']['p50']} ms, p99 {cmd['latency_ms']['p99']} ms, "
            f"{cmd['events_per_command']} events/command)"
        )
        events = max(1, round(cmd["events_per_command"] or 1))
        pgb = pgbench(args.pg, args.games, events, int(args.seconds))
        results["pgbench"] = pgb
        ratio = cmd["commands_per_second"] / pgb["tps"] if pgb["tps"] else 0.0
        results["http_vs_pgbench"] = round(ratio, 3)
        print(
            f"pgbench: {pgb['tps']} tps ({events} event rows/transaction, {args.games} clients); "
            f"HTTP/pgbench = {ratio:.1%} (target >= 25%)"
        )
        reads = state_reads(server.url, tokens, args.games, args.seconds / 2)
        results["state_reads"] = reads
        print(
            f"state reads: {reads['reads_per_second']}/s (p50 {reads['latency_ms']['p50']} ms, "
            f"p99 {reads['latency_ms']['p99']} ms)"
        )
        lg = long_game(server.url, tokens, args.samples)
        results["long_game_cached"] = lg
        print(f"long game (state cache on): {describe(lg)} (target < 1.2)")
    finally:
        server.stop()
    cold = LiveServer(
        workdir,
        url,
        redis_url=args.redis,
        workers=1,
        threads=2,
        settings_module="critters_api.settings",
        extra_env=server_env({"STATE_CACHE_SIZE": "0"}),
    )
    cold.start()
    try:
        lg = long_game(cold.url, tokens[8:], args.samples)
        results["long_game_uncached"] = lg
        print(f"long game (state cache off): {describe(lg)}")
    finally:
        cold.stop()
    results["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    errors = server.server_errors() + cold.server_errors()
    results["server_errors"] = len(errors)
    out = ROOT / "bench" / "results" / "service.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {out.relative_to(ROOT)}")
    if errors:
        print(f"the service answered 500 {len(errors)} times: {errors[:5]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
