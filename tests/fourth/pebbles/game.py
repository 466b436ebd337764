"""Pebbles (``RULES.md``, PB1.1 ...), as the table hosts it: a toy, but a real game (its own options, two
player commands, a pile the seed sizes, a deterministic end). Pure: no Django, no I/O, no clock, no random
but the seed's. Declared on :class:`games.rules.table.game.Game`; registered by
``CRITTERS_EXTRA_GAMES``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Final, Literal, NoReturn, TypedDict

from games.rules.codec import Codec, options_codec
from games.rules.core import (
    JSON,
    Context,
    ErrorCode,
    ErrorKind,
    InvalidOptions,
    NewGameRange,
    Range,
    RuleError,
    RulesetTypes,
    Sample,
    Step,
    Viewer,
)
from games.rules.rng import seed_commitment
from games.rules.table.game import Game, GameOptions

SLUG: Final = "pebbles"
MIN_PLAYERS, MAX_PLAYERS = 2, 4


# --- options ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Options:
    most: int = 2  # PB2.1


def parse_options(raw: Mapping[str, Any]) -> Options:
    if not isinstance(raw, Mapping):
        raise InvalidOptions("options must be a JSON object")
    for key in raw:
        if key != "most":
            raise InvalidOptions(f"unknown option {key!r} (options: most)", key=key)
    most = raw.get("most", 2)
    if isinstance(most, bool) or not isinstance(most, int) or most not in (2, 3):
        raise InvalidOptions("option 'most' must be 2 or 3", key="most")
    return Options(most=most)


def options_to_json(options: Options) -> JSON:
    return {"most": options.most}


# --- errors ----------------------------------------------------------------------------------------------
ERRORS: Final[dict[str, tuple[ErrorKind, str]]] = {
    "invalid_command": (
        ErrorKind.INVALID,
        "The command is malformed: unknown type, missing or ill-typed field.",
    ),
    "invalid_players": (
        ErrorKind.INVALID,
        "Pebbles needs 2 to 4 distinct players and a 32-byte seed (PB1.1).",
    ),
    "invalid_setup": (ErrorKind.INVALID, "The operator's setup (the first seat) is not valid (PB1.1)."),
    "already_started": (ErrorKind.CONFLICT, "The game has already started."),
    "not_started": (ErrorKind.CONFLICT, "The game has not started yet."),
    "game_over": (ErrorKind.CONFLICT, "The game is over."),
    "system_only": (ErrorKind.FORBIDDEN, "Only the system may send this command."),
    "not_your_turn": (ErrorKind.FORBIDDEN, "It is another seat's turn (PB2.3)."),
    "invalid_count": (ErrorKind.INVALID, "Take 1 to `most` pebbles, no more than the pile holds (PB2.1)."),
    "pass_used": (ErrorKind.CONFLICT, "The seat has already passed once (PB2.2)."),
    "invalid_reason": (ErrorKind.INVALID, "A default's reason is timeout or resigned."),
}


def fail(code: str, message: str) -> NoReturn:
    raise RuleError(code, message, kind=ERRORS[code][0])


# --- commands and events ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StartGame:
    """System: the players in seat order and the secret seed (PB1.1, PB1.2)."""

    TYPE: ClassVar[str] = "StartGame"
    seat: None
    players: tuple[str, ...]
    options: Options
    seed: bytes
    fixed_seed: bool = False
    first_seat: int | None = None  # an operator's setup (PB1.1): the game is then not fair


@dataclass(frozen=True, slots=True)
class Take:
    """PB2.1: take ``count`` pebbles from the pile."""

    TYPE: ClassVar[str] = "Take"
    seat: int | None
    count: int
    # timeout | resigned when the table plays it (PB3.2); never sent by a client
    reason: str | None = field(default=None, metadata={"system": True})


@dataclass(frozen=True, slots=True)
class SkipTurn:
    """PB2.2: let the turn go by, once per game."""

    TYPE: ClassVar[str] = "SkipTurn"
    seat: int | None


Command = StartGame | Take | SkipTurn


@dataclass(frozen=True, slots=True)
class GameStarted:
    """PB1.1, PB1.2: the seats and the pile; ``seed`` (hex) secret until the end, its commitment public."""

    TYPE: ClassVar[str] = "GameStarted"
    VERSION: ClassVar[int] = 1
    players: tuple[str, ...]
    options: Options
    fair: bool
    first_seat: int
    pile: int
    seed: str
    seed_commitment: str


@dataclass(frozen=True, slots=True)
class PebblesTaken:
    TYPE: ClassVar[str] = "PebblesTaken"
    VERSION: ClassVar[int] = 1
    seat: int
    count: int
    left: int
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class TurnSkipped:
    TYPE: ClassVar[str] = "TurnSkipped"
    VERSION: ClassVar[int] = 1
    seat: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """PB3.1: ``scores`` by seat, ``winners``, the seed revealed."""

    TYPE: ClassVar[str] = "GameEnded"
    VERSION: ClassVar[int] = 1
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    seed: str


Event = GameStarted | PebblesTaken | TurnSkipped | GameEnded
EVENT_CLASSES: Final[tuple[type[Any], ...]] = (GameStarted, PebblesTaken, TurnSkipped, GameEnded)
PLAYER_COMMANDS: Final[tuple[type[Any], ...]] = (Take, SkipTurn)

CODEC: Final[Codec[Event, Command]] = Codec(
    game="Pebbles",
    events=EVENT_CLASSES,
    commands=(StartGame, Take, SkipTurn),
    system_commands=(StartGame,),
    codecs={Options: options_codec(parse_options, options_to_json)},
    invalid_command=lambda message: RuleError("invalid_command", message, kind=ErrorKind.INVALID),
)


# --- state -----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class State:
    players: tuple[str, ...] = ()
    options: Options = Options()
    fair: bool = True
    seed: str = ""
    seed_commitment: str = ""
    pile: int = 0
    turn: int = 0
    step_no: int = 0
    passed: frozenset[int] = frozenset()
    scores: tuple[int, ...] | None = None

    @property
    def started(self) -> bool:
        return bool(self.players)

    @property
    def over(self) -> bool:
        return self.scores is not None


INITIAL: Final = State()


def evolve(state: State, event: Event) -> State:
    if isinstance(event, GameStarted):
        return State(
            players=event.players,
            options=event.options,
            fair=event.fair,
            seed=event.seed,
            seed_commitment=event.seed_commitment,
            pile=event.pile,
            turn=event.first_seat,
            step_no=1,
        )
    if isinstance(event, PebblesTaken):
        return replace(
            state, pile=event.left, turn=(event.seat + 1) % len(state.players), step_no=state.step_no + 1
        )
    if isinstance(event, TurnSkipped):
        return replace(
            state,
            passed=state.passed | {event.seat},
            turn=(event.seat + 1) % len(state.players),
            step_no=state.step_no + 1,
        )
    return replace(state, scores=event.scores)


def decide(state: State, command: Command) -> list[Event]:
    if isinstance(command, StartGame):
        if state.started:
            fail("already_started", "the game has already started")
        players = command.players
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS or len(set(players)) != len(players):
            fail("invalid_players", f"Pebbles needs {MIN_PLAYERS} to {MAX_PLAYERS} distinct players")
        if len(command.seed) != 32:
            fail("invalid_players", "the seed must be 32 bytes")
        first = 0 if command.first_seat is None else command.first_seat
        if not 0 <= first < len(players):
            fail("invalid_setup", f"first_seat must be a seat, 0 to {len(players) - 1}")
        return [
            GameStarted(
                players=tuple(players),
                options=command.options,
                fair=not command.fixed_seed and command.first_seat is None,
                first_seat=first,
                pile=30 + command.seed[0] % 6,  # PB1.2
                seed=command.seed.hex(),
                seed_commitment=seed_commitment(command.seed),
            )
        ]
    if not state.started:
        fail("not_started", "the game has not started")
    if state.over:
        fail("game_over", "the game is over")
    if command.seat is None:
        fail("system_only", "a seat's command")
    if command.seat != state.turn:
        fail("not_your_turn", f"it is seat {state.turn}'s turn")
    if isinstance(command, SkipTurn):
        if command.seat in state.passed:
            fail("pass_used", "this seat has already passed (PB2.2)")
        return [TurnSkipped(seat=command.seat)]
    if command.reason not in (None, "timeout", "resigned"):
        fail("invalid_reason", "a default's reason is timeout or resigned")
    if not 1 <= command.count <= min(state.options.most, state.pile):
        fail("invalid_count", f"take 1 to {min(state.options.most, state.pile)} pebbles")
    left = state.pile - command.count
    out: list[Event] = [
        PebblesTaken(seat=command.seat, count=command.count, left=left, reason=command.reason)
    ]
    if left == 0:  # PB3.1
        scores = tuple(int(seat == command.seat) for seat in range(len(state.players)))
        out.append(GameEnded(scores=scores, winners=(command.seat,), seed=state.seed))
    return out


def fold(events: Iterable[Event], state: State = INITIAL) -> State:
    for event in events:
        state = evolve(state, event)
    return state


# --- the JSON shapes clients see -------------------------------------------------------------------------
class PebblesView(TypedDict):
    """The game as every viewer sees it (nothing is hidden but the seed, until the end); before the start,
    every key is null but ``ruleset``, ``started`` and ``over``."""

    ruleset: Literal["pebbles"]
    started: bool
    over: bool
    fair: bool | None
    viewer: int | None
    players: list[str] | None
    pile: int | None
    turn: int | None
    step_no: int | None
    passed: list[int] | None
    scores: list[int] | None
    seed_commitment: str | None
    seed: str | None  # only once over


class PebblesGameOptions(TypedDict):
    """PB2.1: the most pebbles one turn takes."""

    most: Annotated[int, Range(2, 3), NewGameRange(2, 3)]


class Setup(TypedDict, total=False):
    """An operator's setup (the game is then not fair): the seat that plays first (PB1.1)."""

    first_seat: int


