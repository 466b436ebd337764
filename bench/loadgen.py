"""The lean load generator of ``bench/service.py``, and where the CPU went while it ran.

Raw HTTP/1.1 over keep-alive connections: ``asyncio.open_connection``, hand-built request bytes, the status
line and headers read up to the blank line, the body by ``Content-Length`` (or chunked, or up to the close),
``json.loads``. One asyncio event loop per client process (``multiprocessing`` spawn), many games per process
as concurrent coroutines, one connection per seat. A response with ``Connection: close`` (or an HTTP/1.0 one
without keep-alive) closes the connection and the next request opens a new one; so does a connection idle
for longer than ``MAX_IDLE`` (well under the server's keep-alive, so a request never races the server closing
an idle connection). An idempotent GET whose connection fails before a whole response (reset, EOF) is
retried once on a new connection; a POST that fails at the transport level is never retried: it is counted
(``transport_errors``) and reported. Every status is counted; a 5xx is also kept as a sample.

The phases (run in the client processes, started together once every process has set its games up):

- ``bot``: each game is driven like ``tests/outside/driver.py`` drives one: the seat the game waits on GETs
  its ``/state``, picks its command with ``next_command``, POSTs it; a game that ends is replaced.
- ``stream``: every seat of every game POSTs table talk (``SendMessage``) back to back, no reads between.
- ``reads``: readers GET a seat's ``/state`` back to back.

``CpuMeter`` samples the CPU time of the gunicorn process tree, of PostgreSQL (its background processes and
the backends of the benchmark's database), of this process, and of the whole machine, over a phase.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import queue
import random
import resource
import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import pct  # noqa: E402
from tests.outside.driver import kebab, next_command  # noqa: E402

OPTIONS: list[dict[str, Any]] = [{}, {"payoffs": True}, {"fuzz_depth": "short"}]
MAX_IDLE = 30.0  # seconds; reopen a connection idle for longer (set per phase: half the server's keep-alive)
TIMEOUT = 60.0  # seconds for one request (gunicorn's worker timeout is 60 s too)
SETUP_TIMEOUT = 180.0
SAMPLES = 5  # 5xx and transport-error samples kept


class TransportError(Exception):
    """No whole response: the connection was refused, reset or closed early, or the request timed out."""


class Unexpected(Exception):
    """A response the driver did not expect (its status is counted already)."""


@dataclass(slots=True)
class Response:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Stats:
    """What one client process saw. Latencies are kept only for requests inside the measured window."""

    start: float = float("inf")
    end: float = float("-inf")
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"get": [], "post": [], "other": []})
    statuses: Counter[int] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    transport_errors: int = 0
    transport_samples: list[str] = field(default_factory=list)
    get_retries: int = 0
    server_closes: int = 0
    connects: int = 0
    commands: int = 0  # command POSTs answered 200 inside the window
    events: int = 0  # events those commands added (bot phase)
    all_commands: int = 0  # command POSTs answered 200, window or not (stream phase: events per command)
    driver_errors: int = 0
    games_started: int = 0
    seats: int = 0  # connections driven at the start of the window (stream: one per seat)

    def record(self, kind: str, t0: float, t1: float) -> bool:
        if self.start <= t0 and t1 <= self.end:
            self.latencies[kind].append(t1 - t0)
            return True
        return False


class Conn:
    """One keep-alive HTTP/1.1 connection to the server with one player's token, reopened when needed."""

    def __init__(self, host: str, port: int, token: str, stats: Stats) -> None:
        self.host = host
        self.port = port
        self.token = token
        self.stats = stats
        self.headers = f"Host: {host}:{port}\r\nAuthorization: Bearer {token}\r\n".encode()
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.idle_since = 0.0

    def clone(self) -> Conn:
        """Another connection with the same token."""
        return Conn(self.host, self.port, self.token, self.stats)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body: bytes | None = None) -> Response:
        raw = b"%s %s HTTP/1.1\r\n%s" % (method.encode(), path.encode(), self.headers)
        if body is not None:
            raw += b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        elif method in ("GET", "HEAD"):
            raw += b"\r\n"
        else:
            raw += b"Content-Length: 0\r\n\r\n"
        retry = method in ("GET", "HEAD")  # idempotent: once more on a new connection
        while True:
            try:
                async with asyncio.timeout(TIMEOUT):
                    if self.writer is None or time.monotonic() - self.idle_since > MAX_IDLE:
                        self.close()
                        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                        self.stats.connects += 1
                    assert self.writer is not None
                    self.writer.write(raw)
                    await self.writer.drain()
                    response, keep = await self._read(method)
            # reset, refused, timed out (TimeoutError is an OSError), EOF, or a response we cannot parse
            except (OSError, EOFError, asyncio.LimitOverrunError, ValueError) as exc:
                self.close()
                if retry:
                    retry = False
                    self.stats.get_retries += 1
                    continue
                self.stats.transport_errors += 1
                if len(self.stats.transport_samples) < SAMPLES:
                    self.stats.transport_samples.append(f"{method} {path}: {exc!r}")
                raise TransportError(f"{method} {path}: {exc!r}") from exc
            self.idle_since = time.monotonic()
            if not keep:
                self.close()
                self.stats.server_closes += 1
            self.stats.statuses[response.status] += 1
            if response.status >= 500 and len(self.stats.server_errors) < SAMPLES:
                self.stats.server_errors.append(f"{method} {path} -> {response.status}")
            return response

    async def _read(self, method: str) -> tuple[Response, bool]:
        reader = self.reader
        assert reader is not None
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head[:-4].split(b"\r\n")
            version, _, rest = lines[0].partition(b" ")
            status = int(rest[:3])
            if not 100 <= status < 200:  # skip interim responses (we never ask for one)
                break
        length: int | None = None
        chunked = False
        connection = b""
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
            elif name == b"connection":
                connection = value.strip().lower()
        keep = b"close" not in connection and (version == b"HTTP/1.1" or b"keep-alive" in connection)
        if method == "HEAD" or status in (204, 304):
            body = b""
        elif chunked:
            parts = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
                if size == 0:
                    while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                        pass
                    break
                parts.append((await reader.readexactly(size + 2))[:-2])
            body = b"".join(parts)
        elif length is not None:
            body = await reader.readexactly(length)
        else:  # delimited by the close
            body = await reader.read()
            keep = False
        return Response(status, body), keep


