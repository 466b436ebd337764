"""The JSON shapes GoodCritters shows to clients, as Python types (TypedDicts): the viewer's state
(:func:`.views.view_for`), the options' JSON form (:func:`.options.options_to_json`) and the details of a rule
error. The hosting turns them, with the event and command dataclasses and the error catalogue, into the
OpenAPI components of the served spec (``games.api.schema``); nothing there is written twice.

Tests keep these types honest: every view the conformance games produce and every options JSON validate
against the schema generated from them (``tests/api/test_spec.py``).
"""

from typing import Annotated, Literal, NotRequired, TypedDict

from games.rules import bounds
from games.rules.core import NewGameRange, Range, RulesetTypes

from . import commands, events
from .errors import ERRORS
from .options import MAX_BOSS_TERM_LIMIT, Options

Action = Literal["guard", "rob", "skim", "vote_no", "vote_yes"]
LootType = Literal["cash", "gems", "jewelry", "painting", "sculpture"]
Step = Literal["setup", "distribute", "choose", "resolve", "over"]


class CardView(TypedDict):
    """A Loot card: its id, its value and its type (null only in a view without the card types)."""

    id: int
    value: int
    type: LootType | None


class SeatView(TypedDict):
    """One seat. ``action``, ``stash`` and ``stash_value`` are null for other seats (until the end)."""

    seat: int
    player: str
    boss: bool
    resigned: bool
    chosen: bool
    ready: bool
    threat: int | None
    stash_size: int
    payoff_cards: int
    action: Action | None
    stash: list[CardView] | None
    stash_value: int | None
    changes: int
    autopilot: bool
    extensions_left: int
    misses: int


class PayoffView(TypedDict):
    """A Payoff token on the table with its bundle (R6.1); ``loot`` is null unless the viewer may see it."""

    seat: int
    token: int
    side: Literal["yes", "no"]
    target: int
    visibility: Literal["open", "peek", "hidden"]
    loot_count: int
    payoff_cards: int
    loot: list[CardView] | None


class TradeView(TypedDict):
    """An open trade offer (R6.4); ``give_loot`` and ``want_values`` only for the two seats it binds."""

    trade_id: int
    seat: int
    to: int
    give_loot_count: int
    give_payoff: int
    want_loot_count: int
    want_payoff: int
    give_loot: list[CardView] | None
    want_values: list[int] | None


class LastVote(TypedDict):
    """The last vote's count and its outcome (R4.1 pass, R4.2 tie, R4.3/R4.5 fail, R4.4/R4.5 boss_keeps)."""

    yes: int
    no: int
    outcome: Literal["pass", "tie", "fail", "boss_keeps"]


class GoodCrittersView(TypedDict):
    """The game as the viewer may see it (R8.3): their own secrets only; everything once it is over. Before
    the start every key but ``ruleset``, ``started`` and ``over`` is null."""

    ruleset: Literal["goodcritters"]
    started: bool
    over: bool
    fair: NotRequired[bool]
    seed_commitment: NotRequired[str]
    viewer: NotRequired[int | None]
    players: NotRequired[list[str]]
    seats: NotRequired[list[SeatView]]
    boss: NotRequired[int]
    boss_rounds: NotRequired[int]
    round: NotRequired[int]
    step: NotRequired[Step]
    step_no: NotRequired[int]
    due_at: NotRequired[str | None]
    paused_at: NotRequired[str | None]
    pause_until: NotRequired[str | None]
    pause_votes: NotRequired[list[int]]
    table: NotRequired[list[CardView]]
    shares: NotRequired[list[list[CardView]] | None]
    pile_size: NotRequired[int]
    payoffs: NotRequired[list[PayoffView]]
    trades: NotRequired[list[TradeView]]
    last_vote: NotRequired[LastVote | None]
    confiscated: NotRequired[list[CardView]]
    scores: NotRequired[list[int] | None]
    winners: NotRequired[list[int] | None]
    end_reason: NotRequired[Literal["fuzz_reveal", "fuzz_extra", "fuzz_skim", "fuzz_bonus"] | None]
    seed: NotRequired[str | None]
    pile: NotRequired[list[int] | None]


