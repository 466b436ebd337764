"""Fill a migrated database with a year of play, fast (``COPY``), for ``bench/bigdb.py`` and its test.

No Django: the rules engine (pure) plays ``templates`` distinct bot games, batch by batch, each command
decided at its own clock; every other game is a replica of one of them with its own id, players and times. A
replica's bytes are the template's with every player id (``"bot<i>"`` → ``"p<player id>"``) and every
timestamp (shifted by whole seconds) substituted; the rules are blind to both (seats are shuffled by index,
deadlines are the decision's clock plus the step's seconds), so a replica is what the service would have
stored for the same commands at those times by those players. Each event's hash is computed for its own game
(the hash covers the game id, the seq, the time, the actor and the previous hash), so every game's chain is
its own and valid: ``/verify`` of any finished game re-decides its every command from the record.

The fixtures (what the benchmark measures) are laid down first and identically in every database, so that the
same requests on the empty and the full database read the same rows, ids included:

* ``heavy``: a player with ``heavy_games`` games (``heavy_running`` of them running, waiting on their seat);
* ``measure_game``: one of them, running, on which the benchmark sends commands and reads the state;
* ``old_game``: the heavy player's oldest game (finished a year ago): ``/record`` and ``/verify``;
* ``due``: ``due_games`` running games whose deadline has passed (the sweep's batches);
* ``open``: games waiting for players (the lobby).

Then the background: ``players`` players, ``running`` running games and finished games until ``events``
events are stored in all, spread over the year before now.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from games.audit import public
from games.audit.verify import GENESIS_HASH
from games.audit.verify import event_hash as reference_hash
from games.rules.core import Context
from games.rules.registry import get_ruleset
from games.rules.simulate import game_seed, strategies_for

RULESET = "goodcritters"
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
YEAR = 365 * 24 * 3600
DEADLINE = 2 * 24 * 3600  # play by web: two days a step
COMMAND_GAP = 90  # seconds between two commands of a template game (less when a deadline is close)
_HOLE = re.compile(rb'"(bot[0-7])"|"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?\+00:00)"')


def canonical(value: Any) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def _iso(seconds: float) -> str:
    return (EPOCH + timedelta(seconds=seconds)).isoformat()


@dataclass(frozen=True, slots=True)
class Pieces:
    """Canonical JSON bytes cut around the values a replica changes: ``parts`` alternate literal bytes and
    holes (``("u", join index)`` for a player id, ``("t", seconds after EPOCH)`` for a timestamp)."""

    parts: tuple[bytes | tuple[str, float], ...]

    @classmethod
    def of(cls, value: Any) -> Pieces:
        raw = canonical(value)
        parts: list[bytes | tuple[str, float]] = []
        last = 0
        for m in _HOLE.finditer(raw):
            parts.append(raw[last : m.start()])
            if m.group(1):
                parts.append(("u", int(m.group(1)[3:])))
            else:
                at = datetime.fromisoformat(m.group(2).decode())
                parts.append(("t", (at - EPOCH).total_seconds()))
            last = m.end()
        parts.append(raw[last:])
        return cls(tuple(p for p in parts if p != b""))

    def render(self, uids: list[bytes], shift: int) -> bytes:
        out = []
        for p in self.parts:
            if isinstance(p, bytes):
                out.append(p)
            elif p[0] == "u":
                out.append(b'"' + uids[int(p[1])] + b'"')
            else:
                out.append(b'"' + _iso(p[1] + shift).encode() + b'"')
        return b"".join(out)


@dataclass(slots=True)
class Batch:
    at: int  # seconds after EPOCH
    command: Pieces
    seat: int | None  # the acting seat (None: the start, an expiry)
    events: list[tuple[str, int, Pieces]]
    # what the game waits on after this batch: step_no, step, due_at, warn_at (seconds after EPOCH) and who
    waiting: tuple[int, str, float | None, float | None, frozenset[int]] | None
    terminal: bool
    version: int  # events after this batch


@dataclass(slots=True)
class Template:
    players: int
    options: dict[str, Any]
    batches: list[Batch] = field(default_factory=list)
    order: list[int] = field(default_factory=list)  # seat position -> join index

    @property
    def events(self) -> int:
        return self.batches[-1].version

    def cuts(self) -> list[int]:
        """Batch counts after which the game waits with a deadline on a seat (where a running game can be)."""
        return [
            k + 1
            for k, b in enumerate(self.batches[:-1])
            if b.waiting is not None and b.waiting[2] is not None and b.waiting[4] and k > 0
        ]


def _seconds(at: datetime | None) -> float | None:
    return None if at is None else (at - EPOCH).total_seconds()


def play_template(number: int, seed: str = "bigdb") -> Template:
    """One bot game, decided command by command at an advancing clock (as players would send them)."""
    rs = get_ruleset(RULESET)
    rnd = random.Random(f"{seed}/{number}")
    players = rnd.choice((4, 5, 5, 6, 7, 8))
    raw_options: dict[str, Any] = {
        "deadlines": {"distribute": DEADLINE, "choose": DEADLINE},
        "payoffs": rnd.random() < 0.5,
        "fuzz_depth": rnd.choice(("short", "short", "standard")),
    }
    options = rs.parse_options(raw_options)
    strategies = strategies_for("mix", players, number)
    names = [f"bot{i}" for i in range(players)]
    template = Template(players, rs.options_to_json(options))
    now = 0
    state = rs.initial_state()

    def apply(command: Any, at: int, seat: int | None) -> None:
        nonlocal state
        events = rs.decide(state, command, Context(now=EPOCH + timedelta(seconds=at)))
        state = rs.fold(events, state)
        waiting = rs.waiting(state)
        version = (template.batches[-1].version if template.batches else 0) + len(events)
        template.batches.append(
            Batch(
                at=at,
                command=Pieces.of({**rs.command_to_json(command), "seat": getattr(command, "seat", None)}),
                seat=seat,
                events=[(e.TYPE, e.VERSION, Pieces.of(rs.event_to_json(e))) for e in events],
                waiting=(
                    (
                        waiting.step_no,
                        waiting.step,
                        _seconds(waiting.due_at),
                        _seconds(rs.warn_at(state)),
                        frozenset(waiting.seats),
                    )
                    if waiting is not None
                    else None
                ),
                terminal=rs.is_terminal(state),
                version=version,
            )
        )

    start = rs.start_command(players=names, creator=names[0], options=options, seed=game_seed(seed, number))
    apply(start, now, None)
    started = rs.view_for(state, None)["players"]
    template.order = [names.index(uid) for uid in started]
    while not rs.is_terminal(state):
        moved = False
        for seat in range(players):
            command = rs.bot_command(state, seat, strategy=strategies[seat], salt=number)
            if command is None:
                continue
            waiting = rs.waiting(state)
            due = _seconds(waiting.due_at) if waiting is not None else None
            step = rnd.randint(5, COMMAND_GAP)
            now = max(now, min(now + step, int(due) - 1)) if due is not None else now + step
            apply(command, now, seat)
            moved = True
            if rs.is_terminal(state):
                break
        if not moved and not rs.is_terminal(state):
            waiting = rs.waiting(state)
            assert waiting is not None, "the game waits and no bot moves"
            assert waiting.due_at is not None, "the game waits and no bot moves"
            now = int(_seconds(waiting.due_at) or 0) + 1
            apply(rs.expire_command(waiting.step_no), now, None)
    return template


# --------------------------------------------------------------------------------------------------
# COPY text rows
# --------------------------------------------------------------------------------------------------
def _text(value: bytes) -> bytes:
    """A value in COPY's text format (JSON never holds a raw tab or newline; backslashes are doubled)."""
    return value.replace(b"\\", b"\\\\") if b"\\" in value else value


