"""Game options of Loose Triggers (LT7.1): the game's own options only.

``countdown`` (seconds) and ``max_retargets`` shape the Discussions (LT3.1, LT3.2); ``shuffle_seats`` the
setup (LT1.1). The ``deadlines.*`` durations of LT7.1 belong to the table (``games.rules.table``), which
maps each waiting step's ``deadline`` name to its own option; they are not game options here (README
ruling 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from games.rules.core import JSON, InvalidOptions

MAX_COUNTDOWN: Final[int] = 7 * 24 * 3600
MAX_RETARGETS: Final[int] = 10

# The rules' versions (games/rules/README.md ruling 32, README "Rules versions"): a game plays to its end
# under the rules it started with, written in its GameStarted.
RULES_UNWRITTEN: Final[int] = 1  # a game whose log does not say (started before LT had versions)
RULES_2: Final[int] = 2  # LT4.1's BANG! discarded last; a resignation while choosing plays "no card" anew
RULES: Final[int] = 2  # the rules a game started now plays under
RULES_KNOWN: Final[tuple[int, ...]] = (1, 2)  # the rules this code plays (and the verifier re-decides)


@dataclass(frozen=True, slots=True)
class Options:
    countdown: int = 120  # LT3.1, seconds
    max_retargets: int = 2  # LT3.2
    shuffle_seats: bool = False  # LT1.1


DEFAULT_OPTIONS: Final[Options] = Options()
_KEYS: Final[tuple[str, ...]] = ("countdown", "max_retargets", "shuffle_seats")


def _int(raw: Mapping[str, Any], key: str, low: int, high: int, default: int) -> int:
    if key not in raw:
        return default
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidOptions(f"option {key!r} must be a whole number from {low} to {high}", key=key)
    return int(value)


def parse_options(raw: Mapping[str, Any] | None) -> Options:
    """Validate options (missing keys take defaults); raises :class:`InvalidOptions`."""
    if raw is None:
        return DEFAULT_OPTIONS
    if isinstance(raw, Options):
        return raw
    if not isinstance(raw, Mapping):
        raise InvalidOptions("options must be a JSON object")
    for key in raw:
        if key not in _KEYS:
            raise InvalidOptions(f"unknown option {key!r}", key=key)
    shuffle = raw.get("shuffle_seats", False)
    if not isinstance(shuffle, bool):
        raise InvalidOptions("option 'shuffle_seats' must be true or false", key="shuffle_seats")
    return Options(
        countdown=_int(raw, "countdown", 1, MAX_COUNTDOWN, 120),
        max_retargets=_int(raw, "max_retargets", 0, MAX_RETARGETS, 2),
        shuffle_seats=shuffle,
    )


def options_to_json(options: Options) -> JSON:
    return {
        "countdown": options.countdown,
        "max_retargets": options.max_retargets,
        "shuffle_seats": options.shuffle_seats,
    }