TYPES: Final = RulesetTypes(
    name="Pebbles",
    prefix="PB",
    view=PebblesView,
    options=PebblesGameOptions,
    events=EVENT_CLASSES,
    commands=PLAYER_COMMANDS,
    player_commands=PLAYER_COMMANDS,
    substitutes={Options: PebblesGameOptions, bytes: str},
    errors={code: ErrorCode(kind, meaning) for code, (kind, meaning) in ERRORS.items()},
    setup=Setup,
)


# --- the game, as the table asks it ----------------------------------------------------------------------
class Pebbles(Game[State]):
    slug = SLUG
    version = "1"
    name = "Pebbles"
    seats = (MIN_PLAYERS, MAX_PLAYERS)
    deadline_steps = ("turn",)
    player_commands = PLAYER_COMMANDS
    event_classes = EVENT_CLASSES
    types = TYPES
    codec = CODEC
    options = GameOptions(parse_options, options_to_json)
    initial = INITIAL
    field_choices: Mapping[tuple[str, str], tuple[str, ...]] = MappingProxyType({})
    enum_names: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    rule_prefix = "PB"
    rulebook = "RULES.md"
    sample = Sample(name="A small pile", seats=2, options={"most": 2, "deadlines": {"turn": 3600}})

    def start_command(
        self,
        players: Sequence[str],
        options: Options,
        seed: bytes,
        setup: Mapping[str, Any] | None = None,
        *,
        fixed_seed: bool = False,
        creator: str | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> StartGame:
        first: int | None = None
        for key, value in (setup or {}).items():
            if key != "first_seat" or isinstance(value, bool) or not isinstance(value, int | None):
                fail("invalid_setup", "the setup is {first_seat: a seat number}")
            first = value
        return StartGame(
            seat=None,
            players=tuple(players),
            options=options,
            seed=seed,
            fixed_seed=fixed_seed,
            first_seat=first,
        )

    def decide(self, state: State, command: Command, ctx: Context) -> list[Event]:
        return decide(state, command)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def is_terminal(self, state: State) -> bool:
        return state.over

    def scores(self, state: State) -> list[int] | None:
        return None if state.scores is None else list(state.scores)

    def players(self, state: State) -> tuple[str, ...]:
        return state.players

    def waiting(self, state: State) -> Step | None:
        if not state.started or state.over:
            return None
        return Step(step_no=state.step_no, step="turn", seats=frozenset({state.turn}), deadline="turn")

    def default_command(self, state: State, seat: int, reason: str) -> Take | None:
        if not state.started or state.over or seat != state.turn:
            return None
        return Take(seat=seat, count=1, reason=reason)  # PB3.2

    def close_command(self, step_no: int, reason: str = "deadline") -> None:
        return None  # a turn closes by the game's own rules

    def resign_command(self, seat: int) -> None:
        return None  # PB3.2: the table plays the defaults

    def legal_commands(self, state: State, seat: int) -> list[str]:
        if not state.started or state.over or seat != state.turn:
            return []
        return ["Take"] if seat in state.passed else ["Take", "SkipTurn"]

    def view_for(self, state: State, viewer: Viewer) -> JSON:
        if not state.started:
            empty: dict[str, Any] = dict.fromkeys(PebblesView.__annotations__)
            return {**empty, "ruleset": "pebbles", "started": False, "over": False}
        view: PebblesView = {
            "ruleset": "pebbles",
            "started": state.started,
            "over": state.over,
            "fair": state.fair,
            "viewer": viewer,
            "players": list(state.players),
            "pile": state.pile,
            "turn": state.turn if state.started and not state.over else None,
            "step_no": state.step_no,
            "passed": sorted(state.passed),
            "scores": None if state.scores is None else list(state.scores),
            "seed_commitment": state.seed_commitment or None,
            "seed": state.seed if state.over else None,
        }
        return dict(view)

    def redact_event(self, event: Event, viewer: Viewer, *, terminal: bool) -> JSON:
        out = CODEC.event_to_json(event)
        if isinstance(event, GameStarted) and not terminal:
            out["seed"] = None
        return out

    def bot_command(self, state: State, seat: int, *, strategy: str, salt: int) -> Command | None:
        if strategy not in ("random", "sensible"):
            raise ValueError(f"unknown bot strategy {strategy!r}")
        if not state.started or state.over or seat != state.turn:
            return None
        most = min(state.options.most, state.pile)
        if strategy == "sensible" and state.pile % (state.options.most + 1) != 0:
            return Take(
                seat=seat, count=state.pile % (state.options.most + 1)
            )  # leave a multiple of most + 1
        if seat not in state.passed and (salt + state.step_no) % 5 == 0:
            return SkipTurn(seat=seat)
        return Take(seat=seat, count=1 + (salt + seat + state.step_no) % most)


GAME: Final[Pebbles] = Pebbles()
