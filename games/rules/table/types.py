"""The JSON shapes a table game shows to clients: the game's own (``Game.types``) plus the table's, joined
once here so that a game adds only its own types (the hosting makes the spec of them: games.api.schema)."""

from __future__ import annotations

import typing
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from games.rules import bounds
from games.rules.core import NewGameRange, Range, RulesetTypes

from . import commands, events
from .errors import ERRORS
from .game import Game
from .options import (
    MAX_AUTOPILOT_AFTER,
    MAX_DEADLINE_SECONDS,
    MAX_EXTENSIONS,
    Options,
    Settings,
)

# Range: what a record may hold; NewGameRange: what a new game may ask for (issue #28, item 14)
Seconds = Annotated[
    int, Range(1, MAX_DEADLINE_SECONDS), NewGameRange(bounds.DEADLINE_MIN, bounds.DEADLINE_MAX)
]
Extensions = Annotated[int, Range(0, MAX_EXTENSIONS), NewGameRange(0, bounds.EXTENSIONS_MAX)]
AutopilotAfter = Annotated[int, Range(1, MAX_AUTOPILOT_AFTER), NewGameRange(1, bounds.AUTOPILOT_AFTER_MAX)]
WarnBefore = Annotated[int, Range(0, MAX_DEADLINE_SECONDS), NewGameRange(0, bounds.WARN_BEFORE_MAX)]
MaxPause = Annotated[
    int, Range(1, MAX_DEADLINE_SECONDS), NewGameRange(bounds.MAX_PAUSE_MIN, bounds.MAX_PAUSE_MAX)
]


class Absence(TypedDict):
    """Absent players: deadline extensions per seat; deadlines missed in a row before autopilot (null:
    never)."""

    extensions: Extensions
    autopilot_after: AutopilotAfter | None


class PlaySeat(TypedDict):
    """One seat at the table: its holder now, resigned, on autopilot (a bot plays it), its ready flag, the
    deadlines it missed in a row and the extensions it has left."""

    seat: int
    player: str
    resigned: bool
    autopilot: bool
    ready: bool
    misses: int
    extensions_left: int


class Play(TypedDict):
    """The table around the game: the step it waits on (``step``, ``step_no``, ``due_at``: its deadline,
    null for none), the seats it waits on, whether the step has ready flags, the pause (``paused_at``,
    ``pause_until``: when it ends by itself, R7.6; ``pause_by``; ``pause_votes``) and every seat."""

    step: str | None
    step_no: int
    due_at: str | None
    waiting_on: list[int]
    ready_flags: bool
    paused_at: str | None
    pause_until: str | None
    pause_by: Literal["creator", "vote"]
    pause_votes: list[int]
    seats: list[PlaySeat]


class TableSettings(TypedDict):
    """The table's settings as a game's TableOpened event records them: ``deadlines`` maps each of the
    game's deadline steps to seconds (null: no deadline; the steps are the keys of the game's
    ``{Name}Deadlines``), the absence policy, who pauses, the warning (seconds before a deadline; null: a
    quarter of the step; 0: none) and the longest pause (R7.6)."""

    deadlines: dict[str, Seconds | None]
    absence: Absence
    pause_by: Literal["creator", "vote"]
    warn_before: WarnBefore | None
    max_pause: MaxPause


SHARED_NAMES: dict[Any, str] = {
    TableSettings: "TableSettings",
    Absence: "TableAbsence",
    Play: "TablePlay",
    PlaySeat: "TablePlaySeat",
}
"""The spec's names of the TypedDicts every game on the table shares (one component each)."""
for _td, _name in SHARED_NAMES.items():
    setattr(_td, "__spec_name__", _name)  # noqa: B010 (read by games.api.schema)


def _typeddict(name: str, doc: str, fields: dict[str, Any]) -> Any:
    td: Any = TypedDict(name, fields)  # type: ignore[misc]
    td.__doc__ = doc
    td.__module__ = __name__
    return td


def _required(tp: Any) -> Any:
    """A view's key, always there: one a game's view has only once started (``NotRequired``) is null before
    (the table's ``view_for`` writes every key)."""
    if typing.get_origin(tp) is NotRequired:
        return typing.get_args(tp)[0] | None
    return tp


