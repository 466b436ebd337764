"""Deadlines and bots with a REAL Celery worker and beat on the real Redis (``tests/worker.py``).

Nothing here calls a task or the sweeper in-process: games are made and played over the HTTP API (the test
client, committing), and everything that moves them afterwards is the worker: the beat's sweeper, the short
ETA tasks published on commit, the bot tasks. RULES.md R7.1-R7.5.
"""

from __future__ import annotations

import re
import time
import uuid
from collections import Counter
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from games import loading, store
from games.models import Event, Game, GameStatus
from games.services import followups
from games.tasks import expire_deadline
from tests.conftest import Table, make_api, start_table
from tests.worker import CeleryWorkerProcess

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _types(game_id: int) -> list[str]:
    return list(Event.objects.filter(game_id=game_id).order_by("seq").values_list("type", flat=True))


def _rows(game_id: int, kind: str) -> list[Event]:
    return list(Event.objects.filter(game_id=game_id, type=kind).order_by("seq"))


def _lateness(event: Event) -> float:
    """Seconds between a deadline (the event's ``due_at``) and when the worker applied it (``created_at``)."""
    due = datetime.fromisoformat(event.data["due_at"])
    return (event.created_at - due).total_seconds()


def _task_runs(worker: CeleryWorkerProcess, game_id: int, step_no: int) -> int:
    pattern = re.compile(rf"expire_deadline game={game_id} step={step_no} ")
    return len(pattern.findall(worker.log()))


def _status(game_id: int) -> str:
    return Game.objects.only("status").get(pk=game_id).status


def _check_record(game_id: int) -> None:
    """The log is whole: the hash chain verifies and the cached state equals a full replay."""
    assert store.verify_chain(game_id)
    game = Game.objects.get(pk=game_id)
    assert loading.load_state(game) == loading.full_replay(game)


