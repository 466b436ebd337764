"""The table's commands, the same for every game. ``seat`` is the acting seat, set by the service from the
caller (never read from a client's JSON); ``None`` is the system (start, timers, the creator's pause, an
organizer's hand-over)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .options import Options


@dataclass(frozen=True, slots=True)
class StartGame:
    """System: seat ``players`` (opaque ids, in join order) and start the game. ``setup`` (operators only) is
    the game's own setup (seat order, deck order...); ``fixed_seed``: an operator chose ``seed``. Either makes
    the game not fair. ``rules``: the game's rules version, written by ``Table.start_command`` (the newest).
    """

    TYPE = "StartGame"
    seat: None
    players: tuple[str, ...]
    options: Options
    seed: bytes
    setup: dict[str, Any] | None = None
    fixed_seed: bool = False
    # the game's own rules version (one of its ``rules_versions``, RULES.md ruling 32) that it plays to its
    # end; None (absent from the JSON): a game without versions of its own, or a start stored before the game
    # had them, which plays the game's first rules
    rules: str | None = None


@dataclass(frozen=True, slots=True)
class Resign:
    """A player leaves the game for good (R7.4, LT7.3, WC4.3): from now on the table plays the game's
    defaults for the seat at once; the seat cannot win where the game says so."""

    TYPE = "Resign"
    seat: int | None


@dataclass(frozen=True, slots=True)
class SendMessage:
    """Talk at the table, public (``to`` null) or private to some seats; part of the record."""

    TYPE = "SendMessage"
    seat: int | None
    text: str
    to: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class SetReady:
    """Raise or lower the seat's ready flag in a step with ready flags (R2.4, LT3.3): ``ready=true`` needs
    the seat's choice made; the step closes as soon as every seat in it is ready."""

    TYPE = "SetReady"
    seat: int | None
    ready: bool = True


@dataclass(frozen=True, slots=True)
class TakeBackSeat:
    """A player whose seat a bot plays (autopilot) plays it again."""

    TYPE = "TakeBackSeat"
    seat: int | None


@dataclass(frozen=True, slots=True)
class VotePause:
    """``pause_by = "vote"``: vote to pause (``pause``: true) or, while paused, to resume (false); a
    majority of the seats still playing decides (ruling 28)."""

    TYPE = "VotePause"
    seat: int | None
    pause: bool = True


@dataclass(frozen=True, slots=True)
class ExpireDeadline:
    """System (the timer): step ``step_no``'s deadline, or the pause's end, has come."""

    TYPE = "ExpireDeadline"
    seat: None
    step_no: int


@dataclass(frozen=True, slots=True)
class WarnDeadline:
    """System (the timer): warn the seats that have not acted that step ``step_no`` is due soon."""

    TYPE = "WarnDeadline"
    seat: None
    step_no: int


@dataclass(frozen=True, slots=True)
class ExtendDeadline:
    """System: the timers were down when step ``step_no`` fell due (``reason``: outage); ``seconds`` more."""

    TYPE = "ExtendDeadline"
    seat: None
    step_no: int
    seconds: int
    reason: str = "outage"


@dataclass(frozen=True, slots=True)
class PauseGame:
    """System, for the game's creator (``pause_by = "creator"``)."""

    TYPE = "PauseGame"
    seat: None


@dataclass(frozen=True, slots=True)
class ResumeGame:
    """System, for the game's creator (``pause_by = "creator"``)."""

    TYPE = "ResumeGame"
    seat: None


@dataclass(frozen=True, slots=True)
class HandOverSeat:
    """System (an organizer): give abandoned seat ``target`` (on autopilot) to a bot (``to="bot"``) or to a
    player new to the game (``to="player"``); ``player`` is the new holder's id. ``idle_since`` (ISO time,
    absent from older records): the seat is not on autopilot but stalled, a step without a deadline has
    waited on it since then, at least ``STALL_SECONDS`` (the table's ruling 13)."""

    TYPE = "HandOverSeat"
    seat: None
    target: int
    to: str
    player: str
    idle_since: str | None = None


PLAYER_COMMANDS: tuple[type[Any], ...] = (Resign, SendMessage, SetReady, TakeBackSeat, VotePause)
SYSTEM_COMMANDS: tuple[type[Any], ...] = (
    StartGame,
    ExpireDeadline,
    WarnDeadline,
    ExtendDeadline,
    PauseGame,
    ResumeGame,
    HandOverSeat,
)
COMMAND_CLASSES: tuple[type[Any], ...] = (*SYSTEM_COMMANDS, *PLAYER_COMMANDS)