async def timed(
    stats: Stats, kind: str, conn: Conn, method: str, path: str, body: bytes | None = None
) -> tuple[Response, bool]:
    """The response, and whether it fell inside the measured window (its latency is then recorded)."""
    t0 = time.monotonic()
    response = await conn.request(method, path, body)
    return response, stats.record(kind, t0, time.monotonic())


def expect(response: Response, what: str) -> Any:
    if not 200 <= response.status < 300:
        raise Unexpected(f"{what}: {response.status} {response.body[:200]!r}")
    return response.json()


# --------------------------------------------------------------------------------------------------
# games
# --------------------------------------------------------------------------------------------------
class Game:
    """One game, a connection (and token) per seat, in seat order."""

    def __init__(self, game_id: int, conns: list[Conn]) -> None:
        self.id = game_id
        self.conns = conns
        self.state_path = f"/api/v1/games/{game_id}/state"
        self.waiting: dict[str, Any] | None = None
        self.over = False
        self.version = 0

    @classmethod
    async def create(
        cls, host: str, port: int, tokens: list[str], seats: int, options: dict[str, Any], stats: Stats
    ) -> Game:
        conns = [Conn(host, port, t, stats) for t in tokens[:seats]]
        body = json.dumps({"seats": seats, "options": options}).encode()
        r, _ = await timed(stats, "other", conns[0], "POST", "/api/v1/games", body)
        game_id = int(expect(r, "create a game")["id"])
        for c in conns[1:]:
            r, _ = await timed(stats, "other", c, "POST", f"/api/v1/games/{game_id}/join", b"{}")
            expect(r, "join")
        views = []
        for c in conns:
            r, _ = await timed(stats, "other", c, "GET", f"/api/v1/games/{game_id}/state")
            views.append(expect(r, "state"))
        order = sorted(range(seats), key=lambda i: views[i]["viewer"])
        game = cls(game_id, [conns[i] for i in order])
        game.note(views[0])
        stats.games_started += 1
        return game

    def note(self, view: dict[str, Any]) -> None:
        """What any seat's view says publicly: whom the game waits on, whether it is over, its version."""
        self.waiting = view["waiting"]
        self.over = bool(view["over"])
        self.version = int(view["version"])

    async def step(self, rnd: random.Random, stats: Stats) -> bool:
        """One command from the first seat the game waits on that has one (after reading its view); True
        when the game is over."""
        if self.over or self.waiting is None:
            return True
        for seat in self.waiting["seats"]:
            conn = self.conns[seat]
            r, _ = await timed(stats, "get", conn, "GET", self.state_path)
            view = expect(r, "state")
            self.note(view)
            if self.over:
                return True
            picked = next_command(view, rnd)
            if picked is None:
                continue
            kind, body = picked
            path = f"/api/v1/games/{self.id}/commands/{kebab(kind)}"
            r, inside = await timed(stats, "post", conn, "POST", path, json.dumps(body).encode())
            new = expect(r, kind)
            self.note(new)
            stats.all_commands += 1
            if inside:
                stats.commands += 1
                stats.events += self.version - int(view["version"])
            return self.over
        raise Unexpected("the game waits on seats that have nothing to do")

    def close(self) -> None:
        for c in self.conns:
            c.close()


