"""The JSON shapes Were-cats shows to clients, as TypedDicts (the viewer's state of :func:`.views.view_for`
and the options' JSON form), for the spec the table will generate from them (with the event and command
dataclasses and :data:`.errors.ERRORS`)."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, TypedDict

from games.rules import bounds
from games.rules.core import ErrorCode, NewGameRange, Range, RulesetTypes

from .coins import Coins
from .commands import COMMAND_CLASSES, SYSTEM_COMMANDS
from .errors import ERRORS
from .events import EVENT_CLASSES
from .options import MAX_MAX_ROUNDS, Options

Kind = Literal["penny", "nickel", "dime"]
Phase = Literal["new", "choose", "place", "populate", "act", "over"]


class CoinsView(TypedDict):
    """Counts of the three common coins (the quarter is shown apart)."""

    penny: int
    nickel: int
    dime: int


class CatView(TypedDict):
    """A cat on a turn-order slot; ``heads``: it may still act this round."""

    slot: int
    kind: Kind
    heads: bool


class SeatView(TypedDict):
    seat: int
    player: str
    starting_kind: Kind | None
    done: bool
    resigned: bool  # WC4.3: the table plays its defaults; it cannot win
    quarter: bool
    hand: CoinsView
    eat: CoinsView
    scare: CoinsView
    cats: list[CatView]
    points: int  # WC3.2 as if the game ended now (the final score once over)


class TurnView(TypedDict):
    seat: int
    slot: int | None  # the acting cat's slot in Phase 2, else null


class WaitingView(TypedDict):
    step: Literal["setup", "place", "populate", "act"]
    step_no: int
    seats: list[int]
    simultaneous: bool


class WereCatsView(TypedDict):
    """The game as the viewer may see it: the table is open, so every seat sees the same but ``viewer``
    (WC4.2); ``seed`` only once over."""

    ruleset: Literal["were_cats"]
    started: bool
    over: bool
    fair: bool
    seed_commitment: str | None
    viewer: int | None
    players: list[str]
    max_rounds: int
    round: int
    phase: Phase
    step_no: int
    first_seat: int | None
    quarter: int | None
    turn: TurnView | None
    waiting: WaitingView | None
    supply: CoinsView
    city: CoinsView
    seats: list[SeatView]
    scores: list[int] | None
    winners: list[int] | None
    end_reason: Literal["city_and_supply_empty", "max_rounds"] | None
    seed: str | None  # only once over


GameView = WereCatsView


class WereCatsGameOptions(TypedDict):
    """The game's own options in full (WC4.1), as its GameStarted event records them; on input every key is
    optional."""

    max_rounds: Annotated[int, Range(1, MAX_MAX_ROUNDS), NewGameRange(1, bounds.WC_MAX_ROUNDS_MAX)]


OptionsJSON = WereCatsGameOptions


class Setup(TypedDict, total=False):
    """An operator's setup (the game is then not fair): the seat order (player ids) and the first seat to
    choose its starting coins (WC1.3)."""

    seats: list[str]
    first_seat: int


class ErrorDetails(TypedDict, total=False):
    """What a rule error adds: ``key`` (invalid_options: the option)."""

    key: str


PLAYER_COMMANDS: Final[tuple[type[Any], ...]] = tuple(c for c in COMMAND_CLASSES if c not in SYSTEM_COMMANDS)

TYPES: Final = RulesetTypes(
    name="WereCats",
    prefix="WC",
    view=WereCatsView,
    options=WereCatsGameOptions,
    events=EVENT_CLASSES,
    commands=PLAYER_COMMANDS,
    player_commands=PLAYER_COMMANDS,
    substitutes={Options: WereCatsGameOptions, bytes: str, Coins: CoinsView},
    errors={code: ErrorCode(kind, meaning) for code, (kind, meaning) in ERRORS.items()},
    error_details=ErrorDetails,
    setup=Setup,
)
