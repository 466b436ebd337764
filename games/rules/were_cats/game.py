"""Were-cats as the table hosts it (:class:`games.rules.table.game.Game`): ``games.rules.registry`` registers
``Table(GAME)``. Pure: no Django, no I/O, no clock, no global random."""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from games.rules.core import Sample
from games.rules.table.game import Game, GameOptions

from .bots import bot_command
from .coins import KINDS, MAX_PLAYERS, MIN_PLAYERS
from .commands import FIELD_CHOICES, Resign
from .decide import decide, step
from .events import EVENT_CLASSES
from .evolve import evolve, fold
from .moves import moves
from .options import options_to_json, parse_options
from .serde import CODEC
from .start import start_command
from .state import INITIAL_STATE, OVER, State
from .types import PLAYER_COMMANDS, TYPES
from .views import chart, redact_event, view_for
from .waiting import default_command, legal_commands, waiting


class WereCats(Game[State]):
    """The Were-cats game (RULES-were-cats.md, rulings in ``README.md``)."""

    slug = "were_cats"
    version = "1"
    name = "Were-cats"
    seats = (MIN_PLAYERS, MAX_PLAYERS)
    deadline_steps = ("setup", "place", "populate", "act")  # WC4.1, ruling 14 (setup)
    player_commands = PLAYER_COMMANDS
    event_classes = EVENT_CLASSES
    types = TYPES
    codec = CODEC
    options = GameOptions(parse_options, options_to_json)
    initial = INITIAL_STATE
    field_choices = FIELD_CHOICES
    enum_names = MappingProxyType({"CoinKindEnum": KINDS})
    rule_prefix = "WC"
    rulebook = "RULES-were-cats.md"
    sample = Sample(
        name="Full moon",
        seats=3,
        options={"max_rounds": 12, "deadlines": {"place": 86400, "act": 86400}, "warn_before": 3600},
    )

    start_command = staticmethod(start_command)
    decide = staticmethod(decide)
    step = staticmethod(step)
    evolve = staticmethod(evolve)
    fold = staticmethod(fold)
    waiting = staticmethod(waiting)  # every step closes by the game's own rules (no close_command)
    default_command = staticmethod(default_command)
    legal_commands = staticmethod(legal_commands)
    moves = staticmethod(moves)
    bot_command = staticmethod(bot_command)
    view_for = staticmethod(view_for)
    redact_event = staticmethod(redact_event)
    chart = staticmethod(chart)  # the replay page's chart: each seat's points

    def is_terminal(self, state: State) -> bool:
        return state.phase == OVER

    def scores(self, state: State) -> list[int] | None:
        return None if state.scores is None else list(state.scores)

    def players(self, state: State) -> tuple[str, ...]:
        return state.players

    def resign_command(self, seat: int) -> Resign:
        return Resign(seat=None, target=seat)  # WC4.3 as R7.4: cannot win (ruling 15)


GAME: Final[WereCats] = WereCats()