def _seats(rnd: random.Random) -> int:
    return 4 + rnd.randrange(5)


async def _bot_setup(spec: dict[str, Any], stats: Stats) -> list[Game]:
    rnd = random.Random(spec["seed"])
    return list(
        await asyncio.gather(
            *(
                Game.create(spec["host"], spec["port"], tokens, _seats(rnd), rnd.choice(OPTIONS), stats)
                for tokens in spec["token_sets"]
            )
        )
    )


async def _bot_run(spec: dict[str, Any], stats: Stats, games: list[Game]) -> None:
    async def drive(index: int) -> None:
        rnd = random.Random(spec["seed"] * 1000 + index)
        game = games[index]
        tokens = spec["token_sets"][index]
        failures = 0
        while time.monotonic() < stats.end:
            try:
                if failures >= 3 or await game.step(rnd, stats):
                    game.close()
                    failures = 0
                    game = await Game.create(
                        spec["host"], spec["port"], tokens, _seats(rnd), rnd.choice(OPTIONS), stats
                    )
                    continue
                failures = 0
            except (TransportError, Unexpected):
                stats.driver_errors += 1
                failures += 1
        game.close()

    await asyncio.gather(*(drive(i) for i in range(len(games))))


async def _stream_run(spec: dict[str, Any], stats: Stats, games: list[Game]) -> None:
    start_versions = [g.version for g in games]

    async def talk(game: Game, seat: int) -> None:
        conn = game.conns[seat]
        path = f"/api/v1/games/{game.id}/commands/send-message"
        n = 0
        while time.monotonic() < stats.end:
            n += 1
            body = b'{"text": "seat %d says %d", "to": null}' % (seat, n)
            try:
                r, inside = await timed(stats, "post", conn, "POST", path, body)
            except TransportError:
                stats.driver_errors += 1
                continue
            if r.status == 200:
                stats.all_commands += 1
                stats.commands += 1 if inside else 0
            else:
                stats.driver_errors += 1

    await asyncio.gather(*(talk(g, s) for g in games for s in range(len(g.conns))))
    for g, v0 in zip(games, start_versions, strict=True):  # events per command, from the versions
        r = await g.conns[0].request("GET", g.state_path)
        stats.events += int(expect(r, "state")["version"]) - v0
        g.close()


async def _reads_setup(spec: dict[str, Any], stats: Stats) -> list[Game]:
    rnd = random.Random(spec["seed"])
    games = [
        await Game.create(spec["host"], spec["port"], tokens, 5, {}, stats) for tokens in spec["token_sets"]
    ]
    for g in games:  # a few moves in, so there is something to fold and redact
        for _ in range(15):
            if await g.step(rnd, stats):
                break
    return games


