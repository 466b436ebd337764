"""The game's start command, as the table asks for it (``Game.start_command``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Final

from games.rules import codec

from . import commands as cmd
from .errors import fail
from .options import RULES, Options, table_settings

_SETUP_KEYS: Final = ("seats", "stashes", "pile", "boss")


def _setup_field(setup: Mapping[str, Any], key: str, kind: str) -> Any:
    value = setup.get(key)
    if value is None:
        return None
    try:
        if kind == "strs":
            return codec.as_strs(value)
        if kind == "ints":
            return codec.as_ints(value)
        if kind == "intss":
            return codec.as_intss(value)
        return codec.as_int(value)
    except codec.Bad as exc:
        fail("invalid_setup", f"setup {key!r}: {exc}")


def start_command(
    players: Sequence[str],
    options: Options,
    seed: bytes,
    setup: Mapping[str, Any] | None = None,
    *,
    fixed_seed: bool = False,
    creator: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> cmd.StartGame:
    """``setup`` (operators): ``seats`` (player ids in seat order), ``stashes`` (card ids per seat) with
    ``pile`` (card ids, top first, The Fuzz! = 140), ``boss`` (the first Boss's seat). ``settings``: the
    table's, kept among the options of the start event."""
    setup = setup or {}
    for key in setup:
        if key not in _SETUP_KEYS:
            keys = ", ".join((*_SETUP_KEYS, "fixed_seed"))
            fail("invalid_setup", f"unknown setup key {key!r} (keys: {keys})")
    if settings is not None:
        options = dataclasses.replace(options, table=table_settings(settings))
    return cmd.StartGame(
        seat=None,
        players=tuple(players),
        creator=creator,
        options=options,
        seed=bytes(seed),
        seats=_setup_field(setup, "seats", "strs"),
        stashes=_setup_field(setup, "stashes", "intss"),
        pile=_setup_field(setup, "pile", "ints"),
        boss=_setup_field(setup, "boss", "int"),
        fixed_seed=fixed_seed,
        rules=RULES,
    )
