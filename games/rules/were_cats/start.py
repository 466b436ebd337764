"""The game's start command, as the table asks for it (``Game.start_command``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from games.rules import codec

from .commands import StartGame
from .errors import fail
from .options import Options

_SETUP_KEYS: Final = ("seats", "first_seat")


def start_command(
    players: Sequence[str],
    options: Options,
    seed: bytes,
    setup: Mapping[str, Any] | None = None,
    *,
    fixed_seed: bool = False,
    creator: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> StartGame:
    """The system's StartGame. ``setup`` (operators only): ``seats`` (player ids in seat order) and/or
    ``first_seat`` (WC1.3's first chooser); the game is then marked not fair."""
    seats: tuple[str, ...] | None = None
    first: int | None = None
    if setup is not None:
        for key in setup:
            if key not in _SETUP_KEYS:
                fail("invalid_setup", f"unknown setup key {key!r} (keys: {', '.join(_SETUP_KEYS)})")
        try:
            if setup.get("seats") is not None:
                seats = codec.as_strs(setup["seats"])
            if setup.get("first_seat") is not None:
                first = codec.as_int(setup["first_seat"])
        except codec.Bad as exc:
            fail("invalid_setup", f"setup: {exc}")
    return StartGame(
        seat=None,
        players=tuple(players),
        options=options,
        seed=seed,
        seats=seats,
        first_seat=first,
        fixed_seed=fixed_seed,
    )
