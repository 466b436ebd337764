"""The contract between a ruleset (pure game logic) and the service that hosts it.

Everything that *is the game* lives in a ruleset package (``games.rules.<slug>``): frozen dataclasses
and pure functions, no Django, no I/O, no clock, no global random. The service (event store, HTTP API,
timers, notifications) only ever talks to a ruleset through the :class:`Ruleset` protocol below, looked
up by the game's ``ruleset`` slug in :mod:`games.rules.registry`.

The shape is a Decider (J. Chassaing):

* ``decide(state, command, ctx) -> list[Event]`` holds every rule and every check; it raises
  :class:`RuleError` with a stable ``code`` when a command is not allowed.
* ``evolve(state, event) -> State`` only applies facts and never rejects, never draws randomness.
* State is always ``fold(evolve, initial_state(), events)``.

Seats are integers ``0..n-1`` in clockwise order, fixed by the game's first event. A *viewer* is a seat
number, or ``None`` for a spectator (no secrets at all). Once the game is terminal, every view is full.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from enum import Enum
from typing import Any, Protocol, TypeAlias, TypeVar, runtime_checkable

JSON: TypeAlias = dict[str, Any]
"""A JSON object as produced by ``json.loads`` (and accepted by ``json.dumps``)."""

Seat: TypeAlias = int
Viewer: TypeAlias = int | None


class ErrorKind(str, Enum):  # noqa: UP042
    """How a rule error maps to HTTP (the mapping itself lives in one place in the API layer)."""

    INVALID = "invalid"  # well-formed, but the rules forbid it as given (422)
    CONFLICT = "conflict"  # not allowed in the game's current state: wrong step, game over (409)
    FORBIDDEN = "forbidden"  # the acting seat may never do this (403)


class RuleError(Exception):
    """A command the rules refuse. ``code`` is stable and machine-readable (e.g. ``not_your_turn``)."""

    kind: ErrorKind = ErrorKind.INVALID

    def __init__(self, code: str, message: str, *, kind: ErrorKind | None = None, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        if kind is not None:
            self.kind = kind
        self.details: dict[str, Any] = details

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


@dataclasses.dataclass(frozen=True, slots=True)
class ErrorCode:
    """One entry of a ruleset's error catalogue: how the error maps to HTTP and what it means for a client."""

    kind: ErrorKind
    meaning: str


@dataclasses.dataclass(frozen=True, slots=True)
class Range:
    """In a ruleset's JSON types, ``Annotated[int, Range(low, high)]``: the bounds the rules enforce (the
    spec's ``minimum`` and ``maximum``; ``None``: unbounded)."""

    low: int | None = None
    high: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class NewGameRange:
    """In a ruleset's options types, ``Annotated[int, Range(...), NewGameRange(low, high)]``: the bounds a new
    game's option keeps (``games.rules.bounds``), the spec's ``minimum``/``maximum`` of the options a client
    sends. ``Range`` stays what a record may hold: games started under wider bounds keep loading and
    verifying (ruling 32)."""

    low: int
    high: int


@dataclasses.dataclass(frozen=True)
class RulesetTypes:
    """The JSON shapes a ruleset shows to clients, as Python types; the hosting generates the OpenAPI
    components from them (one generic converter, ``games.api.schema``), so the spec is never a hand-kept copy.

    ``view`` is a TypedDict of :meth:`Ruleset.view_for`'s result with a ``ruleset: Literal[slug]`` key (the
    discriminator of the state union); ``options`` a TypedDict of :meth:`Ruleset.options_to_json`;
    ``events``, ``commands`` (system and player) and ``player_commands`` the dataclasses the JSON forms are
    made from (``{"type": TYPE, ...fields}``); ``substitutes`` maps a field type to the type of its JSON
    form (e.g. the options dataclass to ``options``, ``bytes`` to ``str``); ``errors`` is the catalogue of
    every :class:`RuleError` code the ruleset raises and ``error_details`` a TypedDict of their ``details``.
    ``prefix`` starts the names of the event and command components (unique across rulesets).
    ``redaction_extras`` names, per event ``TYPE``, the counts (non-negative integers, e.g. the size of a
    hidden list) that :meth:`Ruleset.redact_event` adds to every form it serves while the game runs;
    ``setup`` is a TypedDict of an operator's setup where a start command keeps it as a plain ``dict``."""

    name: str
    prefix: str
    view: type
    options: type
    events: tuple[type, ...]
    commands: tuple[type, ...]
    player_commands: tuple[type, ...]
    substitutes: Mapping[Any, Any]
    errors: Mapping[str, ErrorCode]
    error_details: type | None = None
    redaction_extras: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    setup: type | None = None


