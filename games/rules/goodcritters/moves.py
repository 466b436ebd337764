"""GoodCritters' legal moves with their arguments (issue #24, ``games.rules.moves``): for each command a seat
may send now (``game.legal_commands``), the values each field may take, from the checks ``decide`` makes
(R2.2, R2.3, R6.1-R6.4); tests/rules/test_moves.py plays every one of them through ``decide``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Final

from games.rules.moves import Choice, Group, Groups, Integer, Move, Multiset, Partition, Subset

from . import commands as cmd
from .cards import (
    ACTIONS,
    BUNDLE_VISIBILITIES,
    MAX_PLAYERS,
    PAYOFF_CARDS_EACH,
    PAYOFF_SIDES,
    STARTING_VALUES,
    VALUES,
)
from .decide import MAX_OPEN_TRADES
from .state import State

Builder = Callable[[State, int], list[Move]]
MAX_WANTED: Final = 10  # the most Loot cards a trade offer the moves describe asks for (the rules set none)


def _cards(name: str, label: str, cards: frozenset[int] | tuple[int, ...], low: int) -> Subset:
    pool = tuple(sorted(cards))
    return Subset(name, label, pool, low, len(pool), required=False)


def _bundles(
    loot_name: str, count_name: str, cards: frozenset[int], count: int
) -> list[tuple[Subset, Integer]]:
    """A bundle holds at least one card (R6.1, R6.4): some Loot, or else at least one Payoff card."""
    out: list[tuple[Subset, Integer]] = []
    if cards:
        out.append((_cards(loot_name, "Loot cards", cards, 1), Integer(count_name, "Payoff cards", 0, count)))
    if count:
        out.append(
            (
                Subset(loot_name, "Loot cards", (), 0, 0, required=False),
                Integer(count_name, "Payoff cards", 1, count),
            )
        )
    return out


_OTHERS: Final = {
    (n, seat): tuple(s for s in range(n) if s != seat) for n in range(1, MAX_PLAYERS + 1) for seat in range(n)
}


def _others(state: State, seat: int) -> tuple[int, ...]:
    return _OTHERS[state.n, seat]


def _distribute(state: State, seat: int) -> list[Move]:  # R2.2: every face-up card to a seat, once
    return [
        Move(
            cmd.DistributeLoot.TYPE,
            (Partition("shares", "shares, one per seat", tuple(state.table), state.n),),
        )
    ]


def _choose(state: State, seat: int) -> list[Move]:  # R2.3
    return [Move(cmd.ChooseAction.TYPE, (Choice("action", "Action card", ACTIONS),))]


def _threat(state: State, seat: int) -> list[Move]:  # R2.3: never oneself, and elsewhere than now
    targets = tuple(s for s in _others(state, seat) if s != state.threats[seat])
    return (
        [Move(cmd.PlaceThreat.TYPE, (Choice("target", "Threat marker in front of", targets),))]
        if targets
        else []
    )


def _remove_threat(state: State, seat: int) -> list[Move]:
    return [Move(cmd.RemoveThreat.TYPE)]


def _offer_payoff(
    state: State, seat: int
) -> list[Move]:  # R6.1, R6.2; the same token again replaces its bundle
    out: list[Move] = []
    for token in (0, 1):
        old = state.bundle(seat, token)
        cards = state.stashes[seat] | frozenset(old.loot) if old is not None else state.stashes[seat]
        count = state.payoff_cards[seat] + (old.payoff_cards if old is not None else 0)
        for loot, payoff in _bundles("loot", "payoff_cards", cards, count):
            out.append(
                Move(
                    cmd.OfferPayoff.TYPE,
                    (
                        Choice("token", "Payoff token", (token,)),
                        Choice("side", "side", PAYOFF_SIDES),
                        Choice("target", "in front of", _others(state, seat)),
                        loot,
                        Choice("visibility", "the Loot shown", BUNDLE_VISIBILITIES, required=False),
                        payoff,
                    ),
                )
            )
    return out


def _withdraw_payoff(state: State, seat: int) -> list[Move]:
    tokens = tuple(t for t in (0, 1) if state.bundle(seat, t) is not None)
    return [Move(cmd.WithdrawPayoff.TYPE, (Choice("token", "Payoff token", tokens),))] if tokens else []


def _gift(state: State, seat: int) -> list[Move]:  # R6.4
    return [
        Move(cmd.GiveGift.TYPE, (Choice("to", "to", _others(state, seat)), loot, payoff))
        for loot, payoff in _bundles("loot", "payoff_cards", state.stashes[seat], state.payoff_cards[seat])
    ]


def _offer_trade(state: State, seat: int) -> list[Move]:  # R6.4: something given, something wanted
    if sum(1 for t in state.trades if t.seat == seat) >= MAX_OPEN_TRADES:
        return []
    most = PAYOFF_CARDS_EACH * state.n
    wants = [
        (
            Multiset("want_values", "Loot values wanted", STARTING_VALUES, 1, MAX_WANTED, required=False),
            Integer("want_payoff", "Payoff cards wanted", 0, most, required=False),
        ),
        (
            Multiset("want_values", "Loot values wanted", STARTING_VALUES, 0, MAX_WANTED, required=False),
            Integer("want_payoff", "Payoff cards wanted", 1, most, required=False),
        ),
    ]
    to = Choice("to", "with", _others(state, seat))
    return [
        Move(cmd.OfferTrade.TYPE, (to, give, give_count, want, want_count))
        for give, give_count in _bundles(
            "give_loot", "give_payoff", state.stashes[seat], state.payoff_cards[seat]
        )
        for want, want_count in wants
    ]


def _accept_trade(state: State, seat: int) -> list[Move]:
    """The cards given have exactly the values wanted (one group per value), and the Payoff cards wanted are
    the seat's to give."""
    out: list[Move] = []
    stash = state.stashes[seat]
    for trade in state.trades:
        if trade.to != seat or state.payoff_cards[seat] < trade.want_payoff:
            continue
        groups = []
        for value, count in sorted(Counter(trade.want_values).items()):
            cards = tuple(sorted(c for c in stash if VALUES[c] == value))
            if len(cards) < count:
                break
            groups.append(Group(cards, count))
        else:
            out.append(
                Move(
                    cmd.AcceptTrade.TYPE,
                    (
                        Choice("trade_id", "offer", (trade.trade_id,)),
                        Groups("loot", "your cards", tuple(groups)),
                    ),
                )
            )
    return out


