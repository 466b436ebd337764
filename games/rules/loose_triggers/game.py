"""``GAME``: Loose Triggers, Smoking Barrels as the table hosts it (:class:`games.rules.table.game.Game`);
``games.rules.registry`` registers ``Table(GAME)``. Only the game's own rules: the deadlines, pauses,
absences and messages are the table's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Final

from games.rules.core import JSON, Context, RuleError, RulesetTypes, Sample, Viewer
from games.rules.table.game import Step

from . import bots, decide, evolve, hooks, moves, serde, types, views
from .commands import CloseStep, Command, Resign, StartGame
from .errors import rule_error
from .events import EVENT_CLASSES, Event
from .options import OWN_DEADLINES, RULES, RULES_KNOWN, Options, options_to_json, parse_options
from .state import INITIAL_STATE, OVER, State

_SETUP_KEYS: Final[tuple[str, ...]] = ("seats", "loot_deck", "bagman")


class LooseTriggers:
    slug: str = "loose_triggers"
    version: str = "lt-2"
    name: str = "Loose Triggers"
    deadline_steps: tuple[str, ...] = ("give", "choose", "pick")  # LT7.1 (elect: give; claim, grab: pick)
    # LT2.5's ``deadlines.aim`` is the game's own (0: no window, which only the game can tell; ruling 25)
    own_deadlines: tuple[str, ...] = OWN_DEADLINES
    # the rules this code plays, oldest first, each game to its end under the rules it started with (ruling
    # 32, README "Rules versions"): a game made now plays under ``RULES``, written in its start command and
    # ``GameStarted`` (``rules``) and, for LT2.5's window, in its options (the table writes it in)
    rules_versions: tuple[str, ...] = tuple(str(r) for r in RULES_KNOWN)
    new_game_options: Mapping[str, Any] = MappingProxyType({"rules": RULES})
    player_commands: tuple[type[Any], ...] = types.PLAYER_COMMANDS
    event_classes: tuple[type[Any], ...] = EVENT_CLASSES
    types: RulesetTypes = types.TYPES
    field_choices: Mapping[tuple[str, str], tuple[str, ...]] = {}  # its string fields are Literals
    enum_names: Mapping[str, tuple[str, ...]] = {}
    rule_prefix: str = "LT"
    rulebook: str = "RULES-loose-triggers.md"
    sample: Sample = Sample(
        name="Saloon at noon",
        seats=5,
        options={
            "countdown": 90,
            "max_retargets": 2,
            "deadlines": {"give": 3600, "choose": 3600, "pick": 3600, "aim": 60},
            "absence": {"extensions": 1, "autopilot_after": 3},
            "pause_by": "vote",
            "warn_before": 600,
        },
        commands={"ElectBagman": {"candidate": 2}},  # LT5.4: only when the Bagman dies
    )

    def rules_version(self, state: State) -> str:
        """The rules the started game ``state`` plays under, as its log says (``GameStarted``)."""
        return str(state.rules)

    def seat_range(self) -> tuple[int, int]:
        return decide.MIN_PLAYERS, decide.MAX_PLAYERS

    def parse_options(self, raw: Mapping[str, Any]) -> Options:
        return parse_options(raw)

    def options_to_json(self, options: Options) -> JSON:
        return options_to_json(options)

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
        rules: str | None = None,
    ) -> StartGame:
        """The system's StartGame; ``setup`` (operators) may fix ``seats``, ``loot_deck`` and ``bagman``,
        which makes the game not fair. ``rules``: one of ``rules_versions`` (the table's ``StartGame.rules``;
        None: the newest)."""
        if rules is not None and rules not in self.rules_versions:
            raise rule_error("invalid_command", f"unknown rules {rules!r}")
        setup = setup or {}
        for key in setup:
            if key not in _SETUP_KEYS:
                raise rule_error("invalid_setup", f"unknown setup key {key!r}")
        try:
            seats = setup.get("seats")
            loot = setup.get("loot_deck")
            bagman = setup.get("bagman")
            if bagman is not None and type(bagman) is not int:
                raise TypeError("bagman")
            version = RULES if rules is None else int(rules)
            return StartGame(
                seat=None,
                players=tuple(str(p) for p in players),
                # one version: the options' ``rules`` (which LT2.5's window reads) are the start's own
                options=replace(options, rules=version),
                seed=seed,
                seats=None if seats is None else tuple(str(p) for p in seats),
                loot_deck=None if loot is None else tuple(int(c) for c in loot),
                bagman=bagman,
                fixed_seed=fixed_seed,
                rules=version,
            )
        except (TypeError, ValueError) as exc:
            raise rule_error("invalid_setup", f"malformed setup: {exc}") from None

    def initial_state(self) -> State:
        return INITIAL_STATE

    def decide(self, state: State, command: Command, ctx: Context | None = None) -> list[Event]:
        return decide.decide(state, command, ctx)

    def step(self, state: State, command: Command, ctx: Context | None = None) -> tuple[list[Event], State]:
        """``decide`` and the state after its events (folded once, by decide)."""
        return decide.step(state, command, ctx)

    def evolve(self, state: State, event: Event) -> State:
        return evolve.evolve(state, event)

    def fold(self, events: Iterable[Event], state: State | None = None) -> State:
        return evolve.fold(events, state)

    def is_terminal(self, state: State) -> bool:
        return state.phase == OVER

    def scores(self, state: State) -> list[int] | None:
        return list(state.scores) if state.phase == OVER and state.scores is not None else None

    def event_to_json(self, event: Event) -> JSON:
        return serde.event_to_json(event)

    def event_from_json(self, data: Mapping[str, Any]) -> Event:
        return serde.event_from_json(data)

    def command_to_json(self, command: Command) -> JSON:
        return serde.command_to_json(command)

    def command_from_json(self, data: Any, seat: int | None) -> Command:
        return serde.command_from_json(data, seat)

    def players(self, state: State) -> tuple[str, ...]:
        return state.players

    def waiting(self, state: State) -> Step | None:
        w = hooks.waiting(state)
        if w is None:
            return None
        return Step(
            step_no=w.step_no,
            step=w.step,
            seats=w.seats,
            deadline=w.deadline.removeprefix("deadlines."),
            seconds=w.seconds,
            closes=w.step in hooks.CLOSED_BY_TABLE,
            ready=w.step in hooks.READY_FLAGS,
        )

    def close_command(self, step_no: int, reason: str = "deadline") -> CloseStep:
        return CloseStep(seat=None, step_no=step_no, reason=reason)

    def resign_command(self, seat: int) -> Resign:
        return Resign(seat=None, target=seat)

    def default_command(self, state: State, seat: int, reason: str) -> Command | None:
        return hooks.default_command(state, seat, reason)

    def legal_commands(self, state: State, seat: int) -> list[str]:
        return hooks.legal_commands(state, seat)

    def moves(self, state: State, seat: int) -> list[Any]:
        """The legal moves with their arguments (issue #24, ``moves.py``)."""
        return moves.moves(state, seat)

    def view_for(self, state: State, viewer: Viewer) -> JSON:
        return views.view_for(state, viewer)

    def full_view(self, state: State) -> JSON:
        return views.view_for(state, None, full=True)

    def redact_event(self, event: Event, viewer: Viewer, *, terminal: bool) -> JSON:
        return views.redact_event(event, viewer, terminal=terminal)

    def bot_command(self, state: State, seat: int, *, strategy: str, salt: int) -> Command | None:
        return bots.bot_command(state, seat, strategy=strategy, salt=salt)

    def chart(self, state: State) -> tuple[str, tuple[int, ...]] | None:
        """The replay page's chart: each seat's Loot value (``games.rules.core.AuditHooks``)."""
        return views.chart(state)


GAME: Final = LooseTriggers()

__all__ = ["GAME", "LooseTriggers", "RuleError"]
