"""Commands: what a seat (or the system, ``seat=None``) asks the game to do. Imperative names.

``seat`` is set by the service from the authenticated player, never read from a client's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import ACTIONS, BUNDLE_VISIBILITIES, PAYOFF_SIDES
from .options import RULES_UNWRITTEN, Options

Cards = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class StartGame:
    """System. ``players`` in join order; ``seed`` 32 secret bytes. Operator setup (the game is then not
    fair): ``seats`` (player ids in seat order), ``stashes`` (card ids per seat) with ``pile`` (card ids top
    first, The Fuzz! = 140 included), ``boss`` (first Boss seat), ``fixed_seed`` (the seed was chosen by an
    operator, not drawn at random; absent from commands stored before it existed, read as false). ``rules``:
    the rules the game plays to its end (ruling 32; ``start_command`` gives today's, ``RULES``); absent from
    commands stored before it existed, read as 2."""

    TYPE = "StartGame"
    seat: None
    players: tuple[str, ...]
    creator: str | None
    options: Options
    seed: bytes
    seats: tuple[str, ...] | None = None
    stashes: tuple[Cards, ...] | None = None
    pile: Cards | None = None
    boss: int | None = None
    fixed_seed: bool = False
    rules: int = RULES_UNWRITTEN


@dataclass(frozen=True, slots=True)
class DistributeLoot:
    """Step 2, the Boss: ``shares[seat]`` lists the face-up card ids for ``seat``; every card once (R2.2)."""

    TYPE = "DistributeLoot"
    seat: int | None
    shares: tuple[Cards, ...]


@dataclass(frozen=True, slots=True)
class ChooseAction:
    """Step 3: guard | rob | skim | vote_no | vote_yes; changeable until the step closes (R2.3)."""

    TYPE = "ChooseAction"
    seat: int | None
    action: str


@dataclass(frozen=True, slots=True)
class PlaceThreat:
    """Step 3: place or move the Threat marker in front of ``target`` (never oneself)."""

    TYPE = "PlaceThreat"
    seat: int | None
    target: int


@dataclass(frozen=True, slots=True)
class RemoveThreat:
    TYPE = "RemoveThreat"
    seat: int | None


@dataclass(frozen=True, slots=True)
class OfferPayoff:
    """Step 3, Payoff rules: token 0|1, side yes|no, in front of ``target`` with a bundle (R6.1, R6.2).
    Placing a token that is already out replaces its bundle."""

    TYPE = "OfferPayoff"
    seat: int | None
    token: int
    side: str
    target: int
    loot: Cards = ()
    visibility: str = "open"
    payoff_cards: int = 0


@dataclass(frozen=True, slots=True)
class WithdrawPayoff:
    TYPE = "WithdrawPayoff"
    seat: int | None
    token: int


@dataclass(frozen=True, slots=True)
class GiveGift:
    """Steps 2 and 3, Payoff rules: Loot and/or Payoff cards given outright (R6.4)."""

    TYPE = "GiveGift"
    seat: int | None
    to: int
    loot: Cards = ()
    payoff_cards: int = 0


@dataclass(frozen=True, slots=True)
class OfferTrade:
    """Steps 2 and 3, Payoff rules: exact cards given; Loot values and Payoff cards wanted (R6.4)."""

    TYPE = "OfferTrade"
    seat: int | None
    to: int
    give_loot: Cards = ()
    give_payoff: int = 0
    want_values: tuple[int, ...] = ()
    want_payoff: int = 0


@dataclass(frozen=True, slots=True)
class AcceptTrade:
    """The trade's target names the exact cards of theirs that match the wanted values."""

    TYPE = "AcceptTrade"
    seat: int | None
    trade_id: int
    loot: Cards = ()


@dataclass(frozen=True, slots=True)
class DeclineTrade:
    TYPE = "DeclineTrade"
    seat: int | None
    trade_id: int


@dataclass(frozen=True, slots=True)
class WithdrawTrade:
    TYPE = "WithdrawTrade"
    seat: int | None
    trade_id: int


Command = (
    StartGame
    | DistributeLoot
    | ChooseAction
    | PlaceThreat
    | RemoveThreat
    | OfferPayoff
    | WithdrawPayoff
    | GiveGift
    | OfferTrade
    | AcceptTrade
    | DeclineTrade
    | WithdrawTrade
)

SYSTEM_COMMANDS: tuple[type[Command], ...] = (StartGame,)
PLAYER_COMMANDS: tuple[type[Command], ...] = (
    DistributeLoot,
    ChooseAction,
    PlaceThreat,
    RemoveThreat,
    OfferPayoff,
    WithdrawPayoff,
    GiveGift,
    OfferTrade,
    AcceptTrade,
    DeclineTrade,
    WithdrawTrade,
)
COMMAND_CLASSES: tuple[type[Command], ...] = SYSTEM_COMMANDS + PLAYER_COMMANDS


# --- what the table plays for a seat or a step (never recorded: played inside the table's own commands) ---
@dataclass(frozen=True, slots=True)
class PlayDefault:
    """The table plays a seat's default (``reason``: ``timeout`` or ``resigned``): in Step 2 the Boss's
    Loot is dealt as R7.2 says; in Step 3 nothing is chosen now and the seat plays the ``timeout_action`` at
    the reveal (R7.3, R7.4)."""

    TYPE = "PlayDefault"
    seat: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class CloseChoice:
    """The table closes Step 3 (``step_no``): every seat is ready (R2.4) or its deadline passed (R7.3)."""

    TYPE = "CloseChoice"
    seat: None
    step_no: int
    reason: str  # ready | deadline


@dataclass(frozen=True, slots=True)
class LapseTrades:
    """A seat resigned (R7.4): its open trade offers, made or received, lapse."""

    TYPE = "LapseTrades"
    seat: None
    target: int


TABLE_PLAYS: tuple[type[Any], ...] = (PlayDefault, CloseChoice, LapseTrades)


FIELD_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("ChooseAction", "action"): ACTIONS,
    ("OfferPayoff", "side"): PAYOFF_SIDES,
    ("OfferPayoff", "visibility"): BUNDLE_VISIBILITIES,
}
"""String fields of player commands that take one of a few values (the API turns them into enums)."""
