"""``GAME``: Loose Triggers, Smoking Barrels as the table hosts it (:class:`games.rules.table.game.Game`);
``games.rules.registry`` registers ``Table(GAME)``. Only the game's own rules: the deadlines, pauses,
absences and messages are the table's."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from games.rules.core import JSON, RuleError, Sample
from games.rules.table.game import Game, GameOptions

from . import views
from .bots import bot_command
from .commands import CloseStep, Resign
from .decide import MAX_PLAYERS, MIN_PLAYERS, decide, step
from .events import EVENT_CLASSES
from .evolve import evolve, fold
from .moves import moves
from .options import OWN_DEADLINES, RULES, RULES_KNOWN, options_to_json, parse_options
from .serde import CODEC
from .start import start_command
from .state import INITIAL_STATE, OVER, State
from .types import PLAYER_COMMANDS, TYPES
from .waiting import default_command, legal_commands, waiting


class LooseTriggers(Game[State]):
    slug = "loose_triggers"
    version = "lt-2"
    name = "Loose Triggers"
    seats = (MIN_PLAYERS, MAX_PLAYERS)
    deadline_steps = ("give", "choose", "pick")  # LT7.1 (elect: give; claim, grab: pick)
    player_commands = PLAYER_COMMANDS
    event_classes = EVENT_CLASSES
    types = TYPES
    codec = CODEC
    options = GameOptions(parse_options, options_to_json)
    initial = INITIAL_STATE
    field_choices: Mapping[tuple[str, str], tuple[str, ...]] = MappingProxyType(
        {}
    )  # its string fields are Literals
    enum_names: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    rule_prefix = "LT"
    rulebook = "RULES-loose-triggers.md"
    # LT2.5's ``deadlines.aim`` is the game's own (0: no window, which only the game can tell; ruling 25)
    own_deadlines = OWN_DEADLINES
    # the rules this code plays, oldest first, each game to its end under the rules it started with (ruling
    # 32, README "Rules versions"): a game made now plays under ``RULES``, written in its start command and
    # ``GameStarted`` (``rules``) and, for LT2.5's window, in its options (the table writes it in)
    rules_versions = tuple(str(r) for r in RULES_KNOWN)
    new_game_options = MappingProxyType({"rules": RULES})
    sample = Sample(
        name="Saloon at noon",
        seats=5,
        options={
            "countdown": 90,
            "max_retargets": 2,
            "deadlines": {"give": 3600, "choose": 3600, "pick": 3600, "aim": 60},
            "absence": {"extensions": 1, "autopilot_after": 3},
            "pause_by": "vote",
            "warn_before": 600,
        },
        commands={"ElectBagman": {"candidate": 2}},  # LT5.4: only when the Bagman dies
    )

    start_command = staticmethod(start_command)
    decide = staticmethod(decide)
    step = staticmethod(step)
    evolve = staticmethod(evolve)
    fold = staticmethod(fold)
    waiting = staticmethod(waiting)
    default_command = staticmethod(default_command)
    legal_commands = staticmethod(legal_commands)
    moves = staticmethod(moves)
    bot_command = staticmethod(bot_command)
    view_for = staticmethod(views.view_for)
    redact_event = staticmethod(views.redact_event)
    chart = staticmethod(views.chart)  # the replay page's chart: each seat's Loot value

    def rules_version(self, state: State) -> str:
        """The rules the started game ``state`` plays under, as its log says (``GameStarted``)."""
        return str(state.rules)

    def is_terminal(self, state: State) -> bool:
        return state.phase == OVER

    def scores(self, state: State) -> list[int] | None:
        return list(state.scores) if state.phase == OVER and state.scores is not None else None

    def players(self, state: State) -> tuple[str, ...]:
        return state.players

    def close_command(self, step_no: int, reason: str = "deadline") -> CloseStep:
        return CloseStep(seat=None, step_no=step_no, reason=reason)

    def resign_command(self, seat: int) -> Resign:
        return Resign(seat=None, target=seat)

    def full_view(self, state: State) -> JSON:
        return views.view_for(state, None, full=True)


GAME: Final = LooseTriggers()

__all__ = ["GAME", "LooseTriggers", "RuleError"]
