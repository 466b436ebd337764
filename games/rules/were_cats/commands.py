"""Commands: what a seat (or the system, ``seat=None``) asks the game to do. Imperative names.

``seat`` is set by the table from the authenticated player, never read from a client's JSON. Coin counts
are ``(pennies, nickels, dimes)`` triples (JSON: ``{"penny": p, "nickel": n, "dime": d}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Final

from .coins import KINDS, NO_COINS, Coins
from .options import Options


@dataclass(frozen=True, slots=True)
class StartGame:
    """System. ``players`` in join order (= seat order); ``seed`` 32 secret bytes. Operator setup (the game
    is then not fair): ``seats`` (player ids in seat order), ``first_seat`` (WC1.3's first chooser)."""

    TYPE: ClassVar[str] = "StartGame"
    seat: None
    players: tuple[str, ...]
    options: Options
    seed: bytes
    seats: tuple[str, ...] | None = None
    first_seat: int | None = None
    fixed_seed: bool = False  # an operator chose the seed: the game is not fair


@dataclass(frozen=True, slots=True)
class ChooseStartingCoins:
    """WC1.3: take two coins of ``kind`` (penny, nickel or dime): one cat, one victim in hand."""

    TYPE: ClassVar[str] = "ChooseStartingCoins"
    seat: int | None
    kind: str
    # timeout | resigned when the table chooses for the seat (WC4.1, ruling 1)
    reason: str | None = field(default=None, metadata={"system": True})


@dataclass(frozen=True, slots=True)
class PlaceVictims:
    """WC2.1: the seat's eat area and scare area hold exactly ``eat`` and ``scare`` (the rest goes back to
    the hand); may be changed until the seat says done (ruling 3)."""

    TYPE: ClassVar[str] = "PlaceVictims"
    seat: int | None
    eat: Coins
    scare: Coins


_TABLE_REASON: Final = (
    "Set only when the table plays the command for the seat (WC4.1: `timeout` or `resigned`); null when the "
    "seat sent it. Never sent by a client (the record's form only)."
)


@dataclass(frozen=True, slots=True)
class FinishPlacing:
    """WC2.1: say done (final). When the table plays it for the seat (WC4.1), such a finish never takes the
    quarter (ruling 5)."""

    TYPE: ClassVar[str] = "FinishPlacing"
    seat: int | None
    reason: str | None = field(default=None, metadata={"system": True, "description": _TABLE_REASON})


@dataclass(frozen=True, slots=True)
class PopulateCity:
    """WC2.2: move one coin of ``kind`` from the supply to the city (the seat whose turn it is)."""

    TYPE: ClassVar[str] = "PopulateCity"
    seat: int | None
    kind: str
    # timeout | resigned when the table plays it (WC4.1)
    reason: str | None = field(default=None, metadata={"system": True})


@dataclass(frozen=True, slots=True)
class TakeVictim:
    """WC2.3 action 1: the acting cat eats ``eat`` from its owner's eat area, then takes a ``kind``
    villager from the city into its owner's hand."""

    TYPE: ClassVar[str] = "TakeVictim"
    seat: int | None
    kind: str
    eat: Coins = NO_COINS


@dataclass(frozen=True, slots=True)
class MakeCat:
    """WC2.3 action 2: the acting cat eats ``eat``, then makes a ``kind`` coin of the city a new cat of its
    owner's, tails up, on the empty ``slot``."""

    TYPE: ClassVar[str] = "MakeCat"
    seat: int | None
    kind: str
    slot: int
    eat: Coins = NO_COINS


@dataclass(frozen=True, slots=True)
class Repopulate:
    """WC2.3 action 3: the acting cat eats ``eat``; every coin in the city goes back to the supply and the
    city is populated again (WC2.2)."""

    TYPE: ClassVar[str] = "Repopulate"
    seat: int | None
    eat: Coins = NO_COINS


@dataclass(frozen=True, slots=True)
class Pass:
    """WC2.3: the acting cat takes no action (and eats nothing, ruling 8); it turns tails up."""

    TYPE: ClassVar[str] = "Pass"
    seat: int | None
    reason: str | None = field(default=None, metadata={"system": True, "description": _TABLE_REASON})


@dataclass(frozen=True, slots=True)
class Resign:
    """System (the table): seat ``target`` resigned (WC4.3 as R7.4: it plays the defaults and cannot win)."""

    TYPE: ClassVar[str] = "Resign"
    seat: None
    target: int


Command = (
    StartGame
    | Resign
    | ChooseStartingCoins
    | PlaceVictims
    | FinishPlacing
    | PopulateCity
    | TakeVictim
    | MakeCat
    | Repopulate
    | Pass
)
COMMAND_CLASSES: tuple[type[Command], ...] = (
    StartGame,
    Resign,
    ChooseStartingCoins,
    PlaceVictims,
    FinishPlacing,
    PopulateCity,
    TakeVictim,
    MakeCat,
    Repopulate,
    Pass,
)
SYSTEM_COMMANDS: tuple[type[Command], ...] = (StartGame, Resign)
FIELD_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    (cls.TYPE, "kind"): KINDS for cls in (ChooseStartingCoins, PopulateCity, TakeVictim, MakeCat)
}
"""The values a string field takes (the API's request schema makes them an enum)."""
