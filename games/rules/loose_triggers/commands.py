"""Commands: what a seat (or the system, ``seat=None``) asks the game to do. Imperative names from the
rulebook and LT. ``seat`` is set by the host from the caller, never read from a client's JSON. ``-1`` in an
int field means "none" (no card, no slot)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Final

from .options import RULES_UNWRITTEN, Options


@dataclass(frozen=True, slots=True)
class StartGame:
    """System. Operator ``setup`` (the game is then not fair): ``seats`` (player ids in seat order),
    ``loot_deck`` (a permutation of 0..55, top first), ``bagman``."""

    TYPE: ClassVar[str] = "StartGame"
    seat: None
    players: tuple[str, ...]
    options: Options
    seed: bytes
    seats: tuple[str, ...] | None = None
    loot_deck: tuple[int, ...] | None = None
    bagman: int | None = None
    fixed_seed: bool = False  # an operator chose the seed: the game is not fair
    # the rules' version the game plays to its end (README "Rules versions"; absent from the JSON: rules 1,
    # as a start was written before LT had versions); ``GAME.start_command`` gives the newest
    rules: int = RULES_UNWRITTEN


@dataclass(frozen=True, slots=True)
class Resign:
    """System (the table): ``target`` resigned (LT7.3)."""

    TYPE: ClassVar[str] = "Resign"
    seat: None
    target: int


@dataclass(frozen=True, slots=True)
class CloseStep:
    """System (the table): step ``step_no`` closes: the Countdown reached 0 (LT3.3), every Gunner is ready or
    the choice's deadline passed (LT3.4), the vote's deadline passed (LT5.4), every other player passed or
    the aim window's time is up (LT2.5). Stale: refused. ``reason`` (the table's ``close_command``):
    ``ready`` or ``deadline``; the aim window's close records it (``AimWindowClosed``); absent (null) from
    the commands stored before LT2.5 and left out of the JSON when null."""

    TYPE: ClassVar[str] = "CloseStep"
    seat: None
    step_no: int
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class GiveLoot:
    """LT2.2, the Bagman: the displayed card at ``slot`` to living seat ``to``."""

    TYPE: ClassVar[str] = "GiveLoot"
    seat: int | None
    slot: int
    to: int


@dataclass(frozen=True, slots=True)
class Aim:
    """LT3.1/LT3.2: open, join or retarget a Discussion."""

    TYPE: ClassVar[str] = "Aim"
    seat: int | None
    target: int


@dataclass(frozen=True, slots=True)
class ChooseAction:
    """LT3.3: a card from the hand, or none; changeable until the step closes."""

    TYPE: ClassVar[str] = "ChooseAction"
    seat: int | None
    card: int = field(metadata={"minimum": -1, "none": -1})  # the API reads null as -1 (state.NO_CARD)


@dataclass(frozen=True, slots=True)
class PickLoot:
    """LT4.1: a card from a Sitting Duck's stack, or -1 for a random one (the timeout default)."""

    TYPE: ClassVar[str] = "PickLoot"
    seat: int | None
    card: int = field(metadata={"minimum": -1})


@dataclass(frozen=True, slots=True)
class ClaimSpoils:
    """LT4.1: the displayed card at ``slot`` (or none) and/or the Bagman card."""

    TYPE: ClassVar[str] = "ClaimSpoils"
    seat: int | None
    slot: int = field(metadata={"minimum": -1, "none": -1})  # the API reads null as -1 (state.NO_CARD)
    bagman: bool


# LT4.2 (README ruling 9): a Grab source; a slot in ASCII digits only (the API declares and checks it too)
GRAB_SOURCE_PATTERN: Final[str] = "^(loot|action|discard|display:[0-9]+)$"


@dataclass(frozen=True, slots=True)
class Grab:
    """LT4.2: three sources, each a pile (``loot``, ``action``, ``discard``) or a displayed card
    (``display:<slot>``, its slot as displayed now, in ASCII digits): the spec's ``GrabSource``."""

    TYPE: ClassVar[str] = "Grab"
    seat: int | None
    sources: tuple[str, ...] = field(metadata={"pattern": GRAB_SOURCE_PATTERN})


@dataclass(frozen=True, slots=True)
class BurnLoot:
    """LT4.5: outside a Discussion, IN THE FIRE! ``card`` and two Loot cards of the seat's stack."""

    TYPE: ClassVar[str] = "BurnLoot"
    seat: int | None
    card: int
    loot: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ElectBagman:
    """LT5.4: a vote for a living, not resigned seat."""

    TYPE: ClassVar[str] = "ElectBagman"
    seat: int | None
    candidate: int


Command = (
    StartGame
    | Resign
    | CloseStep
    | GiveLoot
    | Aim
    | ChooseAction
    | PickLoot
    | ClaimSpoils
    | Grab
    | BurnLoot
    | ElectBagman
)
COMMAND_CLASSES: tuple[type[Command], ...] = (
    StartGame,
    Resign,
    CloseStep,
    GiveLoot,
    Aim,
    ChooseAction,
    PickLoot,
    ClaimSpoils,
    Grab,
    BurnLoot,
    ElectBagman,
)
SYSTEM_COMMANDS: tuple[type[Command], ...] = (StartGame, Resign, CloseStep)
