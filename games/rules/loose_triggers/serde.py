"""Plain-JSON forms of events and commands: ``{"type": TYPE, "v": VERSION, ...fields}`` (events),
``{"type": TYPE, ...fields}`` (commands; the acting seat is never in a command's JSON), by the rulesets'
shared :class:`~games.rules.codec.Codec`.

Parsing is strict: unknown or missing fields, a bool where an int is meant, a float, a string where a list is
meant are refused. :func:`command_from_json` only ever raises ``RuleError("invalid_command")``.
"""

from __future__ import annotations

from typing import Final

from games.rules.codec import Codec, options_codec
from games.rules.core import JSON

from .commands import COMMAND_CLASSES, SYSTEM_COMMANDS, CloseStep, Command
from .errors import rule_error
from .events import EVENT_CLASSES, Event
from .options import Options, options_to_json, parse_options

CODEC: Final[Codec[Event, Command]] = Codec(
    game="Loose Triggers",
    events=EVENT_CLASSES,
    commands=COMMAND_CLASSES,
    system_commands=SYSTEM_COMMANDS,
    codecs={Options: options_codec(parse_options, options_to_json)},
    invalid_command=lambda message: rule_error("invalid_command", message),
)


event_to_json = CODEC.event_to_json
event_from_json = CODEC.event_from_json
command_from_json = CODEC.command_from_json


def command_to_json(command: Command) -> JSON:
    """A command's JSON; a ``CloseStep`` without a ``reason`` is written as it always was (no ``reason``)."""
    if isinstance(command, CloseStep) and command.reason is None:
        return CODEC.write(
            CODEC.command_specs[CloseStep.TYPE], command, {"type": CloseStep.TYPE}, leave_out=("reason",)
        )
    return CODEC.command_to_json(command)
