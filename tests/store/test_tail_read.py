"""The log's tail read with the game (games.roster ``tail_after``) gives the same fold as reading the events
apart, is used only when it reaches the game's version, and saves the separate read when it does."""

from __future__ import annotations

import pytest
from django.db import transaction

from games import loading, roster, statecache
from games.models import Event, Game
from games.rules.registry import get_ruleset
from tests.conftest import start_table

pytestmark = pytest.mark.django_db

RULESET = get_ruleset("goodcritters")


def _folds() -> tuple[Game, list[Event], list[object]]:
    table = start_table(4)
    for i in range(6):
        table.apis[i % 4].command(table.game_id, "send-message", {"text": f"m{i}"})
    game = Game.objects.get(pk=table.game_id)
    events = list(Event.objects.filter(game_id=game.pk).order_by("seq"))
    states, state = [], RULESET.initial_state()
    for e in events:
        state = RULESET.evolve(state, RULESET.event_from_json(e.data))
        states.append(state)
    return game, events, states


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The versions after which load_state read the events itself (a statement of its own)."""
    seen: list[int] = []
    real = loading._event_rows

    def counted(game: Game, after: int) -> list[tuple[int, str, str, object]]:
        seen.append(after)
        return real(game, after)

    monkeypatch.setattr(loading, "_event_rows", counted)
    return seen


def _cache(game: Game, events: list[Event], states: list[object], cut: int) -> None:
    statecache.clear()
    if cut:
        statecache.put(game.pk, statecache.Entry(RULESET.version, cut, events[cut - 1].hash, states[cut - 1]))


def test_a_cached_fold_continued_from_the_tail_equals_a_full_replay(reads: list[int]) -> None:
    game, events, states = _folds()
    for cut in (0, 1, len(events) // 2, len(events) - 1, len(events)):
        _cache(game, events, states, cut)
        with transaction.atomic():
            locked = roster.lock_game(game.pk, tail_after=loading.cached_version(game.pk))
            assert loading.load_state(locked) == states[-1]
        _cache(game, events, states, cut)
        read = roster.get_game(game.pk, tail_after=cut)
        assert loading.load_state(read) == states[-1] == loading.full_replay(game)
    assert reads == []  # the tail came with the game every time


def test_a_tail_that_does_not_reach_the_version_is_not_used(reads: list[int]) -> None:
    """A statement that waited for the lock reads its subqueries in an older snapshot: here, a tail that stops
    short of the game's version (or starts elsewhere) makes load_state read the events itself."""
    game, events, states = _folds()
    cut = len(events) // 2
    _cache(game, events, states, cut)
    read = roster.get_game(game.pk, tail_after=cut)
    after, rows = read.__dict__["_tail"]
    read.__dict__["_tail"] = (after, rows[:-1])  # as if the last event committed after the snapshot
    assert loading.load_state(read) == states[-1]
    assert reads == [cut]
    _cache(game, events, states, cut)
    read.__dict__["_tail"] = (after - 1, rows)  # a tail after another version
    assert loading.load_state(read) == states[-1]
    assert reads == [cut, cut]