# The table's facts GoodCritters' view has flat (its clients knew them there before every game had ``play``):
# kept, deprecated in the spec (``__deprecated_keys__``: key -> what to read instead), issue #24.
_IN_PLAY = "the same in `play.{}` (the block every game's view has)."
_IN_PLAY_SEATS = "the same in `play.seats[].{}` (the block every game's view has)."
setattr(  # noqa: B010 (read by games.api.schema)
    GoodCrittersView,
    "__deprecated_keys__",
    {key: _IN_PLAY.format(key) for key in ("due_at", "paused_at", "pause_until", "pause_votes")},
)
setattr(  # noqa: B010
    SeatView,
    "__descriptions__",
    {
        "chosen": "Whether the seat has chosen its Action card this step (R2.3), a flag (Loose Triggers' "
        "`chose`; the card itself is `action`, the viewer's own).",
    },
)
setattr(  # noqa: B010
    SeatView,
    "__deprecated_keys__",
    {key: _IN_PLAY_SEATS.format(key) for key in ("autopilot", "ready", "misses", "extensions_left")},
)


# the table's options as GoodCritters declares them (its log predates the table): the table's bounds, Range
# what a record may hold and NewGameRange what a new game may ask for (games.rules.bounds, issue #28 item 14)
Seconds = Annotated[
    int, Range(1, bounds.RECORD_SECONDS_MAX), NewGameRange(bounds.DEADLINE_MIN, bounds.DEADLINE_MAX)
]
Fraction = Annotated[float, Range(0, 1)]


class Deadlines(TypedDict):
    """Seconds each step waits on players (null: no deadline), R7.1."""

    distribute: Seconds | None
    choose: Seconds | None


class Absence(TypedDict):
    """Absent players: deadline extensions per seat; missed deadlines before autopilot (null: never)."""

    extensions: Annotated[int, Range(0, bounds.RECORD_EXTENSIONS_MAX), NewGameRange(0, bounds.EXTENSIONS_MAX)]
    autopilot_after: (
        Annotated[
            int, Range(1, bounds.RECORD_AUTOPILOT_AFTER_MAX), NewGameRange(1, bounds.AUTOPILOT_AFTER_MAX)
        ]
        | None
    )


class GoodCrittersOptions(TypedDict):
    """A game's options in full (every key, defaults included). On input every key is optional."""

    payoffs: bool
    boss_term_limit: (
        Annotated[int, Range(1, MAX_BOSS_TERM_LIMIT), NewGameRange(1, bounds.GC_BOSS_TERM_LIMIT_MAX)] | None
    )
    fuzz_depth: Literal["standard", "short", "long"] | tuple[Fraction, Fraction]
    no_vote_rule: Literal["english", "russian"]
    shuffle_seats: bool
    timeout_action: Literal["none", "guard", "rob", "skim", "vote_no", "vote_yes"]
    deadlines: Deadlines
    absence: Absence
    pause_by: Literal["creator", "vote"]
    warn_before: (
        Annotated[int, Range(0, bounds.RECORD_SECONDS_MAX), NewGameRange(0, bounds.WARN_BEFORE_MAX)] | None
    )
    max_pause: NotRequired[  # R7.6: in games under rules 3 and later (ruling 32)
        Annotated[
            int,
            Range(1, bounds.RECORD_SECONDS_MAX),
            NewGameRange(bounds.MAX_PAUSE_MIN, bounds.MAX_PAUSE_MAX),
        ]
    ]


class Setup(TypedDict, total=False):
    """An operator's setup (the game is then not fair): the seat order (player ids), the starting Stash (card
    ids) of each seat with the pile (card ids, top first, The Fuzz! = 140 included), the first Boss's seat."""

    seats: list[str]
    stashes: list[list[int]]
    pile: list[int]
    boss: int


class ErrorDetails(TypedDict, total=False):
    """What a rule error adds: ``key`` (invalid_options: the option, dotted), ``step`` (wrong_step: the
    current step), ``card`` (card_not_in_stash)."""

    key: str
    step: str
    card: int


TYPES = RulesetTypes(
    name="GoodCritters",
    prefix="",
    view=GoodCrittersView,
    options=GoodCrittersOptions,
    events=events.EVENT_CLASSES,
    commands=commands.COMMAND_CLASSES,
    player_commands=commands.PLAYER_COMMANDS,
    substitutes={Options: GoodCrittersOptions, bytes: str},
    errors=ERRORS,
    error_details=ErrorDetails,
    setup=Setup,
)
