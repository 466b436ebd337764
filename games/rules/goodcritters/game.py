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

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from games.rules import codec
from games.rules.core import JSON, Context, RulesetTypes, Sample, Viewer
from games.rules.table.game import Opening, SeatFacts, Step, StepClosing, StepOpening, TableFact

from . import audit, moves, replay, serde
from . import commands as cmd
from . import events as ev
from .bots import bot_command
from .cards import MAX_PLAYERS, MIN_PLAYERS
from .decide import decide, step
from .errors import fail
from .evolve import _HANDLERS, FOLLOWED, evolve
from .options import (
    DEADLINE_STEPS,
    RULES,
    RULES_KNOWN,
    RULES_R7_6,
    Options,
    options_to_json,
    parse_options,
    table_settings,
)
from .state import CHOOSE, DISTRIBUTE, INITIAL_STATE, OVER, SETUP, State
from .types import TYPES
from .views import redact_event, view_for

_SETUP_KEYS: Final = ("seats", "stashes", "pile", "boss")
_UNREADY: Final = (
    ev.ThreatPlaced,
    ev.ThreatRemoved,
    ev.PayoffOffered,
    ev.PayoffWithdrawn,
    ev.GiftGiven,
    ev.TradeOffered,
    ev.TradeAccepted,
    ev.TradeFailed,
    ev.TradeDeclined,
    ev.TradeWithdrawn,
)


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


