"""The event log: append-only in the database itself, a per-game hash chain, state = fold of the log."""

from __future__ import annotations

import itertools

import pytest
from django.db import DatabaseError, connection, transaction

from games import loading, statecache, store
from games.models import Event, Game
from games.rules.registry import get_ruleset
from tests.conftest import start_table
from tests.e2e.test_full_games import play_over_http

pytestmark = pytest.mark.django_db

RULESET = get_ruleset("goodcritters")


@pytest.fixture
def game_id() -> int:
    table = start_table(4)
    table.apis[1].command(table.game_id, "send-message", {"text": "hello"})
    return table.game_id


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE games_event SET data = '{}'::jsonb WHERE game_id = %s",
        "UPDATE games_event SET seq = seq + 1000 WHERE game_id = %s",
        "DELETE FROM games_event WHERE game_id = %s",
    ],
)
def test_the_database_refuses_to_change_or_delete_events(game_id: int, sql: str) -> None:
    before = list(Event.objects.filter(game_id=game_id).values_list("seq", "hash"))
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql, [game_id])
    assert list(Event.objects.filter(game_id=game_id).values_list("seq", "hash")) == before


def _truncate_in_a_normal_session() -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending FK checks from this test's inserts
        # the test database allows TRUNCATE for its own teardown; a normal session does not
        cursor.execute("SET LOCAL goodcritters.allow_event_truncate = 'off'")
        cursor.execute("TRUNCATE games_event CASCADE")


def test_the_database_refuses_to_truncate_events(game_id: int) -> None:
    with pytest.raises(DatabaseError, match="append-only"):
        _truncate_in_a_normal_session()
    assert Event.objects.filter(game_id=game_id).exists()


def test_the_orm_cannot_delete_a_game_with_events(game_id: int) -> None:
    with pytest.raises(Exception), transaction.atomic():  # noqa: B017, PT011 - PROTECT or the trigger
        Game.objects.filter(pk=game_id).delete()
    assert Event.objects.filter(game_id=game_id).exists()


def test_the_hash_chain_covers_every_stored_field(game_id: int) -> None:
    events = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    assert events[0].prev_hash == store.GENESIS_HASH
    for prev, event in itertools.pairwise(events):
        assert event.prev_hash == prev.hash
    assert Game.objects.get(pk=game_id).head_hash == events[-1].hash
    assert store.verify_chain(game_id)
    # any change to a stored field breaks the chain (checked on copies: the rows themselves are immutable)
    for field, value in (("data", {"type": "X"}), ("command_id", "forged"), ("actor_id", 999), ("type", "Y")):
        forged = list(Event.objects.filter(game_id=game_id).order_by("seq"))
        setattr(forged[1], field, value)
        assert not store.verify_chain(game_id, forged), field


def test_canonical_json_is_sorted_compact_utf8() -> None:
    assert store.canonical_json({"b": 1, "a": ["é", None]}) == '{"a":["é",null],"b":1}'.encode()


def test_append_checks_the_expected_version(game_id: int) -> None:
    game = Game.objects.get(pk=game_id)
    with pytest.raises(store.ConcurrencyError), transaction.atomic():
        store.append(
            game,
            [store.NewEvent("MessageSent", 1, {})],
            expected_version=game.version - 1,
            command_id="x",
            actor_id=None,
            now=game.created_at,
        )


def test_the_seed_is_in_the_first_event_only_server_side(game_id: int) -> None:
    first = Event.objects.get(game_id=game_id, seq=1)
    assert first.type == "GameStarted"
    assert len(first.data["seed"]) == 64
    table_api = start_table(4).apis[0]
    state = table_api.get(f"/api/v1/games/{game_id}/state").json()  # a spectator
    assert first.data["seed"] not in str(state)
    feed = table_api.get(f"/api/v1/games/{game_id}/events").json()
    assert first.data["seed"] not in str(feed)
    assert feed["events"][0]["event"]["seed"] is None
    assert feed["events"][0]["hash"] is None


def test_cached_folds_equal_a_full_replay_at_every_version() -> None:
    """The state cache (games.statecache) never changes what a fold gives."""
    table = start_table(4, {"payoffs": True})
    play_over_http(table.apis, table.game_id)
    game = Game.objects.get(pk=table.game_id)
    events = list(Event.objects.filter(game_id=game.pk).order_by("seq"))
    states = []
    state = RULESET.initial_state()
    for e in events:
        state = RULESET.evolve(state, RULESET.event_from_json(e.data))
        states.append(state)
    # a cached prefix continued with the rest equals the full fold, wherever the cache stopped
    for cut in sorted({1, 2, len(events) // 3, len(events) // 2, len(events) - 1}):
        statecache.clear()
        statecache.put(game.pk, statecache.Entry(RULESET.version, cut, events[cut - 1].hash, states[cut - 1]))
        assert loading.load_state(game) == states[-1] == loading.full_replay(game)
    # a cache entry of another rules version, or of another chain, is ignored
    statecache.clear()
    statecache.put(game.pk, statecache.Entry("other", 1, events[0].hash, RULESET.initial_state()))
    assert loading.load_state(game) == states[-1]
    statecache.clear()
    statecache.put(game.pk, statecache.Entry(RULESET.version, 1, "f" * 64, RULESET.initial_state()))
    assert loading.load_state(game) == states[-1]
