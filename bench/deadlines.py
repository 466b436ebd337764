"""Deadline benchmark: 100,000 pending deadlines, a real Celery worker + beat, lateness and worker memory.

    .venv/bin/python bench/deadlines.py [--pending 100000] [--firing 1000] [--window 100] [--no-eta]
    .venv/bin/python bench/deadlines.py --burst 1000 [--pending 100000] [--no-eta]

Creates (drops first) its own database ``critters_bench_deadlines`` (``--db``) on $BENCH_PG (default
``postgres://postgres@127.0.0.1:5432``) and uses Redis at $BENCH_REDIS (else $REDIS_URL, else
``redis://127.0.0.1:6379/14``; its Celery queue is purged first). Then:

1. starts a real worker with embedded beat (``celery -A critters_api worker --beat --concurrency=2``, the
   README's quick start) on that database, and records its memory (RSS of the whole process group: main
   process, two pool processes, beat) with no deadline pending;
2. bulk-inserts ``--pending`` running games with a pending deadline (``Game.deadline_at``, indexed):
   ``--firing`` of them are complete games (seats and a hash-chained log copied from a real game started by
   the service; the ``StepOpened`` event carries each one's own ``due_at``) falling due spread evenly over
   ``--window`` seconds; the rest fall due in a day, so they stay pending for the whole run (rows the
   sweeper's indexed query must step over; they need no log since they are never applied);
3. publishes, as the service does on commit, a short ETA task for each firing deadline (``--no-eta``: none,
   the beat's sweeper alone), and waits until every firing deadline was applied;
4. measures the lateness of each firing (the ``DeadlinePassed`` event's ``created_at``, the worker's clock
   when it applied the deadline, minus its ``due_at``): p50, p99, max; and the lateness as players see it
   (when the bench, polling every ``POLL`` seconds, first saw the event committed, minus ``due_at``); checks
   that each was applied exactly once; and the worker's RSS again, with ``--pending`` minus ``--firing``
   still pending.

``--burst N`` is the capacity scenario: N complete games whose deadlines fall due at the same instant
(``--firing N --window 0``); it reports how long the worker took to apply them all and at what rate.

Targets: p99 lateness under 2 s (not for a burst: it measures capacity); memory that does not grow with the
number pending. Prints the figures and writes ``bench/results/deadlines.json`` (a burst:
``bench/results/deadlines-burst.json``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import pct, recreate_database  # noqa: E402

DBNAME = "critters_bench_deadlines"
RESULTS = ROOT / "bench" / "results" / "deadlines.json"
RESULTS_BURST = ROOT / "bench" / "results" / "deadlines-burst.json"
POLL = 0.1  # seconds between the bench's looks at what the worker has committed
OPTIONS = {
    "deadlines": {"distribute": 3600, "choose": 3600},
    "absence": {"extensions": 0, "autopilot_after": None},  # each firing is a plain R7.2 deal
    "warn_before": 0,
}


def group_rss(pgid: int) -> int:
    total = 0
    for proc in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(proc.pid) == pgid:
                total += proc.memory_info().rss
        except (psutil.Error, ProcessLookupError, PermissionError):
            continue
    return total


class Worker:
    def __init__(self, env: dict[str, str], workdir: Path) -> None:
        self.log_path = workdir / "worker.log"
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [
                    str(Path(sys.executable).with_name("celery")),
                    "-A",
                    "critters_api",
                    "worker",
                    "--beat",
                    "-l",
                    "WARNING",
                    "--concurrency=2",
                    "--schedule",
                    str(workdir / "celerybeat-schedule"),
                    "--without-mingle",
                    "--without-gossip",
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, probe: Any, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not probe():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(self.log_path.read_text()[-3000:])
            time.sleep(0.2)

    def rss(self) -> int:
        return group_rss(self.proc.pid)

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pending", type=int, default=100_000)
    parser.add_argument("--firing", type=int, default=1_000)
    parser.add_argument(
        "--window", type=float, default=100.0, help="seconds over which the firing ones fall due"
    )
    parser.add_argument("--lead", type=float, default=20.0, help="seconds before the first one falls due")
    parser.add_argument("--no-eta", action="store_true", help="no ETA tasks: the beat's sweeper alone")
    parser.add_argument(
        "--burst", type=int, metavar="N", help="N complete games due at the same instant (capacity)"
    )
    parser.add_argument("--db", default=DBNAME, help="the scratch database (dropped and created)")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.burst:
        args.firing, args.window = args.burst, 0.0
    args.out = args.out or str(RESULTS_BURST if args.burst else RESULTS)
    assert 0 < args.firing <= args.pending

    pg = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
    redis_url = os.environ.get("BENCH_REDIS") or os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/14"
    url = recreate_database(pg, args.db)
    os.environ.update(
        DATABASE_URL=url,
        REDIS_URL=redis_url,
        DJANGO_SETTINGS_MODULE="critters_api.settings_test",
        LOG_LEVEL="WARNING",
    )
    import django

    django.setup()
    from django.db import connection, transaction
    from django.utils import timezone

    from critters_api.celery import app
    from games import services, store
    from games.models import Event, Game, GameStatus, Seat
    from games.tasks import expire_deadline
    from players.models import Player

    app.control.purge()
    # the worker runs with the production settings, as deployed (the test settings close the database
    # connection after every task): persistent connections, a bench-only secret
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="critters_api.settings",
        SECRET_KEY="bench-" + uuid.uuid4().hex,
        CONN_MAX_AGE="60",
    )
    workdir = Path(tempfile.mkdtemp(prefix="bench-deadlines-"))
    worker = Worker(env, workdir)
    try:
        worker.wait_ready(lambda: "ready" in worker.log_path.read_text() or _pinged(app))
        time.sleep(2)  # let the pool and the beat settle before measuring
        rss_idle = worker.rss()
        print(f"worker up: RSS {rss_idle / 2**20:.1f} MiB with no deadline pending")

        # a real game, started by the service: its log is the template of every firing game
        players = [Player.objects.create_user(username=f"bench{i}") for i in range(4)]
        template = services.game_create(creator=players[0], seats=4, options=OPTIONS)
        for p in players[1:]:
            services.game_join(game_id=template.pk, player=p)
        template.refresh_from_db()
        rows = list(Event.objects.filter(game_id=template.pk).order_by("seq"))
        seats = list(Seat.objects.filter(game_id=template.pk).order_by("index"))
        Game.objects.filter(pk=template.pk).update(status=GameStatus.CANCELLED, deadline_at=None)

        def make(count: int, first: int, due: Any) -> list[Any]:
            return [
                Game(
                    ruleset=template.ruleset,
                    name=f"bench {first + k}",
                    creator_id=players[0].pk,
                    seat_count=4,
                    options=template.options,
                    status=GameStatus.RUNNING,
                    started_at=template.started_at,
                    step_no=template.step_no,
                    waiting_step=template.waiting_step,
                    deadline_at=due(k),
                )
                for k in range(count)
            ]

        # first the deadlines that stay pending all along (a day away), in bulk
        t0 = time.monotonic()
        far = timezone.now() + timedelta(days=1)
        batch = 10_000
        rest = args.pending - args.firing
        for offset in range(0, rest, batch):
            Game.objects.bulk_create(make(min(batch, rest - offset), args.firing + offset, lambda _k: far))
        # then the complete games whose deadlines fall due during the run, spread over the window
        start = timezone.now() + timedelta(seconds=args.lead)
        step = args.window / max(1, args.firing - 1)
        dues = [start + timedelta(seconds=i * step) for i in range(args.firing)]
        firing_ids: list[int] = []
        for offset in range(0, args.firing, 500):
            count = min(500, args.firing - offset)
            with transaction.atomic():
                made = Game.objects.bulk_create(make(count, offset, lambda k, o=offset: dues[o + k]))
                firing_ids += [g.pk for g in made]
                _copy_logs(made, rows, seats, store, Event, Seat, Game)
        inserted = time.monotonic() - t0
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE games_game")
        pending = Game.objects.filter(status=GameStatus.RUNNING, deadline_at__isnull=False).count()
        print(f"inserted {pending:,} pending deadlines ({args.firing:,} complete games) in {inserted:.1f} s")
        if timezone.now() >= dues[0]:
            print("warning: the first deadline fell due before the inserts ended (raise --lead)")

        if not args.no_eta:  # what the service does on commit for a deadline inside the ETA horizon
            for gid, due in zip(firing_ids, dues, strict=True):
                expire_deadline.apply_async((gid, 1, due.isoformat()), eta=due)
        rss_pending = worker.rss()
        print(f"RSS with {pending:,} pending: {rss_pending / 2**20:.1f} MiB")

        # wait until every firing deadline was applied, noting when each became visible (committed)
        deadline = time.monotonic() + args.lead + args.window + 300
        seen: dict[int, float] = {}  # game -> when the bench first saw its DeadlinePassed (epoch seconds)
        unseen = list(firing_ids)
        while unseen and time.monotonic() < deadline:
            looked = time.time()  # the statement's snapshot is taken after this: found = committed by now
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT DISTINCT game_id FROM games_event"
                    " WHERE type = 'DeadlinePassed' AND game_id = ANY(%s)",
                    [unseen],
                )
                found = {row[0] for row in cursor.fetchall()}
            seen.update(dict.fromkeys(found, looked))
            unseen = [gid for gid in unseen if gid not in found]
            time.sleep(POLL)
        time.sleep(3)  # late duplicates, if any, would show now
        rss_after = worker.rss()
        passed = list(
            Event.objects.filter(game_id__in=firing_ids, type="DeadlinePassed").values_list(
                "game_id", "created_at", "data"
            )
        )
        per_game: dict[int, int] = {}
        lateness: list[float] = []
        applied_at = sorted(created for _gid, created, _data in passed)
        span = (applied_at[-1] - applied_at[0]).total_seconds() if len(applied_at) > 1 else 0.0
        due_of = dict(zip(firing_ids, dues, strict=True))
        visible = [at - due_of[gid].timestamp() for gid, at in seen.items()]
        for gid, created, data in passed:
            per_game[gid] = per_game.get(gid, 0) + 1
            lateness.append((created - datetime.fromisoformat(data["due_at"])).total_seconds())
        # a burst: from the instant all fell due until the last was applied; and the rate between the 10th
        # and the 90th percentile of the applied times (the worker's capacity, without the wait for the first
        # beat tick or the tail)
        drain = (applied_at[-1] - dues[0]).total_seconds() if applied_at and args.burst else None
        k10, k90 = len(applied_at) // 10, len(applied_at) * 9 // 10
        middle = (applied_at[k90] - applied_at[k10]).total_seconds() if k90 < len(applied_at) else 0.0
        duplicates = sum(1 for n in per_game.values() if n > 1)
        missing = args.firing - len(per_game)
        still = Game.objects.filter(status=GameStatus.RUNNING, deadline_at=far).count()
    finally:
        worker.stop()

    result = {
        "pending": args.pending,
        "firing": args.firing,
        "window_s": args.window,
        "burst": bool(args.burst),
        "eta_tasks": not args.no_eta,
        "fired": len(per_game),
        "missing": missing,
        "duplicates": duplicates,
        "early": sum(1 for x in lateness if x < 0),
        "lateness_p50_s": round(pct(lateness, 0.50), 3),
        "lateness_p99_s": round(pct(lateness, 0.99), 3),
        "lateness_max_s": round(max(lateness), 3) if lateness else None,
        "visible_p50_s": round(pct(visible, 0.50), 2),
        "visible_p99_s": round(pct(visible, 0.99), 2),
        "visible_max_s": round(max(visible), 2) if visible else None,
        "drain_s": round(drain, 2) if drain is not None else None,
        "burst_rate_per_s": round(len(per_game) / drain, 1) if drain else None,
        "rate_p10_p90_per_s": round((k90 - k10) / middle, 1) if middle else None,
        "still_pending_after": still,
        "rate_due_per_s": round(args.firing / args.window, 1) if args.window else None,
        "rate_applied_per_s": round(len(applied_at) / span, 1) if span else None,
        "rss_idle_mib": round(rss_idle / 2**20, 1),
        "rss_with_pending_mib": round(rss_pending / 2**20, 1),
        "rss_after_mib": round(rss_after / 2**20, 1),
        "insert_s": round(inserted, 1),
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "at": datetime.now().astimezone().isoformat(timespec="seconds"),
    }
    print(json.dumps(result, indent=2))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    ok = missing == 0 and duplicates == 0 and result["early"] == 0
    ok = ok and (bool(args.burst) or result["lateness_p99_s"] < 2.0)
    print("OK" if ok else "TARGET MISSED")
    return 0 if ok else 1


def _pinged(app: Any) -> bool:
    try:
        return bool(app.control.ping(timeout=0.5))
    except Exception:
        return False


def _copy_logs(
    games: list[Any], rows: list[Any], seats: list[Any], store: Any, event: Any, seat: Any, game_model: Any
) -> None:
    """Each firing game gets the template's seats and log, hash-chained for its own id, with its own due."""
    new_seats = []
    new_events = []
    for g in games:
        for s in seats:
            new_seats.append(
                seat(game_id=g.pk, index=s.index, player_id=s.player_id, uid=s.uid, position=s.position)
            )
        prev = store.GENESIS_HASH
        for row in rows:
            cid = f"bench:{uuid.uuid4().hex[:8]}" if row.seq == 1 else row.command_id
            data = dict(row.data)
            if row.type == "StepOpened":
                data["due_at"] = g.deadline_at.isoformat()
            digest = store.event_hash(
                game_id=g.pk,
                seq=row.seq,
                type=row.type,
                schema_version=row.schema_version,
                data=data,
                created_at=row.created_at,
                command_id=cid,
                actor_id=row.actor_id,
                prev_hash=prev,
                command=row.command,
            )
            new_events.append(
                event(
                    game_id=g.pk,
                    seq=row.seq,
                    type=row.type,
                    schema_version=row.schema_version,
                    data=data,
                    created_at=row.created_at,
                    command_id=cid,
                    actor_id=row.actor_id,
                    command=row.command,
                    prev_hash=prev,
                    hash=digest,
                )
            )
            prev = digest
        g.version, g.head_hash = rows[-1].seq, prev
    seat.objects.bulk_create(new_seats)
    event.objects.bulk_create(new_events, batch_size=2000)
    game_model.objects.bulk_update(games, ["version", "head_hash"], batch_size=2000)


if __name__ == "__main__":
    raise SystemExit(main())
