"""Plain-JSON forms of events and commands: ``{"type": TYPE, "v": VERSION, ...fields}`` (events),
``{"type": TYPE, ...fields}`` (commands; the acting seat is never in a command's JSON), by the rulesets'
shared :class:`~games.rules.codec.Codec`.

Coin counts are ``{"penny": p, "nickel": n, "dime": d}``. Parsing is strict: unknown or missing fields, a
bool where an int is meant, a float, a string where a list is meant are refused (a command's optional
fields may be left out). :func:`command_from_json` only ever raises ``RuleError("invalid_command")``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from games.rules.codec import Bad, Codec, as_int, options_codec

from .coins import KINDS, Coins
from .commands import COMMAND_CLASSES, SYSTEM_COMMANDS, Command
from .errors import rule_error
from .events import EVENT_CLASSES, Event
from .options import Options, options_to_json, parse_options


def _coins(value: Any) -> Coins:
    if not isinstance(value, Mapping):
        raise Bad("expected coin counts {penny, nickel, dime}")
    for key in value:
        if key not in KINDS:
            raise Bad(f"unknown coin kind {key!r}")
    p, n, d = (as_int(value.get(k, 0)) for k in KINDS)
    return (p, n, d)


def coins_to_json(coins: Coins) -> dict[str, int]:
    return {k: coins[i] for i, k in enumerate(KINDS)}


CODEC: Final[Codec[Event, Command]] = Codec(
    game="Were-cats",
    events=EVENT_CLASSES,
    commands=COMMAND_CLASSES,
    system_commands=SYSTEM_COMMANDS,
    codecs={Coins: (coins_to_json, _coins), Options: options_codec(parse_options, options_to_json)},
    invalid_command=lambda message: rule_error("invalid_command", message),
)


event_to_json = CODEC.event_to_json
