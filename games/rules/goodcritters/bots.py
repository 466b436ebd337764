"""Bots: ``random`` (any legal command) and ``sensible`` (votes by its share, guards when threatened, robs
the richest-looking player now and then; as Boss, buys enough votes with fair shares).

A bot is a pure function of the state, its seat and a ``salt``: it keeps no memory and never touches the
global ``random`` (it uses a local SplitMix64). It only ever sends legal commands and always makes progress
(a bounded number of changes per step, then choose and ready), so bot games end: the pile shrinks every
round.
"""

from __future__ import annotations

from .cards import ACTIONS, GUARD, ROB, SKIM, STARTING_VALUES, VALUES, VOTE_NO, VOTE_YES
from .commands import (
    AcceptTrade,
    ChooseAction,
    Command,
    DeclineTrade,
    DistributeLoot,
    GiveGift,
    OfferPayoff,
    OfferTrade,
    PlaceThreat,
    RemoveThreat,
    WithdrawPayoff,
    WithdrawTrade,
)
from .decide import MAX_OPEN_TRADES
from .state import CHOOSE, DISTRIBUTE, State, Trade

_MASK = (1 << 64) - 1
RANDOM_CHANGES_PER_STEP = 4  # a random bot makes at most this many changes in a step, then finishes


class Mix:
    """SplitMix64, seeded from a few integers: small, fast, deterministic, local."""

    __slots__ = ("x",)

    def __init__(self, *parts: int) -> None:
        x = 0x2545F4914F6CDD1D
        for part in parts:
            x = self._mix((x ^ (part & _MASK)) + 0x9E3779B97F4A7C15)
        self.x = x

    @staticmethod
    def _mix(z: int) -> int:
        z &= _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def next(self) -> int:
        self.x = (self.x + 0x9E3779B97F4A7C15) & _MASK
        return self._mix(self.x)

    def below(self, n: int) -> int:
        return self.next() % n

    def chance(self, p: float) -> bool:
        return self.next() < p * 18446744073709551616.0

    def pick(self, items: list[int] | tuple[int, ...]) -> int:
        return items[self.below(len(items))]

    def pick_action(self) -> str:
        return ACTIONS[self.below(len(ACTIONS))]


def bot_command(state: State, seat: int, *, strategy: str, salt: int) -> Command | None:
    """A legal command for the bot in ``seat``, or None when it has nothing to do now."""
    if state.phase not in (DISTRIBUTE, CHOOSE) or state.resigned[seat]:  # the table: nothing while paused
        return None
    if strategy == "random":
        return _random_bot(state, seat, salt)
    if strategy == "sensible":
        return _sensible_bot(state, seat, salt)
    raise ValueError(f"unknown bot strategy {strategy!r}")


# --------------------------------------------------------------------------------------------------
# shared helpers
# --------------------------------------------------------------------------------------------------
def _others(state: State, seat: int) -> list[int]:
    return [s for s in range(state.n) if s != seat]


def _trades_to(state: State, seat: int) -> list[Trade]:
    return [t for t in state.trades if t.to == seat]


def _matching_cards(stash: frozenset[int], values: tuple[int, ...]) -> tuple[int, ...] | None:
    """Cards of ``stash`` with exactly ``values`` (as a multiset), or None."""
    pool = sorted(stash)
    chosen: list[int] = []
    for value in values:
        for card in pool:
            if VALUES[card] == value and card not in chosen:
                chosen.append(card)
                break
        else:
            return None
    return tuple(chosen)


def _answer_trade(state: State, seat: int, trade: Trade, accept: bool) -> Command:
    if accept and state.payoff_cards[seat] >= trade.want_payoff:
        cards = _matching_cards(state.stashes[seat], trade.want_values)
        if cards is not None:
            return AcceptTrade(seat=seat, trade_id=trade.trade_id, loot=cards)
    return DeclineTrade(seat=seat, trade_id=trade.trade_id)


def _share_value(state: State, seat: int) -> int:
    shares = state.shares
    return sum(VALUES[c] for c in shares[seat]) if shares is not None else 0


# --------------------------------------------------------------------------------------------------
# random
# --------------------------------------------------------------------------------------------------
def _random_shares(state: State, r: Mix) -> tuple[tuple[int, ...], ...]:
    shares: list[list[int]] = [[] for _ in range(state.n)]
    for card in state.table:
        shares[r.below(state.n)].append(card)
    return tuple(tuple(s) for s in shares)


