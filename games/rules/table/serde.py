"""JSON forms of the table's commands and events: ``{"type": TYPE, ("v": VERSION,) ...fields}``, read back
strictly (unknown, missing or ill-typed fields are refused). A game's own options ride in ``options`` beside
the table's keys; ``seed`` is hex."""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields
from typing import Any

from games.rules.core import JSON

from . import commands, events
from .options import Options, Settings, parse_settings, settings_to_json


class Bad(ValueError):
    pass


def _int(v: Any) -> int:
    if type(v) is not int:
        raise Bad("must be an integer")
    return v


def _bool(v: Any) -> bool:
    if type(v) is not bool:
        raise Bad("must be true or false")
    return v


def _str(v: Any) -> str:
    if type(v) is not str:
        raise Bad("must be a string")
    return v


def _ints(v: Any) -> tuple[int, ...]:
    if not isinstance(v, list | tuple):
        raise Bad("must be a list of integers")
    return tuple(_int(x) for x in v)


def _strs(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list | tuple):
        raise Bad("must be a list of strings")
    return tuple(_str(x) for x in v)


def _hex(v: Any) -> bytes:
    try:
        return bytes.fromhex(_str(v))
    except ValueError:
        raise Bad("must be hex") from None


def _object(v: Any) -> dict[str, Any]:
    if not isinstance(v, Mapping):
        raise Bad("must be an object")
    return dict(v)


def _optional(decode: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: None if v is None else decode(v)


def _settings_from_json(v: Any) -> Settings:
    raw = _object(v)
    deadlines = _object(raw.get("deadlines", {}))
    return parse_settings(raw, tuple(deadlines))


def _list_or_none(v: Any) -> Any:
    return None if v is None else list(v)


_DECODERS: dict[Any, Callable[[Any], Any]] = {
    int: _int,
    bool: _bool,
    str: _str,
    bytes: _hex,
    tuple[int, ...]: _ints,
    tuple[str, ...]: _strs,
    int | None: _optional(_int),
    str | None: _optional(_str),
    tuple[int, ...] | None: _optional(_ints),
    dict[str, Any] | None: _optional(_object),
    Settings: _settings_from_json,
}
_ENCODERS: dict[Any, Callable[[Any], Any]] = {
    bytes: lambda b: b.hex(),
    tuple[int, ...]: list,
    tuple[str, ...]: list,
    tuple[int, ...] | None: _list_or_none,
    Settings: settings_to_json,
}


def _hints(cls: type[Any]) -> list[tuple[str, Any, bool]]:
    hints = typing.get_type_hints(cls)
    return [
        (f.name, hints[f.name], f.default is MISSING and f.default_factory is MISSING) for f in fields(cls)
    ]


_EVENT_CLASSES: tuple[Any, ...] = events.EVENT_CLASSES
_EVENT_FIELDS: dict[str, tuple[Any, list[tuple[str, Any, bool]]]] = {
    c.TYPE: (c, _hints(c)) for c in _EVENT_CLASSES
}
_COMMAND_FIELDS: dict[str, tuple[Any, list[tuple[str, Any, bool]]]] = {
    cls.TYPE: (cls, _hints(cls)) for cls in commands.COMMAND_CLASSES
}
EVENT_TYPES = frozenset(_EVENT_FIELDS)
COMMAND_TYPES = frozenset(_COMMAND_FIELDS)


def _encode(obj: Any, spec: list[tuple[str, Any, bool]], out: JSON) -> JSON:
    for name, tp, _required in spec:
        if name == "seat" and tp in (type(None), int | None):
            continue
        value = getattr(obj, name)
        encode = _ENCODERS.get(tp)
        out[name] = encode(value) if encode is not None else value
    return out


def event_to_json(event: Any) -> JSON:
    cls, spec = _EVENT_FIELDS[event.TYPE]
    return _encode(event, spec, {"type": cls.TYPE, "v": cls.VERSION})


def _build(cls: type[Any], spec: list[tuple[str, Any, bool]], data: Mapping[str, Any], extra: JSON) -> Any:
    names = {name for name, _tp, _req in spec}
    for key in data:
        if key not in names and key not in ("type", "v"):
            raise Bad(f"unknown field {key!r}")
    kwargs = dict(extra)
    for name, tp, required in spec:
        if name in extra:
            continue
        if name not in data:
            if required:
                raise Bad(f"missing field {name!r}")
            continue
        try:
            kwargs[name] = _DECODERS[tp](data[name])
        except Bad as exc:
            raise Bad(f"field {name!r}: {exc}") from None
    return cls(**kwargs)


def event_from_json(data: Mapping[str, Any]) -> Any:
    cls, spec = _EVENT_FIELDS[data["type"]]
    if data.get("v") != cls.VERSION:
        raise Bad(f"unsupported version {data.get('v')!r} of {cls.TYPE}")
    return _build(cls, spec, data, {})


def command_to_json(command: Any, game_options_to_json: Callable[[Any], JSON]) -> JSON:
    cls, spec = _COMMAND_FIELDS[command.TYPE]
    if isinstance(command, commands.StartGame):
        out = _encode(command, [s for s in spec if s[0] != "options"], {"type": cls.TYPE})
        out["options"] = {
            **game_options_to_json(command.options.game),
            **settings_to_json(command.options.settings),
        }
        return out
    return _encode(command, spec, {"type": cls.TYPE})


def command_from_json(
    data: Mapping[str, Any], seat: int | None, parse_options: Callable[[Mapping[str, Any]], Options]
) -> Any:
    cls, spec = _COMMAND_FIELDS[data["type"]]
    system = cls in commands.SYSTEM_COMMANDS
    if system and seat is not None:
        raise Bad(f"{cls.TYPE} is a system command")
    if not system and type(seat) is not int:
        raise Bad(f"{cls.TYPE} needs an acting seat")
    if cls is commands.StartGame:
        options = parse_options(_object(data.get("options", {})))
        rest = {k: v for k, v in data.items() if k != "options"}
        return _build(cls, spec, rest, {"seat": None, "options": options})
    return _build(cls, spec, data, {"seat": seat})
