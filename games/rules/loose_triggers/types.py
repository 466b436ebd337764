"""The JSON shapes Loose Triggers shows to clients, as Python types (TypedDicts), following the typed-spec
pattern of GoodCritters (``goodcritters/types.py``): the viewer's state
(:func:`.views.view_for`), the options' JSON form and the JSON forms of events and commands (the dataclasses
of :mod:`.events` and :mod:`.commands`, ``{"type": TYPE, ...fields}``; a redacted event carries ``null`` in a
hidden field and the extra counts listed in :data:`REDACTION_EXTRAS`). Together they are :data:`TYPES`; the
table (``games.rules.table``) adds its own shapes to them.
"""

from typing import Annotated, Final, Literal, NotRequired, TypedDict

from games.rules import bounds
from games.rules.core import ErrorCode, NewGameRange, Range, RulesetTypes

from .commands import COMMAND_CLASSES, SYSTEM_COMMANDS, Command
from .errors import CATALOGUE
from .events import EVENT_CLASSES
from .options import MAX_AIM, MAX_COUNTDOWN, MAX_RETARGETS, Options

ActionKind = Literal["BANG!", "GRAB!", "DUCK!", "CROSSFIRE!", "IN THE FIRE!"]
Step = Literal["aim", "give", "countdown", "choose", "pick", "claim", "grab", "elect"]

PLAYER_COMMANDS: Final[tuple[type[Command], ...]] = tuple(
    c for c in COMMAND_CLASSES if c not in SYSTEM_COMMANDS
)
REDACTION_EXTRAS: Final[dict[str, tuple[str, ...]]] = {
    "GameStarted": ("loot_deck_size", "action_deck_size"),
    "Died": ("loot_size",),
    "ActionDeckRemade": ("deck_size",),
    "CardsDrawn": ("count",),
}


class LootView(TypedDict):
    """A Loot card: cash with its ``value`` (``relic`` null), or a relic with its name (``value`` null: a
    relic's worth is its set's, LT1.5)."""

    card: int
    kind: Literal["cash", "relic"]
    value: int | None
    relic: str | None


class ActionView(TypedDict):
    card: int
    kind: ActionKind


class DisplayedView(TypedDict):
    """A displayed card; ``loot`` is null for a face-down card unless the viewer is the Bagman (LT2.1)."""

    slot: int
    face_down: bool
    loot: LootView | None


class SeatView(TypedDict):
    """One seat. ``hand``, ``stack``, ``stack_value``, ``pal`` and ``chosen`` are null for other seats until
    the end (``stack`` is shown to a Gunner picking from it, LT4.1)."""

    seat: int
    player: str
    alias: str
    alive: bool
    wounds: int
    resigned: bool
    bagman: bool
    opened: bool
    target: int | None
    retargets: int
    chose: bool
    chosen: int | None
    chosen_card: int | None
    played: int | None
    in_play: int | None
    vote: int | None
    hand_size: int
    hand: list[ActionView] | None
    stack_size: int
    stack: list[LootView] | None
    stack_value: int | None
    pal: int | None


# ``chosen`` is a card here and a flag in GoodCritters' view: the card has its own name now (issue #24)
setattr(  # noqa: B010 (read by games.api.schema)
    SeatView,
    "__deprecated_keys__",
    {"chosen": "the same as `chosen_card` (a card id; `chose` says whether the seat has chosen)."},
)
setattr(  # noqa: B010
    SeatView,
    "__descriptions__",
    {
        "chose": "Whether the seat has chosen its Action card face down this step (LT3.3), as GoodCritters' "
        "`chosen`.",
        "chosen_card": "The Action card the seat chose (LT3.3): yours only (every seat's once the game is "
        "over); null when it chose none, has not chosen, or is another's.",
    },
)


class LooseTriggersView(TypedDict):
    """The game as the viewer may see it (LT7.2); everything once over. Before the start every key but
    ``ruleset``, ``started`` and ``over`` is null."""

    ruleset: Literal["loose_triggers"]
    started: bool
    over: bool
    fair: NotRequired[bool]
    seed_commitment: NotRequired[str]
    viewer: NotRequired[int | None]
    seats: NotRequired[list[SeatView]]
    bagman: NotRequired[int | None]
    step: NotRequired[Step | None]
    step_no: NotRequired[int]
    discussion: NotRequired[Literal["countdown", "choose", "resolve"] | None]
    counter: NotRequired[int | None]
    pending_seat: NotRequired[int | None]
    pending_target: NotRequired[int | None]
    display: NotRequired[list[DisplayedView]]
    loot_deck_size: NotRequired[int]
    loot_discard_size: NotRequired[int]
    action_deck_size: NotRequired[int]
    action_discard: NotRequired[list[int]]
    deaths: NotRequired[list[int]]
    end_reason: NotRequired[Literal["loot_gone", "last_alive", "none_alive"] | None]
    values: NotRequired[list[int] | None]
    ranks: NotRequired[list[int] | None]
    scores: NotRequired[list[int] | None]
    winners: NotRequired[list[int] | None]
    seed: NotRequired[str | None]
    loot_deck: NotRequired[list[int] | None]
    action_deck: NotRequired[list[int] | None]
    loot_discard: NotRequired[list[int] | None]


class LooseTriggersOwnDeadlines(TypedDict):
    """``aim``: LT2.5's aim window before each give, seconds (default 20; 0: no window; rules 2)."""

    aim: NotRequired[Annotated[int, Range(0, MAX_AIM)]]


class LooseTriggersGameOptions(TypedDict):
    """The game's own options in full (every key, defaults included; LT7.1), as its GameStarted event
    records them; on input every key is optional. ``rules``: the rules the game plays to its end (README
    "Rules versions"; a game made now: 2, with LT2.5's aim window; absent: 1, a game started before it);
    ``deadlines.aim`` (rules 2): LT2.5's aim window, seconds (default 20, 0: no window)."""

    countdown: Annotated[int, Range(1, MAX_COUNTDOWN), NewGameRange(1, bounds.LT_COUNTDOWN_MAX)]
    max_retargets: Annotated[int, Range(0, MAX_RETARGETS), NewGameRange(0, MAX_RETARGETS)]
    shuffle_seats: bool
    rules: NotRequired[Literal[1, 2]]
    deadlines: NotRequired[LooseTriggersOwnDeadlines]


LooseTriggersOptions = LooseTriggersGameOptions


class Setup(TypedDict, total=False):
    """An operator's setup (the game is then not fair): the seat order (player ids), the Loot deck's order
    (card ids, top first) and the first Bagman's seat."""

    seats: list[str]
    loot_deck: list[int]
    bagman: int


class ErrorDetails(TypedDict, total=False):
    """What a rule error adds: ``key`` (invalid_options: the option)."""

    key: str


TYPES: Final = RulesetTypes(
    name="LooseTriggers",
    prefix="LT",
    view=LooseTriggersView,
    options=LooseTriggersGameOptions,
    events=EVENT_CLASSES,
    commands=PLAYER_COMMANDS,
    player_commands=PLAYER_COMMANDS,
    substitutes={Options: LooseTriggersGameOptions, bytes: str},
    errors={code: ErrorCode(kind, meaning) for code, (kind, meaning) in CATALOGUE.items()},
    error_details=ErrorDetails,
    redaction_extras=REDACTION_EXTRAS,
    setup=Setup,
)
