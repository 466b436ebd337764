"""Plain-JSON forms of events and commands: ``{"type": TYPE, "v": VERSION, ...fields}`` (events),
``{"type": TYPE, ...fields}`` (commands; the acting seat is never in a command's JSON), by the rulesets'
shared :class:`~games.rules.codec.Codec`.

Parsing is strict: unknown or missing fields, a bool where an int is meant, a float, a string where a list is
meant are refused. :func:`command_from_json` only ever raises ``RuleError("invalid_command")``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from games.rules.codec import Bad, Codec, options_codec
from games.rules.core import JSON

from .commands import COMMAND_CLASSES, SYSTEM_COMMANDS, Command, StartGame
from .errors import rule_error
from .events import EVENT_CLASSES, Event, GameStarted
from .options import RULES_KNOWN, RULES_R7_6, RULES_UNWRITTEN, Options, options_to_json, parse_options


def _rules(value: Any) -> int:
    if type(value) is not int or value not in RULES_KNOWN:
        raise Bad(f"unknown rules {value!r} (known: {', '.join(map(str, RULES_KNOWN))})")
    return value


def _no_max_pause(options: Any) -> None:
    """Options of a game under rules 2 never name ``max_pause`` (R7.6 came with rules 3)."""
    if isinstance(options, Mapping) and "max_pause" in options:
        raise Bad(f"option 'max_pause' needs rules {RULES_R7_6} or later")


def _check_start(data: Mapping[str, Any]) -> None:
    if data.get("type") == "StartGame":  # the rules the game plays under (absent: 2, ruling 32)
        rules = _rules(data.get("rules", RULES_UNWRITTEN))
        if rules < RULES_R7_6:
            _no_max_pause(data.get("options"))


class _Codec(Codec[Event, Command]):
    """The shared codec, with GoodCritters' older forms: a game under rules 2 (ruling 32) has its
    ``GameStarted`` as version 1 and its options without ``max_pause``."""

    def _game_started_v1(self, event: GameStarted) -> JSON:
        """``GameStarted`` of a game under rules 2, as it was always written: version 1, no ``rules``,
        options without ``max_pause``."""
        out = self.write(
            self.event_specs[event.TYPE], event, {"type": event.TYPE, "v": 1}, leave_out=("rules",)
        )
        out["options"] = options_to_json(event.options, rules=event.rules)
        return out

    def event_to_json(self, event: Event) -> JSON:
        if isinstance(event, GameStarted) and event.rules < RULES_R7_6:
            return self._game_started_v1(event)
        return super().event_to_json(event)

    def event_from_json(self, data: Mapping[str, Any]) -> Event:
        """Read an event written by :meth:`event_to_json` (raises ``ValueError`` on anything else)."""
        try:
            kind = data["type"]
            spec = self.event_specs[kind]
            version = data.get("v")
            if kind == GameStarted.TYPE and version == 1:  # a game under rules 2 (ruling 32)
                _no_max_pause(data.get("options"))
                unwritten = {"rules": RULES_UNWRITTEN}
                event: Event = self.build(spec, data, ("type", "v"), unwritten, absent=("rules",))
                return event
            if version != self.event_types[kind].VERSION:
                raise Bad(f"unsupported version {version!r} of {kind}")
            event = self.build(spec, data, ("type", "v"), {})
            if isinstance(event, GameStarted) and _rules(event.rules) < RULES_R7_6:
                raise Bad(f"rules {event.rules} are written as version 1 of {kind}")
        except (Bad, KeyError, TypeError) as exc:
            raise self.not_an_event(exc) from exc
        return event

    def command_to_json(self, command: Command) -> JSON:
        out = super().command_to_json(command)
        if isinstance(command, StartGame):  # the options as the game's rules write them
            out["options"] = options_to_json(command.options, rules=command.rules)
        return out

    def command_from_json(
        self, data: Any, seat: int | None, check: Callable[[Mapping[str, Any]], None] | None = _check_start
    ) -> Command:
        """Strictly parse a command for ``seat``; raises ``RuleError('invalid_command')`` and nothing else."""
        return super().command_from_json(data, seat, check)


CODEC: Final = _Codec(
    game="GoodCritters",
    events=EVENT_CLASSES,
    commands=COMMAND_CLASSES,
    system_commands=SYSTEM_COMMANDS,
    codecs={Options: options_codec(parse_options, options_to_json)},
    invalid_command=lambda message: rule_error("invalid_command", message),
)


EVENT_SPECS = CODEC.event_specs
event_to_json = CODEC.event_to_json
event_from_json = CODEC.event_from_json