async def _reads_run(spec: dict[str, Any], stats: Stats, games: list[Game]) -> None:
    async def read(i: int) -> None:
        g = games[i % len(games)]
        conn = g.conns[i % len(g.conns)].clone()  # that seat's token, on a connection of its own
        while time.monotonic() < stats.end:
            try:
                r, _ = await timed(stats, "get", conn, "GET", g.state_path)
                if r.status != 200:
                    stats.driver_errors += 1
            except TransportError:
                stats.driver_errors += 1
        conn.close()

    await asyncio.gather(*(read(i) for i in range(spec["readers"])))
    for g in games:
        g.close()


def _cpu_seconds() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


async def _phase(spec: dict[str, Any], messages: Any, go: Any) -> dict[str, Any]:
    global MAX_IDLE  # this process's setting
    MAX_IDLE = float(spec.get("max_idle", MAX_IDLE))
    stats = Stats()
    kind = spec["phase"]
    games = await (_reads_setup if kind == "reads" else _bot_setup)(spec, stats)
    stats.seats = spec["readers"] if kind == "reads" else sum(len(g.conns) for g in games)
    messages.put({"ready": spec["index"]})
    await asyncio.to_thread(go.wait, SETUP_TIMEOUT)
    cpu0 = _cpu_seconds()
    stats.start = time.monotonic()
    stats.end = stats.start + spec["seconds"]
    run = {"bot": _bot_run, "stream": _stream_run, "reads": _reads_run}[kind]
    await run(spec, stats, games)
    cpu = _cpu_seconds() - cpu0  # includes the few ms of closing and the stream phase's final reads
    out = {k: v for k, v in stats.__dict__.items() if k not in ("start", "end")}
    out["statuses"] = dict(stats.statuses)
    out["cpu_seconds"] = cpu
    return out


def client_main(spec: dict[str, Any], messages: Any, go: Any) -> None:
    """A client process: set the phase up, say so, wait for the go, run, send back what it saw."""
    try:
        messages.put({"result": asyncio.run(_phase(spec, messages, go))})
    except BaseException:
        messages.put({"error": traceback.format_exc()})