def table_types(game: Game[Any]) -> RulesetTypes:
    rt: RulesetTypes = game.types
    name = rt.name
    start_type = None if game.facts is None else game.facts.start_type
    own = typing.get_type_hints(rt.options, include_extras=True)  # a game's own declaration of a key wins
    # the game's own keys of ``deadlines`` (``own_deadlines``, e.g. LT2.5's aim window), typed by the game
    own_deadlines = own.pop("deadlines", None) if game.own_deadlines else None
    if typing.get_origin(own_deadlines) is NotRequired:
        own_deadlines = typing.get_args(own_deadlines)[0]
    deadlines = _typeddict(
        f"{name}Deadlines",
        "Seconds each step waits on players (null: no deadline)"
        + (
            "." if own_deadlines is None else f"; and the game's own: {(own_deadlines.__doc__ or '').strip()}"
        ),
        {
            **dict.fromkeys(game.deadline_steps, Seconds | None),
            **({} if own_deadlines is None else typing.get_type_hints(own_deadlines, include_extras=True)),
        },
    )
    settings = _typeddict(
        f"{name}TableSettings",
        "The table's options: each step's deadline, the absence policy, who pauses, the warning, the "
        "longest pause (R7.6).",
        {
            "deadlines": deadlines,
            "absence": Absence,
            "pause_by": Literal["creator", "vote"],
            "warn_before": WarnBefore | None,
            "max_pause": MaxPause,
        },
    )
    table_hints = typing.get_type_hints(settings, include_extras=True)
    options = (
        rt.options
        if set(table_hints) <= set(own)
        else _typeddict(
            f"{name}Options",
            f"A `{game.slug}` game's options in full (every key, defaults included; on input every key is "
            f"optional and takes its default): the game's own (`{rt.options.__name__}`) and the table's, "
            "`deadlines` (seconds per step, null: none), `absence`, `pause_by`, `warn_before` (seconds "
            "before a deadline, null: a quarter of the step, 0: no warning) and `max_pause` (seconds, R7.6).",
            {
                **own,
                **{k: v for k, v in table_hints.items() if k not in own},
            },
        )
    )
    view = _typeddict(
        rt.view.__name__,
        (rt.view.__doc__ or "").strip()
        + " Once started, ``players`` (the seats' holders now) and ``play`` (the step, its deadline, the "
        "seats it waits on, the pause, every seat's table facts), the same in every game. Every key is "
        "there in every view: those a game has only once started are null before its start.",
        {
            key: _required(tp)
            for key, tp in {
                **typing.get_type_hints(rt.view, include_extras=True),
                "players": NotRequired[list[str]],
                "play": NotRequired[Play],
            }.items()
        },
    )
    deprecated = rt.view.__dict__.get("__deprecated_keys__")
    if deprecated:  # a game's flat copies of the table's facts, kept for its older clients
        view.__deprecated_keys__ = deprecated
    table_events: tuple[type[Any], ...] = events.EVENT_CLASSES
    table_commands: tuple[type[Any], ...] = commands.COMMAND_CLASSES
    if (
        start_type is not None
    ):  # the game writes the table's facts into its own events (game.WritesTableFacts)
        unused = (events.TableOpened, events.DeadlineSet, events.PlayerReturned)
        table_events = tuple(e for e in table_events if e not in unused)
        table_commands = (start_type, *(c for c in table_commands if c is not commands.StartGame))
    errors = {**ERRORS, **rt.errors}
    for code, entry in ERRORS.items():  # a code means one thing everywhere
        if rt.errors.get(code, entry).kind != entry.kind:
            raise ValueError(
                f"{game.slug}: error {code!r} is {rt.errors[code].kind}, the table's {entry.kind}"
            )
    return RulesetTypes(
        name=name,
        prefix=rt.prefix,
        view=view,
        options=options,
        events=(*rt.events, *table_events),
        commands=(*table_commands, *rt.player_commands),
        player_commands=(*rt.player_commands, *commands.PLAYER_COMMANDS),
        substitutes={
            **rt.substitutes,
            Options: options,
            Settings: TableSettings,  # in TableOpened: the same shape for every game
            bytes: str,
            **({dict[str, Any]: rt.setup} if rt.setup is not None else {}),  # StartGame's setup: the game's
        },
        errors=errors,
        error_details=rt.error_details,
        redaction_extras=rt.redaction_extras,
        setup=rt.setup,
    )
