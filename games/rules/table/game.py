"""What a game supplies to the table (:class:`Game`, the base every game's ``game.py`` declares itself on).

A game is pure rules: its own commands and events, its steps, who each step waits on, what a seat that timed
out or resigned plays (``default_command``), its views and its bots. It holds no deadline, pause, autopilot,
hand-over, warning or message: those are the table's (:mod:`games.rules.table.ruleset`), written once for
every game.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic, Protocol, TypeVar

from games.rules.core import JSON, AuditSecrets, Context, RulesetTypes, Sample, Step, Viewer
from games.rules.moves import Move

GameState = TypeVar("GameState")


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


class GameCodec(Protocol):
    """A game's JSON forms of its events and commands (``serde.CODEC``: a :class:`games.rules.codec.Codec`,
    or one of its subclasses where a game writes some forms as they were once written)."""

    def event_to_json(self, event: Any) -> JSON: ...

    def event_from_json(self, data: Mapping[str, Any]) -> Any: ...

    def command_to_json(self, command: Any) -> JSON: ...

    def command_from_json(self, data: Any, seat: int | None) -> Any:
        """Strict; raises the game's ``RuleError("invalid_command")`` and nothing else."""
        ...


@dataclass(frozen=True, slots=True)
class GameOptions:
    """A game's own options (``options.py``): ``parse`` reads a client's or a log's JSON (a key left out
    takes its default; raises :class:`games.rules.core.InvalidOptions`), ``to_json`` writes them in full."""

    parse: Callable[[Mapping[str, Any]], Any]
    to_json: Callable[[Any], JSON]


class WritesTableFacts(Protocol):
    """A game's ``facts``, for a game whose log predates the table and must stay as clients know it
    (GoodCritters): the game writes the table's facts into its own events, and the table reads them from there
    instead of writing its own ``TableOpened``, ``DeadlineSet``, ``PlayerReturned`` and lowered ``ReadySet``
    events (the table chooses how once, when it is built: ``games.rules.table.facts``).

    - ``fact_types``: the game's event classes that carry a table fact (the others are never asked);
    - ``table_fact(event)``: the fact, or ``None``;
    - ``with_due_at(event, due_at)``: the step-opening ``event`` with the deadline the table gives it;
    - ``start_type``: the game's own start command, which the table records as it is;
    - ``with_settings(start, settings)``: that start with the table's settings (JSON, in full) in place of
      its own copy;
    - ``follows``: the ``TYPE`` names of the table's events that the game folds too (its rules read them:
      e.g. who resigned, R7.4, and the ready flags, R2.4).
    """

    fact_types: frozenset[type[Any]]
    start_type: type[Any]
    follows: frozenset[str]

    def table_fact(self, event: Any) -> TableFact | None: ...

    def with_due_at(self, event: Any, due_at: str | None) -> Any: ...

    def with_settings(self, start: Any, settings: Mapping[str, Any]) -> Any: ...


