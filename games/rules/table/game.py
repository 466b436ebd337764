"""What a game supplies to the table (:class:`Game`), and the step it waits on (:class:`Step`).

A game is pure rules: its own commands and events, its steps, who each step waits on, what a seat that timed
out or resigned plays (``default_command``), its views and its bots. It holds no deadline, pause, autopilot,
hand-over, warning or message: those are the table's (:mod:`games.rules.table.ruleset`), written once for
every game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from games.rules.core import JSON, Context, RulesetTypes, Viewer

GameState = TypeVar("GameState")


@dataclass(frozen=True, slots=True)
class Step:
    """The step a game waits on.

    ``step_no`` is new for each step that opens (the table keys its deadline on it). ``seats`` are the seats
    that may still act in it (for a step the table closes, every seat taking part). ``deadline`` names the
    table option (``deadlines.<deadline>``) that sets its duration, unless ``seconds`` (the game's own
    duration, e.g. Loose Triggers' Countdown) is given. ``closes``: the table closes the step with the game's
    ``close_command`` when its time is up (after playing the defaults) or, with ``ready``, when every seat in
    it is ready (ready flags, as GoodCritters R2.4); otherwise the step closes by the game's own rules.
    """

    step_no: int
    step: str
    seats: frozenset[int]
    deadline: str
    seconds: int | None = None
    closes: bool = False
    ready: bool = False


@dataclass(frozen=True, slots=True)
class Opening:
    """The table's opening, as a game's own start event carries it (a game that writes the table's facts
    into its own events, see :class:`WritesTableFacts`): the first holders of the seats, the table's settings
    as JSON (the keys of ``games.rules.table.options.TABLE_KEYS``) and whether R7.6 applies (a pause ends by
    itself; a step opened during a pause runs from the resume). A game keeps the rules it started with
    (RULES.md ruling 32): games of GoodCritters started under its rules 2 play without R7.6."""

    players: tuple[str, ...]
    settings: Mapping[str, Any]
    pause_limit: bool = True


@dataclass(frozen=True, slots=True)
class StepOpening:
    """A game's event that opens a step and carries its deadline (``due_at``, which the table writes in)."""

    step_no: int
    step: str
    due_at: str | None = None


@dataclass(frozen=True, slots=True)
class StepClosing:
    """A game's event that closes a step: no deadline runs until the next step opens."""

    step_no: int


@dataclass(frozen=True, slots=True)
class SeatFacts:
    """What a game's event tells the table of the seats: the ready flags it lowers (R2.4: any change by a
    seat, or to a seat, lowers its flag) and the seat that acted by itself (its missed deadlines restart)."""

    unready: tuple[int, ...] = ()
    acted: int | None = None


TableFact = Opening | StepOpening | StepClosing | SeatFacts


class Game(Protocol[GameState]):
    """A game's pure rules, as the table hosts them."""

    slug: str
    version: str  # changes whenever folding the same events could give another state
    name: str  # for people: "Loose Triggers"
    deadline_steps: tuple[str, ...]  # the keys of the table option ``deadlines`` (each step's duration)
    player_commands: tuple[type[Any], ...]  # what a seat may send (the table adds its own)
    event_classes: tuple[type[Any], ...]
    types: RulesetTypes  # the game's own JSON shapes (view, options, errors); the table adds its own
    # what the hosting needs of a game beyond its rules (declared, so that the type checker tells a new game):
    field_choices: Mapping[tuple[str, str], tuple[str, ...]]  # {(command TYPE, field): values}: enums
    enum_names: Mapping[str, tuple[str, ...]]  # the spec's names of its enums ({"CoinKindEnum": KINDS})
    rule_prefix: str  # its rule numbers' prefix (``WC`` in ``WC2.3``): the spec's links, the citation test
    rulebook: str  # its rulebook's file name (``RULES-were-cats.md``), in its folder or the shared one

    def seat_range(self) -> tuple[int, int]: ...

    def parse_options(self, raw: Mapping[str, Any]) -> Any: ...

    def options_to_json(self, options: Any) -> JSON: ...

    def start_command(
        self,
        players: Sequence[str],
        options: Any,
        seed: bytes,
        setup: Mapping[str, Any] | None,
        *,
        fixed_seed: bool,
        creator: str | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> Any:
        """The game's own start; ``fixed_seed``: an operator chose the seed (the game is not fair);
        ``creator``: the player who made the game; ``settings``: the table's settings as JSON (a game that
        writes the table's facts into its own start event keeps them there). A game with its own rules
        versions (``rules_versions``, ruling 32) that the table starts also takes ``rules=`` (one of them,
        from the table's ``StartGame.rules``; the first one for a start stored before the game had versions)
        and plays them to its end; called without it, the newest."""
        ...

    def initial_state(self) -> GameState: ...

    def decide(self, state: GameState, command: Any, ctx: Context) -> list[Any]: ...

    def evolve(self, state: GameState, event: Any) -> GameState: ...

    # optional: ``step(state, command, ctx) -> (events, state after them)``, ``decide`` and its fold at once
    # (the table uses it when the game has it, so as not to fold the game's events twice)

    def is_terminal(self, state: GameState) -> bool: ...

    def scores(self, state: GameState) -> Sequence[int] | None: ...

    def players(self, state: GameState) -> tuple[str, ...]:
        """The player ids by seat, as the game started (seat order)."""
        ...

    def event_to_json(self, event: Any) -> JSON: ...

    def event_from_json(self, data: Mapping[str, Any]) -> Any: ...

    def command_to_json(self, command: Any) -> JSON: ...

    def command_from_json(self, data: Mapping[str, Any], seat: int | None) -> Any: ...

    def waiting(self, state: GameState) -> Step | None:
        """The step the game waits on now, or ``None`` (not started, over, or nothing to wait on)."""
        ...

    def default_command(self, state: GameState, seat: int, reason: str) -> Any | None:
        """What ``seat`` plays when it timed out (``reason="timeout"``) or resigned (``"resigned"``), or
        ``None`` when nothing is due from it now."""
        ...

    def close_command(self, step_no: int, reason: str) -> Any | None:
        """The system command that closes step ``step_no`` (steps with ``closes``), else ``None``.
        ``reason``: ``"ready"`` (every seat in it is ready, or nobody is left to wait for) or
        ``"deadline"``."""
        ...

    def resign_command(self, seat: int) -> Any | None:
        """The game's own consequence of a resignation (e.g. cannot win), or ``None`` if it has none."""
        ...

    def legal_commands(self, state: GameState, seat: int) -> list[str]: ...

    def view_for(self, state: GameState, viewer: Viewer) -> JSON: ...

    def redact_event(self, event: Any, viewer: Viewer, *, terminal: bool) -> JSON: ...

    def bot_command(self, state: GameState, seat: int, *, strategy: str, salt: int) -> Any | None: ...


class WritesTableFacts(Protocol):
    """Optional, for a game whose log predates the table and must stay as clients know it (GoodCritters):
    the game writes the table's facts into its own events, and the table reads them from there instead of
    writing its own ``TableOpened``, ``DeadlineSet``, ``PlayerReturned`` and lowered ``ReadySet`` events.

    - ``fact_types``: the game's event classes that carry a table fact (the others are never asked);
    - ``table_fact(event)``: the fact, or ``None``;
    - ``with_due_at(event, due_at)``: the step-opening ``event`` with the deadline the table gives it;
    - ``start_type``: the game's own start command, which the table records as it is;
    - ``follows``: the ``TYPE`` names of the table's events that the game folds too (its rules read them:
      e.g. who resigned, R7.4, and the ready flags, R2.4);

    Any game may also have its own rules versions (``rules_versions``, oldest first, and
    ``rules_version(state)``, ruling 32): the table then reports them instead of its own, and, for a game it
    starts (not this protocol's), records the newest in its ``StartGame.rules`` and passes it to the game's
    ``start_command(..., rules=)``.
    """

    fact_types: frozenset[type[Any]]
    start_type: type[Any]
    follows: frozenset[str]

    def table_fact(self, event: Any) -> TableFact | None: ...

    def with_due_at(self, event: Any, due_at: str | None) -> Any: ...

    def with_settings(self, start: Any, settings: Mapping[str, Any]) -> Any:
        """The game's start command with the table's settings (JSON, in full) in place of its own copy."""
        ...