# --------------------------------------------------------------------------------------------------
# CPU accounting
# --------------------------------------------------------------------------------------------------
class CpuMeter:
    """CPU seconds over a window: the gunicorn tree (``server_pid`` and its descendants), PostgreSQL (its
    background processes and the backends of ``dbname``; other databases' backends count as "other"), the
    processes in ``client_pids`` (if given), this process, and the machine (busy = total - idle - iowait -
    steal). Processes are sampled every ``interval`` seconds, so a process that exits inside the window
    loses at most its last interval."""

    def __init__(self, server_pid: int, dbname: str, interval: float = 0.25) -> None:
        self.server_pid = server_pid
        self.dbname = dbname
        self.interval = interval
        self.kinds: dict[int, str | None] = {}  # pid -> group (None: not ours)
        self.procs: dict[int, psutil.Process] = {}
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.stop_event = threading.Event()
        self.thread: threading.Thread | None = None
        self.machine0: Any = None
        self.t0 = 0.0
        self.client_pids: set[int] = set()

    def _classify(self, pid: int, client_pids: set[int]) -> str | None:
        if pid == os.getpid():
            return "bench"
        if pid in client_pids:
            return "clients"
        try:
            p = psutil.Process(pid)
            if pid == self.server_pid or self.server_pid in {a.pid for a in p.parents()}:
                return "server"
            if p.name() == "postgres":
                cmd = " ".join(p.cmdline())
                backend = "127.0.0.1(" in cmd or "[local]" in cmd or "::1(" in cmd
                return "postgres" if not backend or f" {self.dbname} " in cmd else None
        except psutil.Error:
            pass
        return None

    def _sample(self, baseline: bool) -> None:
        for pid in psutil.pids():
            if pid not in self.kinds:
                self.kinds[pid] = kind = self._classify(pid, self.client_pids)
                if kind is not None:
                    with contextlib.suppress(psutil.Error):
                        self.procs[pid] = psutil.Process(pid)
        for pid, proc in list(self.procs.items()):
            try:
                t = proc.cpu_times()
            except psutil.Error:
                self.procs.pop(pid, None)  # the sampler thread and stop() may both find it gone
                continue
            used = t.user + t.system
            if pid not in self.first:
                self.first[pid] = used if baseline else 0.0
            self.last[pid] = used

    def start(self, client_pids: list[int] | None = None) -> None:
        self.client_pids = set(client_pids or [])
        self.kinds.clear()
        self.procs.clear()
        self.first.clear()
        self.last.clear()
        self._sample(baseline=True)
        self.machine0 = psutil.cpu_times()
        self.t0 = time.monotonic()
        self.stop_event.clear()

        def loop() -> None:
            while not self.stop_event.wait(self.interval):
                self._sample(baseline=False)

        self.thread = threading.Thread(target=loop, daemon=True)
        self.thread.start()

    def stop(self) -> dict[str, Any]:
        """The split in CPU seconds since ``start``."""
        self._sample(baseline=False)
        machine1 = psutil.cpu_times()
        wall = time.monotonic() - self.t0
        self.stop_event.set()
        if self.thread is not None:
            self.thread.join()
        groups = dict.fromkeys(("server", "postgres", "clients", "bench"), 0.0)
        for pid, used in self.last.items():
            kind = self.kinds.get(pid)
            if kind is not None:
                groups[kind] += used - self.first.get(pid, 0.0)

        def busy(t: Any) -> float:
            total = float(sum(t))
            return total - t.idle - getattr(t, "iowait", 0.0) - getattr(t, "steal", 0.0)

        machine = busy(machine1) - busy(self.machine0)
        cores = psutil.cpu_count() or 1
        out: dict[str, Any] = {"wall_seconds": round(wall, 2), "cores": cores}
        out.update({k: round(v, 2) for k, v in groups.items()})
        out["other"] = round(max(0.0, machine - sum(groups.values())), 2)
        out["machine_busy"] = round(machine, 2)
        waits = {k: getattr(machine1, k, 0.0) - getattr(self.machine0, k, 0.0) for k in ("iowait", "steal")}
        out["iowait"] = round(
            waits["iowait"], 2
        )  # idle while a disk write (e.g. a commit's fsync) was pending
        out["steal"] = round(waits["steal"], 2)  # taken by the hypervisor
        out["idle"] = round(max(0.0, cores * wall - machine - waits["iowait"] - waits["steal"]), 2)
        return out


def with_clients(cpu: dict[str, Any], clients: float) -> dict[str, Any]:
    """``cpu`` with the clients' CPU measured otherwise (and "other" recomputed)."""
    out = dict(cpu, clients=round(clients, 2))
    ours = sum(out[k] for k in ("server", "postgres", "clients", "bench"))
    out["other"] = round(max(0.0, out["machine_busy"] - ours), 2)
    return out


def describe_cpu(cpu: dict[str, Any]) -> str:
    wall = cpu["wall_seconds"] or 1.0
    parts = [
        f"{k} {cpu[k] / wall:.2f}"
        for k in ("server", "postgres", "clients", "bench", "other", "iowait", "steal", "idle")
        if k in cpu
    ]
    return f"CPU (cores busy over {wall:.0f} s, of {cpu['cores']}): " + ", ".join(parts)