def _trade_ids(name: str, label: str) -> Builder:
    def build(state: State, seat: int) -> list[Move]:
        if name == cmd.DeclineTrade.TYPE:
            ids = tuple(t.trade_id for t in state.trades if t.to == seat)
        else:
            ids = tuple(t.trade_id for t in state.trades if t.seat == seat)
        return [Move(name, (Choice("trade_id", label, ids),))] if ids else []

    return build


_BUILDERS: Final[dict[str, Builder]] = {
    cmd.DistributeLoot.TYPE: _distribute,
    cmd.ChooseAction.TYPE: _choose,
    cmd.PlaceThreat.TYPE: _threat,
    cmd.RemoveThreat.TYPE: _remove_threat,
    cmd.OfferPayoff.TYPE: _offer_payoff,
    cmd.WithdrawPayoff.TYPE: _withdraw_payoff,
    cmd.GiveGift.TYPE: _gift,
    cmd.OfferTrade.TYPE: _offer_trade,
    cmd.AcceptTrade.TYPE: _accept_trade,
    cmd.DeclineTrade.TYPE: _trade_ids(cmd.DeclineTrade.TYPE, "offer"),
    cmd.WithdrawTrade.TYPE: _trade_ids(cmd.WithdrawTrade.TYPE, "your offer"),
}


def moves(state: State, seat: int, names: list[str]) -> list[Move]:
    """The moves of the commands ``names`` (``legal_commands(state, seat)``)."""
    out: list[Move] = []
    for name in names:
        out.extend(_BUILDERS[name](state, seat))
    return out


__all__ = ["MAX_WANTED", "moves"]