def _random_loot(state: State, seat: int, r: Mix, most: int, extra: tuple[int, ...] = ()) -> tuple[int, ...]:
    pool = sorted(state.stashes[seat].union(extra))
    count = min(r.below(most + 1), len(pool))
    out: list[int] = []
    for _ in range(count):
        card = pool.pop(r.below(len(pool)))
        out.append(card)
    return tuple(out)


def _random_bundle(state: State, seat: int, r: Mix) -> Command | None:
    token = r.below(2)
    old = state.bundle(seat, token)
    extra_loot = old.loot if old is not None else ()
    extra_payoff = old.payoff_cards if old is not None else 0
    loot = _random_loot(state, seat, r, 2, extra_loot)
    payoff = min(r.below(3), state.payoff_cards[seat] + extra_payoff)
    if not loot and not payoff:
        return None
    return OfferPayoff(
        seat=seat,
        token=token,
        side="yes" if r.chance(0.5) else "no",
        target=r.pick(_others(state, seat)),
        loot=loot,
        visibility=("open", "peek", "hidden")[r.below(3)],
        payoff_cards=payoff,
    )


def _random_gift(state: State, seat: int, r: Mix) -> Command | None:
    loot = _random_loot(state, seat, r, 1)
    payoff = min(r.below(2), state.payoff_cards[seat])
    if not loot and not payoff:
        return None
    return GiveGift(seat=seat, to=r.pick(_others(state, seat)), loot=loot, payoff_cards=payoff)


def _random_trade(state: State, seat: int, r: Mix) -> Command | None:
    if sum(1 for t in state.trades if t.seat == seat) >= MAX_OPEN_TRADES:
        return None
    give_loot = _random_loot(state, seat, r, 1)
    give_payoff = 0 if give_loot else min(1, state.payoff_cards[seat])
    if not give_loot and not give_payoff:
        return None
    if r.chance(0.5):
        want_values: tuple[int, ...] = (r.pick(STARTING_VALUES),)
        want_payoff = 0
    else:
        want_values, want_payoff = (), 1 + r.below(2)
    return OfferTrade(
        seat=seat,
        to=r.pick(_others(state, seat)),
        give_loot=give_loot,
        give_payoff=give_payoff,
        want_values=want_values,
        want_payoff=want_payoff,
    )


def _random_deal(state: State, seat: int, r: Mix) -> Command | None:
    """Gifts and trades (Payoff rules), in Steps 2 and 3."""
    mine = [t for t in state.trades if t.seat == seat]
    to_me = _trades_to(state, seat)
    kind = r.below(4)
    if kind == 0 and to_me:
        return _answer_trade(state, seat, to_me[r.below(len(to_me))], r.chance(0.5))
    if kind == 1 and mine:
        return WithdrawTrade(seat=seat, trade_id=mine[r.below(len(mine))].trade_id)
    if kind == 2:
        return _random_gift(state, seat, r)
    return _random_trade(state, seat, r)


def _random_fiddle(state: State, seat: int, r: Mix) -> Command | None:
    """One random change in Step 3."""
    payoffs = state.options.payoffs
    kind = r.below(6 if payoffs else 3)
    if kind == 0:
        return ChooseAction(seat=seat, action=r.pick_action())
    if kind == 1:
        targets = [s for s in _others(state, seat) if s != state.threats[seat]]
        return PlaceThreat(seat=seat, target=r.pick(targets))
    if kind == 2:
        return RemoveThreat(seat=seat) if state.threats[seat] is not None else None
    if kind == 3:
        return _random_bundle(state, seat, r)
    if kind == 4:
        placed = [t for t in (0, 1) if state.bundle(seat, t) is not None]
        return WithdrawPayoff(seat=seat, token=r.pick(placed)) if placed else None
    return _random_deal(state, seat, r)


def _random_bot(state: State, seat: int, salt: int) -> Command | None:
    changes = state.changes[seat]
    r = Mix(salt, seat, state.step_no, changes, state.round, 1)
    fiddling = changes < RANDOM_CHANGES_PER_STEP
    if state.phase == DISTRIBUTE:
        if fiddling and state.options.payoffs and r.chance(0.3):
            command = _random_deal(state, seat, r)
            if command is not None:
                return command
        if seat == state.boss:
            return DistributeLoot(seat=seat, shares=_random_shares(state, r))
        return None
    done = state.actions[seat] is not None and state.ready[seat]
    if fiddling and r.chance(0.25 if done else 0.5):
        command = _random_fiddle(state, seat, r)
        if command is not None:
            return command
    if state.actions[seat] is None:
        return ChooseAction(seat=seat, action=r.pick_action())
    if not state.ready[seat]:
        return None  # its choice is made: the table raises its ready flag (R2.4)
    return None