NULL = b"\\N"


@dataclass(slots=True)
class Game:
    """One game to write: a template (or a prefix of it) played by ``seats`` (player ids by join index)."""

    id: int
    template: Template
    batches: int  # how many of the template's batches
    seats: list[int]
    shift: int  # seconds added to the template's clock
    created_before: int = 600  # the game row was created this long before its first event

    @property
    def last(self) -> Batch:
        return self.template.batches[self.batches - 1]

    def when(self, seconds: float) -> datetime:
        return EPOCH + timedelta(seconds=seconds + self.shift)


class Writer:
    """Buffers COPY rows per table and sends them in chunks."""

    def __init__(self, conn: psycopg.Connection[Any], check_every: int = 997) -> None:
        self.conn = conn
        self.buffers: dict[str, io.BytesIO] = {}
        self.columns = {
            "players_player": "id, password, is_superuser, username, first_name, last_name, email, is_staff, "
            "is_active, date_joined, display_name",
            "games_game": "id, ruleset, name, status, creator_id, seat_count, options, allow_spectators, "
            "fair, setup, version, head_hash, revision, step_no, waiting_step, deadline_at, warn_at, "
            "bots_due_at, created_at, started_at, ended_at, public_head_hash, public_chain",
            "games_seat": "game_id, index, player_id, bot_strategy, uid, position, joined_at",
            "games_event": "game_id, seq, type, schema_version, data, created_at, command_id, command, "
            "actor_id, prev_hash, hash, public_hash, salt",
        }  # the year of play is under public chain 1 (no seals: each event's salt empty)
        self.order = list(self.columns)
        self.events = 0
        self.check_every = check_every

    def row(self, table: str, values: list[bytes]) -> None:
        buf = self.buffers.setdefault(table, io.BytesIO())
        buf.write(b"\t".join(values) + b"\n")

    def maybe_flush(self) -> None:
        """Send the buffers once the events' is large (between games: a game's rows go together)."""
        buf = self.buffers.get("games_event")
        if buf is not None and buf.tell() > 32 << 20:
            self.flush()

    def flush(self) -> None:
        """Send every buffer, in foreign-key order."""
        with self.conn.cursor() as cur:
            for table in self.order:
                buf = self.buffers.get(table)
                if buf is None or not buf.tell():
                    continue
                cols = self.columns[table]
                with cur.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                    copy.write(buf.getvalue())
                self.buffers[table] = io.BytesIO()
        self.conn.commit()

    def player(self, pid: int, joined: datetime) -> None:
        name = f"p{pid}".encode()
        self.row(
            "players_player",
            [
                str(pid).encode(),
                b"!bench",
                b"f",
                name,
                b"",
                b"",
                b"",
                b"f",
                b"t",
                joined.isoformat().encode(),
                b"Player " + str(pid).encode(),
            ],
        )

    def open_game(self, gid: int, creator: int, seats: int, created: datetime) -> None:
        self.row(
            "games_game",
            [
                str(gid).encode(),
                RULESET.encode(),
                b"",
                b"open",
                str(creator).encode(),
                str(seats).encode(),
                b"{}",
                b"t",
                b"t",
                NULL,
                b"0",
                b"",
                b"1",
                NULL,
                b"",
                NULL,
                NULL,
                NULL,
                created.isoformat().encode(),
                NULL,
                NULL,
                b"",
                b"2",  # no event yet: it starts under public chain 2, as a game created now
            ],
        )
        self.row(
            "games_seat",
            [
                str(gid).encode(),
                b"0",
                str(creator).encode(),
                b"",
                f"p{creator}".encode(),
                NULL,
                created.isoformat().encode(),
            ],
        )

    def game(self, g: Game) -> None:
        t = g.template
        uids = [f"p{pid}".encode() for pid in g.seats]
        position_of = {join: pos for pos, join in enumerate(t.order)}
        prev = GENESIS_HASH
        prev_public = GENESIS_HASH  # the public chain (docs/AUDIT.md), over what a spectator sees
        seq = 0
        gid = str(g.id).encode()
        for k in range(g.batches):
            batch = t.batches[k]
            created = g.when(batch.at).isoformat()
            command = batch.command.render(uids, g.shift)
            actor = None if batch.seat is None else g.seats[t.order[batch.seat]]
            command_id = f"bench:{g.id}:{k}"
            for j, (etype, version, pieces) in enumerate(batch.events):
                seq += 1
                data = pieces.render(uids, g.shift)
                cmd = command if j == 0 else b"null"
                record = b"".join(
                    (
                        b'{"actor":',
                        b"null" if actor is None else str(actor).encode(),
                        b',"command":',
                        cmd,
                        b',"command_id":"',
                        command_id.encode(),
                        b'","created_at":"',
                        created.encode(),
                        b'","data":',
                        data,
                        b',"game":',
                        gid,
                        b',"prev_hash":"',
                        prev.encode(),
                        b'","schema_version":',
                        str(version).encode(),
                        b',"seq":',
                        str(seq).encode(),
                        b',"type":"',
                        etype.encode(),
                        b'"}',
                    )
                )
                digest = hashlib.sha256(record).hexdigest()
                prev_public = public.public_hash(
                    game_id=g.id,
                    seq=seq,
                    type=etype,
                    schema_version=version,
                    public_data=public.spectator_data(RULESET, json.loads(data)),
                    created_at=created,
                    prev_public_hash=prev_public,
                )
                self.events += 1
                if self.events % self.check_every == 1:  # the bytes hashed are the store's canonical JSON
                    expected = reference_hash(
                        g.id,
                        {
                            "seq": seq,
                            "type": etype,
                            "schema_version": version,
                            "data": json.loads(data),
                            "created_at": created,
                            "command_id": command_id,
                            "actor": actor,
                            "command": json.loads(cmd),
                            "prev_hash": prev,
                        },
                    )
                    assert digest == expected, f"game {g.id} seq {seq}: the hashed bytes are not canonical"
                self.row(
                    "games_event",
                    [
                        gid,
                        str(seq).encode(),
                        etype.encode(),
                        str(version).encode(),
                        _text(data),
                        created.encode(),
                        command_id.encode(),
                        _text(cmd) if j == 0 else NULL,
                        NULL if actor is None else str(actor).encode(),
                        prev.encode(),
                        digest.encode(),
                        prev_public.encode(),
                        b"",
                    ],
                )
                prev = digest
        last = g.last
        first = g.when(t.batches[0].at)
        over = last.terminal
        waiting = None if over else last.waiting
        self.row(
            "games_game",
            [
                gid,
                RULESET.encode(),
                b"",
                b"over" if over else b"running",
                str(g.seats[0]).encode(),
                str(t.players).encode(),
                _text(canonical(t.options)),
                b"t",
                b"t",
                NULL,
                str(last.version).encode(),
                prev.encode(),
                str(g.batches + t.players).encode(),
                NULL if waiting is None else str(waiting[0]).encode(),
                b"" if waiting is None else waiting[1].encode(),
                NULL if waiting is None or waiting[2] is None else g.when(waiting[2]).isoformat().encode(),
                NULL if waiting is None or waiting[3] is None else g.when(waiting[3]).isoformat().encode(),
                NULL,
                (first - timedelta(seconds=g.created_before)).isoformat().encode(),
                first.isoformat().encode(),
                g.when(last.at).isoformat().encode() if over else NULL,
                prev_public.encode(),
                b"1",
            ],
        )
        for join, pid in enumerate(g.seats):
            self.row(
                "games_seat",
                [
                    gid,
                    str(join).encode(),
                    str(pid).encode(),
                    b"",
                    uids[join],
                    str(position_of[join]).encode(),
                    (first - timedelta(seconds=g.created_before // (join + 2))).isoformat().encode(),
                ],
            )
        self.maybe_flush()


# --------------------------------------------------------------------------------------------------
# the fill
# --------------------------------------------------------------------------------------------------
@dataclass
class Plan:
    events: int  # at least this many events in all (the background's finished games stop there)
    players: int = 3000
    running: int = 10_000
    templates: int = 400
    open_games: int = 300
    heavy_games: int = 1000
    heavy_running: int = 20
    due_games: int = 275  # 11 sweeps of 25 (the first one warms the sweeper up)
    seed: str = "bigdb"

    @classmethod
    def small(cls) -> Plan:
        """The empty database: the fixtures alone, and a handful of players."""
        return cls(events=0, players=50, running=0, open_games=0)


def _cut_for(template: Template, rnd: random.Random, seat_join: int | None = None) -> int:
    """A batch count at which the game runs and waits (with a deadline) on a seat (``seat_join``'s if
    given)."""
    cuts = template.cuts()
    if seat_join is not None:
        position = template.order.index(seat_join)
        cuts = [k for k in cuts if position in template.batches[k - 1].waiting[4]]  # type: ignore[index]
    return rnd.choice(cuts)


def fill(
    url: str,
    plan: Plan,
    *,
    now: datetime | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Write ``plan`` into the migrated (empty) database at ``url``; what was written and the fixtures'
    ids."""
    started = time.perf_counter()
    now = (now or datetime.now(UTC)).replace(microsecond=0)
    year_ago = now - timedelta(seconds=YEAR)
    rnd = random.Random(plan.seed)
    templates = [play_template(n, plan.seed) for n in range(plan.templates)]
    simulated = time.perf_counter() - started
    progress(f"{len(templates)} template games played in {simulated:.1f} s")
    # a running template must have somewhere to stop; every template has (checked here, not assumed)
    assert all(t.cuts() for t in templates)

    def shift_to(at: datetime, seconds: float) -> int:
        """The shift that puts the template time ``seconds`` at ``at``."""
        return int((at - EPOCH).total_seconds() - seconds)

    counts = {"finished": 0, "running": 0, "open": 0, "players": 0}
    fixtures: dict[str, Any] = {}
    with psycopg.connect(url) as conn:
        conn.execute("SET synchronous_commit = off")  # this session's commits only: a scratch database
        w = Writer(conn)
        # players: the heavy one first (id 1), then the others
        n_players = max(plan.players, 50)
        for pid in range(1, n_players + 1):
            w.player(pid, year_ago - timedelta(days=30))
        counts["players"] = n_players
        heavy = 1
        gid = 0

        def others(k: int, avoid: int | None, rng: random.Random = rnd, upto: int = n_players) -> list[int]:
            pool = [p for p in rng.sample(range(2, upto + 1), k + 1) if p != avoid]
            return pool[:k]

        fixture_players = 50  # the fixtures' players (the same in every database)

        def timed(t: Template) -> int:
            return t.batches[-1].at - t.batches[0].at

        # ---- fixtures (identical in every database: the same random draws, before the background's)
        fx = random.Random(f"{plan.seed}/fixtures")
        heavy_ids: list[int] = []
        for n in range(plan.heavy_games):
            t = templates[n % len(templates)]
            join = fx.randrange(t.players)
            seats = others(t.players - 1, heavy, fx, fixture_players)
            seats.insert(join, heavy)
            gid += 1
            if n < plan.heavy_running:
                cut = _cut_for(t, fx, join)
                age = fx.randint(60, DEADLINE // 4)  # its last command a little while ago
                shift = shift_to(now - timedelta(seconds=age), t.batches[cut - 1].at)
                w.game(Game(gid, t, cut, seats, shift))
                counts["running"] += 1
            else:  # finished, evenly over the year, the oldest first
                end = year_ago + timedelta(seconds=(n - plan.heavy_running) * YEAR // plan.heavy_games)
                w.game(Game(gid, t, len(t.batches), seats, shift_to(end, t.batches[-1].at)))
                counts["finished"] += 1
            heavy_ids.append(gid)
        fixtures["heavy_player"] = heavy
        fixtures["measure_game"] = heavy_ids[0]
        fixtures["old_game"] = heavy_ids[plan.heavy_running]
        due_ids = []
        for n in range(plan.due_games):
            t = templates[(n * 7) % len(templates)]
            cut = _cut_for(t, fx)
            due = t.batches[cut - 1].waiting[2]  # type: ignore[index]
            assert due is not None
            gid += 1
            # due a few minutes ago (the sweeper was stopped): its last command two days and some before
            shift = shift_to(now - timedelta(seconds=fx.randint(60, 600)), due)
            w.game(Game(gid, t, cut, others(t.players, None, fx, fixture_players), shift))
            due_ids.append(gid)
            counts["running"] += 1
        fixtures["due_games"] = due_ids
        fixture_open = 30
        for _ in range(fixture_open):
            gid += 1
            w.open_game(
                gid, fx.randrange(2, fixture_players + 1), 5, now - timedelta(seconds=fx.randint(60, 7200))
            )
            counts["open"] += 1
        w.flush()
        fixtures["last_fixture_id"] = gid
        progress(f"fixtures written: {gid} games, {w.events:,} events")

        # ---- the background
        for _ in range(plan.open_games):
            gid += 1
            w.open_game(
                gid,
                rnd.randrange(2, n_players + 1),
                rnd.choice((4, 5, 6)),
                now - timedelta(seconds=rnd.randint(60, 3 * 86400)),
            )
            counts["open"] += 1
        for _ in range(plan.running):
            t = rnd.choice(templates)
            cut = _cut_for(t, rnd)
            age = rnd.randint(60, DEADLINE // 2)
            shift = shift_to(now - timedelta(seconds=age), t.batches[cut - 1].at)
            gid += 1
            w.game(Game(gid, t, cut, others(t.players, heavy), shift))
            counts["running"] += 1
        last_report = time.perf_counter()
        while w.events < plan.events:
            t = rnd.choice(templates)
            end = year_ago + timedelta(seconds=rnd.randint(timed(t), YEAR - 3600))
            gid += 1
            w.game(Game(gid, t, len(t.batches), others(t.players, heavy), shift_to(end, t.batches[-1].at)))
            counts["finished"] += 1
            if time.perf_counter() - last_report > 30:
                last_report = time.perf_counter()
                progress(f"{w.events:,} events, {gid:,} games ({w.events / (last_report - started):,.0f}/s)")
        w.flush()
        with conn.cursor() as cur:
            for table in ("players_player", "games_game"):
                cur.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"  # noqa: S608
                )
        conn.commit()
    filled = time.perf_counter() - started
    progress(f"written: {w.events:,} events in {filled:.0f} s; analyzing")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    return {
        "events": w.events,
        "games": gid,
        **{f"{k}_games" if k != "players" else k: v for k, v in counts.items()},
        "templates": len(templates),
        "fill_seconds": round(filled, 1),
        "vacuum_analyze_seconds": round(time.perf_counter() - started - filled, 1),
        "now": now.isoformat(),
        "fixtures": fixtures,
    }


def iter_templates(n: int, seed: str = "bigdb") -> Iterator[Template]:
    for k in range(n):
        yield play_template(k, seed)