# --------------------------------------------------------------------------------------------------
# running a phase from the benchmark's process
# --------------------------------------------------------------------------------------------------
def run_phase(
    phase: str,
    base: str,
    token_sets: list[list[str]],
    clients: int,
    seconds: float,
    meter: CpuMeter,
    **extra: Any,
) -> dict[str, Any]:
    """Run ``phase`` from ``clients`` processes (the token sets dealt round-robin), time it from the go,
    and merge what they saw: counts, latencies, statuses, errors, and the CPU split."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    ctx = multiprocessing.get_context("spawn")
    messages = ctx.Queue()
    go = ctx.Event()
    per = [sets for sets in (token_sets[i::clients] for i in range(clients)) if sets]
    specs = [
        {
            "phase": phase,
            "index": i,
            "host": host,
            "port": int(port),
            "token_sets": sets,
            "seconds": seconds,
            "seed": i + 1,
            **extra,
        }
        for i, sets in enumerate(per)
    ]
    if "readers" in extra:  # dealt like the games
        for i, spec in enumerate(specs):
            spec["readers"] = extra["readers"] // len(specs) + (i < extra["readers"] % len(specs))
    procs = [ctx.Process(target=client_main, args=(s, messages, go), daemon=True) for s in specs]
    for p in procs:
        p.start()
    results: list[dict[str, Any]] = []
    try:
        ready = 0
        while ready < len(procs):
            msg = _next(messages, procs)
            if "error" in msg:
                raise RuntimeError(f"a client process failed while setting up:\n{msg['error']}")
            ready += 1
        meter.start([p.pid for p in procs if p.pid is not None])
        go.set()
        time.sleep(seconds)
        cpu = meter.stop()
        while len(results) < len(procs):
            msg = _next(messages, procs)
            if "error" in msg:
                raise RuntimeError(f"a client process failed:\n{msg['error']}")
            results.append(msg["result"])
    finally:
        go.set()
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
    return merge(results, seconds, len(procs), cpu)


def _next(messages: Any, procs: list[Any]) -> dict[str, Any]:
    deadline = time.monotonic() + SETUP_TIMEOUT
    while time.monotonic() < deadline:
        try:
            msg: dict[str, Any] = messages.get(timeout=1.0)
            return msg
        except queue.Empty:
            if any(p.exitcode not in (None, 0) for p in procs):
                raise RuntimeError("a client process died") from None
    raise TimeoutError("the client processes did not answer in time")


def _ms(values: list[float]) -> dict[str, float]:
    return {"p50": round(pct(values, 0.5) * 1000, 2), "p99": round(pct(values, 0.99) * 1000, 2)}


def merge(
    results: list[dict[str, Any]], seconds: float, processes: int, cpu: dict[str, Any]
) -> dict[str, Any]:
    lat: dict[str, list[float]] = {"get": [], "post": [], "other": []}
    statuses: Counter[int] = Counter()
    for r in results:
        for k in lat:
            lat[k].extend(r["latencies"][k])
        statuses.update({int(k): v for k, v in r["statuses"].items()})

    def total(key: str) -> int:
        return int(sum(r[key] for r in results))

    requests = sum(len(v) for v in lat.values())
    commands = total("commands")
    out: dict[str, Any] = {
        "client_processes": processes,
        "seconds": seconds,
        "commands": commands,
        "events": total("events"),
        "state_gets": len(lat["get"]),
        "command_posts": len(lat["post"]),
        "other_requests": len(lat["other"]),
        "requests": requests,
        "commands_per_second": round(commands / seconds, 1),
        "requests_per_second": round(requests / seconds, 1),
        "command_latency_ms": _ms(lat["post"]),
        "state_latency_ms": _ms(lat["get"]),
        "games_started": total("games_started"),
        "connections": total("seats"),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "server_errors_5xx": sum(v for k, v in statuses.items() if k >= 500),
        "server_error_samples": [s for r in results for s in r["server_errors"]][:SAMPLES],
        "transport_errors": total("transport_errors"),
        "transport_error_samples": [s for r in results for s in r["transport_samples"]][:SAMPLES],
        "get_retries": total("get_retries"),
        "server_closed_connections": total("server_closes"),
        "connections_opened": total("connects"),
        "driver_errors": total("driver_errors"),
        "all_commands": total("all_commands"),
        "cpu_seconds": cpu,
        "clients_cpu_seconds_self_reported": round(sum(r["cpu_seconds"] for r in results), 2),
    }
    if requests and cpu["wall_seconds"]:
        scale = seconds / cpu["wall_seconds"]  # CPU of the window per request of the window
        out["cpu_ms_per_request"] = {
            k: round(cpu[k] * scale / requests * 1000, 2) for k in ("server", "postgres", "clients")
        }
    return out
