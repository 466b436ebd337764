"""Game options: every optional rule of RULES.md. Defaults: the base game.

The play-by-web settings (R7: deadlines, absence, pause, warnings) are the table's (``games.rules.table``),
which validates them; GoodCritters keeps them, as the table gives them, in its start event (``table``),
where its log has always had them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from games.rules.core import JSON, InvalidOptions

from .cards import ACTIONS

FUZZ_DEPTHS: Final[dict[str, tuple[float, float] | None]] = {
    "standard": None,  # the R1.4 table
    "short": (0.25, 0.50),  # R1.5
    "long": (0.75, 1.00),
}
NO_VOTE_RULES: Final[tuple[str, ...]] = ("english", "russian")  # R4.3/R4.4 or R4.5
TIMEOUT_ACTIONS: Final[tuple[str, ...]] = ("none", *ACTIONS)  # R7.3
DEADLINE_STEPS: Final[tuple[str, ...]] = ("distribute", "choose")  # the steps that wait on players (R7.1)
MAX_PAUSE_KEY: Final = "max_pause"  # R7.6's option, which the options of a game under rules 2 never name
# the table's settings, which the start event keeps beside the game's own options (the table validates them)
TABLE_OPTION_KEYS: Final[tuple[str, ...]] = ("deadlines", "absence", "pause_by", "warn_before", MAX_PAUSE_KEY)
MAX_BOSS_TERM_LIMIT: Final[int] = 50

# A game is played to its end under the rules it started with (ruling 32): the rules' version is a fact of
# its log (``StartGame.rules``, ``GameStarted.rules``, then ``State.rules``), and ``decide`` applies each rule
# as that version has it.
RULES_UNWRITTEN: Final[int] = 2  # the rules of a game whose log does not say (started before it was written)
RULES_R7_6: Final[int] = 3  # the first rules with R7.6 (option max_pause, the pause's limit, ruling 31)
RULES: Final[int] = 3  # the rules a game started now plays under
RULES_KNOWN: Final[tuple[int, ...]] = (2, 3)  # the rules this code plays (and the verifier re-decides)


@dataclass(frozen=True, slots=True)
class Options:
    """The validated options of one game (see ``games/rules/README.md`` for the JSON form)."""

    payoffs: bool = False  # R1.7, R6
    boss_term_limit: int | None = None  # R5.4 (the rulebook's optional rule uses 3)
    fuzz_depth: str | tuple[float, float] = "standard"  # R1.5
    no_vote_rule: str = "english"  # R4.5
    shuffle_seats: bool = False  # R1.1
    timeout_action: str = "none"  # R7.3
    # the table's settings (deadlines, absence, pause, warnings, R7) as JSON, as the table gave them at the
    # start: they are written in the start event with the game's own options
    table: tuple[tuple[str, Any], ...] = ()

    def fuzz_span(self) -> tuple[float, float] | None:
        """``None`` for the standard R1.4 split, else the ``(from, to)`` fractions of the pile."""
        if isinstance(self.fuzz_depth, tuple):
            return self.fuzz_depth
        return FUZZ_DEPTHS[self.fuzz_depth]


DEFAULT_OPTIONS: Final[Options] = Options()

_KEYS: Final[tuple[str, ...]] = (
    "payoffs",
    "boss_term_limit",
    "fuzz_depth",
    "no_vote_rule",
    "shuffle_seats",
    "timeout_action",
)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bool(raw: Mapping[str, Any], key: str) -> bool:
    value = raw[key]
    if not isinstance(value, bool):
        raise InvalidOptions(f"option {key!r} must be true or false", key=key)
    return value


def _choice(raw: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    value = raw[key]
    if not isinstance(value, str) or value not in allowed:
        raise InvalidOptions(f"option {key!r} must be one of {', '.join(allowed)}", key=key)
    return value


def _boss_term_limit(value: Any) -> int | None:
    if value is None:
        return None
    if not _is_int(value) or not 1 <= value <= MAX_BOSS_TERM_LIMIT:
        raise InvalidOptions(
            f"option 'boss_term_limit' must be null or an integer from 1 to {MAX_BOSS_TERM_LIMIT}",
            key="boss_term_limit",
        )
    return int(value)


def _fuzz_depth(value: Any) -> str | tuple[float, float]:
    if isinstance(value, str) and value in FUZZ_DEPTHS:
        return value
    message = (
        "option 'fuzz_depth' must be 'standard', 'short', 'long' "
        "or a [from, to] pair with 0 <= from <= to <= 1"
    )
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise InvalidOptions(message, key="fuzz_depth")
    low, high = value
    for bound in (low, high):
        if isinstance(bound, bool) or not isinstance(bound, int | float) or not math.isfinite(bound):
            raise InvalidOptions(message, key="fuzz_depth")
    if not 0 <= low <= high <= 1:
        raise InvalidOptions(message, key="fuzz_depth")
    return (float(low), float(high))


def parse_options(raw: Mapping[str, Any] | None) -> Options:
    """Validate a game's options; missing keys take the defaults (the base game). Keys that are not the
    game's are the table's settings, kept as they are (the table validates them, and reads them back from
    the start event)."""
    if raw is None:
        return DEFAULT_OPTIONS
    if isinstance(raw, Options):
        return raw
    if not isinstance(raw, Mapping):
        raise InvalidOptions("options must be a JSON object")
    for key in raw:
        if key not in _KEYS and key not in TABLE_OPTION_KEYS:
            raise InvalidOptions(f"unknown option {key!r}", key=str(key))
    return Options(
        payoffs=_bool(raw, "payoffs") if "payoffs" in raw else False,
        boss_term_limit=_boss_term_limit(raw.get("boss_term_limit")),
        fuzz_depth=_fuzz_depth(raw["fuzz_depth"]) if "fuzz_depth" in raw else "standard",
        no_vote_rule=_choice(raw, "no_vote_rule", NO_VOTE_RULES) if "no_vote_rule" in raw else "english",
        shuffle_seats=_bool(raw, "shuffle_seats") if "shuffle_seats" in raw else False,
        timeout_action=_choice(raw, "timeout_action", TIMEOUT_ACTIONS) if "timeout_action" in raw else "none",
        table=table_settings(raw),
    )


def table_settings(raw: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The table's settings among ``raw``, in their one order (a stored JSON object may come back in another:
    the options of two equal games are equal)."""
    return tuple((k, raw[k]) for k in TABLE_OPTION_KEYS if k in raw)


def options_to_json(options: Options, *, rules: int = RULES) -> JSON:
    """The full JSON form (every key, defaults included), the table's settings after the game's own;
    ``parse_options`` reads it back. ``rules``: the rules the game plays under; before R7.6 (rules 2) the
    form had no ``max_pause``."""
    depth = options.fuzz_depth
    out: JSON = {
        "payoffs": options.payoffs,
        "boss_term_limit": options.boss_term_limit,
        "fuzz_depth": list(depth) if isinstance(depth, tuple) else depth,
        "no_vote_rule": options.no_vote_rule,
        "shuffle_seats": options.shuffle_seats,
        "timeout_action": options.timeout_action,
    }
    for key, value in options.table:
        if key != MAX_PAUSE_KEY or rules >= RULES_R7_6:  # under rules 2 the form had no such limit
            out[key] = value
    return out
