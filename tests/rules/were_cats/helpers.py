"""Given / when / then helpers for the Were-cats rules tests (pure: no Django, no database)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from games.rules.core import RuleError
from games.rules.were_cats import commands as c
from games.rules.were_cats import events as ev
from games.rules.were_cats.coins import TOTAL, Coins
from games.rules.were_cats.game import GAME
from games.rules.were_cats.state import State, coin_census, update

SEED = bytes(range(32))
NONE: Coins = (0, 0, 0)


def players(n: int) -> list[str]:
    return [f"player-{i}" for i in range(n)]


def started(n: int = 3, *, first_seat: int | None = 0, max_rounds: int = 20) -> State:
    """A game just started, waiting on ``first_seat``'s setup choice."""
    setup = None if first_seat is None else {"first_seat": first_seat}
    start = GAME.start_command(players(n), GAME.options.parse({"max_rounds": max_rounds}), SEED, setup)
    return GAME.fold(GAME.decide(GAME.initial_state(), start))


def when(state: State, *commands: Any) -> tuple[State, list[ev.Event]]:
    """Apply ``commands`` in turn; the state after them and every event they yielded."""
    events: list[ev.Event] = []
    for command in commands:
        new = GAME.decide(state, command)
        events.extend(new)
        state = GAME.fold(new, state)
        assert_conserved(state)
    return state, events


def refused(state: State, command: Any, code: str) -> RuleError:
    with pytest.raises(RuleError) as info:
        GAME.decide(state, command)
    assert info.value.code == code, info.value
    return info.value


def after_setup(kinds: Sequence[str], *, first_seat: int = 0, max_rounds: int = 20) -> State:
    """Every seat chose (``kinds[seat]``), round 1's Phase 1 is open."""
    n = len(kinds)
    state = started(n, first_seat=first_seat, max_rounds=max_rounds)
    for k in range(n):
        seat = (first_seat + k) % n
        state, _ = when(state, c.ChooseStartingCoins(seat=seat, kind=kinds[seat]))
    return state


def types(events: Sequence[ev.Event]) -> list[str]:
    return [e.TYPE for e in events]


def of(events: Sequence[ev.Event], cls: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def assert_conserved(state: State) -> None:
    """10 pennies, 6 nickels, 6 dimes, always somewhere (WC1.1)."""
    if state.n == 0:
        return
    total = [0, 0, 0]
    for coins in coin_census(state).values():
        assert min(coins) >= 0, coin_census(state)
        for i in range(3):
            total[i] += coins[i]
    assert tuple(total) == TOTAL, coin_census(state)


def given(state: State, **changes: Any) -> State:
    """A position built by hand from ``state`` (coins still conserved)."""
    state = update(state, **changes)
    assert_conserved(state)
    return state
