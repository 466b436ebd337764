"""Checks every ruleset state and feed must pass (used by the conformance suite)."""

from __future__ import annotations

import json
from typing import Any

from games.rules.goodcritters import events as e
from games.rules.goodcritters.cards import FUZZ, LOOT_COUNT, PAYOFF_CARDS_EACH, VALUES
from games.rules.goodcritters.state import OVER, State
from games.rules.table.state import TableState
from tests.rules.gc import RULESET

CARD_FIELDS = ("cards", "loot", "card", "give_loot", "take_loot", "stashes", "shares", "pile", "table")


_ALL_WITH_FUZZ = list(range(LOOT_COUNT + 1))
_ALL_LOOT = list(range(LOOT_COUNT))


def check_conservation(state: State) -> None:
    """Each of the 140 Loot cards in exactly one place, The Fuzz! in the pile until it left; Payoff cards
    conserved; nothing negative."""
    cards: list[int] = [*state.table, *state.confiscated, *state.pile[state.top :]]
    for stash in state.stashes:
        cards.extend(stash)
    for bundle in state.bundles:
        if bundle is not None:
            cards.extend(bundle.loot)
    cards.sort()
    assert cards == (_ALL_LOOT if state.fuzz_out else _ALL_WITH_FUZZ), "a card is lost or in two places"
    assert FUZZ in state.pile[state.top :] or state.fuzz_out
    assert all(p >= 0 for p in state.payoff_cards)
    total = sum(state.payoff_cards) + sum(b.payoff_cards for b in state.bundles if b is not None)
    assert total == (PAYOFF_CARDS_EACH * state.n if state.options.payoffs else 0)
    if state.shares is not None:
        assert sorted(c for share in state.shares for c in share) == sorted(state.table)
    assert 0 <= state.top <= len(state.pile)


def check_json(event: Any) -> None:
    data = RULESET.event_to_json(event)
    text = json.dumps(data)
    assert RULESET.event_from_json(json.loads(text)) == event


def check_command_json(command: Any) -> None:
    data = json.loads(json.dumps(RULESET.command_to_json(command)))
    assert RULESET.command_from_json(data, command.seat) == command


def _cards_in(value: Any, key: str | None = None) -> set[int]:
    """Card ids in a JSON value: ints under card fields, and ``id`` of card objects."""
    found: set[int] = set()
    if isinstance(value, dict):
        if "id" in value and "value" in value and isinstance(value["id"], int):
            found.add(value["id"])
        for k, v in value.items():
            found |= _cards_in(v, k)
    elif isinstance(value, list):
        for v in value:
            found |= _cards_in(v, key)
    elif isinstance(value, int) and not isinstance(value, bool) and key in CARD_FIELDS:
        found.add(value)
    return found


class Oracle:
    """What each viewer may know so far (R8.3), tracked independently of the redaction code: cards that
    were ever in its Stash, ever face up, in bundles it may see, offered to or by it in a trade."""

    def __init__(self, n: int) -> None:
        self.viewers: list[int | None] = [*range(n), None]
        self.seen: dict[int | None, set[int]] = {v: set() for v in self.viewers}

    def learn(self, state: State, event: Any) -> None:
        public = set(state.table)
        for bundle in state.bundles:
            if bundle is not None and bundle.visibility == "open":
                public |= set(bundle.loot)
        for v in self.viewers:
            seen = self.seen[v]
            seen |= public
            if v is None:
                continue
            seen |= state.stashes[v]
            for bundle in state.bundles:
                if bundle is not None and (
                    bundle.giver == v or (bundle.target == v and bundle.visibility == "peek")
                ):
                    seen |= set(bundle.loot)
            for trade in state.trades:
                if v in (trade.seat, trade.to):
                    seen |= set(trade.give_loot)
        if isinstance(event, e.GameStarted):
            for v, stash in enumerate(event.stashes):
                self.seen[v] |= set(stash)

    def check_event(self, event: Any, state: State, seed_hex: str) -> None:
        for v in self.viewers:
            out = RULESET.redact_event(event, v, terminal=False)
            text = json.dumps(out)
            assert seed_hex not in text, f"the seed leaks to {v} in {event.TYPE}"
            leaked = _cards_in(out) - self.seen[v]
            assert not leaked, f"{event.TYPE} shows {v} cards {sorted(leaked)}"
            if isinstance(event, e.ActionChosen) and v != event.seat:
                assert out["action"] is None
            if isinstance(event, e.GameStarted):
                assert (out["pile"], out["types"], out["seed"]) == (None, None, None)

    def check_view(self, table: TableState, seed_hex: str) -> None:
        for v in self.viewers:
            view = RULESET.view_for(table, v)
            assert seed_hex not in json.dumps(view)
            leaked = _cards_in(view) - self.seen[v]
            assert not leaked, f"the view shows {v} cards {sorted(leaked)}"
            for seat in view["seats"]:
                if seat["seat"] != v:
                    assert (seat["stash"], seat["action"], seat["stash_value"]) == (None, None, None)
            assert (view["pile"], view["seed"], view["scores"]) == (None, None, None)


def check_final(table: TableState, events: list[Any]) -> None:
    state: State = table.game
    assert state.phase == OVER
    assert RULESET.fold(events) == table
    ended = events[-1]
    assert isinstance(ended, e.GameEnded)
    assert list(ended.scores) == [
        sum(VALUES[c] for c in state.stashes[s]) + 1000 * state.payoff_cards[s] for s in range(state.n)
    ]
    eligible = [s for s in range(state.n) if not state.resigned[s]]
    if eligible:
        best = max(ended.scores[s] for s in eligible)
        assert ended.winners == tuple(s for s in eligible if ended.scores[s] == best)
    for v in (None, 0):
        full = RULESET.view_for(table, v)
        assert full["seed"] == state.seed.hex()
        assert all(seat["stash"] is not None for seat in full["seats"])
