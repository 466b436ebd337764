"""Events: the facts of a game of Were-cats, past tense, each with a stable ``TYPE`` and a ``VERSION``.

Events that open a waiting step (``SetupTurnStarted``, ``RoundStarted``, ``PopulateTurnStarted``,
``CatTurnStarted``) each add one to ``step_no``. Nothing is secret but the seed in ``GameStarted``
(WC4.2), which :func:`.views.redact_event` hides until the game is over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .coins import Coins
from .options import Options


@dataclass(frozen=True, slots=True)
class GameStarted:
    """WC1.1, WC1.3: the seats (clockwise) and the first seat of the setup choice (drawn from the seed with
    label ``setup/first``, or fixed by an operator: then ``fair`` is false)."""

    TYPE: ClassVar[str] = "GameStarted"
    VERSION: ClassVar[int] = 1
    players: tuple[str, ...]
    options: Options
    fair: bool
    first_seat: int
    seed: str  # hex, secret until the game ends
    seed_commitment: str  # hex SHA-256(seed), public


@dataclass(frozen=True, slots=True)
class SeatResigned:
    """WC4.3 (as R7.4): ``seat`` resigned: the table plays its defaults from now on; it cannot win."""

    TYPE: ClassVar[str] = "SeatResigned"
    VERSION: ClassVar[int] = 1
    seat: int


@dataclass(frozen=True, slots=True)
class SetupTurnStarted:
    """WC1.3: ``seat`` chooses its starting coins now (opens the ``setup`` step)."""

    TYPE: ClassVar[str] = "SetupTurnStarted"
    VERSION: ClassVar[int] = 1
    seat: int


@dataclass(frozen=True, slots=True)
class StartingCoinsTaken:
    """WC1.3: two ``kind`` coins left the supply: a heads-up cat on ``slot``, a victim in hand.
    ``reason``: null, or timeout/resigned when the table chose for the seat (WC4.1, ruling 1)."""

    TYPE: ClassVar[str] = "StartingCoinsTaken"
    VERSION: ClassVar[int] = 1
    seat: int
    kind: str
    slot: int
    reason: str | None


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """WC2.1: a round begins with Phase 1 (opens the ``place`` step for every seat at once)."""

    TYPE: ClassVar[str] = "RoundStarted"
    VERSION: ClassVar[int] = 1
    round: int


@dataclass(frozen=True, slots=True)
class VictimsPlaced:
    """WC2.1: ``seat``'s eat area now holds ``eat`` and its scare area ``scare``; the rest is in hand."""

    TYPE: ClassVar[str] = "VictimsPlaced"
    VERSION: ClassVar[int] = 1
    seat: int
    eat: Coins
    scare: Coins


@dataclass(frozen=True, slots=True)
class PlacingFinished:
    """WC2.1: ``seat`` said done. ``reason``: null (the player), or timeout/resigned (WC4.1)."""

    TYPE: ClassVar[str] = "PlacingFinished"
    VERSION: ClassVar[int] = 1
    seat: int
    reason: str | None


@dataclass(frozen=True, slots=True)
class QuarterTaken:
    """WC2.1: the quarter goes to ``seat``; ``reason``: first_done (the race) or first_seat (round 1, nobody
    said done by themselves)."""

    TYPE: ClassVar[str] = "QuarterTaken"
    VERSION: ClassVar[int] = 1
    seat: int
    previous: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class PopulatingStarted:
    """WC2.2: the city is populated, starting with the quarter's holder. ``reason``: phase_1 (fewer than 4
    coins when Phase 1 ended), emptied (a cat took the last coin), repopulate (the action)."""

    TYPE: ClassVar[str] = "PopulatingStarted"
    VERSION: ClassVar[int] = 1
    reason: str
    first: int


@dataclass(frozen=True, slots=True)
class PopulateTurnStarted:
    """WC2.2: ``seat`` moves the next coin from the supply to the city (opens the ``populate`` step)."""

    TYPE: ClassVar[str] = "PopulateTurnStarted"
    VERSION: ClassVar[int] = 1
    seat: int


