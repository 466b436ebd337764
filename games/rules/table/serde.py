"""JSON forms of the table's commands and events (``{"type": TYPE, ("v": VERSION,) ...fields}``), by the
rulesets' shared :class:`~games.rules.codec.Codec`, read back strictly. A start command's ``options`` are the
game's own and the table's keys in one object; ``seed`` is hex. One codec per table (the options are the
game's)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from games.rules.codec import Bad, Codec, options_codec
from games.rules.core import JSON, RuleError

from . import commands, events
from .errors import ERRORS
from .options import Options, Settings, parse_settings, settings_to_json

_EVENTS: Final[tuple[Any, ...]] = events.EVENT_CLASSES
EVENT_TYPES: Final = frozenset(cls.TYPE for cls in _EVENTS)
COMMAND_TYPES: Final = frozenset(cls.TYPE for cls in commands.COMMAND_CLASSES)


def _settings(value: Any) -> Settings:
    if not isinstance(value, Mapping) or not isinstance(value.get("deadlines", {}), Mapping):
        raise Bad("expected the table's settings object")
    try:
        return parse_settings(value, tuple(value.get("deadlines", {})))
    except RuleError as exc:
        raise Bad(exc.message) from exc


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise Bad("expected an object")
    return dict(value)


def codec(
    parse_options: Callable[[Mapping[str, Any]], Options], options_to_json: Callable[[Any], JSON]
) -> Codec[Any, Any]:
    """The codec of a table whose options (the table's and its game's) read and write as given."""
    return Codec(
        game="table",
        events=events.EVENT_CLASSES,
        commands=commands.COMMAND_CLASSES,
        system_commands=commands.SYSTEM_COMMANDS,
        codecs={
            Settings: (settings_to_json, _settings),
            Options: options_codec(parse_options, options_to_json),
            dict[str, Any]: (dict, _object),
        },
        invalid_command=lambda message: RuleError(
            "invalid_command", message, kind=ERRORS["invalid_command"].kind
        ),
    )
