"""The table's options, the same for every game (RULES.md R7, LT7.1, WC4.1): each step's deadline, the
absent-player policy, who pauses, the deadline warning and the longest pause. A game's own options sit beside
them in the same JSON object; the two sets of keys never overlap."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from games.rules import bounds
from games.rules.core import JSON, InvalidOptions

# what a record may hold (a new game keeps tighter ones: games.rules.bounds, Table.check_new_game)
MAX_DEADLINE_SECONDS: Final[int] = bounds.RECORD_SECONDS_MAX
MAX_EXTENSIONS: Final[int] = bounds.RECORD_EXTENSIONS_MAX
MAX_AUTOPILOT_AFTER: Final[int] = bounds.RECORD_AUTOPILOT_AFTER_MAX
PAUSE_BY: Final[tuple[str, ...]] = ("creator", "vote")
DEFAULT_MAX_PAUSE: Final[int] = 7 * 24 * 3600  # R7.6: the longest pause, by default a week
TABLE_KEYS: Final[tuple[str, ...]] = ("deadlines", "absence", "pause_by", "warn_before", "max_pause")


@dataclass(frozen=True, slots=True)
class Settings:
    """The table's part of a game's options. ``deadlines``: (step, seconds or None) for each of the game's
    deadline steps, in the game's order."""

    deadlines: tuple[tuple[str, int | None], ...]
    extensions: int = 1
    autopilot_after: int | None = 3
    pause_by: str = "creator"
    warn_before: int | None = None  # None: a quarter of the step; 0: no warning
    max_pause: int = DEFAULT_MAX_PAUSE

    def deadline(self, step: str) -> int | None:
        for name, seconds in self.deadlines:
            if name == step:
                return seconds
        return None


@dataclass(frozen=True, slots=True)
class Options:
    """A table game's options: the table's ``settings`` and the game's own ``game`` options."""

    settings: Settings
    game: Any


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _deadlines(value: Any, steps: tuple[str, ...]) -> tuple[tuple[str, int | None], ...]:
    if not isinstance(value, Mapping):
        raise InvalidOptions("option 'deadlines' must be an object {step: seconds or null}", key="deadlines")
    for step in value:
        if step not in steps:
            raise InvalidOptions(
                f"unknown step {step!r} in option 'deadlines' (steps: {', '.join(steps)})",
                key=f"deadlines.{step}",
            )
    out: list[tuple[str, int | None]] = []
    for step in steps:
        seconds = value.get(step)
        if seconds is not None and (not _is_int(seconds) or not 1 <= seconds <= MAX_DEADLINE_SECONDS):
            raise InvalidOptions(
                f"option 'deadlines.{step}' must be null or whole seconds from 1 to {MAX_DEADLINE_SECONDS}",
                key=f"deadlines.{step}",
            )
        out.append((step, seconds))
    return tuple(out)


def _absence(value: Any) -> tuple[int, int | None]:
    if not isinstance(value, Mapping):
        raise InvalidOptions(
            "option 'absence' must be an object {extensions, autopilot_after}", key="absence"
        )
    for key in value:
        if key not in ("extensions", "autopilot_after"):
            raise InvalidOptions(f"unknown key {key!r} in option 'absence'", key=f"absence.{key}")
    extensions = value.get("extensions", 1)
    if not _is_int(extensions) or not 0 <= extensions <= MAX_EXTENSIONS:
        raise InvalidOptions(
            f"option 'absence.extensions' must be a whole number from 0 to {MAX_EXTENSIONS}",
            key="absence.extensions",
        )
    after = value.get("autopilot_after", 3)
    if after is not None and (not _is_int(after) or not 1 <= after <= MAX_AUTOPILOT_AFTER):
        raise InvalidOptions(
            "option 'absence.autopilot_after' must be null or a whole number from 1 to "
            f"{MAX_AUTOPILOT_AFTER}",
            key="absence.autopilot_after",
        )
    return int(extensions), None if after is None else int(after)


def parse_settings(raw: Mapping[str, Any], steps: tuple[str, ...]) -> Settings:
    """The table's keys of ``raw`` (missing ones take defaults); raise :class:`InvalidOptions`."""
    deadlines = _deadlines(raw["deadlines"], steps) if "deadlines" in raw else tuple((s, None) for s in steps)
    extensions, after = _absence(raw["absence"]) if "absence" in raw else (1, 3)
    pause_by = raw.get("pause_by", "creator")
    if pause_by not in PAUSE_BY:
        raise InvalidOptions(f"option 'pause_by' must be one of {', '.join(PAUSE_BY)}", key="pause_by")
    warn = raw.get("warn_before")
    if warn is not None and (not _is_int(warn) or not 0 <= warn <= MAX_DEADLINE_SECONDS):
        raise InvalidOptions(
            f"option 'warn_before' must be null or whole seconds from 0 to {MAX_DEADLINE_SECONDS}",
            key="warn_before",
        )
    max_pause = raw.get("max_pause", DEFAULT_MAX_PAUSE)
    if not _is_int(max_pause) or not 1 <= max_pause <= MAX_DEADLINE_SECONDS:
        raise InvalidOptions(
            f"option 'max_pause' must be whole seconds from 1 to {MAX_DEADLINE_SECONDS}", key="max_pause"
        )
    return Settings(
        deadlines=deadlines,
        extensions=extensions,
        autopilot_after=after,
        pause_by=str(pause_by),
        warn_before=None if warn is None else int(warn),
        max_pause=int(max_pause),
    )


def settings_to_json(settings: Settings) -> JSON:
    return {
        "deadlines": dict(settings.deadlines),
        "absence": {"extensions": settings.extensions, "autopilot_after": settings.autopilot_after},
        "pause_by": settings.pause_by,
        "warn_before": settings.warn_before,
        "max_pause": settings.max_pause,
    }
