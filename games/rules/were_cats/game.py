"""Were-cats as the table hosts it (:class:`games.rules.table.game.Game`): ``games.rules.registry`` registers
``Table(GAME)``. Pure: no Django, no I/O, no clock, no global random."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from games.rules import codec
from games.rules.core import JSON, Context, RulesetTypes, Sample, Viewer
from games.rules.table.game import Step

from . import serde, types
from .bots import bot_command
from .coins import KINDS, MAX_PLAYERS, MIN_PLAYERS
from .commands import FIELD_CHOICES, Command, Resign, StartGame
from .decide import decide
from .decide import step as decide_step
from .errors import ERRORS, fail
from .events import EVENT_CLASSES, Event
from .evolve import evolve, fold
from .moves import moves
from .options import Options, options_to_json, parse_options
from .state import INITIAL_STATE, OVER, State
from .views import chart, redact_event, view_for
from .waiting import default_command, legal_commands, waiting

_SETUP_KEYS: Final = ("seats", "first_seat")


class WereCats:
    """The Were-cats game (RULES-were-cats.md, rulings in ``README.md``)."""

    slug: str = "were_cats"
    version: str = "1"
    name: str = "Were-cats"
    deadline_steps: tuple[str, ...] = ("setup", "place", "populate", "act")  # WC4.1, ruling 14 (setup)
    player_commands: tuple[type[Any], ...] = types.PLAYER_COMMANDS
    event_classes: tuple[type[Any], ...] = EVENT_CLASSES
    types: RulesetTypes = types.TYPES
    field_choices: Mapping[tuple[str, str], tuple[str, ...]] = FIELD_CHOICES
    enum_names: Mapping[str, tuple[str, ...]] = {"CoinKindEnum": KINDS}
    rule_prefix: str = "WC"
    rulebook: str = "RULES-were-cats.md"
    sample: Sample = Sample(
        name="Full moon",
        seats=3,
        options={"max_rounds": 12, "deadlines": {"place": 86400, "act": 86400}, "warn_before": 3600},
    )
    errors = ERRORS

    def seat_range(self) -> tuple[int, int]:
        return (MIN_PLAYERS, MAX_PLAYERS)

    # --- options -----------------------------------------------------------------------------
    def parse_options(self, raw: Mapping[str, Any]) -> Options:
        return parse_options(raw)

    def options_to_json(self, options: Options) -> JSON:
        return options_to_json(options)

    # --- the decider ---------------------------------------------------------------------------
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
        """The system's StartGame. ``setup`` (operators only): ``seats`` (player ids in seat order) and/or
        ``first_seat`` (WC1.3's first chooser); the game is then marked not fair."""
        seats: tuple[str, ...] | None = None
        first: int | None = None
        if setup is not None:
            for key in setup:
                if key not in _SETUP_KEYS:
                    fail("invalid_setup", f"unknown setup key {key!r} (keys: {', '.join(_SETUP_KEYS)})")
            try:
                if setup.get("seats") is not None:
                    seats = codec.as_strs(setup["seats"])
                if setup.get("first_seat") is not None:
                    first = codec.as_int(setup["first_seat"])
            except codec.Bad as exc:
                fail("invalid_setup", f"setup: {exc}")
        return StartGame(
            seat=None,
            players=tuple(players),
            options=options,
            seed=seed,
            seats=seats,
            first_seat=first,
            fixed_seed=fixed_seed,
        )

    def initial_state(self) -> State:
        return INITIAL_STATE

    def decide(self, state: State, command: Command, ctx: Context | None = None) -> list[Event]:
        return decide(state, command, ctx)

    def step(self, state: State, command: Command, ctx: Context | None = None) -> tuple[list[Event], State]:
        """``decide`` and the state after its events (folded once, by decide)."""
        return decide_step(state, command, ctx)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def fold(self, events: Iterable[Event], state: State | None = None) -> State:
        return fold(events, state)

    def is_terminal(self, state: State) -> bool:
        return state.phase == OVER

    def scores(self, state: State) -> list[int] | None:
        return None if state.scores is None else list(state.scores)

    # --- JSON ----------------------------------------------------------------------------------
    def event_to_json(self, event: Event) -> JSON:
        return serde.event_to_json(event)

    def event_from_json(self, data: Mapping[str, Any]) -> Event:
        return serde.event_from_json(data)

    def command_to_json(self, command: Command) -> JSON:
        return serde.command_to_json(command)

    def command_from_json(self, data: Mapping[str, Any], seat: int | None) -> Command:
        return serde.command_from_json(data, seat)

    # --- what the table asks -------------------------------------------------------------------
    def players(self, state: State) -> tuple[str, ...]:
        return state.players

    def waiting(self, state: State) -> Step | None:
        w = waiting(state)
        if w is None:
            return None
        return Step(step_no=w.step_no, step=w.step, seats=w.seats, deadline=w.step)

    def close_command(self, step_no: int, reason: str = "deadline") -> None:
        return None  # every step closes by the game's own rules

    def resign_command(self, seat: int) -> Resign:
        return Resign(seat=None, target=seat)  # WC4.3 as R7.4: cannot win (ruling 15)

    def default_command(self, state: State, seat: int, reason: str) -> Command | None:
        return default_command(state, seat, reason)

    def legal_commands(self, state: State, seat: int) -> list[str]:
        return legal_commands(state, seat)

    def moves(self, state: State, seat: int) -> list[Any]:
        """The legal moves with their arguments (issue #24, ``moves.py``)."""
        return moves(state, seat)

    def view_for(self, state: State, viewer: Viewer) -> JSON:
        return view_for(state, viewer)

    def redact_event(self, event: Event, viewer: Viewer, *, terminal: bool) -> JSON:
        return redact_event(event, viewer, terminal=terminal)

    def bot_command(self, state: State, seat: int, *, strategy: str, salt: int) -> Command | None:
        return bot_command(state, seat, strategy=strategy, salt=salt)

    def chart(self, state: State) -> tuple[str, tuple[int, ...]] | None:
        """The replay page's chart: each seat's points (``games.rules.core.AuditHooks``)."""
        return chart(state)


GAME: Final[WereCats] = WereCats()
