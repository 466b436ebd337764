"""The plain-JSON field codecs every ruleset's ``serde`` module shares: events are
``{"type": TYPE, "v": VERSION, ...fields}``, commands ``{"type": TYPE, ...fields}`` (the acting seat is never
in a command's JSON).

A :class:`Codec` reads a game's event and command dataclasses once (their fields' types) and writes and reads
their JSON forms. Parsing is strict: unknown or missing fields, a bool where an int is meant, a float, a
string where a list is meant are refused (a field with a default may be left out). A field's JSON form
comes from its type: the :data:`BASE` codecs (ints, bools, strings, null, tuples of them, ``bytes`` as
hex), a game's own (its options, Were-cats' coin counts), and ``X | None`` of any of these. Pure: no
Django, no I/O.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, Generic, TypeVar

from games.rules.core import JSON, RuleError

EventT = TypeVar("EventT")
CommandT = TypeVar("CommandT")
Encoder = Callable[[Any], Any]
Decoder = Callable[[Any], Any]
FieldCodec = tuple[Encoder, Decoder]


class Bad(Exception):
    """A malformed field (turned into the caller's error)."""


def as_int(value: Any) -> int:
    if type(value) is not int:
        raise Bad("expected an integer")
    return value


def as_bool(value: Any) -> bool:
    if type(value) is not bool:
        raise Bad("expected true or false")
    return value


def as_str(value: Any) -> str:
    if type(value) is not str:
        raise Bad("expected a string")
    return value


def as_seq(value: Any) -> list[Any] | tuple[Any, ...]:
    if not isinstance(value, list | tuple):
        raise Bad("expected a list")
    return value


def as_ints(value: Any) -> tuple[int, ...]:
    return tuple(as_int(v) for v in as_seq(value))


def as_strs(value: Any) -> tuple[str, ...]:
    return tuple(as_str(v) for v in as_seq(value))


def as_bools(value: Any) -> tuple[bool, ...]:
    return tuple(as_bool(v) for v in as_seq(value))


def as_intss(value: Any) -> tuple[tuple[int, ...], ...]:
    return tuple(as_ints(v) for v in as_seq(value))


def as_bytes_hex(value: Any) -> bytes:
    try:
        return bytes.fromhex(as_str(value))
    except ValueError as exc:
        raise Bad("expected a hex string") from exc


def as_none(value: Any) -> None:
    if value is not None:
        raise Bad("expected null")


def _same(value: Any) -> Any:
    return value


def _list(value: Any) -> Any:
    return None if value is None else list(value)


def _lists(value: Any) -> Any:
    return None if value is None else [list(v) for v in value]


def _hex(value: bytes) -> str:
    return value.hex()


def options_codec(parse: Callable[[Mapping[str, Any]], Any], to_json: Callable[[Any], JSON]) -> FieldCodec:
    """The codec of a game's options field: its own ``options_to_json`` and ``parse_options`` (a refusal is
    a malformed field)."""

    def decode(value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise Bad("expected an options object")
        try:
            return parse(value)
        except RuleError as exc:
            raise Bad(exc.message) from exc

    return to_json, decode


BASE: Final[Mapping[Any, FieldCodec]] = {
    int: (_same, as_int),
    bool: (_same, as_bool),
    str: (_same, as_str),
    type(None): (_same, as_none),
    tuple[int, ...]: (_list, as_ints),
    tuple[str, ...]: (_list, as_strs),
    tuple[bool, ...]: (_list, as_bools),
    tuple[tuple[int, ...], ...]: (_lists, as_intss),
    bytes: (_hex, as_bytes_hex),
}


@dataclasses.dataclass(frozen=True, slots=True)
class Spec:
    """How one dataclass's fields are written and read: (name, encode, decode, required) each."""

    cls: type[Any]
    fields: tuple[tuple[str, Encoder, Decoder, bool], ...]


class Codec(Generic[EventT, CommandT]):
    """The JSON forms of one game's events (``EventT``) and commands (``CommandT``).

    ``game`` names the game in errors (``not a <game> event: ...``); ``codecs`` adds the game's own field
    types to :data:`BASE`; ``invalid_command`` builds the game's ``RuleError("invalid_command")`` from a
    message; ``system_commands`` are the command classes only the system sends (``seat`` is ``None``)."""

    def __init__(
        self,
        *,
        game: str,
        events: Iterable[type[Any]],
        commands: Iterable[type[Any]],
        system_commands: Iterable[type[Any]],
        codecs: Mapping[Any, FieldCodec],
        invalid_command: Callable[[str], RuleError],
    ) -> None:
        self.game = game
        self.codecs: dict[Any, FieldCodec] = {**BASE, **codecs}
        self.invalid_command = invalid_command
        self.system_commands = frozenset(system_commands)
        self.event_specs: dict[str, Spec] = {cls.TYPE: self.spec(cls) for cls in events}
        self.command_specs: dict[str, Spec] = {cls.TYPE: self.spec(cls, skip=("seat",)) for cls in commands}
        self.event_types: dict[str, type[Any]] = {kind: spec.cls for kind, spec in self.event_specs.items()}

    def field(self, tp: Any) -> FieldCodec:
        """The codec of a field of type ``tp`` (``X | None`` writes and reads ``null`` as itself)."""
        if tp in self.codecs:
            return self.codecs[tp]
        args = typing.get_args(tp)
        if len(args) == 2 and type(None) in args:
            inner = args[0] if args[1] is type(None) else args[1]
            encode, decode = self.field(inner)
            return (lambda v: None if v is None else encode(v)), (lambda v: None if v is None else decode(v))
        raise TypeError(f"no JSON codec for {tp!r}")

    def spec(self, cls: type[Any], *, skip: tuple[str, ...] = ()) -> Spec:
        hints = typing.get_type_hints(cls)
        fields = []
        for f in dataclasses.fields(cls):
            if f.name in skip:
                continue
            encode, decode = self.field(hints[f.name])
            fields.append((f.name, encode, decode, f.default is dataclasses.MISSING))
        return Spec(cls, tuple(fields))

    # --- writing ---------------------------------------------------------------------------------
    @staticmethod
    def write(spec: Spec, obj: Any, out: JSON, *, leave_out: tuple[str, ...] = ()) -> JSON:
        """``out`` with every field of ``obj`` (but ``leave_out``) in its JSON form."""
        for name, encode, _decode, _required in spec.fields:
            if name not in leave_out:
                out[name] = encode(getattr(obj, name))
        return out

    def event_to_json(self, event: EventT) -> JSON:
        known: Any = event
        return self.write(self.event_specs[known.TYPE], event, {"type": known.TYPE, "v": known.VERSION})

    def command_to_json(self, command: CommandT) -> JSON:
        known: Any = command
        return self.write(self.command_specs[known.TYPE], command, {"type": known.TYPE})

    # --- reading ---------------------------------------------------------------------------------
    @staticmethod
    def build(
        spec: Spec,
        data: Mapping[str, Any],
        skip: tuple[str, ...],
        extra: dict[str, Any],
        *,
        absent: tuple[str, ...] = (),
    ) -> Any:
        """An instance of ``spec.cls`` from ``data`` (keys ``skip`` are not fields; ``extra`` gives more
        fields); ``absent``: fields this form of the JSON does not have (taken from ``extra``)."""
        names = {name for name, *_ in spec.fields} - set(absent)
        for key in data:
            if key not in names and key not in skip:
                raise Bad(f"unknown field {key!r}")
        kwargs = dict(extra)
        for name, _encode, decode, required in spec.fields:
            if name in absent:
                continue
            if name in data:
                try:
                    kwargs[name] = decode(data[name])
                except Bad as exc:
                    raise Bad(f"field {name!r}: {exc}") from exc
            elif required:
                raise Bad(f"missing field {name!r}")
        return spec.cls(**kwargs)

    def not_an_event(self, exc: Exception) -> ValueError:
        return ValueError(f"not a {self.game} event: {exc}")

    def event_from_json(self, data: Mapping[str, Any]) -> EventT:
        """Read an event written by :meth:`event_to_json` (raises ``ValueError`` on anything else)."""
        try:
            kind = data["type"]
            spec = self.event_specs[kind]
            version = data.get("v")
            if version != self.event_types[kind].VERSION:
                raise Bad(f"unsupported version {version!r} of {kind}")
            event: EventT = self.build(spec, data, ("type", "v"), {})
        except (Bad, KeyError, TypeError) as exc:
            raise self.not_an_event(exc) from exc
        return event

    def command_from_json(
        self, data: Any, seat: int | None, check: Callable[[Mapping[str, Any]], None] | None = None
    ) -> CommandT:
        """Strictly parse a command for ``seat``; raises ``RuleError('invalid_command')`` and nothing else.
        ``check`` (a game's own, on the raw JSON of a well-formed command) may raise :class:`Bad`."""
        try:
            command = self._command_from_json(data, seat)
            if check is not None:
                check(data)
        except RuleError:
            raise
        except Exception as exc:  # any malformed input whatsoever
            raise self.invalid_command(f"malformed command: {exc}") from None
        return command

    def _command_from_json(self, data: Any, seat: int | None) -> CommandT:
        if not isinstance(data, Mapping):
            raise Bad("a command is a JSON object")
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in self.command_specs:
            raise Bad(f"unknown command type {kind!r}")
        spec = self.command_specs[kind]
        system = spec.cls in self.system_commands
        if system and seat is not None:
            raise Bad(f"{kind} is a system command")
        if not system and type(seat) is not int:
            raise Bad(f"{kind} needs an acting seat")
        command: CommandT = self.build(spec, data, ("type",), {"seat": seat})
        return command
