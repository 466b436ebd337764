"""Many deadlines falling due at the same instant: the sweeper claims them ``CLAIM_BATCH`` per transaction
(``SELECT ... FOR UPDATE SKIP LOCKED LIMIT k``, a savepoint per game) and an ETA task that wakes sweeps every
due deadline, not just its own. What must not change: each deadline applied exactly once, through the same
service code as a player's command; a game whose timer fails (a bug) set aside without taking the rest of its
batch with it; a deadline whose game another transaction holds still applied once (by the holder, or by the
task when the lock is released). RULES.md R7.2 and R7.5; the sweeper is ``games/deadlines.py``.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone

from games import deadlines, loading, roster, statecache, store
from games.models import Event, Game, GameStatus
from games.services import followups, lobby, timers
from players.models import Player
from tests.worker import CeleryWorkerProcess

pytestmark = pytest.mark.django_db(transaction=True)

PLAIN = {  # each deadline is one plain R7.2 deal, then a long step: one DeadlinePassed per game
    "deadlines": {"distribute": 60, "choose": 3600},
    "absence": {"extensions": 0, "autopilot_after": None},
    "warn_before": 0,
}


def _new_games(count: int, options: dict[str, Any] = PLAIN) -> list[int]:
    """``count`` running four-seat games (the same four players), started one after the other: their
    deadlines fall due in that order."""
    players = [Player.objects.create_user(username=f"burst{i}") for i in range(4)]
    ids = []
    for _ in range(count):
        game = lobby.game_create(creator=players[0], seats=4, options=options)
        for p in players[1:]:
            lobby.game_join(game_id=game.pk, player=p)
        ids.append(game.pk)
    return ids


def _passed(game_id: int) -> list[Event]:
    return list(Event.objects.filter(game_id=game_id, type="DeadlinePassed").order_by("seq"))


def _deadline(game_id: int) -> datetime:
    due = Game.objects.get(pk=game_id).deadline_at
    assert due is not None
    return due


def _check_record(game_id: int) -> None:
    """The log is whole: the hash chain verifies and the (cached) state equals a full replay."""
    assert store.verify_chain(game_id)
    game = Game.objects.get(pk=game_id)
    assert loading.load_state(game) == loading.full_replay(game)


@pytest.fixture
def no_outage(settings: Any) -> None:
    """The sweeps below jump the clock by more than DEADLINE_OUTAGE_AFTER: not an outage here."""
    settings.DEADLINE_OUTAGE_AFTER = 24 * 3600


def test_a_poison_game_in_the_middle_of_a_batch_is_set_aside_and_the_rest_of_its_batch_applied(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, no_outage: None
) -> None:
    """Nine games due, claimed three per transaction: [0 1 2] [3 4 5] [6 7 8]. Game 1's expiry hits a
    database error (the transaction is aborted), game 4's raises after its events were appended, game 7's
    state cannot be loaded (its fold cannot be cached): each is rolled back to its own savepoint and set aside
    for POISON_BACKOFF; the other six are applied once, in the same batches. Once the bugs are gone, the
    three set aside are applied once, and every record is whole."""
    monkeypatch.setattr(deadlines, "CLAIM_BATCH", 3)
    games = _new_games(9)
    broken_db, broken_py, broken_cache = games[1], games[4], games[7]
    broken = [broken_db, broken_py, broken_cache]
    versions = {gid: Game.objects.get(pk=gid).version for gid in games}
    real_expire, real_remember = timers.expire_locked, loading.remember_state

    def expire_locked(game: Game, rs: Any, state: Any, now: datetime) -> Any:
        new_state = real_expire(game, rs, state, now)  # the events and the game's head are written...
        if game.pk == broken_db:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1 / 0")  # ...then the transaction is aborted by the database
        if game.pk == broken_py:
            raise RuntimeError("a bug after the append")
        return new_state

    def remember_state(game_id: int, *args: Any) -> None:
        if game_id == broken_cache:
            raise RuntimeError("a bug in the state cache")
        real_remember(game_id, *args)

    monkeypatch.setattr(timers, "expire_locked", expire_locked)
    monkeypatch.setattr(loading, "remember_state", remember_state)
    at = _deadline(games[-1]) + timedelta(seconds=1)
    statecache.clear()  # as in a worker: no state cached for the games it sweeps (each log read and folded)
    with caplog.at_level(logging.ERROR, logger="games.deadlines"):
        report = deadlines.sweep(now=at)

    fine = [gid for gid in games if gid not in broken]
    assert report.expired == fine  # earliest first: the rest of each batch, and the batches after, went on
    assert report.set_aside == broken
    for gid in fine:
        assert len(_passed(gid)) == 1
        assert report.events[gid] == Game.objects.get(pk=gid).version - versions[gid] > 0
    for gid in broken:
        assert not _passed(gid)  # what it appended was rolled back with its savepoint
        game = Game.objects.get(pk=gid)
        assert game.version == versions[gid]
        assert game.deadline_at == at + timedelta(seconds=deadlines.POISON_BACKOFF)
        assert f"timer of game {gid} failed" in caplog.text

    monkeypatch.setattr(timers, "expire_locked", real_expire)  # the bugs are fixed
    monkeypatch.setattr(loading, "remember_state", real_remember)
    assert deadlines.sweep(now=at + timedelta(seconds=30)).expired == []  # set aside for POISON_BACKOFF
    later = deadlines.sweep(now=at + timedelta(seconds=deadlines.POISON_BACKOFF + 1))
    assert sorted(later.expired) == sorted(broken)
    assert deadlines.sweep(now=at + timedelta(seconds=deadlines.POISON_BACKOFF + 2)).expired == []
    for gid in games:
        assert len(_passed(gid)) == 1
        _check_record(gid)


def test_an_eta_task_sweeps_every_due_deadline_and_waits_for_its_own_game_when_another_holds_it(
    monkeypatch: pytest.MonkeyPatch, no_outage: None
) -> None:
    """The ETA task of game A's deadline: its sweep applies the other due games (B, C), skipping A, which
    another transaction holds; then it waits for A's lock and applies A. Game D's holder (as a player's
    command would) applies D's passed deadline itself: D's task then finds nothing to do. Each once."""
    a, b, c, d = _new_games(4)
    steps: dict[int, int] = {}
    for gid in (a, b, c, d):
        step_no = Game.objects.get(pk=gid).step_no
        assert step_no is not None
        steps[gid] = step_no
    later = _deadline(d) + timedelta(seconds=1)
    real_now = timezone.now
    monkeypatch.setattr(timezone, "now", lambda: later)  # the deadlines have passed

    def hold(game_id: int, locked: threading.Event, release: threading.Event, apply: bool) -> None:
        try:
            with transaction.atomic():
                game = roster.lock_game(game_id)
                locked.set()
                release.wait(10)
                if apply:
                    rs = loading.ruleset_for(game)
                    timers.expire_locked(game, rs, loading.load_state(game, rs), timezone.now())
        finally:
            connection.close()

    def held(game_id: int, *, apply: bool) -> tuple[threading.Thread, threading.Event]:
        locked, release = threading.Event(), threading.Event()
        holder = threading.Thread(target=hold, args=(game_id, locked, release, apply))
        holder.start()
        assert locked.wait(10)
        return holder, release

    # A held (by a transaction that does not apply it), D held until after A's task
    holder_a, release_a = held(a, apply=False)
    holder_d, release_d = held(d, apply=True)
    threading.Timer(0.3, release_a.set).start()
    started = real_now()
    assert deadlines.expire(a, steps[a]) > 0  # applied by this task, once the holder let go
    assert real_now() - started >= timedelta(seconds=0.25)  # it did wait for the lock
    holder_a.join(10)
    assert [len(_passed(gid)) for gid in (a, b, c, d)] == [1, 1, 1, 0]  # B and C by A's sweep; D held
    assert deadlines.expire(b, steps[b]) == 0  # stale: already applied by A's task

    threading.Timer(0.3, release_d.set).start()
    assert deadlines.expire(d, steps[d]) == 0  # its sweep skipped D; the holder applied it meanwhile
    holder_d.join(10)
    for gid in (a, b, c, d):
        assert len(_passed(gid)) == 1
        assert Game.objects.get(pk=gid).step_no != steps[gid]
        _check_record(gid)


@pytest.mark.slow
def test_a_burst_of_deadlines_due_at_the_same_instant_is_applied_once_each_by_a_real_worker(
    celery_worker_process: CeleryWorkerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """60 games whose deadlines fall due at the same instant (their steps opened at the same frozen
    instant), with the ETA tasks the service publishes on commit and the beat's sweeper: a burst, applied in
    batches by whichever tasks wake first. Every game gets exactly one DeadlinePassed for its step and one
    deal, never early, and its record stays whole."""
    count, seconds = 60, 8
    options = {**PLAIN, "deadlines": {"distribute": seconds, "choose": 3600}}
    opened = timezone.now()
    with monkeypatch.context() as frozen:
        frozen.setattr(timezone, "now", lambda: opened)
        games = _new_games(count, options)
    followups.flush_publisher()
    due = opened + timedelta(seconds=seconds)
    assert timezone.now() < due, "the games took too long to make: the burst would not be one"
    assert {_deadline(gid) for gid in games} == {due}

    def done() -> bool:
        return Event.objects.filter(game_id__in=games, type="DeadlinePassed").count() >= count

    celery_worker_process.wait_for(done, timeout=seconds + 60, interval=0.2)
    passed = list(Event.objects.filter(game_id__in=games, type="DeadlinePassed"))
    assert Counter((e.game_id, e.data["step_no"]) for e in passed) == {(gid, 1): 1 for gid in games}
    assert all(e.created_at >= due for e in passed)  # never early
    deals = Event.objects.filter(game_id__in=games, type="LootDistributed", data__auto="deadline")
    assert Counter(e.game_id for e in deals) == dict.fromkeys(games, 1)
    assert Game.objects.filter(pk__in=games, status=GameStatus.RUNNING, step_no=2).count() == count
    for gid in games:
        _check_record(gid)
