"""Service benchmark over HTTP, on the real PostgreSQL, beside pgbench doing the same transaction shape.

    .venv/bin/python bench/service.py [--games 12] [--stream-games 4] [--clients 1] [--seconds 20]
                                      [--pgbench-seconds 10] [--workers 3] [--threads 8] [--keepalive 75]

Creates (drops first) its own database ``critters_bench_service`` on $BENCH_PG (default
``postgres://postgres@127.0.0.1:5432``), migrates it, makes the players and their API tokens directly in the
database (password hashing is not what is measured), and starts the service under gunicorn on loopback
(production settings, persistent database connections, ``--workers`` x ``--threads`` gthread workers,
``--keep-alive`` ``--keepalive`` seconds as behind a production proxy). Everything else goes over HTTP.

The throughput phases are driven by ``bench/loadgen.py``: raw asyncio HTTP/1.1 on keep-alive connections, one
event loop per client process (``--clients`` processes, spawned), a connection per seat, every game a
coroutine, so the load generator takes as little of the shared CPU as it can. Each phase starts once every
client process has set its games up and lasts ``--seconds``; only requests that start and end inside that
window count. For each it prints where the CPU went (cores busy: the gunicorn tree, PostgreSQL's background
processes and the backends of this database, the client processes, this process, the rest of the machine
("other": whatever else ran), iowait, idle), from ``psutil``, and the CPU per request of each.

1. **commands (bots)**: ``--games`` concurrent games (4-8 seats, options mixed), every seat a player with its
   own token; each game driven like ``tests/outside/driver.py`` drives one: the seat the game waits on GETs
   its ``/state``, picks its command from that served view (``next_command``), POSTs it; a game that ends is
   replaced by a new one. commands/s, requests/s (state GETs + command POSTs + the few game creations and
   joins), p50/p99 of the command POSTs and of the state GETs, events per command.
2. **command stream**: every seat of ``--stream-games`` running games POSTs table talk (``SendMessage``,
   ``{"text": ..., "to": null}``) back to back on its own connection, with no reads: the command pipeline
   alone (authenticate, lock the game, fold (cached), decide, append one event with its hash, render the
   seat's view). commands/s and p50/p99.
3. **pgbench**, same server, same database: a custom script with a command's transaction shape (lock the game
   row ``FOR UPDATE``, insert N event rows with a jsonb payload, hashes and the command, update the game's
   head), run twice: N = the bots' mean events per command (rounded), with as many clients as bot games
   over as many game rows; and N = 1, with as many clients as stream connections over as many rows as
   stream games; then the second again with its statements prepared (``-M prepared``), since the service
   prepares its own statements (``DB_PREPARED_STATEMENTS``). The ratios: stream commands/s ÷ the second
   (like for like, pgbench's default protocol as when the target was set; target >= 25%), ÷ the prepared
   run, and bot commands/s ÷ the first (each bot command also pays a state read); each also per
   CPU-second the stack used (server + PostgreSQL + clients), which depends less on what else ran on the
   machine meanwhile.
4. **state reads**: ``GET /state`` back to back from as many readers as bot games (over ``--games``/4
   five-seat games a few moves in): reads/s, p50/p99.
5. **long game** (httpx, one request at a time: latency, not throughput): the same command (``SendMessage``)
   at about event 5 and at event 1,000 of one game (median of ``--samples``), with the per-process state cache
   on (default settings) and off (``STATE_CACHE_SIZE=0``: every command folds the whole log). Target: < 1.2.

Prints the figures and writes ``bench/results/service.json`` (with the machine and its load average) so a
later run can be compared. Exits 1 if the service answered any 500 (its access log, the startup readiness
probe included), the clients saw any 5xx, or a command POST failed at the transport level.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import resource
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

from bench.common import recreate_database  # noqa: E402
from bench.loadgen import CpuMeter, describe_cpu, run_phase, with_clients  # noqa: E402
from tests.outside.driver import kebab, next_command  # noqa: E402
from tests.outside.live import LiveServer  # noqa: E402

DBNAME = "critters_bench_service"
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
# pgbench, the same transaction shape
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
  SELECT :g::bigint, v.version + i, 'ActionChosen', 1,
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


def pgbench(
    pg: str,
    games: int,
    clients: int,
    events: int,
    seconds: int,
    meter: CpuMeter,
    protocol: str = "simple",
) -> dict[str, Any]:
    """pgbench with ``clients`` connections over ``games`` game rows, ``events`` event rows a transaction,
    statements sent as text (``protocol="simple"``, pgbench's default) or prepared once per connection
    (``"prepared"``); the CPU split of its run ("clients" is pgbench itself)."""
    url = f"{pg}/{DBNAME}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(PGBENCH_SETUP.format(games=games))
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(PGBENCH_SCRIPT.format(games=games, events=events))
        script = f.name
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.Popen(
            [
                PGBENCH,
                "-n",
                "-M",
                protocol,
                "-f",
                script,
                "-c",
                str(clients),
                "-j",
                "2",
                "-T",
                str(seconds),
                url,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        meter.start([proc.pid])
        stdout, stderr = proc.communicate()
        cpu = meter.stop()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        os.unlink(script)
    if proc.returncode:
        raise RuntimeError(f"pgbench failed ({proc.returncode}):\n{stdout}\n{stderr}")
    # pgbench's own CPU, exactly (the sampler may miss its last quarter second)
    cpu = with_clients(cpu, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    m = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", stdout)
    lat = re.search(r"latency average = ([0-9.]+) ms", stdout)
    assert m, stdout
    return {
        "games": games,
        "clients": clients,
        "events_per_transaction": events,
        "protocol": protocol,
        "seconds": seconds,
        "tps": round(float(m.group(1)), 1),
        "latency_avg_ms": float(lat.group(1)) if lat else None,
        "cpu_seconds": cpu,
    }


# --------------------------------------------------------------------------------------------------
# 5. a command at event ~5 vs event ~1,000
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


def print_phase(name: str, r: dict[str, Any]) -> None:
    cpu = r["cpu_seconds"]
    print(f"  {describe_cpu(cpu)}")
    if "cpu_ms_per_request" in r:
        per = r["cpu_ms_per_request"]
        print(
            f"  CPU per request: server {per['server']} ms, postgres {per['postgres']} ms, "
            f"clients {per['clients']} ms"
        )
    problems = {
        k: r[k] for k in ("server_errors_5xx", "transport_errors", "get_retries", "driver_errors") if r.get(k)
    }
    if problems:
        print(f"  {name}: {problems} {r['server_error_samples'] + r['transport_error_samples']}")


def ratio(a: float, b: float) -> float:
    return round(a / b, 3) if b else 0.0


def per_cpu(rate: float, phase: dict[str, Any]) -> float:
    """``rate`` (per second) per core the server, PostgreSQL and the clients kept busy in ``phase``."""
    cpu = phase["cpu_seconds"]
    used = (cpu["server"] + cpu["postgres"] + cpu["clients"]) / cpu["wall_seconds"]
    return rate / used if used else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=12, help="bot games (and state readers)")
    parser.add_argument("--stream-games", type=int, default=4, help="games whose every seat streams commands")
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--seconds", type=float, default=20, help="length of each HTTP phase")
    parser.add_argument("--pgbench-seconds", type=int, default=10)
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=8, help="threads per gunicorn worker")
    parser.add_argument("--keepalive", type=int, default=75, help="gunicorn --keep-alive (seconds)")
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--skip-long-game", action="store_true", help="only the throughput phases")
    parser.add_argument("--pg", default=os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432"))
    parser.add_argument("--redis", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/5"))
    args = parser.parse_args()

    url = recreate_database(args.pg, DBNAME)
    tokens = make_tokens(url, 8 * max(args.games, args.stream_games, 2))
    sets = [tokens[8 * g : 8 * g + 8] for g in range(len(tokens) // 8)]
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
        keepalive=args.keepalive,
    )
    servers = [server]
    server.start()
    startup = {server.port: len(server.access_lines())}  # the readiness probe's requests
    assert server.proc is not None
    meter = CpuMeter(server.proc.pid, DBNAME)
    client_errors = 0
    try:
        results["server"] = {
            "gunicorn_workers": args.workers,
            "threads": args.threads,
            "keepalive_seconds": args.keepalive,
            "settings": "production",
        }
        max_idle = args.keepalive / 2  # the clients reopen a connection idle for longer than this
        bots = run_phase(
            "bot", server.url, sets[: args.games], args.clients, args.seconds, meter, max_idle=max_idle
        )
        bots["games"] = args.games
        bots["events_per_command"] = round(bots["events"] / bots["commands"], 2) if bots["commands"] else None
        results["commands"] = bots
        post, get = bots["command_latency_ms"], bots["state_latency_ms"]
        print(
            f"commands (bots, a state read before each): {bots['commands_per_second']} commands/s, "
            f"{bots['requests_per_second']} requests/s over {args.games} games from "
            f"{bots['client_processes']} client process(es); command POST p50 {post['p50']} ms, p99 "
            f"{post['p99']} ms; state GET p50 {get['p50']} ms, p99 {get['p99']} ms; {bots['commands']} "
            f"commands, {bots['events']} events ({bots['events_per_command']}/command), {bots['state_gets']} "
            f"state GETs, {bots['other_requests']} other requests"
        )
        print_phase("commands", bots)

        stream = run_phase(
            "stream",
            server.url,
            sets[: args.stream_games],
            args.clients,
            args.seconds,
            meter,
            max_idle=max_idle,
        )
        stream["games"] = args.stream_games
        stream["events_per_command"] = (
            round(stream["events"] / stream["all_commands"], 2) if stream["all_commands"] else None
        )
        results["command_stream"] = stream
        print(
            f"command stream (SendMessage, no reads): {stream['commands_per_second']} commands/s from "
            f"{stream['connections']} seats of {args.stream_games} games; p50 "
            f"{stream['command_latency_ms']['p50']} ms, p99 {stream['command_latency_ms']['p99']} ms; "
            f"{stream['commands']} commands, {stream['events_per_command']} events/command"
        )
        print_phase("command stream", stream)

        mix_events = max(1, round(bots["events_per_command"] or 1))
        pgb_mix = pgbench(args.pg, args.games, args.games, mix_events, args.pgbench_seconds, meter)
        results["pgbench_bot_shape"] = pgb_mix
        print(
            f"pgbench, bot shape: {pgb_mix['tps']} tps ({mix_events} event rows/transaction, "
            f"{args.games} clients over {args.games} games, avg {pgb_mix['latency_avg_ms']} ms)"
        )
        print(f"  {describe_cpu(pgb_mix['cpu_seconds'])} (clients = pgbench)")
        n_stream = max(1, stream["connections"])
        pgb_one = pgbench(args.pg, args.stream_games, n_stream, 1, args.pgbench_seconds, meter)
        results["pgbench_stream_shape"] = pgb_one
        print(
            f"pgbench, stream shape: {pgb_one['tps']} tps (1 event row/transaction, {n_stream} clients over "
            f"{args.stream_games} games, avg {pgb_one['latency_avg_ms']} ms)"
        )
        print(f"  {describe_cpu(pgb_one['cpu_seconds'])} (clients = pgbench)")
        pgb_prep = pgbench(
            args.pg, args.stream_games, n_stream, 1, args.pgbench_seconds, meter, protocol="prepared"
        )
        results["pgbench_stream_shape_prepared"] = pgb_prep
        print(
            f"pgbench, stream shape, statements prepared (as the service sends its own): {pgb_prep['tps']} "
            f"tps (avg {pgb_prep['latency_avg_ms']} ms)"
        )
        print(f"  {describe_cpu(pgb_prep['cpu_seconds'])} (clients = pgbench)")
        r_bots = ratio(bots["commands_per_second"], pgb_mix["tps"])
        r_stream = ratio(stream["commands_per_second"], pgb_one["tps"])
        # the same per CPU-second the stack used (server + PostgreSQL + clients): less sensitive to what else
        # ran on the machine during one phase but not the other
        c_bots = ratio(per_cpu(bots["commands_per_second"], bots), per_cpu(pgb_mix["tps"], pgb_mix))
        c_stream = ratio(per_cpu(stream["commands_per_second"], stream), per_cpu(pgb_one["tps"], pgb_one))
        r_prep = ratio(stream["commands_per_second"], pgb_prep["tps"])
        c_prep = ratio(per_cpu(stream["commands_per_second"], stream), per_cpu(pgb_prep["tps"], pgb_prep))
        results["http_vs_pgbench"] = {
            "command_stream": r_stream,
            "command_stream_vs_prepared": r_prep,
            "bots_with_state_read": r_bots,
            "per_cpu_second": {
                "command_stream": c_stream,
                "command_stream_vs_prepared": c_prep,
                "bots_with_state_read": c_bots,
            },
        }
        print(
            f"HTTP / pgbench, command stream (one event per command, like for like): {r_stream:.1%} "
            f"(target >= 25%); per CPU-second used: {c_stream:.1%}"
        )
        print(
            f"HTTP / pgbench, command stream, against pgbench's prepared statements: {r_prep:.1%}; per "
            f"CPU-second used: {c_prep:.1%}"
        )
        print(
            f"HTTP / pgbench, bots (each command also pays a state GET; {mix_events} event rows/command): "
            f"{r_bots:.1%}; per CPU-second used: {c_bots:.1%}"
        )

        readers = args.games
        n_read_games = max(1, readers // 4)
        reads = run_phase(
            "reads",
            server.url,
            sets[:n_read_games],
            args.clients,
            args.seconds / 2,
            meter,
            readers=readers,
            max_idle=max_idle,
        )
        reads["readers"] = readers
        reads["reads_per_second"] = round(reads["state_gets"] / reads["seconds"], 1)
        results["state_reads"] = reads
        print(
            f"state reads: {reads['reads_per_second']}/s from {readers} readers over {n_read_games} games "
            f"(p50 {reads['state_latency_ms']['p50']} ms, p99 {reads['state_latency_ms']['p99']} ms)"
        )
        print_phase("state reads", reads)
        for phase in (bots, stream, reads):
            client_errors += phase["server_errors_5xx"] + phase["transport_errors"]

        if not args.skip_long_game:
            lg = long_game(server.url, tokens, args.samples)
            results["long_game_cached"] = lg
            print(f"long game (state cache on): {describe(lg)} (target < 1.2)")
    finally:
        server.stop()
    if not args.skip_long_game:
        cold = LiveServer(
            workdir,
            url,
            redis_url=args.redis,
            workers=1,
            threads=2,
            settings_module="critters_api.settings",
            extra_env=server_env({"STATE_CACHE_SIZE": "0"}),
            keepalive=args.keepalive,
        )
        servers.append(cold)
        cold.start()
        startup[cold.port] = len(cold.access_lines())
        try:
            lg = long_game(cold.url, tokens[8:], args.samples)
            results["long_game_uncached"] = lg
            print(f"long game (state cache off): {describe(lg)}")
        finally:
            cold.stop()
    results["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    errors = [e for s in servers for e in s.server_errors()]
    at_startup = [  # while LiveServer.wait_ready polled /api/schema/, before any benchmark traffic
        line for s in servers for status, line, _ in s.access_lines()[: startup[s.port]] if status == 500
    ]
    results["server_errors"] = len(errors)
    results["server_errors_at_startup"] = len(at_startup)
    results["client_errors"] = client_errors
    out = ROOT / "bench" / "results" / "service.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {out.relative_to(ROOT)}")
    if errors or client_errors:
        print(
            f"the service answered 500 {len(errors)} times ({len(at_startup)} of them to the readiness probe "
            f"at startup) {errors[:5]}; the clients saw {client_errors} 5xx answers or failed command POSTs"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