class InvalidOptions(RuleError):
    """A game option set that the ruleset refuses (unknown key, bad value, bad combination)."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__("invalid_options", message, kind=ErrorKind.INVALID, **details)


@dataclasses.dataclass(frozen=True, slots=True)
class Context:
    """What ``decide`` needs from the outside world, passed in so that the rules stay pure.

    ``now`` is the (UTC, timezone-aware) time at which the service applies the command; it is used only
    to write deadlines into events (and compare them). The game's secret seed is never passed here: it
    arrives once, in the start command, and lives in the (server-side, redacted) first event.
    """

    now: datetime


@dataclasses.dataclass(frozen=True, slots=True)
class Step:
    """The step a game waits on, and for whom: the one type of it, from a game's rules (``waiting.py`` in each
    game's folder) up to the service (inbox, timers, bots).

    ``step_no`` is new for each step that opens: the table keys its deadline on it, and a timer carries it
    (a no-op if the game has moved on). ``seats``: from a game, the seats that may still act in the step
    (for a step the table closes, every seat taking part); from the table (:meth:`Ruleset.waiting`), the
    seats that still have to act for the step to close. ``deadline`` names the table option
    (``deadlines.<deadline>``) that sets the step's duration, unless ``seconds`` (the game's own duration,
    e.g. Loose Triggers' Countdown) is given. ``closes``: the table closes the step with the game's
    ``close_command`` when its time is up (after playing the defaults) or, with ``ready``, when every seat
    in it is ready (ready flags, as GoodCritters R2.4); otherwise the step closes by the game's own rules.
    ``due_at`` (set by the table only) is when the game next moves by itself (the service's timer:
    ``expire_command(step_no)`` applies it): the deadline written into the log for this step, or, while the
    game is paused, the end of the pause (R7.6); ``None`` when there is no such time.
    """

    step_no: int
    step: str
    seats: frozenset[Seat]
    deadline: str = ""
    seconds: int | None = None
    closes: bool = False
    ready: bool = False
    due_at: datetime | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Sample:
    """A game's sample for the API's documentation (optional ``sample`` member of a :class:`Ruleset`): a game
    of ``seats`` named ``name`` with the options ``options`` (a request's JSON), which the service's spec
    plays with bots for its examples; ``commands``: request bodies of the game's commands that the bots send
    seldom or never in a few games (each without ``type``), written out."""

    name: str
    seats: int
    options: Mapping[str, Any]
    commands: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)


StateT = TypeVar("StateT")
StateT_co = TypeVar("StateT_co", covariant=True)
StateT_contra = TypeVar("StateT_contra", contravariant=True)


@runtime_checkable
class Event(Protocol):
    """A fact. Every event class has a stable ``TYPE`` name and a ``VERSION`` (schema version)."""

    TYPE: str
    VERSION: int


@runtime_checkable
class Command(Protocol):
    """An intent. ``seat`` is the acting seat (set by the service from the caller, never by a client);
    ``None`` means the system itself (start, deadline expiry)."""

    TYPE: str


class Ruleset(Protocol[StateT]):
    """What the service needs from a game. One instance per ruleset, registered by ``slug``."""

    slug: str
    autopilot_player_commands: tuple[str, ...]  # what a player may still send while a bot plays their seat
    version: str  # changes whenever folding the same events could give a different state (cache key)
    # the rules' versions this code plays (and the audit's verifier re-decides): a game is played to its end
    # under the rules it started with, written in its log; ``rules_version(state)`` names a started game's
    rules_versions: tuple[str, ...]

    # --- options -----------------------------------------------------------------------------
    def parse_options(self, raw: Mapping[str, Any]) -> Any:
        """Validate a game's options (missing keys take defaults); raise :class:`InvalidOptions`."""
        ...

    def options_to_json(self, options: Any) -> JSON: ...

    def seat_range(self) -> tuple[int, int]:
        """(min, max) number of seats."""
        ...

    # --- the decider ---------------------------------------------------------------------------
    def initial_state(self) -> StateT: ...

    def decide(self, state: StateT, command: Command, ctx: Context) -> list[Event]: ...

    def evolve(self, state: StateT, event: Event) -> StateT: ...

    def fold(self, events: Iterable[Event], state: StateT | None = None) -> StateT: ...

    def is_terminal(self, state: StateT) -> bool: ...

    def rules_version(self, state: StateT) -> str:
        """The rules (one of ``rules_versions``) the started game ``state`` plays under."""
        ...

    # --- serialization -------------------------------------------------------------------------
    def event_to_json(self, event: Event) -> JSON:
        """``{"type": TYPE, "v": VERSION, ...fields}``; round-trips through :meth:`event_from_json`."""
        ...

    def event_from_json(self, data: Mapping[str, Any]) -> Event: ...

    def command_from_json(self, data: Mapping[str, Any], seat: Seat | None) -> Command:
        """Build a command from ``{"type": TYPE, ...fields}`` for the acting ``seat``; raise
        :class:`RuleError` (``invalid_command``) on unknown types, missing or ill-typed fields."""
        ...

    def command_to_json(self, command: Command) -> JSON: ...

    def start_command(
        self,
        *,
        players: Sequence[str],
        creator: str | None,
        options: Any,
        seed: bytes,
        setup: Mapping[str, Any] | None = None,
    ) -> Command:
        """The system command that starts a game: ``players`` are opaque ids in join order, ``seed`` is
        32 secret random bytes from the service. ``setup`` (operators only) fixes the seat order and/or
        the deck order explicitly; the resulting game is marked as not fairly shuffled."""
        ...

    def expire_command(self, step_no: int) -> Command:
        """The system command a timer sends when the deadline of step ``step_no`` passes."""
        ...

    # --- play by web: warnings, outage extensions, pause, autopilot, hand-over ------------------------
    def warn_command(self, step_no: int) -> Command:
        """The system command that warns the seats that have not acted that step ``step_no`` is due soon."""
        ...

    def extend_command(self, step_no: int, seconds: int, reason: str) -> Command:
        """The system command that gives step ``step_no`` ``seconds`` more from now (``reason``: outage)."""
        ...

    def pause_command(self, pause: bool) -> Command:
        """The system command that pauses (``True``) or resumes the game for its creator."""
        ...

    def hand_over_command(
        self, seat: Seat, *, to: str, player: str, idle_since: datetime | None = None
    ) -> Command:
        """The system command that gives an abandoned ``seat`` to a bot or another player (id ``player``).
        ``idle_since``: for a seat not on autopilot, since when the step it owes has waited on it (a stalled
        seat, the table's ruling 13)."""
        ...

    def warn_at(self, state: StateT) -> datetime | None:
        """When the current step's deadline warning is due, or ``None``."""
        ...

    def step_seconds(self, state: StateT) -> int | None:
        """The current step's deadline duration in seconds, or ``None``."""
        ...

    def autopilot_seats(self, state: StateT) -> frozenset[Seat]:
        """Seats a bot plays for an absent player (until taken back)."""
        ...

    def bot_command(self, state: StateT, seat: Seat, *, strategy: str, salt: int) -> Command | None:
        """A command for a bot in ``seat`` (``strategy``: ``random`` or ``sensible``), or ``None`` when it has
        nothing to do now. Deterministic given ``salt``."""
        ...

    # --- reading -------------------------------------------------------------------------------
    def waiting(self, state: StateT) -> Step | None:
        """The step the game waits on now, or ``None`` (not started, or over)."""
        ...

    def legal_commands(self, state: StateT, seat: Seat) -> list[str]:
        """Command ``TYPE`` names that ``seat`` may send now."""
        ...

    def view_for(self, state: StateT, viewer: Viewer) -> JSON:
        """What ``viewer`` may see (RULES.md R8.3); the full state once the game is terminal."""
        ...

    def redact_event(self, event: Event, viewer: Viewer, *, terminal: bool) -> JSON:
        """The event as ``viewer`` may see it (never omitted, so feeds have no gaps); unredacted when
        ``terminal`` (the game is over: the whole record is public)."""
        ...

    def scores(self, state: StateT) -> Sequence[int] | None:
        """Final score per seat once terminal, else ``None``."""
        ...

    # --- the audit (docs/AUDIT.md): optional members, see :class:`AuditHooks` -----------------------
    # A ruleset may also have any of ``audit_secrets``, ``spectator_data``, ``chart``, ``replay_sections``
    # and ``started_options`` (typed in :class:`AuditHooks`); the audit (``games.audit``) uses each one a
    # ruleset has and a generic default for each one it has not. A table that wraps a game forwards them to
    # the game when it has them.


class AuditFailure(Exception):
    """What an :class:`AuditSecrets` checker raises for a record's event: ``check`` names the audit's check
    that failed (``commitment``: a commitment or its opening is wrong; ``random``: a random outcome is not
    the one the seed gives; ``format``: the event cannot be read), ``message`` says why, for people."""

    def __init__(self, check: str, message: str) -> None:
        super().__init__(message)
        self.check = check
        self.message = message


class AuditSecrets(Protocol):
    """A ruleset's own, independent check of a finished game's secrets from its seed alone (docs/AUDIT.md,
    checks 7 and 8): every commitment against its opening, every random pick against the seed. It should not
    share code paths with the rules' ``decide`` (the verifier re-decides the game anyway, check 9): its point
    is to say *which* secret was changed, and to be a second, simpler reading of the rules' randomness.

    The verifier calls :meth:`check` for every event of the record, in order, with the state folded from the
    events before it, before it compares the event with what the rules decide."""

    commitments_opened: int  # how many commitments were opened and checked so far (the verdict shows it)
    random_picks: int  # how many random outcomes were re-derived from the seed so far

    def check(self, seq: int, data: Mapping[str, Any], state: Any) -> None:
        """Check event ``seq`` (its JSON ``data``, unredacted) given the ``state`` before it; raise
        :class:`AuditFailure` when a secret does not hold."""
        ...

    def random_fields(self, kind: str) -> frozenset[str]:
        """The fields of an event of type ``kind`` whose values the seed decides: when an event differs from
        what the rules decide in these fields only, the verifier reports a ``random`` failure (else
        ``rules``). ``frozenset()`` for none."""
        ...


class AuditHooks(Protocol[StateT_contra]):
    """The optional audit members of a :class:`Ruleset` (``getattr(ruleset, name, None)``), each with the
    generic default the audit uses when a ruleset has not got it.

    * ``audit_secrets(seed)``: a fresh :class:`AuditSecrets` checker for one record of a game whose seed is
      ``seed``, or ``None`` when the ruleset has nothing to check beyond re-deciding every command (the
      default: re-deciding already re-derives every commitment and random outcome the rules make).
    * ``spectator_data(data)``: an event's JSON ``data`` exactly as a spectator sees it while the game runs,
      as a new object (docs/AUDIT.md, "The public chain": what the public hash chain hashes, so it must never
      change for an event once stored). Default: :func:`default_spectator_data`, the ruleset's own
      ``redact_event(event, None, terminal=False)``. A ruleset pins it (as GoodCritters does, with a table of
      the fields set to null) when its views may change while its stored events' public hashes must not.
    * ``chart(state)``: ``(label, values)``, one integer per seat, what the replay page plots over the game
      (GoodCritters: "Stash value"), or ``None`` when there is nothing to plot at this state (before the
      start). Default: no chart.
    * ``replay_sections(events, names)``: the replay page's step-through, from the record's ``events`` (each
      ``{seq, type, data, ...}`` as in the record) and each seat's display name: a list of sections, each
      ``{"id", "title", "first_seq", "last_seq", "data", "body"}`` (``id``: lowercase letters, digits and
      ``-``; ``data``: extra ``data-*`` attributes of the section; ``body``: a list of nodes, a node being a
      text string or ``{"tag", "class", "data", "children"}`` with ``tag`` one of ``p h3 table tr th td ul
      li span strong small em``). Default: one section per command (its batch of events), each event shown
      as its type and fields.
    * ``started_options(events)``: the options the game started with, in full JSON form, read from the
      record's first events (each ``{type, data, ...}``), which the record's ``game.options`` must equal
      (a table: its game's ``GameStarted.options`` and its ``TableOpened.settings``), or ``None`` when they
      cannot be read. Default: the first event's ``options``.
    """

    def audit_secrets(self, seed: bytes) -> AuditSecrets | None: ...

    def spectator_data(self, data: Mapping[str, Any]) -> JSON: ...

    def chart(self, state: StateT_contra) -> tuple[str, tuple[int, ...]] | None: ...

    def replay_sections(self, events: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[JSON]: ...

    def started_options(self, events: Sequence[Mapping[str, Any]]) -> JSON | None: ...


def default_spectator_data(ruleset: Ruleset[Any], data: Mapping[str, Any]) -> JSON:
    """What a spectator sees of an event while the game runs, by the ruleset's own redaction: the default of
    :class:`AuditHooks`' ``spectator_data``."""
    return ruleset.redact_event(ruleset.event_from_json(data), None, terminal=False)
