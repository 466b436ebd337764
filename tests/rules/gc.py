"""GoodCritters as the service hosts it: its rules on the play-by-web table (``games.rules.registry``)."""

from typing import Any, Final

from games.rules.registry import get_ruleset
from games.rules.table.ruleset import Table

RULESET: Final[Table] = get_ruleset("goodcritters")  # type: ignore[assignment]


def game_state(state: Any) -> Any:
    """GoodCritters' own state inside the table's."""
    return state.game