class GoodCritters:
    """The GoodCritters rules (RULES.md), as the table hosts them."""

    slug: str = "goodcritters"
    # the state cache's key, changed whenever folding the same events could give another state. 2: absent
    # players, pause, warnings; 3: the rules' version in the log (ruling 32), R7.6; 4: on the table
    version: str = "4"
    name: str = "GoodCritters"
    deadline_steps: tuple[str, ...] = DEADLINE_STEPS
    player_commands: tuple[type[Any], ...] = cmd.PLAYER_COMMANDS
    event_classes: tuple[type[Any], ...] = ev.EVENT_CLASSES
    types: RulesetTypes = TYPES
    field_choices: Mapping[tuple[str, str], tuple[str, ...]] = cmd.FIELD_CHOICES
    enum_names: Mapping[str, tuple[str, ...]] = {}
    rule_prefix: str = "R"  # RULES.md (the table's R7 too)
    rulebook: str = "RULES.md"
    sample: Sample = Sample(
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

    # --- the table's facts in GoodCritters' own events (games.rules.table.game.WritesTableFacts) ------
    fact_types: frozenset[type[Any]] = frozenset(
        (ev.GameStarted, ev.StepOpened, ev.StepClosed, ev.LootDistributed, ev.ActionChosen, *_UNREADY)
    )
    start_type: type[Any] = cmd.StartGame
    follows: frozenset[str] = frozenset(FOLLOWED)
    # the rules this code plays, each game to its end under the rules it started with (ruling 32); what
    # ``start_command`` gives is the last
    rules_versions: tuple[str, ...] = tuple(str(r) for r in RULES_KNOWN)

    def table_fact(self, event: Any) -> TableFact | None:
        kind = type(event)
        if kind is ev.StepOpened:
            return StepOpening(step_no=event.step_no, step=event.step, due_at=event.due_at)
        if kind is ev.StepClosed:
            return StepClosing(step_no=event.step_no)
        if kind is ev.ActionChosen:
            return SeatFacts(unready=event.unready, acted=event.seat)
        if kind is ev.LootDistributed:  # the Boss dealt by itself (not R7.2 for it)
            return SeatFacts(acted=event.boss) if event.auto is None else None
        if kind is ev.GameStarted:
            return Opening(
                players=event.players,
                settings=dict(event.options.table),
                pause_limit=event.rules >= RULES_R7_6,  # rules 2 had no R7.6 (ruling 32)
            )
        return SeatFacts(unready=event.unready)

    def with_due_at(self, event: ev.StepOpened, due_at: str | None) -> ev.StepOpened:
        return dataclasses.replace(event, due_at=due_at)

    def with_settings(self, start: cmd.StartGame, settings: Mapping[str, Any]) -> cmd.StartGame:
        options = dataclasses.replace(start.options, table=table_settings(settings))
        return dataclasses.replace(start, options=options)

    def rules_version(self, state: State) -> str:
        """The rules the started game ``state`` plays under, as its log says (``GameStarted``)."""
        return str(state.rules)

    # --- options and the start ---------------------------------------------------------------------
    def seat_range(self) -> tuple[int, int]:
        return (MIN_PLAYERS, MAX_PLAYERS)

    def parse_options(self, raw: Mapping[str, Any]) -> Options:
        return parse_options(raw)

    def options_to_json(self, options: Any) -> JSON:
        return options_to_json(options)

    def start_command(
        self,
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

    # --- the decider ---------------------------------------------------------------------------
    def initial_state(self) -> State:
        return INITIAL_STATE

    def decide(self, state: State, command: Any, ctx: Context) -> list[Any]:
        return list(decide(state, command, ctx))

    def step(self, state: State, command: Any, ctx: Context) -> tuple[list[Any], State]:
        """``decide`` and the state after its events (folded once, by decide)."""
        events, new_state = step(state, command, ctx)
        return list(events), new_state

    evolve = staticmethod(evolve)  # the fold's hot path: no call in between

    def fold(self, events: Iterable[Any], state: State | None = None) -> State:
        s = INITIAL_STATE if state is None else state
        handlers = _HANDLERS
        for event in events:
            s = handlers[type(event)](s, event) if type(event) in handlers else evolve(s, event)
        return s

    def is_terminal(self, state: State) -> bool:
        return state.phase == OVER

    def scores(self, state: State) -> Sequence[int] | None:
        return state.scores if state.phase == OVER else None

    def players(self, state: State) -> tuple[str, ...]:
        return state.players

    # --- what the table asks --------------------------------------------------------------------
    def waiting(self, state: State) -> Step | None:
        if state.phase == DISTRIBUTE:  # Step 2: the Boss deals (R2.2)
            return Step(state.step_no, DISTRIBUTE, frozenset((state.boss,)), DISTRIBUTE)
        if state.phase == CHOOSE:  # Step 3: everyone at once, with ready flags (R2.3, R2.4)
            seats = frozenset(range(state.n))
            return Step(state.step_no, CHOOSE, seats, CHOOSE, closes=True, ready=True)
        return None

    def default_command(self, state: State, seat: int, reason: str) -> cmd.PlayDefault | None:
        """R7.2: the Boss's Loot is dealt for it (timed out or resigned). R7.3: a seat without a choice when
        the time is up plays ``timeout_action`` at the reveal. R7.4: a resigned seat counts as done in
        Step 3 (it plays ``timeout_action`` too, unless it chose)."""
        if state.phase == DISTRIBUTE and seat == state.boss:
            return cmd.PlayDefault(seat=seat, reason=reason)
        if state.phase == CHOOSE and reason == "timeout" and state.actions[seat] is None:
            return cmd.PlayDefault(seat=seat, reason=reason)
        return None

    def close_command(self, step_no: int, reason: str) -> cmd.CloseChoice:
        return cmd.CloseChoice(seat=None, step_no=step_no, reason=reason)

    def resign_command(self, seat: int) -> cmd.LapseTrades:
        return cmd.LapseTrades(seat=None, target=seat)

    def legal_commands(self, state: State, seat: int) -> list[str]:
        return legal_commands(state, seat)

    def moves(self, state: State, seat: int) -> list[Any]:
        """The legal moves with their arguments (issue #24, ``moves.py``)."""
        return moves.moves(state, seat, legal_commands(state, seat))

    def bot_command(self, state: State, seat: int, *, strategy: str, salt: int) -> Any:
        return bot_command(state, seat, strategy=strategy, salt=salt)

    # --- views and JSON ----------------------------------------------------------------------------
    def view_for(self, state: State, viewer: Viewer) -> JSON:
        return view_for(state, viewer)

    def full_view(self, state: State) -> JSON:
        """``view_for`` with nothing hidden, for any state: only for a past state of a game that is over (the
        audit's step-through); the service never serves it while the game runs."""
        return view_for(state, None, full=True)

    def redact_event(self, event: Any, viewer: Viewer, *, terminal: bool) -> JSON:
        return redact_event(event, viewer, terminal=terminal)

    def event_to_json(self, event: Any) -> JSON:
        return serde.event_to_json(event)

    def event_from_json(self, data: Mapping[str, Any]) -> Any:
        return serde.event_from_json(data)

    def command_from_json(self, data: Mapping[str, Any], seat: int | None) -> Any:
        return serde.command_from_json(data, seat)

    def command_to_json(self, command: Any) -> JSON:
        return serde.command_to_json(command)

    # --- the audit (games.rules.core.AuditHooks) -----------------------------------------------------
    def audit_secrets(self, seed: bytes) -> audit.Secrets:
        return audit.audit_secrets(seed)

    def spectator_data(self, data: Mapping[str, Any]) -> JSON:
        return audit.spectator_data(data)

    def chart(self, state: State) -> tuple[str, tuple[int, ...]] | None:
        return audit.chart(state)

    def replay_sections(self, events: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[JSON]:
        return replay.replay_sections(events, names)


def legal_commands(state: State, seat: int) -> list[str]:
    """The game's command ``TYPE`` names ``seat`` may send now (each may still be refused for its
    arguments); the table adds its own (ready flags, resignation, messages, the pause) and says when none
    of these are (a resigned seat, one on autopilot, a pause)."""
    if state.phase in (SETUP, OVER) or not 0 <= seat < state.n or state.resigned[seat]:
        return []
    out: list[str] = []
    payoffs = state.options.payoffs
    if state.phase == DISTRIBUTE and seat == state.boss:
        out.append(cmd.DistributeLoot.TYPE)
    if state.phase == CHOOSE:
        out += [cmd.ChooseAction.TYPE, cmd.PlaceThreat.TYPE]
        if state.threats[seat] is not None:
            out.append(cmd.RemoveThreat.TYPE)
        if payoffs:
            if (
                state.stashes[seat]
                or state.payoff_cards[seat]
                or any(state.bundle(seat, t) is not None for t in (0, 1))
            ):
                out.append(cmd.OfferPayoff.TYPE)
            if any(state.bundle(seat, t) is not None for t in (0, 1)):
                out.append(cmd.WithdrawPayoff.TYPE)
    if payoffs and state.phase in (DISTRIBUTE, CHOOSE):
        if state.stashes[seat] or state.payoff_cards[seat]:
            out += [cmd.GiveGift.TYPE, cmd.OfferTrade.TYPE]
        if any(t.to == seat for t in state.trades):
            out += [cmd.AcceptTrade.TYPE, cmd.DeclineTrade.TYPE]
        if any(t.seat == seat for t in state.trades):
            out.append(cmd.WithdrawTrade.TYPE)
    return out


GAME: Final = GoodCritters()

__all__ = ["GAME", "GoodCritters", "legal_commands"]
