"""GoodCritters as a :class:`games.rules.core.Ruleset`: the one object the service talks to."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from games.rules import codec
from games.rules.core import JSON, Context, Event, Seat, Viewer, Waiting

from . import audit, replay, serde
from . import commands as cmd
from .bots import bot_command
from .cards import MAX_PLAYERS, MIN_PLAYERS
from .decide import decide, pause_end, step, warn_time
from .errors import fail
from .events import Event as GCEvent
from .evolve import _HANDLERS
from .options import RULES, RULES_KNOWN, Options, options_to_json, parse_options
from .state import CHOOSE, DISTRIBUTE, INITIAL_STATE, OVER, SETUP, State
from .views import redact_event, view_for

_SETUP_KEYS: Final = ("seats", "stashes", "pile", "boss", "fixed_seed")


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


def _setup_flag(setup: Mapping[str, Any], key: str) -> bool:
    value = setup.get(key, False)
    if type(value) is not bool:
        fail("invalid_setup", f"setup {key!r} must be true or false")
    return value


class GoodCritters:
    """The GoodCritters ruleset (RULES.md)."""

    slug: str = "goodcritters"
    # the state cache's key, changed whenever folding the same events could give another state. 2: absent
    # players, pause, warnings (new state fields); 3: the rules' version in the log and the state (rules 2 and
    # 3 both played, ruling 32), R7.6 (option max_pause) for games started under rules 3
    version: str = "3"
    # the rules this code plays, each game to its end under the rules it started with (ruling 32); what
    # ``start_command`` gives is the last
    rules_versions: tuple[str, ...] = tuple(str(r) for r in RULES_KNOWN)
    autopilot_player_commands: tuple[str, ...] = (
        cmd.TakeBackSeat.TYPE,
        cmd.SendMessage.TYPE,
        cmd.Resign.TYPE,
    )

    # --- options -----------------------------------------------------------------------------
    def parse_options(self, raw: Mapping[str, Any]) -> Options:
        return parse_options(raw)

    def options_to_json(self, options: Any) -> JSON:
        return options_to_json(options)

    def seat_range(self) -> tuple[int, int]:
        return (MIN_PLAYERS, MAX_PLAYERS)

    # --- the decider ---------------------------------------------------------------------------
    def initial_state(self) -> State:
        return INITIAL_STATE

    def decide(self, state: State, command: Any, ctx: Context) -> list[Event]:
        return list(decide(state, command, ctx))

    def step(self, state: State, command: Any, ctx: Context) -> tuple[list[Event], State]:
        """``decide`` plus the state after its events (what a simulator or a service needs next)."""
        events, new_state = step(state, command, ctx)
        return list(events), new_state

    def evolve(self, state: State, event: Any) -> State:
        return _HANDLERS[type(event)](state, event)

    def fold(self, events: Iterable[Any], state: State | None = None) -> State:
        s = INITIAL_STATE if state is None else state
        handlers = _HANDLERS
        for event in events:
            s = handlers[type(event)](s, event)
        return s

    def is_terminal(self, state: State) -> bool:
        return state.phase == OVER

    # --- serialization -------------------------------------------------------------------------
    def event_to_json(self, event: Any) -> JSON:
        return serde.event_to_json(event)

    def event_from_json(self, data: Mapping[str, Any]) -> Event:
        return serde.event_from_json(data)

    def command_from_json(self, data: Mapping[str, Any], seat: Seat | None) -> Any:
        return serde.command_from_json(data, seat)

    def command_to_json(self, command: Any) -> JSON:
        return serde.command_to_json(command)

    def start_command(
        self,
        *,
        players: Sequence[str],
        creator: str | None,
        options: Any,
        seed: bytes,
        setup: Mapping[str, Any] | None = None,
    ) -> cmd.StartGame:
        """``setup`` (operators): ``seats`` (player ids in seat order), ``stashes`` (card ids per seat) with
        ``pile`` (card ids, top first, The Fuzz! = 140), ``boss`` (the first Boss's seat), ``fixed_seed``
        (true: an operator chose ``seed``; the service sets it, never a client)."""
        opts = options if isinstance(options, Options) else parse_options(options)
        setup = setup or {}
        for key in setup:
            if key not in _SETUP_KEYS:
                fail("invalid_setup", f"unknown setup key {key!r} (keys: {', '.join(_SETUP_KEYS)})")
        return cmd.StartGame(
            seat=None,
            players=tuple(players),
            creator=creator,
            options=opts,
            seed=bytes(seed),
            seats=_setup_field(setup, "seats", "strs"),
            stashes=_setup_field(setup, "stashes", "intss"),
            pile=_setup_field(setup, "pile", "ints"),
            boss=_setup_field(setup, "boss", "int"),
            fixed_seed=_setup_flag(setup, "fixed_seed"),
            rules=RULES,
        )

    def expire_command(self, step_no: int) -> cmd.ExpireDeadline:
        return cmd.ExpireDeadline(seat=None, step_no=step_no)

    # --- play by web: warnings, outage extensions, autopilot ----------------------------------------
    def warn_command(self, step_no: int) -> cmd.WarnDeadline:
        return cmd.WarnDeadline(seat=None, step_no=step_no)

    def extend_command(self, step_no: int, seconds: int, reason: str) -> cmd.ExtendDeadline:
        return cmd.ExtendDeadline(seat=None, step_no=step_no, seconds=seconds, reason=reason)

    def pause_command(self, pause: bool) -> cmd.PauseGame | cmd.ResumeGame:
        return cmd.PauseGame(seat=None) if pause else cmd.ResumeGame(seat=None)

    def hand_over_command(self, seat: Seat, *, to: str, player: str) -> cmd.HandOverSeat:
        return cmd.HandOverSeat(seat=None, target=seat, to=to, player=player)

    def warn_at(self, state: State) -> datetime | None:
        """When the current step's ``DeadlineNear`` warning is due (``None``: none due)."""
        return warn_time(state)

    def step_seconds(self, state: State) -> int | None:
        """The current step's deadline duration from the options (``None``: no deadline)."""
        return state.options.deadline(state.phase) if state.phase in (DISTRIBUTE, CHOOSE) else None

    def autopilot_seats(self, state: State) -> frozenset[int]:
        """Seats the ``sensible`` bot plays until their player takes them back."""
        return frozenset(s for s, on in enumerate(state.autopilot) if on and not state.resigned[s])

    def bot_command(self, state: State, seat: Seat, *, strategy: str, salt: int) -> Any:
        return bot_command(state, seat, strategy=strategy, salt=salt)

    # --- reading -------------------------------------------------------------------------------
    def rules_version(self, state: State) -> str:
        """The rules the started game ``state`` plays under, as its log says (``GameStarted``)."""
        return str(state.rules)

    def waiting(self, state: State) -> Waiting | None:
        if state.phase == DISTRIBUTE:
            seats = frozenset() if state.resigned[state.boss] else frozenset((state.boss,))
        elif state.phase == CHOOSE:
            seats = frozenset(
                s
                for s in range(state.n)
                if not state.resigned[s] and (state.actions[s] is None or not state.ready[s])
            )
        else:
            return None
        # while paused no deadline runs: the game's next timer is the end of the pause (R7.6)
        if state.paused_at is not None:
            due = pause_end(state)
        else:
            due = datetime.fromisoformat(state.due_at) if state.due_at else None
        return Waiting(step_no=state.step_no, step=state.phase, seats=seats, due_at=due)

    def legal_commands(self, state: State, seat: Seat) -> list[str]:
        return legal_commands(state, seat)

    def view_for(self, state: State, viewer: Viewer) -> JSON:
        return view_for(state, viewer)

    def full_view(self, state: State) -> JSON:
        """``view_for`` with nothing hidden, for any state: only for a past state of a game that is over (the
        audit's step-through); the service never serves it while the game runs."""
        return view_for(state, None, full=True)

    def redact_event(self, event: Any, viewer: Viewer, *, terminal: bool) -> JSON:
        return redact_event(event, viewer, terminal=terminal)

    def scores(self, state: State) -> Sequence[int] | None:
        return state.scores if state.phase == OVER else None

    # --- the audit (games.rules.core.AuditHooks) -----------------------------------------------------
    def audit_secrets(self, seed: bytes) -> audit.Secrets:
        return audit.audit_secrets(seed)

    def spectator_data(self, data: Mapping[str, Any]) -> JSON:
        return audit.spectator_data(data)

    def chart(self, state: State) -> tuple[str, tuple[int, ...]] | None:
        return audit.chart(state)

    def replay_sections(self, events: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[JSON]:
        return replay.replay_sections(events, names)


def legal_commands(state: State, seat: Seat) -> list[str]:
    """The command ``TYPE`` names ``seat`` may send now (each may still be refused for its arguments)."""
    if state.phase in (SETUP, OVER) or not 0 <= seat < state.n:
        return []
    if state.resigned[seat]:
        return [cmd.SendMessage.TYPE]
    if state.autopilot[seat]:  # a bot plays the seat: its player may take it back, resign or talk
        return [cmd.TakeBackSeat.TYPE, cmd.Resign.TYPE, cmd.SendMessage.TYPE]
    extra: list[str] = []
    if state.options.pause_by == "vote" and seat not in state.pause_votes:
        extra.append(cmd.VotePause.TYPE)
    if state.paused_at is not None:
        return [*extra, cmd.Resign.TYPE, cmd.SendMessage.TYPE]
    out: list[str] = []
    payoffs = state.options.payoffs
    if state.phase == DISTRIBUTE and seat == state.boss:
        out.append(cmd.DistributeLoot.TYPE)
    if state.phase == CHOOSE:
        out += [cmd.ChooseAction.TYPE, cmd.PlaceThreat.TYPE]
        if state.threats[seat] is not None:
            out.append(cmd.RemoveThreat.TYPE)
        if state.actions[seat] is not None or state.ready[seat]:
            out.append(cmd.SetReady.TYPE)
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
    out += [*extra, cmd.Resign.TYPE, cmd.SendMessage.TYPE]
    return out


RULESET: Final = GoodCritters()

__all__ = ["RULESET", "GCEvent", "GoodCritters", "legal_commands"]
