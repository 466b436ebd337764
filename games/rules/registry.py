"""Rulesets by slug: the service looks a game's rules up here (``get_ruleset(game.ruleset)``)."""

from __future__ import annotations

from typing import Any, Final

from games.rules.core import Ruleset
from games.rules.goodcritters.game import GAME as GOODCRITTERS
from games.rules.loose_triggers.game import GAME as LOOSE_TRIGGERS
from games.rules.table.ruleset import Table
from games.rules.were_cats.game import GAME as WERE_CATS

RULESETS: Final[dict[str, Ruleset[Any]]] = {
    GOODCRITTERS.slug: Table(GOODCRITTERS),
    LOOSE_TRIGGERS.slug: Table(LOOSE_TRIGGERS),
    WERE_CATS.slug: Table(WERE_CATS),
}


DEFAULT_RULESET: Final[str] = GOODCRITTERS.slug
"""The game a client gets when it names none (the API's default ``ruleset``), and the spec's first example."""


def get_ruleset(slug: str) -> Ruleset[Any]:
    """The ruleset registered as ``slug``; ``KeyError`` if there is none."""
    try:
        return RULESETS[slug]
    except KeyError:
        raise KeyError(f"no ruleset {slug!r} (known: {', '.join(sorted(RULESETS))})") from None
