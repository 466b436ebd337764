"""Game options of Were-cats (WC2.4, WC3.1): only ``max_rounds``; deadlines belong to the table (WC4.1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from games.rules.core import JSON, InvalidOptions

MAX_MAX_ROUNDS: Final = 100
DEFAULT_MAX_ROUNDS: Final = 20


@dataclass(frozen=True, slots=True)
class Options:
    """The validated options of one game. ``max_rounds``: the game ends after this round (WC3.1)."""

    max_rounds: int = DEFAULT_MAX_ROUNDS


DEFAULT_OPTIONS: Final[Options] = Options()
_KEYS: Final[tuple[str, ...]] = ("max_rounds",)


def parse_options(raw: Mapping[str, Any]) -> Options:
    """Validate ``raw`` (missing keys take defaults); raise :class:`InvalidOptions` on anything wrong."""
    if not isinstance(raw, Mapping):
        raise InvalidOptions("options must be a JSON object")
    for key in raw:
        if key not in _KEYS:
            raise InvalidOptions(f"unknown option {key!r} (options: {', '.join(_KEYS)})", key=key)
    max_rounds = raw.get("max_rounds", DEFAULT_MAX_ROUNDS)
    if (
        isinstance(max_rounds, bool)
        or not isinstance(max_rounds, int)
        or not 1 <= max_rounds <= MAX_MAX_ROUNDS
    ):
        raise InvalidOptions(
            f"option 'max_rounds' must be an integer from 1 to {MAX_MAX_ROUNDS}", key="max_rounds"
        )
    return Options(max_rounds=max_rounds)


def options_to_json(options: Options) -> JSON:
    return {"max_rounds": options.max_rounds}