# --------------------------------------------------------------------------------------------------
# sensible
# --------------------------------------------------------------------------------------------------
def _voters_to_buy(state: State, boss: int, r: Mix) -> list[int]:
    """Enough other players that, with the Boss, they make a majority of the active players."""
    others = [s for s in _others(state, boss) if not state.resigned[s]]
    active = len(others) + 1
    need = min(len(others), active // 2)
    start = r.below(len(others)) if others else 0
    rotated = others[start:] + others[:start]
    rotated.sort(key=lambda s: len(state.stashes[s]))  # the poorest-looking are the cheapest votes
    return rotated[:need]


def sensible_shares(state: State, boss: int, r: Mix) -> tuple[tuple[int, ...], ...]:
    """R2.2 as a Boss who wants the vote to pass: each bought voter gets about a fair share; the Boss
    keeps the rest."""
    cards = sorted(state.table, key=lambda c: -VALUES[c])
    fair = sum(VALUES[c] for c in cards) / state.n
    voters = _voters_to_buy(state, boss, r)
    got = dict.fromkeys(voters, 0)
    shares: list[list[int]] = [[] for _ in range(state.n)]
    for card in cards:
        short = [v for v in voters if got[v] < fair]
        if short:
            poorest = min(short, key=lambda v: (got[v], v))
            shares[poorest].append(card)
            got[poorest] += VALUES[card]
        else:
            shares[boss].append(card)
    return tuple(tuple(s) for s in shares)


def _richest_other(state: State, seat: int) -> int:
    others = _others(state, seat)
    return max(others, key=lambda s: (len(state.stashes[s]), -((s - seat) % state.n)))


def _sensible_plan(state: State, seat: int, r: Mix) -> tuple[int | None, str]:
    """The Threat marker target and the Action card this bot wants."""
    threatened = any(state.threats[s] == seat for s in range(state.n) if s != seat)
    guard_roll, rob_roll, skim_roll = r.next(), r.next(), r.next()
    top = 18446744073709551616.0
    if threatened and guard_roll < 0.7 * top:
        return None, GUARD
    if seat != state.boss and rob_roll < 0.15 * top:
        return _richest_other(state, seat), ROB
    if seat != state.boss and skim_roll < 0.1 * top:
        return None, SKIM
    if seat == state.boss:
        return None, VOTE_YES
    fair = sum(VALUES[c] for share in state.shares or () for c in share) / state.n
    return None, VOTE_YES if _share_value(state, seat) >= 0.8 * fair else VOTE_NO


def _sensible_bribe(state: State, seat: int) -> Command | None:
    """A Boss with Payoff cards puts a Yes token with one Payoff card in front of its poorest-paid voter."""
    if seat != state.boss or state.payoff_cards[seat] < 1 or state.bundle(seat, 0) is not None:
        return None
    shares = state.shares or ()
    paid = [s for s in _others(state, seat) if shares and shares[s] and not state.resigned[s]]
    if not paid:
        return None
    target = min(paid, key=lambda s: (_share_value(state, s), s))
    return OfferPayoff(
        seat=seat, token=0, side="yes", target=target, loot=(), visibility="open", payoff_cards=1
    )


def _sensible_bot(state: State, seat: int, salt: int) -> Command | None:
    to_me = _trades_to(state, seat)
    if to_me:
        return DeclineTrade(seat=seat, trade_id=to_me[0].trade_id)
    r = Mix(salt, seat, state.step_no, state.round, 2)
    if state.phase == DISTRIBUTE:
        if seat == state.boss:
            return DistributeLoot(seat=seat, shares=sensible_shares(state, seat, r))
        return None
    threat, action = _sensible_plan(state, seat, r)
    if threat is not None and state.threats[seat] != threat:
        return PlaceThreat(seat=seat, target=threat)
    if state.actions[seat] != action:
        return ChooseAction(seat=seat, action=action)
    if state.options.payoffs:
        bribe = _sensible_bribe(state, seat)
        if bribe is not None:
            return bribe
    if not state.ready[seat]:
        return None  # its choice is made: the table raises its ready flag (R2.4)
    return None
