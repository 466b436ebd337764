"""The table's events, the same for every game, named as GoodCritters names the same facts. They sit in the
game's log beside the game's own events (no name is both)."""

from __future__ import annotations

from dataclasses import dataclass

from .options import Settings

Seats = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TableOpened:
    """The table's settings for this game (deadlines, absence, pause), right after the game's start; the
    players by seat are the game's ``GameStarted.players``."""

    TYPE = "TableOpened"
    VERSION = 1
    players: tuple[str, ...]
    settings: Settings


@dataclass(frozen=True, slots=True)
class DeadlineSet:
    """A step that waits on players opened (R7.1, R7.5): its deadline (``null``: none)."""

    TYPE = "DeadlineSet"
    VERSION = 1
    step_no: int
    step: str
    due_at: str | None


@dataclass(frozen=True, slots=True)
class DeadlineMissed:
    """``seats`` had not acted when step ``step_no``'s deadline passed."""

    TYPE = "DeadlineMissed"
    VERSION = 1
    step_no: int
    step: str
    seats: Seats


@dataclass(frozen=True, slots=True)
class DeadlineExtended:
    """Step ``step_no`` is due later: ``reason`` absence (``seats`` each spent an extension; ready flags
    ``unready`` are lowered) or outage (the timers were down)."""

    TYPE = "DeadlineExtended"
    VERSION = 1
    step_no: int
    step: str
    due_at: str
    previous_due_at: str
    reason: str
    seats: Seats
    unready: Seats


@dataclass(frozen=True, slots=True)
class DeadlinePassed:
    """Step ``step_no``'s deadline passed: the table plays the defaults (R7.5)."""

    TYPE = "DeadlinePassed"
    VERSION = 1
    step_no: int
    step: str
    due_at: str


@dataclass(frozen=True, slots=True)
class DeadlineNear:
    """Step ``step_no`` is due at ``due_at``; ``seats`` have not acted yet."""

    TYPE = "DeadlineNear"
    VERSION = 1
    step_no: int
    step: str
    due_at: str
    seats: Seats


@dataclass(frozen=True, slots=True)
class ReadySet:
    TYPE = "ReadySet"
    VERSION = 1
    seat: int
    ready: bool


@dataclass(frozen=True, slots=True)
class PlayerReturned:
    """A seat that had missed deadlines acted again: its count of missed deadlines starts again from 0."""

    TYPE = "PlayerReturned"
    VERSION = 1
    seat: int


@dataclass(frozen=True, slots=True)
class AutopilotEngaged:
    TYPE = "AutopilotEngaged"
    VERSION = 1
    seat: int
    reason: str  # absent


@dataclass(frozen=True, slots=True)
class AutopilotReleased:
    TYPE = "AutopilotReleased"
    VERSION = 1
    seat: int
    reason: str  # taken_back | handed_over


@dataclass(frozen=True, slots=True)
class SeatHandedOver:
    TYPE = "SeatHandedOver"
    VERSION = 1
    seat: int
    to: str  # bot | player
    player: str


@dataclass(frozen=True, slots=True)
class PlayerResigned:
    TYPE = "PlayerResigned"
    VERSION = 1
    seat: int


@dataclass(frozen=True, slots=True)
class MessageSent:
    TYPE = "MessageSent"
    VERSION = 1
    seat: int
    text: str
    to: Seats | None


@dataclass(frozen=True, slots=True)
class PauseVoted:
    TYPE = "PauseVoted"
    VERSION = 1
    seat: int
    pause: bool


@dataclass(frozen=True, slots=True)
class GamePaused:
    TYPE = "GamePaused"
    VERSION = 1
    at: str
    by: str  # creator | vote


@dataclass(frozen=True, slots=True)
class GameResumed:
    """The pause ended (``by``: creator, vote, limit (R7.6), resigned (no seat left to resume it)); the
    step's deadline moves by the time paused (``due_at``)."""

    TYPE = "GameResumed"
    VERSION = 1
    by: str
    paused_seconds: int
    due_at: str | None


EVENT_CLASSES: tuple[type, ...] = (
    TableOpened,
    DeadlineSet,
    DeadlineMissed,
    DeadlineExtended,
    DeadlinePassed,
    DeadlineNear,
    ReadySet,
    PlayerReturned,
    AutopilotEngaged,
    AutopilotReleased,
    SeatHandedOver,
    PlayerResigned,
    MessageSent,
    PauseVoted,
    GamePaused,
    GameResumed,
)
