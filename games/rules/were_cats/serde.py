"""Plain-JSON forms of events and commands: ``{"type": TYPE, "v": VERSION, ...fields}`` (events),
``{"type": TYPE, ...fields}`` (commands; the acting seat is never in a command's JSON).

Coin counts are ``{"penny": p, "nickel": n, "dime": d}``. Parsing is strict: unknown or missing fields, a
bool where an int is meant, a float, a string where a list is meant are refused (a command's optional
fields may be left out). :func:`command_from_json` only ever raises ``RuleError("invalid_command")``.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from typing import Any

from games.rules.core import JSON, RuleError

from .coins import KINDS, Coins
from .commands import COMMAND_CLASSES, SYSTEM_COMMANDS, Command
from .errors import rule_error
from .events import EVENT_CLASSES, Event
from .options import Options, options_to_json, parse_options

Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]


class _Bad(Exception):
    """A malformed field (turned into the caller's error)."""


def _int(value: Any) -> int:
    if type(value) is not int:
        raise _Bad("expected an integer")
    return value


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise _Bad("expected true or false")
    return value


def _str(value: Any) -> str:
    if type(value) is not str:
        raise _Bad("expected a string")
    return value


def _seq(value: Any) -> list[Any] | tuple[Any, ...]:
    if not isinstance(value, list | tuple):
        raise _Bad("expected a list")
    return value


def _ints(value: Any) -> tuple[int, ...]:
    return tuple(_int(v) for v in _seq(value))


def _strs(value: Any) -> tuple[str, ...]:
    return tuple(_str(v) for v in _seq(value))


def _coins(value: Any) -> Coins:
    if not isinstance(value, Mapping):
        raise _Bad("expected coin counts {penny, nickel, dime}")
    for key in value:
        if key not in KINDS:
            raise _Bad(f"unknown coin kind {key!r}")
    p, n, d = (_int(value.get(k, 0)) for k in KINDS)
    return (p, n, d)


def coins_to_json(coins: Coins) -> dict[str, int]:
    return {k: coins[i] for i, k in enumerate(KINDS)}


def _bytes_hex(value: Any) -> bytes:
    try:
        return bytes.fromhex(_str(value))
    except ValueError as exc:
        raise _Bad("expected a hex string") from exc


def _options(value: Any) -> Options:
    if not isinstance(value, Mapping):
        raise _Bad("expected an options object")
    try:
        return parse_options(value)
    except RuleError as exc:
        raise _Bad(exc.message) from exc


def _same(value: Any) -> Any:
    return value


def _none(value: Any) -> None:
    if value is not None:
        raise _Bad("expected null")


def _list(value: Any) -> Any:
    return list(value)


_CODECS: dict[Any, tuple[Encoder, Decoder]] = {
    int: (_same, _int),
    bool: (_same, _bool),
    str: (_same, _str),
    type(None): (_same, _none),
    tuple[int, ...]: (_list, _ints),
    tuple[str, ...]: (_list, _strs),
    Coins: (coins_to_json, _coins),
    bytes: (lambda b: b.hex(), _bytes_hex),
    Options: (options_to_json, _options),
}


def _codec(tp: Any) -> tuple[Encoder, Decoder]:
    if tp in _CODECS:
        return _CODECS[tp]
    args = typing.get_args(tp)
    if len(args) == 2 and type(None) in args:
        inner = args[0] if args[1] is type(None) else args[1]
        encode, decode = _codec(inner)
        return (lambda v: None if v is None else encode(v)), (lambda v: None if v is None else decode(v))
    raise TypeError(f"no JSON codec for {tp!r}")


@dataclasses.dataclass(frozen=True, slots=True)
class _Spec:
    cls: type[Any]
    fields: tuple[tuple[str, Encoder, Decoder, bool], ...]  # name, encode, decode, required


def _spec(cls: type[Any], *, skip: tuple[str, ...] = ()) -> _Spec:
    hints = typing.get_type_hints(cls)
    fields = []
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        encode, decode = _codec(hints[f.name])
        fields.append((f.name, encode, decode, f.default is dataclasses.MISSING))
    return _Spec(cls, tuple(fields))


EVENT_SPECS: dict[str, _Spec] = {cls.TYPE: _spec(cls) for cls in EVENT_CLASSES}
COMMAND_SPECS: dict[str, _Spec] = {cls.TYPE: _spec(cls, skip=("seat",)) for cls in COMMAND_CLASSES}
EVENT_TYPES: dict[str, type[Event]] = {cls.TYPE: cls for cls in EVENT_CLASSES}


def _build(spec: _Spec, data: Mapping[str, Any], skip: tuple[str, ...], extra: dict[str, Any]) -> Any:
    names = {name for name, *_ in spec.fields}
    for key in data:
        if key not in names and key not in skip:
            raise _Bad(f"unknown field {key!r}")
    kwargs = dict(extra)
    for name, _encode, decode, required in spec.fields:
        if name in data:
            try:
                kwargs[name] = decode(data[name])
            except _Bad as exc:
                raise _Bad(f"field {name!r}: {exc}") from exc
        elif required:
            raise _Bad(f"missing field {name!r}")
    return spec.cls(**kwargs)


def event_to_json(event: Event) -> JSON:
    spec = EVENT_SPECS[event.TYPE]
    out: JSON = {"type": event.TYPE, "v": event.VERSION}
    for name, encode, _decode, _required in spec.fields:
        out[name] = encode(getattr(event, name))
    return out


def event_from_json(data: Mapping[str, Any]) -> Event:
    """Read an event written by :func:`event_to_json` (raises ``ValueError`` on anything else)."""
    try:
        kind = data["type"]
        spec = EVENT_SPECS[kind]
        if data.get("v") != EVENT_TYPES[kind].VERSION:
            raise _Bad(f"unsupported version {data.get('v')!r} of {kind}")
        event: Event = _build(spec, data, ("type", "v"), {})
    except (_Bad, KeyError, TypeError) as exc:
        raise ValueError(f"not a Were-cats event: {exc}") from exc
    return event


def command_to_json(command: Command) -> JSON:
    spec = COMMAND_SPECS[command.TYPE]
    out: JSON = {"type": command.TYPE}
    for name, encode, _decode, _required in spec.fields:
        out[name] = encode(getattr(command, name))
    return out


def command_from_json(data: Any, seat: int | None) -> Command:
    """Strictly parse a command for ``seat``; raises ``RuleError('invalid_command')`` and nothing else."""
    try:
        return _command_from_json(data, seat)
    except RuleError:
        raise
    except Exception as exc:  # any malformed input whatsoever
        raise rule_error("invalid_command", f"malformed command: {exc}") from None


def _command_from_json(data: Any, seat: int | None) -> Command:
    if not isinstance(data, Mapping):
        raise _Bad("a command is a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in COMMAND_SPECS:
        raise _Bad(f"unknown command type {kind!r}")
    spec = COMMAND_SPECS[kind]
    system = spec.cls in SYSTEM_COMMANDS
    if system and seat is not None:
        raise _Bad(f"{kind} is a system command")
    if not system and type(seat) is not int:
        raise _Bad(f"{kind} needs an acting seat")
    command: Command = _build(spec, data, ("type",), {"seat": seat})
    return command
