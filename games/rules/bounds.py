"""The bounds a new game's options keep (issue #28, item 14): every option of the table and of each game has a
smallest and a largest value a player would expect. They are the spec's ``minimum``/``maximum`` of the options
a client sends (``games.rules.core.NewGameRange`` in the options' types) and the lobby refuses a new game's
option outside them (422 ``invalid_options``, ``details.key`` naming it).

They are tighter than what a record may hold (``games.rules.core.Range``, the options' parsers): a game
started under wider bounds keeps loading, playing and verifying (ruling 32). Here, not in
``games.rules.table.options``, because GoodCritters declares the table's options in its own types (its log
predates the table) and may not import the table's modules.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, Final

from games.rules.core import InvalidOptions, NewGameRange

DAY: Final = 24 * 3600

# what a record may hold (the parsers' bounds, which stay: games started under them keep verifying)
RECORD_SECONDS_MAX: Final = 30 * DAY  # a deadline, a warning, the longest pause
RECORD_EXTENSIONS_MAX: Final = 10
RECORD_AUTOPILOT_AFTER_MAX: Final = 20

# the table's options for a new game (RULES.md R7, LT7.1, WC4.1)
DEADLINE_MIN: Final = 1  # seconds; every step's deadline (null: none)
DEADLINE_MAX: Final = 7 * DAY  # a week per step is already a slow game by post
EXTENSIONS_MAX: Final = 5  # absence.extensions, from 0
AUTOPILOT_AFTER_MAX: Final = 10  # absence.autopilot_after, from 1 (null: never)
WARN_BEFORE_MAX: Final = DEADLINE_MAX  # warn_before, from 0 (null: a quarter of the step)
MAX_PAUSE_MIN: Final = 1  # seconds
MAX_PAUSE_MAX: Final = 14 * DAY  # R7.6's longest pause: at most two weeks (default one)

# the games' own options
LT_COUNTDOWN_MAX: Final = DAY  # LT3.1's Countdown, from 1 second: a discussion, not a week
WC_MAX_ROUNDS_MAX: Final = 40  # WC3.1, from 1 (default 20)
GC_BOSS_TERM_LIMIT_MAX: Final = 20  # R5.4, from 1 (null: none; the rulebook's optional rule uses 3)


def check_new_game(options: Mapping[str, Any], shape: Any, prefix: str = "") -> None:
    """Refuse (:class:`InvalidOptions`, ``key`` the dotted option) a new game's ``options`` (their full JSON
    form) where a value is outside its ``NewGameRange`` in the options' TypedDict ``shape``."""
    hints = typing.get_type_hints(shape, include_extras=True)
    for key, value in options.items():
        tp = hints.get(key)
        if tp is None or value is None:
            continue
        dotted = f"{prefix}{key}"
        for inner in _alternatives(tp):
            if typing.is_typeddict(inner) and isinstance(value, Mapping):
                check_new_game(value, inner, f"{dotted}.")
            elif typing.get_origin(inner) is dict and isinstance(value, Mapping):
                # {step: seconds}: a mapping whose values share one type
                item = typing.get_args(inner)[1]
                for sub, sub_value in value.items():
                    _check(f"{dotted}.{sub}", sub_value, item)
            else:
                _check(dotted, value, inner)


def _alternatives(tp: Any) -> tuple[Any, ...]:
    origin = typing.get_origin(tp)
    if origin in (typing.NotRequired, typing.Required):
        return _alternatives(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        return tuple(a for arg in typing.get_args(tp) if arg is not type(None) for a in _alternatives(arg))
    return (tp,)


def _check(dotted: str, value: Any, tp: Any) -> None:
    for inner in _alternatives(tp):
        if typing.get_origin(inner) is not typing.Annotated:
            continue
        for mark in inner.__metadata__:
            if not isinstance(mark, NewGameRange):
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                continue  # the parser has refused a value of the wrong kind already
            if not mark.low <= value <= mark.high:
                raise InvalidOptions(
                    f"option '{dotted}' must be from {mark.low} to {mark.high} for a new game",
                    key=dotted,
                )