class Game(abc.ABC, Generic[GameState]):
    """A game's pure rules, as the table hosts them: what a game declares (its ``game.py``), with a typed
    default for every member a game may leave out. A game's members are its rules' own functions (its
    ``decide``, ``waiting``, ``views``...), declared here by name; the table asks nothing else of it."""

    # --- what every game declares (a plain class attribute each; a game without one cannot be made) -----
    @property
    @abc.abstractmethod
    def slug(self) -> str:
        """Its registry key."""

    @property
    @abc.abstractmethod
    def version(self) -> str:
        """Changes whenever folding the same events could give another state."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """For people: "Loose Triggers"."""

    @property
    @abc.abstractmethod
    def seats(self) -> tuple[int, int]:
        """(fewest, most) seats."""

    @property
    @abc.abstractmethod
    def deadline_steps(self) -> tuple[str, ...]:
        """The keys of the table option ``deadlines`` (each step's duration)."""

    @property
    @abc.abstractmethod
    def player_commands(self) -> tuple[type[Any], ...]:
        """What a seat may send (the table adds its own)."""

    @property
    @abc.abstractmethod
    def event_classes(self) -> tuple[type[Any], ...]:
        """Its events."""

    @property
    @abc.abstractmethod
    def types(self) -> RulesetTypes:
        """Its own JSON shapes (view, options, errors); the table adds its own."""

    @property
    @abc.abstractmethod
    def codec(self) -> GameCodec:
        """Its events' and commands' JSON (``serde.CODEC``)."""

    @property
    @abc.abstractmethod
    def options(self) -> GameOptions:
        """Its own options (``options.py``)."""

    @property
    @abc.abstractmethod
    def initial(self) -> GameState:
        """The state before the first event."""

    # what the hosting needs of a game beyond its rules (declared, so that the type checker tells a new game)
    @property
    @abc.abstractmethod
    def field_choices(self) -> Mapping[tuple[str, str], tuple[str, ...]]:
        """``{(command TYPE, field): values}``: the enums of its commands' fields."""

    @property
    @abc.abstractmethod
    def enum_names(self) -> Mapping[str, tuple[str, ...]]:
        """The spec's names of its enums (``{"CoinKindEnum": KINDS}``)."""

    @property
    @abc.abstractmethod
    def rule_prefix(self) -> str:
        """Its rule numbers' prefix (``WC`` in ``WC2.3``): the spec's links, the citation test."""

    @property
    @abc.abstractmethod
    def rulebook(self) -> str:
        """Its rulebook's file name (``RULES-were-cats.md``), in its folder or the shared one."""

    # --- what a game may declare (these are the defaults) -----------------------------------------
    sample: Sample | None = None  # the spec's examples (core.Sample)
    # the game's own keys of the table option ``deadlines`` (LT2.5's ``aim``: the game reads it itself)
    own_deadlines: tuple[str, ...] = ()
    # the options a game made now gets when its creator leaves them out (its rules' version, ruling 32); a
    # start read back from a log gets none of them (absent there: the game's older rules)
    new_game_options: Mapping[str, Any] = MappingProxyType({})
    # the game's own rules versions, oldest first (ruling 32): the table reports them (``rules_version``)
    # instead of its own and, for a game it starts, records the newest in its ``StartGame.rules`` and passes
    # it to ``start_command(..., rules=)``; ``()``: none of its own
    rules_versions: tuple[str, ...] = ()
    facts: WritesTableFacts | None = None  # GoodCritters' older log form (see WritesTableFacts)
    # the audit's hooks of the game's own (``core.AuditHooks``), read on JSON; ``None``: the audit's default
    spectator_data: Callable[[Mapping[str, Any]], JSON] | None = None
    replay_sections: Callable[[Sequence[Mapping[str, Any]], Sequence[str]], list[JSON]] | None = None
    audit_secrets: Callable[[bytes], AuditSecrets] | None = None  # its check reads the game's state

    # --- the rules ------------------------------------------------------------------------------
    @abc.abstractmethod
    def start_command(
        self,
        players: Sequence[str],
        options: Any,
        seed: bytes,
        setup: Mapping[str, Any] | None = None,
        *,
        fixed_seed: bool = False,
        creator: str | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> Any:
        """The game's own start; ``fixed_seed``: an operator chose the seed (the game is not fair);
        ``creator``: the player who made the game; ``settings``: the table's settings as JSON (a game that
        writes the table's facts into its own start event keeps them there). A game with its own
        ``rules_versions`` also takes ``rules=`` (one of them, from the table's ``StartGame.rules``; the first
        one for a start stored before the game had versions) and plays them to its end; without it, the
        newest."""

    @abc.abstractmethod
    def decide(self, state: GameState, command: Any, ctx: Context) -> list[Any]: ...

    @abc.abstractmethod
    def evolve(self, state: GameState, event: Any) -> GameState: ...

    def step(self, state: GameState, command: Any, ctx: Context) -> tuple[list[Any], GameState]:
        """``decide`` and the state after its events (a game whose ``decide`` folds as it goes gives it
        without folding twice)."""
        events = self.decide(state, command, ctx)
        for event in events:
            state = self.evolve(state, event)
        return events, state

    def fold(self, events: Iterable[Any], state: GameState | None = None) -> GameState:
        s: GameState = self.initial if state is None else state
        for event in events:
            s = self.evolve(s, event)
        return s

    @abc.abstractmethod
    def is_terminal(self, state: GameState) -> bool: ...

    @abc.abstractmethod
    def scores(self, state: GameState) -> Sequence[int] | None: ...

    @abc.abstractmethod
    def players(self, state: GameState) -> tuple[str, ...]:
        """The player ids by seat, as the game started (seat order)."""

    def rules_version(self, state: GameState) -> str | None:
        """The rules (one of ``rules_versions``) the started game ``state`` plays under; ``None``: none of
        its own."""
        return None

    # --- what the table asks (``waiting.py``) -----------------------------------------------------
    @abc.abstractmethod
    def waiting(self, state: GameState) -> Step | None:
        """The step the game waits on now, or ``None`` (not started, over, or nothing to wait on)."""

    @abc.abstractmethod
    def default_command(self, state: GameState, seat: int, reason: str) -> Any | None:
        """What ``seat`` plays when it timed out (``reason="timeout"``) or resigned (``"resigned"``), or
        ``None`` when nothing is due from it now."""

    def close_command(self, step_no: int, reason: str) -> Any | None:
        """The system command that closes step ``step_no`` (steps with ``closes``), else ``None``.
        ``reason``: ``"ready"`` (every seat in it is ready, or nobody is left to wait for) or
        ``"deadline"``. Default: every step closes by the game's own rules."""
        return None

    def resign_command(self, seat: int) -> Any | None:
        """The game's own consequence of a resignation (e.g. cannot win), or ``None`` if it has none."""
        return None

    @abc.abstractmethod
    def legal_commands(self, state: GameState, seat: int) -> list[str]: ...

    def moves(self, state: GameState, seat: int) -> list[Move]:
        """The legal moves with their arguments (issue #24, ``moves.py``); default: none described."""
        return []

    @abc.abstractmethod
    def bot_command(self, state: GameState, seat: int, *, strategy: str, salt: int) -> Any | None: ...

    # --- views (``views.py``) -----------------------------------------------------------------------
    @abc.abstractmethod
    def view_for(self, state: GameState, viewer: Viewer) -> JSON: ...

    def full_view(self, state: GameState) -> JSON | None:
        """``view_for`` with nothing hidden, for a past state of a game that is over (the audit's
        step-through); ``None``: the spectator's view is all there is."""
        return None

    @abc.abstractmethod
    def redact_event(self, event: Any, viewer: Viewer, *, terminal: bool) -> JSON: ...

    def chart(self, state: GameState) -> tuple[str, tuple[int, ...]] | None:
        """What the replay page plots (``core.AuditHooks``), or ``None``: nothing."""
        return None

    # --- the declared members, as the table reads them -----------------------------------------------
    def initial_state(self) -> GameState:
        state: GameState = self.initial
        return state

    def seat_range(self) -> tuple[int, int]:
        return self.seats
