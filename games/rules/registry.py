"""Rulesets by slug: the service looks a game's rules up here (``get_ruleset(game.ruleset)``).

A game is one folder and one line here. Every tool that needs the games (the API, the spec, the import
contracts, the error catalogue, the rule-citation test, the benchmarks) takes them from :data:`RULESETS`.

``CRITTERS_EXTRA_GAMES`` (environment; comma-separated module paths, each with a module-level ``GAME``, a
:class:`games.rules.table.game.Game`) registers games from outside this file, after the built-in ones: a
game developed in a folder of its own, and the test that hosts a toy game end to end
(``tests/fourth/test_fourth_game.py``). A slug registered twice is an error.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any, Final

from games.rules.core import Ruleset
from games.rules.goodcritters.game import GAME as GOODCRITTERS
from games.rules.loose_triggers.game import GAME as LOOSE_TRIGGERS
from games.rules.table.game import Game
from games.rules.table.ruleset import Table
from games.rules.were_cats.game import GAME as WERE_CATS

GAMES: Final[tuple[Game[Any], ...]] = (GOODCRITTERS, LOOSE_TRIGGERS, WERE_CATS)
"""The built-in games (one line each)."""

EXTRA_GAMES_VARIABLE: Final = "CRITTERS_EXTRA_GAMES"


def extra_games(value: str | None = None) -> tuple[Game[Any], ...]:
    """The games named by ``CRITTERS_EXTRA_GAMES`` (or ``value``): each module's ``GAME``."""
    raw = os.environ.get(EXTRA_GAMES_VARIABLE, "") if value is None else value
    found: list[Game[Any]] = []
    for name in (part.strip() for part in raw.split(",")):
        if not name:
            continue
        game = getattr(importlib.import_module(name), "GAME", None)
        if game is None:
            raise ImportError(f"{EXTRA_GAMES_VARIABLE}: module {name!r} has no GAME")
        found.append(game)
    return tuple(found)


def _by_slug(games: tuple[Game[Any], ...]) -> dict[str, Game[Any]]:
    out: dict[str, Game[Any]] = {}
    for game in games:
        if game.slug in out:
            raise ValueError(f"game {game.slug!r} registered twice")
        out[game.slug] = game
    return out


HOSTED: Final[dict[str, Game[Any]]] = _by_slug((*GAMES, *extra_games()))
"""Every registered game by slug: the built-in ones, then ``CRITTERS_EXTRA_GAMES``'."""

RULESETS: Final[dict[str, Ruleset[Any]]] = {slug: Table(game) for slug, game in HOSTED.items()}


DEFAULT_RULESET: Final[str] = GOODCRITTERS.slug
"""The game a client gets when it names none (the API's default ``ruleset``), and the spec's first example."""


def game_of(slug: str) -> Game[Any]:
    """The registered game (the rules the table hosts) of ``slug``; ``KeyError`` if there is none."""
    get_ruleset(slug)  # the same KeyError
    return HOSTED[slug]


def game_folder(slug: str) -> Path:
    """The folder of the registered game ``slug`` (its package: its notes, its rulebook if it holds it)."""
    module = sys.modules[type(game_of(slug)).__module__]
    assert module.__file__ is not None
    return Path(module.__file__).resolve().parent


def rule_prefixes() -> dict[str, str]:
    """The prefix of each registered game's rule numbers → its slug (``WC`` → ``were_cats``)."""
    return {game.rule_prefix: slug for slug, game in HOSTED.items()}


def get_ruleset(slug: str) -> Ruleset[Any]:
    """The ruleset registered as ``slug``; ``KeyError`` if there is none."""
    try:
        return RULESETS[slug]
    except KeyError:
        raise KeyError(f"no ruleset {slug!r} (known: {', '.join(sorted(RULESETS))})") from None
