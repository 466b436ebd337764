"""Given-events / when-command / then-events-or-error helpers for the GoodCritters rules tests."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from games.rules.core import Context, RuleError
from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from games.rules.goodcritters.cards import FUZZ, LOOT_COUNT, VALUES
from games.rules.goodcritters.state import State
from games.rules.table import commands as tc
from games.rules.table.state import TableState
from tests.rules.gc import RULESET

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
CTX = Context(now=T0)
SEED = bytes(range(32))

FIRST = {2000: 0, 3000: 35, 4000: 70, 5000: 105}


def card(value: int, k: int) -> int:
    """The ``k``-th card of ``value`` that the default test stashes leave free (k < 27)."""
    return FIRST[value] + 8 + k


def default_stash(seat: int) -> tuple[int, ...]:
    """Seat ``seat``'s starting Stash in operator setups: one card of each value (R1.3)."""
    return tuple(FIRST[v] + seat for v in (2000, 3000, 4000, 5000))


def make_setup(
    n: int,
    *,
    top: Sequence[int] = (),
    fuzz_at: int | None = None,
    stashes: Sequence[Sequence[int]] | None = None,
    seats: Sequence[str] | None = None,
    boss: int | None = None,
) -> dict[str, Any]:
    """An operator setup: ``top`` cards first on the pile, then every other card by id; The Fuzz! after
    ``fuzz_at`` cards (default: at the bottom)."""
    stash_lists = (
        [list(s) for s in stashes] if stashes is not None else [list(default_stash(s)) for s in range(n)]
    )
    used = {x for s in stash_lists for x in s} | set(top)
    rest = [x for x in range(LOOT_COUNT) if x not in used]
    pile = list(top) + rest
    at = len(pile) if fuzz_at is None else fuzz_at
    pile.insert(at, FUZZ)
    setup: dict[str, Any] = {"stashes": stash_lists, "pile": pile}
    if seats is not None:
        setup["seats"] = list(seats)
    if boss is not None:
        setup["boss"] = boss
    return setup


def players(n: int) -> list[str]:
    return [f"p{i}" for i in range(n)]


def start(
    n: int = 5,
    *,
    options: Mapping[str, Any] | None = None,
    setup: dict[str, Any] | None = None,
    names: Sequence[str] | None = None,
    creator: str | None = None,
    seed: bytes = SEED,
    now: datetime = T0,
) -> list[e.Event]:
    """The events of a game just started (GameStarted and the opening of Step 2)."""
    names = list(names) if names is not None else players(n)
    command = RULESET.start_command(
        players=names,
        creator=creator if creator is not None else names[0],
        options=RULESET.parse_options(dict(options or {})),
        seed=seed,
        setup=setup,
    )
    return RULESET.decide(RULESET.initial_state(), command, Context(now=now))


class Then:
    def __init__(self, given: Given, command: Any, now: datetime) -> None:
        self.given = given
        self.command = command
        self.now = now

    def _run(self) -> list[e.Event]:
        return RULESET.decide(self.given.table, self.command, Context(now=self.now))

    def raises(self, code: str) -> RuleError:
        with pytest.raises(RuleError) as info:
            self._run()
        assert info.value.code == code, f"expected {code}, got {info.value.code}: {info.value.message}"
        return info.value

    def then(self, *expected: Any) -> Given:
        """Exactly these events."""
        events = self._run()
        assert events == list(expected)
        return self.given.and_(events)

    def then_includes(self, *expected: Any) -> Given:
        """These events, in this order, among others."""
        events = self._run()
        it = iter(events)
        for want in expected:
            assert any(got == want for got in it), f"missing {want!r} in {events!r}"
        return self.given.and_(events)

    def events(self) -> list[e.Event]:
        return self._run()

    def ok(self) -> Given:
        return self.given.and_(self._run())


@dataclass
class Given:
    events: list[e.Event]
    table: TableState  # the table's state (seats, deadlines, pause), GoodCritters' own in ``state``

    @property
    def state(self) -> State:
        """GoodCritters' own state."""
        game: State = self.table.game
        return game

    def when(self, command: Any, *, now: datetime = T0) -> Then:
        return Then(self, command, now)

    def and_(self, events: Iterable[e.Event]) -> Given:
        events = list(events)
        return Given(self.events + events, RULESET.fold(events, self.table))

    def do(self, *commands: Any, now: datetime = T0) -> Given:
        """Apply commands one after the other (each must be accepted)."""
        g = self
        for command in commands:
            g = g.when(command, now=now).ok()
        return g

    def last(self, kind: type[Any]) -> Any:
        return [x for x in self.events if isinstance(x, kind)][-1]

    def all(self, kind: type[Any]) -> list[Any]:
        return [x for x in self.events if isinstance(x, kind)]

    def since(self, count: int) -> list[e.Event]:
        return self.events[count:]


def given(events: Iterable[e.Event]) -> Given:
    events = list(events)
    return Given(events, RULESET.fold(events))


def choose_all(g: Given, actions: dict[int, str], *, ready: bool = True) -> Given:
    """Every seat in ``actions`` chooses; then each is ready (in seat order) when ``ready``."""
    for seat, action in actions.items():
        g = g.do(c.ChooseAction(seat=seat, action=action))
    if ready:
        for seat in actions:
            if not g.state.ready[seat] and g.state.phase == "choose":
                g = g.do(tc.SetReady(seat=seat, ready=True))
    return g


def distribute(g: Given, shares: Mapping[int, Sequence[int]]) -> Given:
    n = g.state.n
    return g.do(c.DistributeLoot(seat=g.state.boss, shares=tuple(tuple(shares.get(s, ())) for s in range(n))))


def all_to(g: Given, seat: int) -> Given:
    return distribute(g, {seat: g.state.table})


def value_of(cards: Iterable[int]) -> int:
    return sum(VALUES[x] for x in cards)


def later(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def round_trip(event: Any) -> None:
    data = RULESET.event_to_json(event)
    assert RULESET.event_from_json(json.loads(json.dumps(data))) == event


def predicate_events(g: Given, pred: Callable[[Any], bool]) -> list[Any]:
    return [x for x in g.events if pred(x)]