def test_a_full_game_with_second_deadlines_where_two_seats_never_act_ends(
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    """Two players never send a single command; two bots play through Celery tasks. Each absent seat gets its
    one extension, then the defaults (R7.2/R7.3) are played, then the autopilot takes the seat; the game
    ends, every deadline applied once and never early (R7.5)."""
    alice, bob = make_api(), make_api()
    r = alice.post(
        "/api/v1/games",
        {
            "seats": 4,
            "bots": ["sensible", "random"],
            "options": {
                "deadlines": {"distribute": 1, "choose": 1},
                "fuzz_depth": [0.1, 0.2],
                "absence": {"extensions": 1, "autopilot_after": 2},
            },
        },
    )
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/join").status_code == 200
    assert _status(gid) == GameStatus.RUNNING

    celery_worker_process.wait_for(lambda: _status(gid) == GameStatus.OVER, timeout=90)

    types = _types(gid)
    assert types[-1] == "GameEnded"
    humans = {p["seat"] for p in alice.get(f"/api/v1/games/{gid}").json()["players"] if p["bot"] is None}
    assert len(humans) == 2
    # the humans never acted: every one of their moves is the system's (a default or the autopilot)
    human_ids = {alice.player.pk, bob.player.pk}
    assert not Event.objects.filter(game_id=gid, actor_id__in=human_ids).exists()
    extended = _rows(gid, "DeadlineExtended")
    assert {s for e in extended for s in e.data["seats"]} == humans  # each spent their one extension
    assert all(e.data["reason"] == "absence" for e in extended)
    assert {e.data["seat"] for e in _rows(gid, "AutopilotEngaged")} == humans
    log = celery_worker_process.log()
    assert "Task games.tasks.play_bots[" in log  # the bots (and the autopilot) played through tasks
    assert "Task games.tasks.expire_deadline[" in log
    passed = _rows(gid, "DeadlinePassed")
    assert passed, types
    steps = Counter(e.data["step_no"] for e in passed)
    assert max(steps.values()) == 1, steps  # every deadline applied once
    for event in passed + _rows(gid, "DeadlineExtended"):
        due = event.data.get("previous_due_at") or event.data["due_at"]
        late = (event.created_at - datetime.fromisoformat(due)).total_seconds()
        assert 0 <= late < 3, (event.type, late)  # never early, never much late
    _check_record(gid)


def test_a_step_closes_early_when_everyone_is_ready_and_its_timer_then_does_nothing(
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    """R2.4: the step closes the moment all are ready; the ETA task of its deadline (still queued in the
    worker) later runs as a no-op (it carries the step it was made for, R7.5)."""
    table = start_table(4, {"deadlines": {"choose": 3}})
    gid = table.game_id
    state = table.state(0)["state"]
    boss = state["boss"]
    shares: list[list[int]] = [[] for _ in range(4)]
    shares[boss] = [c["id"] for c in state["table"]]
    assert table.apis[boss].command(gid, "distribute-loot", {"shares": shares}).status_code == 200
    game = Game.objects.get(pk=gid)
    step_no, due = game.step_no, game.deadline_at
    assert step_no is not None
    assert due is not None
    for api in table.apis:
        assert api.command(gid, "choose-action", {"action": "vote_yes"}).status_code == 200
        assert api.command(gid, "set-ready", {"ready": True}).status_code == 200
    closed = _rows(gid, "StepClosed")
    assert [(e.data["step_no"], e.data["reason"]) for e in closed] == [(step_no, "ready")]
    assert timezone.now() < due  # closed before its deadline

    celery_worker_process.wait_for(lambda: _task_runs(celery_worker_process, gid, step_no) >= 1, timeout=15)
    assert _rows(gid, "StepClosed") == closed
    assert not _rows(gid, "DeadlinePassed")
    assert not _rows(gid, "DeadlineMissed")
    assert re.search(
        rf"expire_deadline game={gid} step={step_no} due=\S+: 0 events", celery_worker_process.log()
    )


def test_a_duplicate_delivery_of_the_same_timer_task_has_one_effect(
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    """Celery on Redis delivers at least once: the same task (same id, same arguments) delivered three times,
    plus the sweeper, apply the deadline once (R7.2, R7.5)."""
    table = start_table(4, {"deadlines": {"distribute": 2}, "absence": {"extensions": 0}})
    gid = table.game_id
    game = Game.objects.get(pk=gid)
    assert game.step_no is not None
    assert game.deadline_at is not None
    task_id = str(uuid.uuid4())
    for _ in range(3):
        expire_deadline.apply_async(
            (gid, game.step_no, game.deadline_at.isoformat()), eta=game.deadline_at, task_id=task_id
        )
    worker, step_no = celery_worker_process, game.step_no
    worker.wait_for(lambda: _task_runs(worker, gid, step_no) >= 4, timeout=20)  # 3 + the one on commit
    assert len(_rows(gid, "DeadlinePassed")) == 1
    assert len(_rows(gid, "LootDistributed")) == 1
    assert _rows(gid, "LootDistributed")[0].data["auto"] == "deadline"
    _check_record(gid)


def test_a_worker_killed_with_deadlines_pending_fires_them_all_once_after_a_restart(
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    """kill -9 while ETA tasks sit in the worker's memory (unacknowledged): after a restart the sweeper
    (the deadlines live in PostgreSQL) fires every one, none twice, even when the lost messages come back."""
    worker = celery_worker_process
    tables: list[Table] = [
        start_table(4, {"deadlines": {"distribute": 3}, "absence": {"extensions": 0}}) for _ in range(6)
    ]
    games = {t.game_id: Game.objects.get(pk=t.game_id) for t in tables}
    followups.flush_publisher()  # every ETA task has left for Redis
    received = re.compile(r"Task games\.tasks\.expire_deadline\[\S+\] received")
    worker.wait_for(lambda: len(received.findall(worker.log())) >= len(games), timeout=10)
    worker.kill()  # with every ETA task received (in its memory, unacknowledged), none due yet
    latest = max(g.deadline_at for g in games.values() if g.deadline_at is not None)
    while timezone.now() < latest + timedelta(seconds=1):  # every deadline passes with no worker at all
        time.sleep(0.1)
    assert all(not _rows(gid, "DeadlinePassed") for gid in games)

    worker.restart()
    worker.wait_for(lambda: all(_rows(gid, "DeadlinePassed") for gid in games), timeout=30)
    for gid, game in games.items():
        assert len(_rows(gid, "DeadlinePassed")) == 1
        assert game.step_no is not None
        assert game.deadline_at is not None
        # the unacknowledged messages come back one day (visibility timeout): they change nothing
        expire_deadline.apply_async((gid, game.step_no, game.deadline_at.isoformat()))
    worker.wait_for(lambda: all(_task_runs(worker, gid, 1) >= 1 for gid in games), timeout=20)
    for gid in games:
        assert len(_rows(gid, "DeadlinePassed")) == 1
        assert len(_rows(gid, "LootDistributed")) == 1
        _check_record(gid)


def test_bots_act_through_the_worker_not_inside_the_request(
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    """The request that starts a game with bots returns before any bot moved; the bot task does the rest."""
    alice = make_api()
    r = alice.post("/api/v1/games", {"seats": 4, "join": False, "bots": ["sensible"] * 2 + ["random"] * 2})
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert _types(gid) == ["GameStarted", "RoundStarted", "LootRevealed", "StepOpened"]  # nobody moved yet
    celery_worker_process.wait_for(lambda: _status(gid) == GameStatus.OVER, timeout=60)
    assert "games.tasks.play_bots" in celery_worker_process.log()
    assert Game.objects.get(pk=gid).bots_due_at is None
    _check_record(gid)


def _worker_backends() -> dict[int, datetime]:
    """Backends connected to the test database other than this test's own: pid → when it connected."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, backend_start FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )
        return dict(cursor.fetchall())


def test_the_worker_keeps_its_database_connection_between_tasks_and_replaces_a_dead_one(
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    """Tasks reuse the pool processes' connections (critters_api/celery.py; Celery's Django fix-up used to
    close them around every task, so every task connected anew): the beat's sweep runs every second, and
    over several sweeps no new connection is opened. When PostgreSQL ends those connections (as a restart
    does), the next tasks notice, connect again and succeed."""
    from django.db import connection

    celery_worker_process.restart(extra_env={"TEST_CONN_MAX_AGE": "60"})  # as in production
    log = celery_worker_process.log
    sweeps = lambda: log().count("Task games.tasks.sweep_deadlines[")  # noqa: E731
    start = sweeps()
    celery_worker_process.wait_for(lambda: sweeps() >= start + 4, timeout=20)
    seen = _worker_backends()
    assert seen, "the worker holds no connection between tasks"
    first = sweeps()
    deadline = time.monotonic() + 30
    while sweeps() < first + 6 and time.monotonic() < deadline:
        for pid, started in _worker_backends().items():
            seen.setdefault(pid, started)
        time.sleep(0.05)
    assert sweeps() >= first + 6
    assert len(seen) <= 2, seen  # at most one per pool process (--concurrency=2), for every sweep

    with connection.cursor() as cursor:  # PostgreSQL ends them
        cursor.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) pid", [list(seen)])
    offset = len(log())  # a sweep running at that very moment may fail; the ones after it must not
    succeeded = re.compile(r"games\.tasks\.sweep_deadlines\[[^\]]+\] succeeded")
    celery_worker_process.wait_for(lambda: len(succeeded.findall(log()[offset:])) >= 3, timeout=30)
    assert set(_worker_backends()).isdisjoint(seen)  # new connections, no dead one kept
