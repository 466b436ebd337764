"""Given-events / when-command helpers for the Loose Triggers tests (pure: no Django)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import pytest

from games.rules import rng
from games.rules.core import RuleError
from games.rules.loose_triggers import decide as d
from games.rules.loose_triggers.commands import (
    Aim,
    ChooseAction,
    CloseStep,
    Command,
)
from games.rules.loose_triggers.events import Event, GameStarted
from games.rules.loose_triggers.evolve import evolve, fold
from games.rules.loose_triggers.options import RULES, Options
from games.rules.loose_triggers.state import INITIAL_STATE, State, card_places

SEED = bytes(range(32))


def start_events(
    n: int = 4,
    *,
    hands: Sequence[Sequence[int]] | None = None,
    bagman: int = 0,
    loot_deck: Sequence[int] | None = None,
    action_deck: Sequence[int] | None = None,
    pals: Sequence[int] | None = None,
    options: Options | None = None,
    rules: int = RULES,
) -> list[Event]:
    """A GameStarted with chosen hands and decks, and what the rules do next (the first display); ``rules``:
    the rules' version (README "Rules versions"), the newest unless told."""
    if hands is None:
        hands = [(1 + i, 13 + i, 21 + i) for i in range(n)]  # a BANG!, a GRAB!, a DUCK! each
    held = {c for h in hands for c in h}
    if action_deck is None:
        action_deck = [c for c in range(1, 41) if c not in held]
    started = GameStarted(
        players=tuple(f"p{i}" for i in range(n)),
        aliases=("Crow", "Finch", "Heron", "Magpie", "Owl", "Raven", "Sparrow", "Wren")[:n],
        pals=tuple(pals) if pals is not None else tuple((i + 1) % n for i in range(n)),
        bagman=bagman,
        options=options or Options(),
        fair=False,
        seed=SEED.hex(),
        seed_commitment=rng.seed_commitment(SEED),
        loot_deck=tuple(loot_deck) if loot_deck is not None else tuple(range(56)),
        action_deck=tuple(action_deck),
        hands=tuple(tuple(h) for h in hands),
        rules=rules,
    )
    run = d._Run(INITIAL_STATE)
    run.emit(started)
    d._settle(run)
    return run.events


def given(events: Sequence[Event]) -> State:
    return fold(events)


def when(state: State, command: Command) -> tuple[list[Event], State]:
    events = d.decide(state, command)
    for event in events:
        state = evolve(state, event)
        card_places(state)
    return events, state


def refused(state: State, command: Command, code: str) -> RuleError:
    with pytest.raises(RuleError) as info:
        d.decide(state, command)
    assert info.value.code == code, info.value
    return info.value


def types(events: Sequence[Event]) -> list[str]:
    return [e.TYPE for e in events]


E = TypeVar("E")


def of(events: Sequence[Event], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def discussion(
    state: State, aims: Sequence[tuple[int, int]], choices: dict[int, int]
) -> tuple[list[Event], State]:
    """Aim in order (the first opens), lock, choose, reveal: every event until the resolution stops."""
    events: list[Event] = []
    for seat, target in aims:
        new, state = when(state, Aim(seat=seat, target=target))
        events += new
    new, state = when(state, CloseStep(seat=None, step_no=state.step_no))
    events += new
    if state.step == "choose":
        for seat, card in choices.items():
            new, state = when(state, ChooseAction(seat=seat, card=card))
            events += new
        new, state = when(state, CloseStep(seat=None, step_no=state.step_no))
        events += new
    return events, state
