"""Plain-JSON forms of events and commands: ``{"type": TYPE, "v": VERSION, ...fields}`` (events),
``{"type": TYPE, ...fields}`` (commands; the acting seat is never in a command's JSON), by the rulesets'
shared :class:`~games.rules.codec.Codec`.

Parsing is strict: unknown or missing fields, a bool where an int is meant, a float, a string where a list is
meant are refused. :func:`command_from_json` only ever raises ``RuleError("invalid_command")``.

``GameStarted`` of a game under rules 1 (README "Rules versions") is written as version 1, without ``rules``,
exactly as it was before the rules had versions; version 2 carries ``rules`` (2 and later).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from games.rules.codec import Bad, Codec, options_codec
from games.rules.core import JSON

from .commands import COMMAND_CLASSES, SYSTEM_COMMANDS, CloseStep, Command, StartGame
from .errors import rule_error
from .events import EVENT_CLASSES, Event, GameStarted
from .options import RULES_KNOWN, RULES_UNWRITTEN, Options, options_to_json, parse_options


class _Codec(Codec[Event, Command]):
    """The shared codec, with the forms written as they always were where the rules added a field."""

    def event_to_json(self, event: Event) -> JSON:
        if isinstance(event, GameStarted) and event.rules == RULES_UNWRITTEN:  # as it was always written
            return self.write(
                self.event_specs[GameStarted.TYPE], event, {"type": event.TYPE, "v": 1}, leave_out=("rules",)
            )
        return super().event_to_json(event)

    def event_from_json(self, data: Mapping[str, Any]) -> Event:
        """Read an event written by :meth:`event_to_json` (raises ``ValueError`` on anything else)."""
        try:
            if data["type"] == GameStarted.TYPE and data.get("v") == 1:  # a game under rules 1
                event: Event = self.build(
                    self.event_specs[GameStarted.TYPE],
                    data,
                    ("type", "v"),
                    {"rules": RULES_UNWRITTEN},
                    absent=("rules",),
                )
                return event
        except (Bad, KeyError, TypeError) as exc:
            raise self.not_an_event(exc) from exc
        event = super().event_from_json(data)
        if isinstance(event, GameStarted) and (
            event.rules not in RULES_KNOWN or event.rules == RULES_UNWRITTEN
        ):
            raise self.not_an_event(Bad(f"rules {event.rules!r} are not written in version 2 of GameStarted"))
        return event

    def command_to_json(self, command: Command) -> JSON:
        """A command's JSON, written as it always was where the rules added a field: a start under rules 1
        has no ``rules``, a ``CloseStep`` without a ``reason`` no ``reason``."""
        if isinstance(command, CloseStep) and command.reason is None:
            return self.write(
                self.command_specs[CloseStep.TYPE], command, {"type": CloseStep.TYPE}, leave_out=("reason",)
            )
        out = super().command_to_json(command)
        if isinstance(command, StartGame) and command.rules == RULES_UNWRITTEN:
            del out["rules"]  # a start under rules 1, as it was always written
        return out


CODEC: Final = _Codec(
    game="Loose Triggers",
    events=EVENT_CLASSES,
    commands=COMMAND_CLASSES,
    system_commands=SYSTEM_COMMANDS,
    codecs={Options: options_codec(parse_options, options_to_json)},
    invalid_command=lambda message: rule_error("invalid_command", message),
)


event_to_json = CODEC.event_to_json
