"""Game options of Loose Triggers (LT7.1): the game's own options only.

``countdown`` (seconds) and ``max_retargets`` shape the Discussions (LT3.1, LT3.2); ``shuffle_seats`` the
setup (LT1.1). The ``deadlines.*`` durations of LT7.1 belong to the table (``games.rules.table``), which
maps each waiting step's ``deadline`` name to its own option; they are not game options here (README
ruling 1), but for ``deadlines.aim`` (LT2.5), the aim window, which the game reads itself: 0 means no
window, which only the game can tell (README ruling 25; the table hands it over, ``own_deadlines``).

``rules``: the rules the game plays to its end (README "Rules versions", as GoodCritters' ruling 32): 1, the
rules before LT2.5 (absent from the options of games started before it: read as 1), or 2, with LT2.5's aim
window. A game made now gets ``RULES`` (the table writes it in: ``new_game_options``). Options under rules 1
are written exactly as they always were (no ``rules``, no ``deadlines``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from games.rules.core import JSON, InvalidOptions

MAX_COUNTDOWN: Final[int] = 7 * 24 * 3600
MAX_RETARGETS: Final[int] = 10
MAX_AIM: Final[int] = 7 * 24 * 3600  # LT2.5: the aim window, seconds (0: none)
DEFAULT_AIM: Final[int] = 20
# The rules' versions (games/rules/README.md ruling 32, README "Rules versions"): a game plays to its end
# under the rules it started with, written in its GameStarted (and in its options: see ``Options.rules``).
RULES_UNWRITTEN: Final[int] = 1  # a game whose log does not say (started before LT had versions)
RULES_2: Final[int] = 2  # LT4.1's BANG! discarded last; a resignation while choosing plays "no card" anew
RULES_AIM_WINDOW: Final[int] = 2  # the first rules with LT2.5's aim window
RULES: Final[int] = 2  # the rules a game started now plays under
RULES_KNOWN: Final[tuple[int, ...]] = (1, 2)  # the rules this code plays (and the verifier re-decides)


@dataclass(frozen=True, slots=True)
class Options:
    countdown: int = 120  # LT3.1, seconds
    max_retargets: int = 2  # LT3.2
    shuffle_seats: bool = False  # LT1.1
    # the game's rules version, always its start's own (``game.start_command`` sets it): LT2.5 reads it here
    rules: int = RULES_UNWRITTEN
    aim: int = DEFAULT_AIM  # LT2.5 ``deadlines.aim``, seconds; 0: no window; read under rules 2 only

    @property
    def aim_window(self) -> bool:
        """LT2.5: an aim window opens before each give."""
        return self.rules >= RULES_AIM_WINDOW and self.aim > 0


DEFAULT_OPTIONS: Final[Options] = Options()
_KEYS: Final[tuple[str, ...]] = ("countdown", "max_retargets", "shuffle_seats", "rules", "deadlines")
OWN_DEADLINES: Final[tuple[str, ...]] = ("aim",)  # the keys of ``deadlines`` that are the game's (LT2.5)


def _int(raw: Mapping[str, Any], key: str, low: int, high: int, default: int, *, name: str = "") -> int:
    if key not in raw:
        return default
    value = raw[key]
    name = name or key
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidOptions(f"option {name!r} must be a whole number from {low} to {high}", key=name)
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
    rules = raw.get("rules", RULES_UNWRITTEN)
    if type(rules) is not int or rules not in RULES_KNOWN:
        known = ", ".join(map(str, RULES_KNOWN))
        raise InvalidOptions(f"option 'rules' must be one of {known}", key="rules")
    aim = DEFAULT_AIM
    if "deadlines" in raw:
        deadlines = raw["deadlines"]
        if not isinstance(deadlines, Mapping):
            raise InvalidOptions("option 'deadlines' must be an object", key="deadlines")
        for key in deadlines:
            if key not in OWN_DEADLINES:
                raise InvalidOptions(f"unknown step {key!r} in option 'deadlines'", key=f"deadlines.{key}")
        if "aim" in deadlines and rules < RULES_AIM_WINDOW:
            raise InvalidOptions(
                f"option 'deadlines.aim' needs rules {RULES_AIM_WINDOW} (LT2.5)", key="deadlines.aim"
            )
        aim = _int(deadlines, "aim", 0, MAX_AIM, DEFAULT_AIM, name="deadlines.aim")
    return Options(
        countdown=_int(raw, "countdown", 1, MAX_COUNTDOWN, 120),
        max_retargets=_int(raw, "max_retargets", 0, MAX_RETARGETS, 2),
        shuffle_seats=shuffle,
        rules=rules,
        aim=aim,
    )


def options_to_json(options: Options) -> JSON:
    out: JSON = {
        "countdown": options.countdown,
        "max_retargets": options.max_retargets,
        "shuffle_seats": options.shuffle_seats,
    }
    if options.rules >= RULES_AIM_WINDOW:  # under rules 1, exactly as such games always wrote them
        out["rules"] = options.rules
        out["deadlines"] = {"aim": options.aim}
    return out
