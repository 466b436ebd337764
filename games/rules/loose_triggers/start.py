"""The game's start command, as the table asks for it (``Game.start_command``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from .commands import StartGame
from .errors import rule_error
from .options import RULES, RULES_KNOWN, Options

_SETUP_KEYS: Final[tuple[str, ...]] = ("seats", "loot_deck", "bagman")


def start_command(
    players: Sequence[str],
    options: Options,
    seed: bytes,
    setup: Mapping[str, Any] | None = None,
    *,
    fixed_seed: bool = False,
    creator: str | None = None,
    settings: Mapping[str, Any] | None = None,
    rules: str | None = None,
) -> StartGame:
    """The system's StartGame; ``setup`` (operators) may fix ``seats``, ``loot_deck`` and ``bagman``, which
    makes the game not fair. ``rules``: one of the rules versions (the table's ``StartGame.rules``; None: the
    newest)."""
    if rules is not None and rules not in {str(r) for r in RULES_KNOWN}:
        raise rule_error("invalid_command", f"unknown rules {rules!r}")
    setup = setup or {}
    for key in setup:
        if key not in _SETUP_KEYS:
            raise rule_error("invalid_setup", f"unknown setup key {key!r}")
    try:
        seats = setup.get("seats")
        loot = setup.get("loot_deck")
        bagman = setup.get("bagman")
        if bagman is not None and type(bagman) is not int:
            raise TypeError("bagman")
        version = RULES if rules is None else int(rules)
        return StartGame(
            seat=None,
            players=tuple(str(p) for p in players),
            # one version: the options' ``rules`` (which LT2.5's window reads) are the start's own
            options=replace(options, rules=version),
            seed=seed,
            seats=None if seats is None else tuple(str(p) for p in seats),
            loot_deck=None if loot is None else tuple(int(c) for c in loot),
            bagman=bagman,
            fixed_seed=fixed_seed,
            rules=version,
        )
    except (TypeError, ValueError) as exc:
        raise rule_error("invalid_setup", f"malformed setup: {exc}") from None
