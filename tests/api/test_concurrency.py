"""Many threads, one game, through the API: no lost, duplicated, interleaved or reordered events; a valid
hash chain; the served state equals a full replay. Real transactions (``transaction=True``)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import loading, roster, statecache, store
from games.models import Event, Game, Seat
from games.rules.registry import get_ruleset
from tests.conftest import Api, Table, make_api, start_table

pytestmark = pytest.mark.django_db(transaction=True)

RULESET = get_ruleset("goodcritters")


def run_threads(workers: list[Callable[[], None]]) -> None:
    barrier = threading.Barrier(len(workers))
    errors: list[BaseException] = []

    def wrap(work: Callable[[], None]) -> None:
        try:
            barrier.wait(timeout=30)
            work()
        except BaseException as exc:  # surfaced in the main thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=wrap, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors


def to_step_three(table: Table) -> None:
    cards = [card["id"] for card in table.state(0)["state"]["table"]]
    r = table.apis[0].command(table.game_id, "distribute-loot", {"shares": [cards, [], [], []]})
    assert r.status_code == 200, r.content
    assert table.state(0)["waiting"]["step"] == "choose"


def assert_log_sound(game_id: int) -> list[Event]:
    events = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert store.verify_chain(game_id)
    # each command's events are one contiguous run (no interleaving between commands)
    runs: list[str] = []
    for e in events:
        if not runs or runs[-1] != e.command_id:
            runs.append(e.command_id)
    assert len(runs) == len(set(runs)), "a command's events were interleaved with another's"
    return events


def test_conflicting_commands_from_many_threads(transactional_db: None) -> None:
    table = start_table(4)
    to_step_three(table)
    results: Counter[tuple[str, int]] = Counter()
    lock = threading.Lock()
    actions = ["guard", "rob", "skim", "vote_no", "vote_yes"]

    def player(seat: int, api: Api) -> Callable[[], None]:
        def work() -> None:
            for i in range(12):
                body: dict[str, Any]
                if i % 3 == 0:
                    name, body = "send-message", {"text": f"seat {seat} says {i}"}
                elif i % 3 == 1:
                    name, body = "choose-action", {"action": actions[(seat + i) % 5]}
                else:
                    name, body = (
                        "place-threat",
                        {"target": (seat + 1 + i) % 4 if (seat + 1 + i) % 4 != seat else (seat + 2) % 4},
                    )
                response = api.command(table.game_id, name, body)
                assert response.status_code in (200, 409, 422), (response.status_code, response.content[:300])
                with lock:
                    results[(name, response.status_code)] += 1

        return work

    run_threads([player(seat, api) for seat, api in enumerate(table.apis)])

    events = assert_log_sound(table.game_id)
    messages = [e for e in events if e.type == "MessageSent"]
    assert len(messages) == results[("send-message", 200)] == 16  # messages are always allowed: none lost
    assert len({e.data["text"] for e in messages}) == 16  # and none duplicated
    game = Game.objects.get(pk=table.game_id)
    assert game.version == len(events)
    served = table.state(0)
    replay = loading.full_replay(game)
    assert served["state"] == RULESET.view_for(replay, 0)
    assert served["version"] == game.version


def test_same_etag_from_many_threads_only_one_wins(transactional_db: None) -> None:
    table = start_table(4)
    to_step_three(table)
    etag = table.apis[0].get(f"/api/v1/games/{table.game_id}/state")["ETag"]
    statuses: list[int] = []
    lock = threading.Lock()

    def work(api: Api) -> Callable[[], None]:
        def go() -> None:
            r = api.command(table.game_id, "send-message", {"text": "me first"}, {"If-Match": etag})
            with lock:
                statuses.append(r.status_code)

        return go

    run_threads([work(api) for api in table.apis for _ in range(2)])
    assert sorted(statuses) == [200] + [412] * 7
    assert_log_sound(table.game_id)


def test_same_idempotency_key_from_many_threads_has_one_effect(transactional_db: None) -> None:
    table = start_table(4)
    api = table.apis[2]
    statuses: list[int] = []
    bodies: list[Any] = []
    lock = threading.Lock()

    def go() -> None:
        r = api.command(table.game_id, "send-message", {"text": "once"}, {"Idempotency-Key": "k-1"})
        with lock:
            statuses.append(r.status_code)
            if r.status_code == 200:
                bodies.append(r.json())

    run_threads([go for _ in range(6)])
    assert set(statuses) <= {200, 409}
    assert 200 in statuses
    assert all(b == bodies[0] for b in bodies)
    events = assert_log_sound(table.game_id)
    assert [e.data["text"] for e in events if e.type == "MessageSent"] == ["once"]
    # afterwards every retry is a replay
    r = api.command(table.game_id, "send-message", {"text": "once"}, {"Idempotency-Key": "k-1"})
    assert r.status_code == 200
    assert r["Idempotent-Replayed"] == "true"
    assert r.json() == bodies[0]


def test_different_games_do_not_wait_on_each_other(transactional_db: None) -> None:
    """A game's lock is its own row: while one game's row is locked, another game takes commands."""
    first, second = start_table(4), start_table(4)
    locked = threading.Event()
    release = threading.Event()

    def hold() -> None:
        from django.db import transaction

        with transaction.atomic():
            Game.objects.select_for_update().get(pk=first.game_id)
            locked.set()
            release.wait(timeout=30)

    def hold_then_close() -> None:
        hold()
        connection.close()

    holder = threading.Thread(target=hold_then_close)
    holder.start()
    try:
        assert locked.wait(timeout=10)
        r = second.apis[1].command(second.game_id, "send-message", {"text": "not blocked"})
        assert r.status_code == 200
    finally:
        release.set()
        holder.join(timeout=30)


def test_a_command_that_waited_for_the_lock_sees_the_seats_as_they_are_now(transactional_db: None) -> None:
    """``roster.lock_game`` reads the roster in the locking statement; under READ COMMITTED a statement that
    waited for the lock reads the seats as they were when it started. A seat written (and the revision bumped)
    while it waited must still be seen: the roster is read again, never served stale."""
    table = start_table(4)
    newcomer = make_api()
    seated = Seat.objects.get(game_id=table.game_id, position=1)
    seen: dict[str, Any] = {}
    locked = threading.Event()

    def holder() -> None:  # holds the lock, moves seat 1 to another player, commits after the waiter queued
        with transaction.atomic():
            game = roster.lock_game(table.game_id)
            locked.set()
            time.sleep(0.5)
            Seat.objects.filter(pk=seated.pk).update(player=newcomer.player, uid=f"p{newcomer.player.pk}")
            Game.objects.filter(pk=game.pk).update(revision=game.revision + 1)

    def waiter() -> None:
        assert locked.wait(10)
        with transaction.atomic():
            game = roster.lock_game(table.game_id)
            seen["seat"] = next(s for s in roster.roster(game).seats if s.position == 1)

    run_threads([holder, waiter])
    assert seen["seat"].player_id == newcomer.player.pk
    assert roster.seat_of(roster.get_game(table.game_id), newcomer.player) is not None


def test_a_command_that_waited_for_an_append_reads_its_roster_and_tail_once_more(
    transactional_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A locking statement that waited for another command's append (the usual case when players of one game
    send at once) has a roster and a log tail as of before that append: both are read again in one statement
    (not the roster, then the events: two), and the fold continued from it equals a full replay."""
    table = start_table(4)
    assert table.apis[0].command(table.game_id, "send-message", {"text": "first"}).status_code == 200
    newcomer = make_api()
    seated = Seat.objects.get(game_id=table.game_id, position=2)
    separate_reads: list[int] = []
    real = loading._event_rows

    def counted(game: Game, after: int) -> list[tuple[int, str, str, object]]:
        separate_reads.append(after)
        return real(game, after)

    monkeypatch.setattr(loading, "_event_rows", counted)
    seen: dict[str, Any] = {}
    locked = threading.Event()

    def hold(game: Game, state: Any, viewer: Any) -> dict[str, Any]:  # appended, not committed yet
        locked.set()
        time.sleep(0.5)
        return {}

    def holder() -> None:  # appends a message, commits after the waiter queued
        from games.services.commands import game_command

        game_command(
            game_id=table.game_id,
            player=table.apis[1].player,
            command_json={"type": "SendMessage", "text": "while you wait", "to": None},
            render=hold,
        )

    def waiter() -> None:
        assert locked.wait(10)
        statecache.clear()  # this process's fold as another process's would be: before the holder's append
        assert before is not None
        statecache.put(table.game_id, before)
        with transaction.atomic(), CaptureQueriesContext(connection) as statements:
            game = roster.lock_game(table.game_id, tail_after=loading.cached_version(table.game_id))
            seen["state"] = loading.load_state(game)
            seen["version"] = game.version
            seen["players"] = [s.player_id for s in roster.roster(game).seats]
            seen["statements"] = len(statements.captured_queries)

    with transaction.atomic():
        Seat.objects.filter(pk=seated.pk).update(player=newcomer.player, uid=f"p{newcomer.player.pk}")
        Game.objects.filter(pk=table.game_id).update(revision=Game.objects.get(pk=table.game_id).revision + 1)
    before = statecache.get(table.game_id)
    assert before is not None
    run_threads([holder, waiter])
    game = Game.objects.get(pk=table.game_id)
    assert seen["version"] == game.version == before.version + 1
    assert seen["state"] == loading.full_replay(game)
    assert newcomer.player.pk in seen["players"]
    assert separate_reads == []  # the tail came with the roster, not from a read of its own
    assert seen["statements"] == 2  # the lock, then the roster and the tail together
