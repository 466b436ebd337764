"""GoodCritters as a game on the play-by-web table (``games.rules.table.game.Game``): only its own rules.

The table (``games.rules.table``) hosts it as it hosts every game: seats over time, deadlines and what a
timeout plays, absences, autopilot, take-back, hand-over, the pause, warnings, ready flags, resignation and
messages. GoodCritters' log predates the table and stays as clients know it, so GoodCritters writes the
table's facts into its own events (``WritesTableFacts``): its ``GameStarted`` opens the table (the table's
settings are among its options), each ``StepOpened`` carries the deadline the table writes in, and the events
that change a seat's choices say whose ready flags they lower (``unready``, R2.4). A finished game's record
made before the table re-decides to the same events.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from games.rules.core import JSON, Sample
from games.rules.moves import Move
from games.rules.table.game import Game, GameOptions

from . import audit, moves, replay
from . import commands as cmd
from . import events as ev
from .bots import bot_command
from .cards import MAX_PLAYERS, MIN_PLAYERS
from .decide import decide, step
from .evolve import evolve, fold
from .options import DEADLINE_STEPS, RULES_KNOWN, options_to_json, parse_options
from .serde import CODEC
from .start import start_command
from .state import INITIAL_STATE, OVER, State
from .table_facts import FACTS
from .types import TYPES
from .views import redact_event, view_for
from .waiting import default_command, legal_commands, waiting


class GoodCritters(Game[State]):
    """The GoodCritters rules (RULES.md), as the table hosts them."""

    slug = "goodcritters"
    # the state cache's key, changed whenever folding the same events could give another state. 2: absent
    # players, pause, warnings; 3: the rules' version in the log (ruling 32), R7.6; 4: on the table
    version = "4"
    name = "GoodCritters"
    seats = (MIN_PLAYERS, MAX_PLAYERS)
    deadline_steps = DEADLINE_STEPS
    player_commands = cmd.PLAYER_COMMANDS
    event_classes = ev.EVENT_CLASSES
    types = TYPES
    codec = CODEC
    options = GameOptions(parse_options, options_to_json)
    initial = INITIAL_STATE
    field_choices = cmd.FIELD_CHOICES
    enum_names: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    rule_prefix = "R"  # RULES.md (the table's R7 too)
    rulebook = "RULES.md"
    sample = Sample(
        name="Friday heist",
        seats=5,
        options={"payoffs": True, "deadlines": {"distribute": 3600, "choose": 3600}},
        commands={
            "DistributeLoot": {"shares": [[17, 88], [5], [120, 63], [31], [2]]},
            "ChooseAction": {"action": "vote_yes"},
            "PlaceThreat": {"target": 3},
            "RemoveThreat": {},
            "OfferPayoff": {
                "token": 0,
                "side": "yes",
                "target": 2,
                "loot": [17],
                "visibility": "peek",
                "payoff_cards": 1,
            },
            "WithdrawPayoff": {"token": 0},
            "GiveGift": {"to": 1, "loot": [], "payoff_cards": 2},
            "OfferTrade": {"to": 1, "give_loot": [17], "give_payoff": 0, "want_values": [], "want_payoff": 3},
            "AcceptTrade": {"trade_id": 1, "loot": []},
            "DeclineTrade": {"trade_id": 1},
            "WithdrawTrade": {"trade_id": 1},
        },
    )

    facts = FACTS  # the table's facts in GoodCritters' own events (its log predates the table)
    # the rules this code plays, each game to its end under the rules it started with (ruling 32); what
    # ``start_command`` gives is the last
    rules_versions = tuple(str(r) for r in RULES_KNOWN)
    # the audit (games.rules.core.AuditHooks)
    audit_secrets = staticmethod(audit.audit_secrets)
    spectator_data = staticmethod(audit.spectator_data)
    replay_sections = staticmethod(replay.replay_sections)

    start_command = staticmethod(start_command)
    decide = staticmethod(decide)
    step = staticmethod(step)
    evolve = staticmethod(evolve)  # the fold's hot path: no call in between
    fold = staticmethod(fold)
    waiting = staticmethod(waiting)
    default_command = staticmethod(default_command)
    legal_commands = staticmethod(legal_commands)
    bot_command = staticmethod(bot_command)
    view_for = staticmethod(view_for)
    redact_event = staticmethod(redact_event)
    chart = staticmethod(audit.chart)

    def rules_version(self, state: State) -> str:
        """The rules the started game ``state`` plays under, as its log says (``GameStarted``)."""
        return str(state.rules)

    def is_terminal(self, state: State) -> bool:
        return state.phase == OVER

    def scores(self, state: State) -> tuple[int, ...] | None:
        return state.scores if state.phase == OVER else None

    def players(self, state: State) -> tuple[str, ...]:
        return state.players

    def close_command(self, step_no: int, reason: str) -> cmd.CloseChoice:
        return cmd.CloseChoice(seat=None, step_no=step_no, reason=reason)

    def resign_command(self, seat: int) -> cmd.LapseTrades:
        return cmd.LapseTrades(seat=None, target=seat)

    def moves(self, state: State, seat: int) -> list[Move]:
        """The legal moves with their arguments (issue #24, ``moves.py``)."""
        return moves.moves(state, seat, legal_commands(state, seat))

    def full_view(self, state: State) -> JSON:
        """``view_for`` with nothing hidden, for any state: only for a past state of a game that is over (the
        audit's step-through); the service never serves it while the game runs."""
        return view_for(state, None, full=True)


GAME: Final = GoodCritters()

__all__ = ["GAME", "GoodCritters", "legal_commands"]
