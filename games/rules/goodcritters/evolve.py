"""``evolve(state, event)``: applies a fact. Never rejects, never draws: every outcome is in the event."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from .cards import PAYOFF_CARDS_EACH, PAYOFF_TOKENS_EACH
from .events import (
    ActionChosen,
    ActionRevealed,
    BossBonus,
    BossChanged,
    FuzzRevealed,
    GameEnded,
    GameStarted,
    GiftGiven,
    LootAwarded,
    LootConfiscated,
    LootDistributed,
    LootReturned,
    LootRevealed,
    LootSkimmed,
    PayoffOffered,
    PayoffResolved,
    PayoffWithdrawn,
    RobGuarded,
    RobSucceeded,
    RoundEnded,
    RoundStarted,
    StepClosed,
    StepOpened,
    ThreatPlaced,
    ThreatRemoved,
    TradeAccepted,
    TradeDeclined,
    TradeFailed,
    TradeOffered,
    TradesLapsed,
    TradeWithdrawn,
    VoteResolved,
)
from .state import INITIAL_STATE, OVER, RESOLVE, Bundle, State, Trade, setitem, update


def _unready(ready: tuple[bool, ...], seats: tuple[int, ...]) -> tuple[bool, ...]:
    if not seats:
        return ready
    out = list(ready)
    for s in seats:
        out[s] = False
    return tuple(out)


def _bump(changes: tuple[int, ...], seat: int) -> tuple[int, ...]:
    return setitem(changes, seat, changes[seat] + 1)


def _move_loot(
    stashes: tuple[frozenset[int], ...], giver: int | None, taker: int | None, cards: tuple[int, ...]
) -> tuple[frozenset[int], ...]:
    if not cards:
        return stashes
    out = list(stashes)
    if giver is not None:
        out[giver] = out[giver].difference(cards)
    if taker is not None:
        out[taker] = out[taker].union(cards)
    return tuple(out)


def _move_payoff(
    payoff: tuple[int, ...], giver: int | None, taker: int | None, count: int
) -> tuple[int, ...]:
    if not count:
        return payoff
    out = list(payoff)
    if giver is not None:
        out[giver] -= count
    if taker is not None:
        out[taker] += count
    return tuple(out)


def _game_started(s: State, e: GameStarted) -> State:
    n = len(e.players)
    payoff = PAYOFF_CARDS_EACH if e.options.payoffs else 0
    return State(
        phase=RESOLVE,
        n=n,
        players=e.players,
        options=e.options,
        seed=bytes.fromhex(e.seed),
        fair=e.fair,
        types=e.types,
        pile=e.pile,
        top=0,
        boss=e.boss,
        stashes=tuple(frozenset(cards) for cards in e.stashes),
        payoff_cards=(payoff,) * n,
        actions=(None,) * n,
        action_commits=(-1,) * n,
        ready=(False,) * n,
        threats=(None,) * n,
        bundles=(None,) * (n * PAYOFF_TOKENS_EACH),
        changes=(0,) * n,
        revealed=(False,) * n,
        resigned=(False,) * n,
        rules=e.rules,
    )


def _round_started(s: State, e: RoundStarted) -> State:
    return update(s, round=e.round, boss=e.boss, phase=RESOLVE)


def _loot_revealed(s: State, e: LootRevealed) -> State:
    return update(s, table=s.table + e.cards, top=s.top + len(e.cards))


def _fuzz_revealed(s: State, e: FuzzRevealed) -> State:
    return update(s, top=s.top + 1, fuzz_out=True, fuzz_skimmed=s.fuzz_skimmed or e.cause == "skim")


def _step_opened(s: State, e: StepOpened) -> State:
    n = s.n
    return update(s, phase=e.step, step_no=e.step_no, changes=(0,) * n, ready=(False,) * n)


def _loot_distributed(s: State, e: LootDistributed) -> State:
    return update(s, shares=e.shares, phase=RESOLVE)


def _action_chosen(s: State, e: ActionChosen) -> State:
    seat = e.seat
    return update(
        s,
        actions=setitem(s.actions, seat, e.action),
        action_commits=setitem(s.action_commits, seat, e.commit_no),
        commit_no=e.commit_no + 1,
        changes=_bump(s.changes, seat),
        ready=_unready(s.ready, e.unready),
    )


def _threat_placed(s: State, e: ThreatPlaced) -> State:
    return update(
        s,
        threats=setitem(s.threats, e.seat, e.target),
        changes=_bump(s.changes, e.seat),
        ready=_unready(s.ready, e.unready),
    )


def _threat_removed(s: State, e: ThreatRemoved) -> State:
    return update(
        s,
        threats=setitem(s.threats, e.seat, None),
        changes=_bump(s.changes, e.seat),
        ready=_unready(s.ready, e.unready),
    )


class _Seat(Protocol):
    seat: int


class _Ready(Protocol):
    seat: int
    ready: bool


class _Unready(Protocol):
    unready: tuple[int, ...]


def _ready_set(s: State, e: _Ready) -> State:
    return update(s, ready=setitem(s.ready, e.seat, e.ready))


def _return_bundle(s: State, b: Bundle | None) -> tuple[tuple[frozenset[int], ...], tuple[int, ...]]:
    if b is None:
        return s.stashes, s.payoff_cards
    return (
        _move_loot(s.stashes, None, b.giver, b.loot),
        _move_payoff(s.payoff_cards, None, b.giver, b.payoff_cards),
    )


def _payoff_offered(s: State, e: PayoffOffered) -> State:
    index = e.seat * 2 + e.token
    stashes, payoff = _return_bundle(s, s.bundles[index])
    bundle = Bundle(e.seat, e.token, e.side, e.target, e.visibility, e.loot, e.payoff_cards, e.commit_no)
    return update(
        s,
        stashes=_move_loot(stashes, e.seat, None, e.loot),
        payoff_cards=_move_payoff(payoff, e.seat, None, e.payoff_cards),
        bundles=setitem(s.bundles, index, bundle),
        commit_no=s.commit_no if e.commit_no is None else e.commit_no + 1,
        changes=_bump(s.changes, e.seat),
        ready=_unready(s.ready, e.unready),
    )


def _payoff_withdrawn(s: State, e: PayoffWithdrawn) -> State:
    index = e.seat * 2 + e.token
    stashes, payoff = _return_bundle(s, s.bundles[index])
    return update(
        s,
        stashes=stashes,
        payoff_cards=payoff,
        bundles=setitem(s.bundles, index, None),
        changes=_bump(s.changes, e.seat),
        ready=_unready(s.ready, e.unready),
    )


def _gift_given(s: State, e: GiftGiven) -> State:
    return update(
        s,
        stashes=_move_loot(s.stashes, e.seat, e.to, e.loot),
        payoff_cards=_move_payoff(s.payoff_cards, e.seat, e.to, e.payoff_cards),
        changes=_bump(s.changes, e.seat),
        ready=_unready(s.ready, e.unready),
    )


def _trade_offered(s: State, e: TradeOffered) -> State:
    trade = Trade(e.trade_id, e.seat, e.to, e.give_loot, e.give_payoff, e.want_values, e.want_payoff)
    return update(
        s,
        trades=(*s.trades, trade),
        next_trade_id=e.trade_id + 1,
        changes=_bump(s.changes, e.seat),
        ready=_unready(s.ready, e.unready),
    )


def _without_trade(trades: tuple[Trade, ...], trade_id: int) -> tuple[Trade, ...]:
    return tuple(t for t in trades if t.trade_id != trade_id)


def _trade_accepted(s: State, e: TradeAccepted) -> State:
    stashes = _move_loot(s.stashes, e.offerer, e.seat, e.give_loot)
    stashes = _move_loot(stashes, e.seat, e.offerer, e.take_loot)
    payoff = _move_payoff(s.payoff_cards, e.offerer, e.seat, e.give_payoff)
    payoff = _move_payoff(payoff, e.seat, e.offerer, e.take_payoff)
    return update(
        s,
        stashes=stashes,
        payoff_cards=payoff,
        trades=_without_trade(s.trades, e.trade_id),
        changes=_bump(s.changes, e.seat),
        ready=_unready(s.ready, e.unready),
    )


def _trade_closed(s: State, e: TradeFailed | TradeDeclined | TradeWithdrawn) -> State:
    return update(
        s,
        trades=_without_trade(s.trades, e.trade_id),
        changes=_bump(s.changes, e.seat),
        ready=_unready(s.ready, e.unready),
    )


def _trades_lapsed(s: State, e: TradesLapsed) -> State:
    lapsed = set(e.trade_ids)
    return update(s, trades=tuple(t for t in s.trades if t.trade_id not in lapsed))


def _step_closed(s: State, e: StepClosed) -> State:
    return update(s, phase=RESOLVE)


def _action_revealed(s: State, e: ActionRevealed) -> State:
    return update(s, revealed=setitem(s.revealed, e.seat, True), actions=setitem(s.actions, e.seat, e.action))


def _payoff_resolved(s: State, e: PayoffResolved) -> State:
    index = e.seat * 2 + e.token
    taker = e.target if e.taken else e.seat
    bundle = s.bundles[index]
    loot = bundle.loot if bundle is not None else e.loot
    return update(
        s,
        stashes=_move_loot(s.stashes, None, taker, loot),
        payoff_cards=_move_payoff(s.payoff_cards, None, taker, e.payoff_cards),
        bundles=setitem(s.bundles, index, None),
    )


def _loot_skimmed(s: State, e: LootSkimmed) -> State:
    if e.card is None:
        return update(s, skimmed=True)
    return update(s, skimmed=True, top=s.top + 1, stashes=_move_loot(s.stashes, None, e.seat, (e.card,)))


def _rob_succeeded(s: State, e: RobSucceeded) -> State:
    if e.card is None:
        return s
    return update(s, stashes=_move_loot(s.stashes, e.victim, e.robber, (e.card,)))


def _rob_guarded(s: State, e: RobGuarded) -> State:
    if e.card is None:
        return s
    return update(s, stashes=_move_loot(s.stashes, e.robber, e.guard, (e.card,)))


def _vote_resolved(s: State, e: VoteResolved) -> State:
    return update(s, last_vote=(e.yes, e.no, e.outcome), boss_rounds=s.boss_rounds + 1)


def _loot_awarded(s: State, e: LootAwarded) -> State:
    out = list(s.stashes)
    for seat, cards in enumerate(e.shares):
        if cards:
            out[seat] = out[seat].union(cards)
    return update(s, stashes=tuple(out), table=(), shares=None)


def _loot_returned(s: State, e: LootReturned) -> State:
    return update(s, shares=None)


def _boss_changed(s: State, e: BossChanged) -> State:
    return update(s, boss=e.boss, boss_rounds=0)


def _boss_bonus(s: State, e: BossBonus) -> State:
    if e.card is None:
        return s
    return update(s, top=s.top + 1, stashes=_move_loot(s.stashes, None, e.seat, (e.card,)))


def _round_ended(s: State, e: RoundEnded) -> State:
    n = s.n
    return update(
        s,
        actions=(None,) * n,
        action_commits=(-1,) * n,
        ready=(False,) * n,
        threats=(None,) * n,
        bundles=(None,) * (n * PAYOFF_TOKENS_EACH),
        revealed=(False,) * n,
        skimmed=False,
        shares=None,
    )


def _loot_confiscated(s: State, e: LootConfiscated) -> State:
    return update(s, confiscated=s.confiscated + e.cards, table=(), shares=None)


def _game_ended(s: State, e: GameEnded) -> State:
    return update(s, phase=OVER, end_reason=e.reason, scores=e.scores, winners=e.winners)


_HANDLERS: dict[type[Any], Callable[[State, Any], State]] = {
    GameStarted: _game_started,
    RoundStarted: _round_started,
    LootRevealed: _loot_revealed,
    FuzzRevealed: _fuzz_revealed,
    StepOpened: _step_opened,
    LootDistributed: _loot_distributed,
    ActionChosen: _action_chosen,
    ThreatPlaced: _threat_placed,
    ThreatRemoved: _threat_removed,
    PayoffOffered: _payoff_offered,
    PayoffWithdrawn: _payoff_withdrawn,
    GiftGiven: _gift_given,
    TradeOffered: _trade_offered,
    TradeAccepted: _trade_accepted,
    TradeFailed: _trade_closed,
    TradeDeclined: _trade_closed,
    TradeWithdrawn: _trade_closed,
    TradesLapsed: _trades_lapsed,
    StepClosed: _step_closed,
    ActionRevealed: _action_revealed,
    PayoffResolved: _payoff_resolved,
    LootSkimmed: _loot_skimmed,
    RobSucceeded: _rob_succeeded,
    RobGuarded: _rob_guarded,
    VoteResolved: _vote_resolved,
    LootAwarded: _loot_awarded,
    LootReturned: _loot_returned,
    BossChanged: _boss_changed,
    BossBonus: _boss_bonus,
    RoundEnded: _round_ended,
    LootConfiscated: _loot_confiscated,
    GameEnded: _game_ended,
}


# --- the table's facts that GoodCritters' rules read (games.rules.table: its events, by TYPE) ---
def _player_resigned(s: State, e: _Seat) -> State:
    """R7.4: a resigned player cannot win, and counts as done in Step 3."""
    return update(s, resigned=setitem(s.resigned, e.seat, True))


def _deadline_extended(s: State, e: _Unready) -> State:
    """R7.5 (extensions): every ready flag is cleared."""
    return update(s, ready=_unready(s.ready, e.unready))


FOLLOWED: dict[str, Callable[[State, Any], State]] = {
    "PlayerResigned": _player_resigned,
    "ReadySet": _ready_set,
    "DeadlineExtended": _deadline_extended,
}
"""The table's events GoodCritters folds too, by ``TYPE`` (``games.rules.table.game.WritesTableFacts``)."""


def evolve(state: State, event: Any) -> State:
    """Apply one event (a fact) to the state: the game's own, or one of the table's it follows."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        handler = FOLLOWED[event.TYPE]
    return handler(state, event)


def fold(events: Iterable[Any], state: State | None = None) -> State:
    s = INITIAL_STATE if state is None else state
    handlers = _HANDLERS
    for event in events:
        s = handlers[type(event)](s, event) if type(event) in handlers else evolve(s, event)
    return s