@dataclass(frozen=True, slots=True)
class VillagerPlaced:
    """WC2.2: ``seat`` moved a ``kind`` coin from the supply to the city. ``reason``: null (the player's
    choice), only_kind (the supply held one kind only: no choice, ruling 6) or timeout/resigned (WC4.1)."""

    TYPE: ClassVar[str] = "VillagerPlaced"
    VERSION: ClassVar[int] = 1
    seat: int
    kind: str
    reason: str | None


@dataclass(frozen=True, slots=True)
class CatTurnStarted:
    """WC2.3: the heads-up cat of ``seat`` on ``slot`` acts now (opens the ``act`` step)."""

    TYPE: ClassVar[str] = "CatTurnStarted"
    VERSION: ClassVar[int] = 1
    seat: int
    slot: int


@dataclass(frozen=True, slots=True)
class VictimsEaten:
    """WC2.3: the cat ate ``coins`` from its owner's eat area (they go to the supply); ``claw`` is the cat's
    claw for this action."""

    TYPE: ClassVar[str] = "VictimsEaten"
    VERSION: ClassVar[int] = 1
    seat: int
    slot: int
    coins: Coins
    claw: int


@dataclass(frozen=True, slots=True)
class VictimTaken:
    """WC2.3 action 1: a ``kind`` villager went from the city to ``seat``'s hand; the cat turns tails up."""

    TYPE: ClassVar[str] = "VictimTaken"
    VERSION: ClassVar[int] = 1
    seat: int
    slot: int
    kind: str


@dataclass(frozen=True, slots=True)
class CatMade:
    """WC2.3 action 2: a ``kind`` coin of the city became ``seat``'s cat on ``new_slot``, tails up; the
    acting cat (on ``slot``) turns tails up."""

    TYPE: ClassVar[str] = "CatMade"
    VERSION: ClassVar[int] = 1
    seat: int
    slot: int
    kind: str
    new_slot: int


@dataclass(frozen=True, slots=True)
class CityReturned:
    """WC2.3 action 3: every coin of the city (``coins``) went back to the supply; the cat turns tails up.
    Populating follows."""

    TYPE: ClassVar[str] = "CityReturned"
    VERSION: ClassVar[int] = 1
    seat: int
    slot: int
    coins: Coins


@dataclass(frozen=True, slots=True)
class CatPassed:
    """WC2.3: the cat took no action and turns tails up. ``reason``: null or timeout/resigned (WC4.1)."""

    TYPE: ClassVar[str] = "CatPassed"
    VERSION: ClassVar[int] = 1
    seat: int
    slot: int
    reason: str | None


@dataclass(frozen=True, slots=True)
class RoundRefreshed:
    """WC2.4, Phase 3: every cat turns heads up, scare-area victims go back to their owner's hand, eat-area
    victims go to the supply."""

    TYPE: ClassVar[str] = "RoundRefreshed"
    VERSION: ClassVar[int] = 1
    round: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """WC3: ``reason``: city_and_supply_empty or max_rounds; ``scores`` by seat (WC3.2), ``winners`` the
    seats with the highest score (WC3.3), ``seed`` (hex) opened for the audit."""

    TYPE: ClassVar[str] = "GameEnded"
    VERSION: ClassVar[int] = 1
    round: int
    reason: str
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    seed: str


Event = (
    GameStarted
    | SeatResigned
    | SetupTurnStarted
    | StartingCoinsTaken
    | RoundStarted
    | VictimsPlaced
    | PlacingFinished
    | QuarterTaken
    | PopulatingStarted
    | PopulateTurnStarted
    | VillagerPlaced
    | CatTurnStarted
    | VictimsEaten
    | VictimTaken
    | CatMade
    | CityReturned
    | CatPassed
    | RoundRefreshed
    | GameEnded
)
EVENT_CLASSES: tuple[type[Event], ...] = (
    GameStarted,
    SeatResigned,
    SetupTurnStarted,
    StartingCoinsTaken,
    RoundStarted,
    VictimsPlaced,
    PlacingFinished,
    QuarterTaken,
    PopulatingStarted,
    PopulateTurnStarted,
    VillagerPlaced,
    CatTurnStarted,
    VictimsEaten,
    VictimTaken,
    CatMade,
    CityReturned,
    CatPassed,
    RoundRefreshed,
    GameEnded,
)
