"""The table: a :class:`games.rules.core.Ruleset` around any :class:`.game.Game`, written once.

It is a Decider that wraps the game's Decider. Its state is the game's state plus the seats' holders,
resignations, absences, ready flags, the current step's deadline and the pause; its events sit in the same log
as the game's. After every command it *settles* the game: a step that opened gets its deadline
(``DeadlineSet``, R7.1, R7.5; during a pause from the pause's start, R7.6), a resigned seat plays the game's
default at once (R7.4, LT7.3, WC4.3), and a step with ready flags closes once every seat in it is ready.

Timers send ``ExpireDeadline``: the seats that missed the deadline spend an extension if they have one left
(the step is extended), else the deadline passes, a seat that has missed ``autopilot_after`` deadlines in a
row goes on autopilot (a bot plays it until it is taken back or handed over), and the game's default is played
for every seat that still owes one; a step the table closes is then closed. Pauses, warnings, outage
extensions and messages work as for GoodCritters (RULES.md R7, rulings 28 and 31).
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from games.rules.bounds import check_new_game
from games.rules.core import (
    JSON,
    AuditSecrets,
    Context,
    InvalidOptions,
    Sample,
    Seat,
    Step,
    Viewer,
)
from games.rules.moves import Choice, Move, Subset, Text

from . import commands as cmd
from . import events as ev
from . import seating, serde
from .errors import ERRORS, fail
from .game import Game, Opening, SeatFacts, StepClosing, StepOpening
from .options import DEFAULT_MAX_PAUSE as DEFAULT_MAX_PAUSE
from .options import TABLE_KEYS, Options, Settings, parse_settings, settings_to_json
from .state import TableState, setitem
from .types import table_types

STALL_SECONDS: Final = 7 * 24 * 3600  # ruling 13: a seat a step without a deadline waited on this long
SETTLE_LIMIT: Final = 100_000  # defaults played in one go, at most (a game that never settles is a bug)
RULES_VERSION: Final = "1"


# --------------------------------------------------------------------------------------------------
# evolve: the table's own events (the game's go to the game)
# --------------------------------------------------------------------------------------------------
def _opened(s: TableState, e: ev.TableOpened) -> TableState:
    n = len(e.players)
    return s._replace(
        opened=True,
        n=n,
        players=e.players,
        settings=e.settings,
        resigned=(False,) * n,
        autopilot=(False,) * n,
        misses=(0,) * n,
        extensions_left=(e.settings.extensions,) * n,
        ready=(False,) * n,
    )


_new: Final = tuple.__new__
_READY, _STEP_NO, _STEP, _DUE_AT, _WARNED = (
    TableState._fields.index(name) for name in ("ready", "step_no", "step", "due_at", "warned")
)


def _with_game(s: TableState, game: Any) -> TableState:
    """``s._replace(game=game)``, without ``_replace``'s keyword arguments (once per game command)."""
    new: TableState = _new(TableState, (game, *s[1:]))
    return new


def _deadline_set(s: TableState, e: ev.DeadlineSet) -> TableState:
    v = list(s)
    v[_STEP_NO] = e.step_no
    v[_STEP] = e.step
    v[_DUE_AT] = e.due_at
    v[_WARNED] = None
    v[_READY] = (False,) * s.n
    new: TableState = _new(TableState, v)
    return new


def _missed(s: TableState, e: ev.DeadlineMissed) -> TableState:
    misses = list(s.misses)
    for seat in e.seats:
        misses[seat] += 1
    return s._replace(misses=tuple(misses))


def _extended(s: TableState, e: ev.DeadlineExtended) -> TableState:
    left = list(s.extensions_left)
    if e.reason == "absence":
        for seat in e.seats:
            left[seat] -= 1
    ready = tuple(False if i in e.unready else r for i, r in enumerate(s.ready))
    return s._replace(due_at=e.due_at, extensions_left=tuple(left), ready=ready)


def _same(s: TableState, e: Any) -> TableState:
    return s


def _near(s: TableState, e: ev.DeadlineNear) -> TableState:
    return s._replace(warned=e.due_at)


def _ready(s: TableState, e: ev.ReadySet) -> TableState:
    return s._replace(ready=setitem(s.ready, e.seat, e.ready))


def _returned(s: TableState, e: ev.PlayerReturned) -> TableState:
    return s._replace(misses=setitem(s.misses, e.seat, 0))


def _engaged(s: TableState, e: ev.AutopilotEngaged) -> TableState:
    return s._replace(autopilot=setitem(s.autopilot, e.seat, True))


def _released(s: TableState, e: ev.AutopilotReleased) -> TableState:
    return s._replace(autopilot=setitem(s.autopilot, e.seat, False), misses=setitem(s.misses, e.seat, 0))


def _handed_over(s: TableState, e: ev.SeatHandedOver) -> TableState:
    assert s.settings is not None
    return s._replace(
        players=setitem(s.players, e.seat, e.player),
        misses=setitem(s.misses, e.seat, 0),
        extensions_left=setitem(s.extensions_left, e.seat, s.settings.extensions),
    )


def _resigned(s: TableState, e: ev.PlayerResigned) -> TableState:
    return s._replace(
        resigned=setitem(s.resigned, e.seat, True), autopilot=setitem(s.autopilot, e.seat, False)
    )


def _voted(s: TableState, e: ev.PauseVoted) -> TableState:
    return s._replace(pause_votes=s.pause_votes | {e.seat})


def _paused(s: TableState, e: ev.GamePaused) -> TableState:
    return s._replace(paused_at=e.at, pause_votes=frozenset())


def _resumed(s: TableState, e: ev.GameResumed) -> TableState:
    return s._replace(paused_at=None, due_at=e.due_at, pause_votes=frozenset())


def _opening(s: TableState, o: Opening, steps: tuple[str, ...]) -> TableState:
    """``TableOpened``'s fold, from a game's own start event."""
    opened = _opened(s, ev.TableOpened(players=o.players, settings=parse_settings(o.settings, steps)))
    return opened._replace(pause_limit=o.pause_limit)


def _step_opening(s: TableState, o: StepOpening) -> TableState:
    """``DeadlineSet``'s fold, from a game's own step-opening event that carries its deadline."""
    return _deadline_set(s, ev.DeadlineSet(step_no=o.step_no, step=o.step, due_at=o.due_at))


def _step_closing(s: TableState, f: StepClosing) -> TableState:
    return s._replace(due_at=None)


def _passed(s: TableState, e: ev.DeadlinePassed) -> TableState:
    """The deadline passed: none runs until the next step opens (it gets its own, DeadlineSet)."""
    return s._replace(due_at=None)


def _apply_fact(s: TableState, fact: Any, steps: tuple[str, ...]) -> TableState:
    """The fold of a table fact a game's event carries (``game.WritesTableFacts``)."""
    if type(fact) is SeatFacts:  # the most frequent
        return _seat_facts(s, fact)
    if isinstance(fact, StepOpening):
        return _step_opening(s, fact)
    if isinstance(fact, Opening):
        return _opening(s, fact, steps)
    assert isinstance(fact, StepClosing), fact
    return _step_closing(s, fact)


def _seat_facts(s: TableState, f: SeatFacts) -> TableState:
    ready = s.ready
    if f.unready and True in ready:
        ready = tuple(False if i in f.unready else r for i, r in enumerate(ready))
    misses = s.misses
    if f.acted is not None and misses[f.acted]:
        misses = setitem(misses, f.acted, 0)
    return s._replace(ready=ready, misses=misses) if ready is not s.ready or misses is not s.misses else s


_HANDLERS: Final[dict[type[Any], Any]] = {
    ev.TableOpened: _opened,
    ev.DeadlineSet: _deadline_set,
    ev.DeadlineMissed: _missed,
    ev.DeadlineExtended: _extended,
    ev.DeadlinePassed: _passed,
    ev.DeadlineNear: _near,
    ev.ReadySet: _ready,
    ev.PlayerReturned: _returned,
    ev.AutopilotEngaged: _engaged,
    ev.AutopilotReleased: _released,
    ev.SeatHandedOver: _handed_over,
    ev.PlayerResigned: _resigned,
    ev.MessageSent: _same,
    ev.PauseVoted: _voted,
    ev.GamePaused: _paused,
    ev.GameResumed: _resumed,
}


class Table:
    """The play-by-web table around ``game``: what the service registers (``games.rules.registry``)."""

    rules_versions: tuple[str, ...] = (RULES_VERSION,)
    autopilot_player_commands: tuple[str, ...] = (
        cmd.TakeBackSeat.TYPE,
        cmd.SendMessage.TYPE,
        cmd.Resign.TYPE,
    )

    def __init__(self, game: Game[Any]) -> None:
        self.game = game
        self.slug = game.slug
        self.version = f"table-{RULES_VERSION}/{game.version}"
        game_events = {cls.TYPE for cls in game.event_classes}
        clash = game_events & serde.EVENT_TYPES
        if clash:
            raise ValueError(f"{game.slug}: event types {sorted(clash)} are the table's")
        self._game_commands: dict[str, type[Any]] = {cls.TYPE: cls for cls in game.player_commands}
        clash = set(self._game_commands) & serde.COMMAND_TYPES
        if clash:
            raise ValueError(f"{game.slug}: command types {sorted(clash)} are the table's")
        self._game_command_types = tuple(game.player_commands)
        self.player_commands: tuple[type[Any], ...] = (*game.player_commands, *cmd.PLAYER_COMMANDS)
        self.event_classes: tuple[type[Any], ...] = (*game.event_classes, *ev.EVENT_CLASSES)
        self.types = table_types(game)  # the game's JSON shapes plus the table's
        self._view_keys = tuple(typing.get_type_hints(self.types.view))  # every key a view has (issue #24)
        # a game's own keys of ``deadlines`` (LT2.5's ``aim``: the game reads it itself) and the options a
        # game made now gets when its creator leaves them out (its rules' version, ruling 32); a start
        # command read back from a log gets none of them (absent there: the game's older rules)
        self._own_deadlines: frozenset[str] = frozenset(game.own_deadlines)
        self._new_game: dict[str, Any] = dict(game.new_game_options)
        self._codec = serde.codec(self._parse_stored_options, self.options_to_json)
        # every option a client may send: the game's own (its options' JSON shape) and the table's
        self._option_keys = frozenset((*typing.get_type_hints(game.types.options), *TABLE_KEYS))
        self._initial = TableState(game=game.initial_state())
        self._step = game.step  # decide + the state after
        self._game_evolve = game.evolve
        self._last: tuple[Any, Step | None] = (None, None)
        # a game that writes the table's facts into its own events (game.WritesTableFacts: GoodCritters)
        facts = game.facts
        self._fact_types: frozenset[type[Any]] = frozenset() if facts is None else facts.fact_types
        self._follows: frozenset[str] = frozenset() if facts is None else facts.follows
        self._start_type: type[Any] | None = None if facts is None else facts.start_type
        if game.rules_versions:  # the game's own rules versions (GoodCritters', ruling 32)
            self.rules_versions = game.rules_versions
        # a game with its own rules versions that the table starts: the table's StartGame records its rules
        self._own_rules = bool(game.rules_versions) and self._start_type is None
        self.sample: Sample | None = game.sample  # core.Sample: the spec's examples
        # core.AuditHooks of the game's own (``None``: the audit's default)
        self.spectator_data = game.spectator_data
        self.replay_sections = game.replay_sections
        secrets = game.audit_secrets
        self.audit_secrets = None if secrets is None else lambda seed: _GameSecrets(secrets(seed))

    def _waiting(self, state: Any) -> Step | None:
        """``game.waiting(state)``, asked once per game state (the table asks it several times a command).
        One (state, step) pair, replaced whole: safe across threads."""
        last = self._last
        if last[0] is state:
            return last[1]
        w = self.game.waiting(state)
        self._last = (state, w)
        return w

    # --- options -------------------------------------------------------------------------------
    def parse_options(self, raw: Mapping[str, Any]) -> Options:
        """A new game's options (a creator's, or as a game made now stored them): the game's
        ``new_game_options`` fill the keys left out."""
        if isinstance(raw, Options):
            return raw
        if not isinstance(raw, Mapping):
            raise InvalidOptions("options must be a JSON object")
        return self._parse_stored_options({**self._new_game, **raw})

    def _parse_stored_options(self, raw: Mapping[str, Any]) -> Options:
        """Options as given (a start command's, read back from a log: a key left out takes its default)."""
        if isinstance(raw, Options):
            return raw
        if not isinstance(raw, Mapping):
            raise InvalidOptions("options must be a JSON object")
        for key in raw:
            if key not in self._option_keys:
                known = ", ".join(sorted(self._option_keys))
                raise InvalidOptions(f"unknown option {key!r} (options: {known})", key=str(key))
        table = raw
        game_raw = {k: v for k, v in raw.items() if k not in TABLE_KEYS}
        deadlines = raw.get("deadlines")
        if self._own_deadlines and isinstance(deadlines, Mapping):  # the game's own steps go to the game
            own = {k: v for k, v in deadlines.items() if k in self._own_deadlines}
            if own:
                table = {**raw, "deadlines": {k: v for k, v in deadlines.items() if k not in own}}
                game_raw["deadlines"] = own
        settings = parse_settings(table, self.game.deadline_steps)
        game = self.game.options.parse(game_raw)
        return Options(settings=settings, game=game)

    def options_to_json(self, options: Any) -> JSON:
        return _merged(self.game.options.to_json(options.game), settings_to_json(options.settings))

    def check_new_game(self, options: Any) -> None:
        """A new game's options keep the bounds a player would expect (``games.rules.bounds``, the spec's
        ``minimum``/``maximum``, issue #28 item 14); raise :class:`InvalidOptions` naming the option. Not part
        of ``parse_options``: a game started under wider bounds keeps loading and verifying (ruling 32)."""
        check_new_game(self.options_to_json(options), self.types.options)

    def seat_range(self) -> tuple[int, int]:
        return self.game.seat_range()

    # --- the decider ---------------------------------------------------------------------------
    def initial_state(self) -> TableState:
        return self._initial

    def evolve(self, state: TableState, event: Any) -> TableState:
        kind = type(event)
        handler = _HANDLERS.get(kind)
        if handler is None:
            new = _with_game(state, self._game_evolve(state.game, event))
            if kind in self._fact_types:
                new = self._fold_fact(new, event)
            return new
        new = handler(state, event)
        if self._follows and event.TYPE in self._follows:  # the game's rules read this fact too
            new = _with_game(new, self.game.evolve(new.game, event))
        return new

    def _fold_fact(self, state: TableState, event: Any) -> TableState:
        facts = self.game.facts
        assert facts is not None
        fact = facts.table_fact(event)
        return state if fact is None else _apply_fact(state, fact, self.game.deadline_steps)

    def fold(self, events: Iterable[Any], state: TableState | None = None) -> TableState:
        """``evolve`` over ``events``, inlined: the game's state is put back into the table's once, at the end
        (no handler of the table's reads it). Replaying GoodCritters' logs: ~395k events/s, against ~322k
        with ``evolve`` called per event (bench/engine.py)."""
        s = self._initial if state is None else state
        game = s.game
        table, game_evolve, facts, follows = _HANDLERS, self._game_evolve, self._fact_types, self._follows
        for event in events:
            kind = type(event)
            handler = table.get(kind)
            if handler is None:
                game = game_evolve(game, event)
                if kind in facts:
                    s = self._fold_fact(s, event)
            else:
                s = handler(s, event)
                if follows and event.TYPE in follows:
                    game = game_evolve(game, event)
        return _with_game(s, game)

    def is_terminal(self, state: TableState) -> bool:
        return self.game.is_terminal(state.game)

    def rules_version(self, state: TableState) -> str:
        own = self.game.rules_version(state.game)
        return RULES_VERSION if own is None else own

    def scores(self, state: TableState) -> Sequence[int] | None:
        return self.game.scores(state.game) if self.game.is_terminal(state.game) else None

    def decide(self, state: TableState, command: Any, ctx: Context) -> list[Any]:
        return self.step(state, command, ctx)[0]

    def step(self, state: TableState, command: Any, ctx: Context) -> tuple[list[Any], TableState]:
        """``decide`` and the state its events lead to."""
        run = _Run(self, state, ctx)
        if isinstance(command, cmd.StartGame) or type(command) is self._start_type:
            if command.seat is not None:
                fail("system_only", "only the system starts a game")
            if state.opened:
                fail("already_started", "the game has already started")
            self._start(run, command)
            return run.events, run.state
        if not state.opened:
            fail("not_started", "the game has not started")
        if self.game.is_terminal(state.game):
            fail("game_over", "the game is over")
        system = _SYSTEM.get(type(command))
        if system is not None:
            if command.seat is not None:
                fail("system_only", "only the system sends this command")
            system(self, run, command)
            return run.events, run.state
        seat = getattr(command, "seat", None)
        if type(seat) is not int or not 0 <= seat < state.n:
            fail("not_seated", "you do not have a seat in this game")
        player = _PLAYER.get(type(command))
        if player is None and type(command) not in self._game_command_types:
            fail("invalid_command", "unknown command")
        if state.resigned[seat] and not isinstance(command, cmd.SendMessage):
            fail("resigned", "you have resigned from this game (R7.4)")
        if state.paused_at is not None and not isinstance(command, _WHILE_PAUSED):
            fail("paused", "the game is paused")
        if player is not None:
            player(self, run, seat, command)
        else:
            self._play(run, seat, command)
        return run.events, run.state

    # --- the game's own commands -----------------------------------------------------------------
    def _play(self, run: _Run, seat: int, command: Any) -> None:
        if getattr(command, "reason", None) is not None:
            fail("invalid_command", "a default's reason is the table's to give")
        before = run.state
        w = self._waiting(before.game)
        run.play(command)
        if self._fact_types:  # the game's events say which flags they lower and who acted
            self._settle(run)
            return
        state = run.state
        if state.misses[seat] and not state.autopilot[seat]:  # by itself, not the autopilot's bot
            run.emit(ev.PlayerReturned(seat=seat))
        now = self._waiting(state.game)
        if w is not None and w.ready and state.ready[seat] and now is not None and now.step_no == w.step_no:
            run.emit(ev.ReadySet(seat=seat, ready=False))  # any change clears the seat's ready flag (R2.4)
        self._settle(run)

    # --- start --------------------------------------------------------------------------------
    def _start(self, run: _Run, command: Any) -> None:
        if type(command) is self._start_type:  # the game's own start: its start event opens the table
            run.play(command)
            if not run.state.opened:
                raise RuntimeError(f"{self.slug}: the start event carries no opening")
            self._settle(run)
            return
        options = command.options
        if not isinstance(options, Options):
            fail("invalid_command", "the options of a start command")
        if self._own_rules:  # the game's rules version, as the stored start says (ruling 32)
            rules = self.rules_versions[0] if command.rules is None else command.rules
            if rules not in self.rules_versions:
                fail("invalid_command", f"unknown rules {rules!r} (known: {', '.join(self.rules_versions)})")
            starter: Any = self.game.start_command  # takes ``rules`` (game.Game, rules versions)
            start = starter(
                command.players,
                options.game,
                command.seed,
                command.setup,
                fixed_seed=command.fixed_seed,
                rules=rules,
            )
        elif command.rules is not None:
            fail("invalid_command", f"{self.slug} has no rules versions of its own")
        else:
            start = self.game.start_command(
                command.players, options.game, command.seed, command.setup, fixed_seed=command.fixed_seed
            )
        run.play(start)
        players = self.game.players(run.state.game)
        run.emit(ev.TableOpened(players=players, settings=options.settings))
        self._settle(run)

    # --- settling: deadlines of new steps, resigned seats' defaults, ready steps ------------------------
    def _due(self, run: _Run, w: Step) -> str | None:
        return due_at(run.state, self.step_seconds_of(run.state, w), run.ctx.now)

    def step_seconds_of(self, state: TableState, w: Step) -> int | None:
        if w.seconds is not None:
            return w.seconds
        assert state.settings is not None
        return state.settings.deadline(w.deadline)

    def _settle(self, run: _Run) -> None:
        game = self.game
        for _ in range(SETTLE_LIMIT):
            state = run.state
            if game.is_terminal(state.game):
                return
            w = self._waiting(state.game)
            if w is None:
                return
            if w.step_no != state.step_no:
                run.emit(ev.DeadlineSet(step_no=w.step_no, step=w.step, due_at=self._due(run, w)))
                continue
            played = False
            for seat in sorted(w.seats) if True in state.resigned else ():
                if state.resigned[seat]:
                    default = game.default_command(state.game, seat, "resigned")
                    if default is not None:
                        run.play(default)
                        played = True
                        break
            if played:
                continue
            if w.closes and (
                (w.ready and all(state.ready[s] or state.resigned[s] for s in w.seats))
                or (not w.seats and w.seconds is None)  # nobody left to wait for
            ):
                close = game.close_command(w.step_no, "ready")
                if close is not None:
                    run.play(close)
                    continue
            return
        raise RuntimeError(f"{game.slug}: the game does not settle")

    # --- reading -------------------------------------------------------------------------------
    def _owing(self, state: TableState, w: Step) -> tuple[int, ...]:
        """The seats that still owe the step something (a default would be played for them now)."""
        game = self.game
        return tuple(s for s in sorted(w.seats) if game.default_command(state.game, s, "timeout") is not None)

    def _acting(self, state: TableState, w: Step) -> tuple[int, ...]:
        """The seats the step still waits on: owing a play, or (ready flags) not ready yet."""
        owing = set(self._owing(state, w))
        return tuple(
            s
            for s in sorted(w.seats)
            if not state.resigned[s] and (s in owing or (w.ready and not state.ready[s]))
        )

    def waiting(self, state: TableState) -> Step | None:
        if not state.opened or self.game.is_terminal(state.game):
            return None
        w = self._waiting(state.game)
        if w is None:
            return None
        due = pause_end(state) if state.paused_at is not None else _parse(state.due_at)
        return Step(
            w.step_no,
            w.step,
            frozenset(self._acting(state, w)),
            w.deadline,
            w.seconds,
            closes=w.closes,
            ready=w.ready,
            due_at=due,
        )

    def warn_at(self, state: TableState) -> datetime | None:
        if state.due_at is None or state.paused_at is not None or state.warned == state.due_at:
            return None
        w = self._waiting(state.game) if state.opened else None
        if w is None or w.step_no != state.step_no or not self._unwarned(state, w):
            return None
        seconds = self.step_seconds_of(state, w)
        assert state.settings is not None
        before = state.settings.warn_before
        if before is None:
            before = (seconds or 0) // 4
        if before <= 0:
            return None
        return datetime.fromisoformat(state.due_at) - timedelta(seconds=before)

    def _unwarned(self, state: TableState, w: Step) -> tuple[int, ...]:
        return tuple(s for s in self._acting(state, w) if not state.autopilot[s])

    def step_seconds(self, state: TableState) -> int | None:
        w = self._waiting(state.game) if state.opened else None
        return None if w is None else self.step_seconds_of(state, w)

    def autopilot_seats(self, state: TableState) -> frozenset[int]:
        return frozenset(s for s in range(state.n) if state.autopilot[s] and not state.resigned[s])

    def legal_commands(self, state: TableState, seat: Seat) -> list[str]:
        if not state.opened or self.game.is_terminal(state.game) or not 0 <= seat < state.n:
            return []
        if state.resigned[seat]:
            return [cmd.SendMessage.TYPE]
        settings = state.settings
        assert settings is not None
        extra: list[str] = []
        if state.autopilot[seat]:
            extra.append(cmd.TakeBackSeat.TYPE)
        elif settings.pause_by == "vote" and seat not in state.pause_votes:
            extra.append(cmd.VotePause.TYPE)
        if state.paused_at is not None or state.autopilot[seat]:  # a bot plays the seat: no game command
            return [*extra, cmd.Resign.TYPE, cmd.SendMessage.TYPE]
        out = list(self.game.legal_commands(state.game, seat))
        w = self._waiting(state.game)
        if (
            w is not None
            and w.ready
            and seat in w.seats
            and (state.ready[seat] or self.game.default_command(state.game, seat, "timeout") is None)
        ):  # up once the seat's choice is made, and down again
            out.append(cmd.SetReady.TYPE)
        return [*out, *extra, cmd.Resign.TYPE, cmd.SendMessage.TYPE]

    # --- who acts now and with what (issue #24) -------------------------------------------------------
    def moves(self, state: TableState, seat: Seat) -> list[Move]:
        """The commands ``seat`` may send now with the values each body field may take (issue #24): the
        game's own (``game.moves``, computed by the game's rules from the checks its ``decide`` makes) and the
        table's, for exactly the commands :meth:`legal_commands` names (a paused game, a seat on autopilot or
        resigned: only the table's). A command the game names but for which no arguments are accepted now
        (e.g. a trade the seat cannot match) is left out."""
        names = self.legal_commands(state, seat)
        if not names:
            return []
        wanted = set(names)
        out: list[Move] = []
        if any(n in self._game_commands for n in names):
            out.extend(m for m in self.game.moves(state.game, seat) if m.command in wanted)
        for name in names:
            if name in self._game_commands:
                continue
            out.append(self._table_move(state, seat, name))
        return out

    def _table_move(self, state: TableState, seat: int, name: str) -> Move:
        if name == cmd.SetReady.TYPE:
            up = not state.ready[seat]
            return Move(name, (Choice("ready", "ready" if up else "not ready", (up,), required=False),))
        if name == cmd.VotePause.TYPE:
            pause = state.paused_at is None
            label = "pause the game" if pause else "resume the game"
            return Move(name, (Choice("pause", label, (pause,), required=False),))
        if name == cmd.SendMessage.TYPE:
            others = tuple(s for s in range(state.n) if s != seat)
            return Move(
                name,
                (
                    Text("text", "message", 1, seating.MAX_MESSAGE_LENGTH),
                    Subset(
                        "to", "to (null: everyone)", others, 1, len(others), nullable=True, required=False
                    ),
                ),
            )
        return Move(name)  # Resign, TakeBackSeat: no fields

    def acting(self, state: TableState) -> JSON | None:
        """Who acts now (issue #24), the same in every game: the step, its number and deadline, the pause,
        and each seat that may act in the step now with the commands it may send (not those a seat may send
        at any time: ``Resign``, ``SendMessage``, ``VotePause``, ``TakeBackSeat``), ``waited_on`` when the
        step waits on it (it owes a play, or its ready flag is down). A seat the step does not wait on may
        still act (Loose Triggers' Countdown: anyone may ``Aim``, nobody must). ``None`` before the start and
        once the game is over. ``waiting``, the view's ``play.waiting_on`` and the games' own fields
        (Were-cats' ``turn``, Loose Triggers' ``pending_seat``) are views of it."""
        if not state.opened or self.game.is_terminal(state.game):
            return None
        w = self._waiting(state.game)
        waited = set(self._acting(state, w)) if w is not None else set()
        end = pause_end(state)
        paused = state.paused_at is not None
        seats: list[JSON] = []
        for s in range(state.n):
            commands = [c for c in self.legal_commands(state, s) if c not in _ANYTIME]
            if commands or s in waited:
                seats.append(
                    {
                        "seat": s,
                        "commands": commands,
                        "waited_on": s in waited,
                        "ready": state.ready[s] if w is not None and w.ready and s in w.seats else None,
                        "autopilot": state.autopilot[s],
                    }
                )
        return {
            "step": None if w is None else w.step,
            "step_no": state.step_no if w is None else w.step_no,
            "due_at": None if w is None or paused else state.due_at,
            "paused": paused,
            "pause_until": None if end is None else end.isoformat(),
            "ready_flags": bool(w is not None and w.ready),
            "seats": seats,
        }

    def bot_command(self, state: TableState, seat: Seat, *, strategy: str, salt: int) -> Any:
        if not state.opened or self.game.is_terminal(state.game) or state.paused_at is not None:
            return None
        if not 0 <= seat < state.n or state.resigned[seat]:
            return None
        command = self.game.bot_command(state.game, seat, strategy=strategy, salt=salt)
        if command is not None:
            return command
        w = self._waiting(state.game)
        if (
            w is not None
            and w.ready
            and seat in w.seats
            and not state.ready[seat]
            and self.game.default_command(state.game, seat, "timeout") is None
        ):
            return cmd.SetReady(seat=seat, ready=True)
        return None

    def view_for(self, state: TableState, viewer: Viewer) -> JSON:
        out = self.game.view_for(state.game, viewer)
        if not state.opened:  # every key there (the spec requires them all): null until the start
            return {**out, **{key: None for key in self._view_keys if key not in out}}
        w = None if self.game.is_terminal(state.game) else self._waiting(state.game)
        settings = state.settings
        assert settings is not None
        end = pause_end(state)
        # a game whose view has the table's facts in place (GoodCritters, as its clients know it) keeps them
        # there (deprecated in the spec) and has the ``play`` block every game has too (issue #24)
        _fill(out, state, terminal=self.game.is_terminal(state.game))
        out["play"] = {
            "step": None if w is None else w.step,
            "step_no": state.step_no,
            "due_at": state.due_at if w is not None else None,
            "waiting_on": [] if w is None else list(self._acting(state, w)),
            "ready_flags": bool(w is not None and w.ready),
            "paused_at": state.paused_at,
            "pause_until": None if end is None else end.isoformat(),
            "pause_by": settings.pause_by,
            "pause_votes": sorted(state.pause_votes),
            "seats": [
                {
                    "seat": s,
                    "player": state.players[s],
                    "resigned": state.resigned[s],
                    "autopilot": state.autopilot[s],
                    "ready": state.ready[s],
                    "misses": state.misses[s],
                    "extensions_left": state.extensions_left[s],
                }
                for s in range(state.n)
            ],
        }
        return out

    def full_view(self, state: TableState) -> JSON:
        """The view with nothing hidden, for a past state of a finished game (the audit's step-through)."""
        full = self.game.full_view(state.game)
        out = self.view_for(state, None)
        if full is None:
            return out
        out.update(full)
        return _fill(out, state, terminal=self.game.is_terminal(state.game)) if state.opened else out

    def redact_event(self, event: Any, viewer: Viewer, *, terminal: bool) -> JSON:
        if type(event) not in _HANDLERS:
            return self.game.redact_event(event, viewer, terminal=terminal)
        out = self._codec.event_to_json(event)
        if (
            not terminal
            and isinstance(event, ev.MessageSent)
            and event.to is not None
            and viewer != event.seat
            and viewer not in event.to
        ):
            out["text"] = None
            out["to"] = None
        return out

    # --- serialization -------------------------------------------------------------------------
    def event_to_json(self, event: Any) -> JSON:
        if type(event) in _HANDLERS:
            return self._codec.event_to_json(event)
        return self.game.codec.event_to_json(event)

    def event_from_json(self, data: Mapping[str, Any]) -> Any:
        kind = data.get("type") if isinstance(data, Mapping) else None
        if kind in serde.EVENT_TYPES:
            return self._codec.event_from_json(data)
        return self.game.codec.event_from_json(data)

    def command_to_json(self, command: Any) -> JSON:
        if type(command) in _TABLE_COMMANDS:
            out = self._codec.command_to_json(command)
            if isinstance(command, cmd.StartGame) and command.rules is None:
                del out["rules"]  # a game without rules versions: its start as it was always written
            return out
        return self.game.codec.command_to_json(command)

    def command_from_json(self, data: Mapping[str, Any], seat: Seat | None) -> Any:
        """Strict: a table command, or one of the game's player commands for a seat; ``invalid_command`` on
        anything else."""
        if not isinstance(data, Mapping):
            fail("invalid_command", "malformed command: a command is a JSON object")
        kind = data.get("type")
        if self._start_type is not None and kind == self._start_type.TYPE:  # the game's own start
            return self._game_start_from_json(data, seat)
        if isinstance(kind, str) and kind in serde.COMMAND_TYPES:
            return self._codec.command_from_json(data, seat)
        if not isinstance(kind, str) or kind not in self._game_commands or type(seat) is not int:
            fail("invalid_command", f"malformed command: unknown command type {kind!r}")
        command = self.game.codec.command_from_json(data, seat)
        if getattr(command, "reason", None) is not None:
            fail("invalid_command", "malformed command: a default's reason is the table's to give")
        return command

    def _game_start_from_json(self, data: Mapping[str, Any], seat: Seat | None) -> Any:
        """The game's own start command, its table settings in full (a start stored with some of them left
        out, as they were once stored, starts the game with their defaults written out)."""
        command = self.game.codec.command_from_json(data, seat)
        raw = data.get("options")
        table = {k: raw[k] for k in TABLE_KEYS if k in raw} if isinstance(raw, Mapping) else {}
        try:
            settings = parse_settings(table, self.game.deadline_steps)
        except InvalidOptions as exc:
            fail("invalid_command", f"malformed command: {exc}")
        facts = self.game.facts
        assert facts is not None
        return facts.with_settings(command, settings_to_json(settings))

    def start_command(
        self,
        *,
        players: Sequence[str],
        creator: str | None,
        options: Any,
        seed: bytes,
        setup: Mapping[str, Any] | None = None,
    ) -> Any:
        opts = options if isinstance(options, Options) else self.parse_options(options)
        rest = dict(setup or {})
        fixed = rest.pop("fixed_seed", False)
        if type(fixed) is not bool:
            fail("invalid_setup", "setup 'fixed_seed' must be true or false")
        start = None
        if rest or self._start_type is not None:
            start = self.game.start_command(
                players,
                opts.game,
                bytes(seed),
                rest or None,
                fixed_seed=fixed,
                creator=creator,
                settings=settings_to_json(opts.settings),
            )
        if rest:  # the game checks an operator's setup now, in full: refused before anything is made
            self.game.decide(self.game.initial_state(), start, Context(now=datetime(2000, 1, 1, tzinfo=UTC)))
        if self._start_type is not None:  # recorded as the game's own start (its log predates the table)
            return start
        return cmd.StartGame(
            seat=None,
            players=tuple(players),
            options=opts,
            seed=bytes(seed),
            setup=rest or None,
            fixed_seed=fixed,
            rules=self.rules_versions[-1] if self._own_rules else None,  # a game starts on the newest
        )

    def expire_command(self, step_no: int) -> Any:
        return cmd.ExpireDeadline(seat=None, step_no=step_no)

    def warn_command(self, step_no: int) -> Any:
        return cmd.WarnDeadline(seat=None, step_no=step_no)

    def extend_command(self, step_no: int, seconds: int, reason: str) -> Any:
        return cmd.ExtendDeadline(seat=None, step_no=step_no, seconds=seconds, reason=reason)

    def pause_command(self, pause: bool) -> Any:
        return cmd.PauseGame(seat=None) if pause else cmd.ResumeGame(seat=None)

    def hand_over_command(
        self, seat: Seat, *, to: str, player: str, idle_since: datetime | None = None
    ) -> Any:
        since = None if idle_since is None else seating.utc(idle_since).isoformat()
        return cmd.HandOverSeat(seat=None, target=seat, to=to, player=player, idle_since=since)

    def stalled_seats(self, state: TableState) -> frozenset[int]:
        """The seats a step without a deadline waits on (owing a play, or not ready), not on autopilot and not
        resigned, while the game is not paused: those the creator may hand over once idle ``STALL_SECONDS``
        (ruling 13)."""
        if not state.opened or state.paused_at is not None or self.game.is_terminal(state.game):
            return frozenset()
        w = self._waiting(state.game)
        if w is None or w.step_no != state.step_no or self.step_seconds_of(state, w) is not None:
            return frozenset()
        return frozenset(s for s in self._acting(state, w) if not state.autopilot[s])

    # --- audit hooks ---------------------------------------------------------------------------------
    def started_options(self, events: Sequence[Mapping[str, Any]]) -> JSON | None:
        """The options a game started with, in full, from its log's JSON (``{"type", "data"}`` items): the
        game's own (its ``GameStarted``) and the table's (``TableOpened``)."""
        game: JSON | None = None
        table: JSON | None = None
        if self._start_type is not None:  # the game's start event holds the table's settings too
            for event in events:
                if event.get("type") == "GameStarted":
                    found = event["data"].get("options")
                    return dict(found) if isinstance(found, Mapping) else None
            return None
        for event in events:
            if event.get("type") == "GameStarted" and game is None:
                game = event["data"].get("options")
            elif event.get("type") == ev.TableOpened.TYPE:
                table = event["data"].get("settings")
                break
        if not isinstance(game, Mapping) or not isinstance(table, Mapping):
            return None
        return _merged(game, table)

    def chart(self, state: TableState) -> Any:
        return self.game.chart(state.game) if state.opened else None


def _merged(game: Mapping[str, Any], table: Mapping[str, Any]) -> JSON:
    """A game's options and the table's settings in one object; ``deadlines`` holds the table's steps and
    the game's own (``own_deadlines``, e.g. LT2.5's ``aim``)."""
    out: JSON = {**game, **table}
    own = game.get("deadlines")
    if isinstance(own, Mapping) and isinstance(table.get("deadlines"), Mapping):
        out["deadlines"] = {**table["deadlines"], **own}
    return out


class _GameSecrets:
    """A game's ``core.AuditSecrets``, given the game's own state out of the table's."""

    def __init__(self, inner: AuditSecrets) -> None:
        self._inner = inner

    @property
    def commitments_opened(self) -> int:
        return self._inner.commitments_opened

    @property
    def random_picks(self) -> int:
        return self._inner.random_picks

    def check(self, seq: int, data: Mapping[str, Any], state: TableState) -> None:
        self._inner.check(seq, data, state.game)

    def random_fields(self, kind: str) -> frozenset[str]:
        return self._inner.random_fields(kind)


def _parse(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


_TOP_SLOTS: Final = ("due_at", "paused_at", "pause_until", "pause_votes")
_SEAT_SLOTS: Final = ("player", "resigned", "autopilot", "ready", "misses", "extensions_left")


def _fill(out: JSON, state: TableState, *, terminal: bool) -> JSON:
    """The table's facts in the game's view too: ``players`` and each seat's ``player`` (the seats' holders
    now: a hand-over changes them, the game's own state never learns of it), and wherever the game's view
    leaves a slot empty (null) for the table: each seat's ``resigned``, ``autopilot``, ``ready``, ``misses``
    and ``extensions_left``, and the top level's ``due_at`` (null once the game is over), ``paused_at``,
    ``pause_until`` and ``pause_votes``."""
    out["players"] = list(state.players)
    end = pause_end(state)
    top = (
        None if terminal else state.due_at,
        state.paused_at,
        None if end is None else end.isoformat(),
        sorted(state.pause_votes),
    )
    for key, value in zip(_TOP_SLOTS, top, strict=True):
        if key in out and out[key] is None:
            out[key] = value
    seats = out.get("seats")
    if isinstance(seats, list):
        for s, seat in enumerate(seats[: state.n]):
            if not isinstance(seat, dict):
                continue
            facts: tuple[Any, ...] = (
                state.players[s],
                state.resigned[s],
                state.autopilot[s],
                state.ready[s],
                state.misses[s],
                state.extensions_left[s],
            )
            for key, value in zip(_SEAT_SLOTS, facts, strict=True):
                if key in seat and (seat[key] is None or key == "player"):
                    seat[key] = value
    return out


def pause_end(state: TableState) -> datetime | None:
    """When the pause ends by itself (R7.6), or ``None`` when the game is not paused (or plays without
    R7.6: a game of GoodCritters started under its rules 2, ruling 32)."""
    if state.paused_at is None or state.settings is None or not state.pause_limit:
        return None
    return datetime.fromisoformat(state.paused_at) + timedelta(seconds=state.settings.max_pause)


def due_at(state: TableState, seconds: int | None, now: datetime) -> str | None:
    """The deadline of a step opening now (R7.1). While paused no deadline runs: a step that opens during a
    pause opens as if at the pause's start, so that the resume, which moves the deadline by the time paused,
    gives it its full duration from the resume, not more (R7.6; without R7.6 it opens now)."""
    if seconds is None:
        return None
    start = seating.utc(now)
    if state.paused_at is not None and state.pause_limit:
        start = datetime.fromisoformat(state.paused_at)
    return (start + timedelta(seconds=seconds)).isoformat()


# --------------------------------------------------------------------------------------------------
# the running decision
# --------------------------------------------------------------------------------------------------
class _Run:
    __slots__ = ("ctx", "events", "state", "table")

    def __init__(self, table: Table, state: TableState, ctx: Context) -> None:
        self.table = table
        self.state = state
        self.ctx = ctx
        self.events: list[Any] = []

    def emit(self, event: Any) -> None:
        self.events.append(event)
        self.state = self.table.evolve(self.state, event)

    def play(self, command: Any) -> None:
        """The game decides ``command`` (a player's, or one the table sends for a seat or a step)."""
        table = self.table
        events, state = table._step(self.state.game, command, self.ctx)  # folded by the game: not twice
        if table._fact_types:
            self._facts(events)
        else:
            self.events.extend(events)
        self.state = _with_game(self.state, state)

    def _facts(self, events: list[Any]) -> None:
        """The table's facts in the game's events: each step opened gets its deadline written in."""
        table = self.table
        game = table.game
        facts = game.facts
        assert facts is not None
        s = self.state
        for event in events:
            if type(event) in table._fact_types:
                fact = facts.table_fact(event)
                if isinstance(fact, StepOpening):  # the table writes the deadline in
                    assert s.settings is not None
                    due = due_at(s, s.settings.deadline(fact.step), self.ctx.now)
                    event = facts.with_due_at(event, due)
                    fact = StepOpening(step_no=fact.step_no, step=fact.step, due_at=due)
                if fact is not None:
                    s = _apply_fact(s, fact, game.deadline_steps)
            self.events.append(event)
        self.state = s


# --------------------------------------------------------------------------------------------------
# the table's commands
# --------------------------------------------------------------------------------------------------
def _resign(table: Table, run: _Run, seat: int, command: cmd.Resign) -> None:
    """R7.4, LT7.3, WC4.3: from now on the seat plays the game's defaults, at once."""
    run.emit(ev.PlayerResigned(seat=seat))
    consequence = table.game.resign_command(seat)
    if consequence is not None:
        run.play(consequence)
    state = run.state
    if not state.pause_limit:  # without R7.6 the pause and its votes stay as they are (ruling 32)
        pass
    elif state.paused_at is not None and all(state.resigned):
        _resume(run, "resigned")  # R7.6: no seat is left that could resume the pause (ruling 31)
    else:
        _count_pause_votes(run)  # one voter fewer: the votes cast may be a majority (ruling 28)
    table._settle(run)


def _set_ready(table: Table, run: _Run, seat: int, command: cmd.SetReady) -> None:
    state = run.state
    w = table._waiting(state.game)
    if w is None or not w.ready or seat not in w.seats:
        fail("wrong_step", "no step with ready flags waits on you now")
    if command.ready == state.ready[seat]:
        fail("no_change", "you are already ready" if command.ready else "you are not ready")
    if command.ready and table.game.default_command(state.game, seat, "timeout") is not None:
        fail("action_not_chosen", "make your choice before you are ready (R2.4, LT3.3)")
    run.emit(ev.ReadySet(seat=seat, ready=command.ready))
    table._settle(run)


def _expire(table: Table, run: _Run, command: cmd.ExpireDeadline) -> None:
    """R7.1-R7.5 and the absent-player policy. A stale or early timer yields no events; while paused it is
    the pause's timer (R7.6: at or after the pause's end the game resumes)."""
    state = run.state
    game = table.game
    w = table._waiting(state.game)
    if w is None or command.step_no != state.step_no or w.step_no != state.step_no:
        return
    now = seating.utc(run.ctx.now)
    if state.paused_at is not None:  # the timer of a pause is its end (R7.6; without R7.6, nothing)
        end = pause_end(state)
        if end is not None and now >= end:
            _resume(run, "limit")
        return
    if state.due_at is None or now < datetime.fromisoformat(state.due_at):
        return
    settings = state.settings
    assert settings is not None
    missed = tuple(s for s in table._owing(state, w) if not state.resigned[s] and not state.autopilot[s])
    if missed:
        run.emit(ev.DeadlineMissed(step_no=state.step_no, step=w.step, seats=missed))
    extend = tuple(s for s in missed if state.extensions_left[s] > 0)
    seconds = table.step_seconds_of(state, w)
    if extend and seconds is not None:
        run.emit(
            ev.DeadlineExtended(
                step_no=state.step_no,
                step=w.step,
                due_at=(now + timedelta(seconds=seconds)).isoformat(),
                previous_due_at=state.due_at,
                reason="absence",
                seats=extend,
                unready=tuple(s for s in range(state.n) if run.state.ready[s]),
            )
        )
        return
    run.emit(ev.DeadlinePassed(step_no=state.step_no, step=w.step, due_at=state.due_at))
    engaged = False
    if settings.autopilot_after is not None:
        for seat in missed:
            if run.state.misses[seat] >= settings.autopilot_after and not run.state.autopilot[seat]:
                run.emit(ev.AutopilotEngaged(seat=seat, reason="absent"))
                engaged = True
    for seat in sorted(w.seats):  # the defaults, while the step is still this one
        current = game.waiting(run.state.game)
        if current is None or current.step_no != w.step_no:
            break
        default = game.default_command(run.state.game, seat, "timeout")
        if default is not None:
            run.play(default)
    current = None if game.is_terminal(run.state.game) else game.waiting(run.state.game)
    if w.closes and current is not None and current.step_no == w.step_no:
        close = game.close_command(w.step_no, "deadline")
        if close is not None:
            run.play(close)
    if engaged and run.state.pause_limit:
        _count_pause_votes(run)  # fewer seats vote now (ruling 28)
    table._settle(run)


def _warn(table: Table, run: _Run, command: cmd.WarnDeadline) -> None:
    state = run.state
    if command.step_no != state.step_no:
        return
    at = table.warn_at(state)
    if at is None or seating.utc(run.ctx.now) < at or state.due_at is None or state.step is None:
        return
    w = table._waiting(state.game)
    assert w is not None
    run.emit(
        ev.DeadlineNear(
            step_no=state.step_no, step=state.step, due_at=state.due_at, seats=table._unwarned(state, w)
        )
    )


def _pause_by(run: _Run) -> str:
    assert run.state.settings is not None
    return run.state.settings.pause_by


def _count_pause_votes(run: _Run) -> None:
    if not run.table.game.is_terminal(run.state.game):  # no pause after the end
        seating.count_pause_votes(run, _pause_by(run))


def _resume(run: _Run, by: str) -> None:
    seating.resume(run, by)


def _send_message(table: Table, run: _Run, seat: int, command: cmd.SendMessage) -> None:
    seating.send_message(run, seat, command)


def _take_back(table: Table, run: _Run, seat: int, command: cmd.TakeBackSeat) -> None:
    seating.take_back(run, seat)


def _vote_pause(table: Table, run: _Run, seat: int, command: cmd.VotePause) -> None:
    seating.vote_pause(run, seat, command, _pause_by(run))


def _pause_by_creator(table: Table, run: _Run, command: cmd.PauseGame | cmd.ResumeGame) -> None:
    seating.pause_by_creator(run, command, _pause_by(run))


def _hand_over(table: Table, run: _Run, command: cmd.HandOverSeat) -> None:
    """An abandoned seat (on autopilot), or a stalled one (ruling 13: a step without a deadline has waited
    on it, and on nobody's move of it, for ``STALL_SECONDS``: R7.6, a game can always go on)."""
    state = run.state
    if command.idle_since is None or (
        type(command.target) is int and 0 <= command.target < state.n and state.autopilot[command.target]
    ):
        seating.hand_over(run, command)
        return
    seating.check_hand_over_target(state, command)
    try:
        since = seating.utc(datetime.fromisoformat(command.idle_since))
    except (TypeError, ValueError):
        fail("invalid_hand_over", "idle_since is an ISO date and time")
    if command.target not in table.stalled_seats(state):
        fail("not_stalled", "the game does not wait on that seat in a step without a deadline")
    if seating.utc(run.ctx.now) - since < timedelta(seconds=STALL_SECONDS):
        fail("not_stalled", f"a seat can be handed over after {STALL_SECONDS // 86400} days without a move")
    run.emit(ev.SeatHandedOver(seat=command.target, to=command.to, player=command.player))
    table._settle(run)


def _extend(table: Table, run: _Run, command: cmd.ExtendDeadline) -> None:
    seating.extend_for_outage(run, command, run.state.step or "")


_SYSTEM: Final[dict[type[Any], Any]] = {
    cmd.ExpireDeadline: _expire,
    cmd.WarnDeadline: _warn,
    cmd.ExtendDeadline: _extend,
    cmd.PauseGame: _pause_by_creator,
    cmd.ResumeGame: _pause_by_creator,
    cmd.HandOverSeat: _hand_over,
}
_PLAYER: Final[dict[type[Any], Any]] = {
    cmd.Resign: _resign,
    cmd.SendMessage: _send_message,
    cmd.SetReady: _set_ready,
    cmd.TakeBackSeat: _take_back,
    cmd.VotePause: _vote_pause,
}
_WHILE_PAUSED: Final = (cmd.SendMessage, cmd.Resign, cmd.TakeBackSeat, cmd.VotePause)
# what a seat may send at any time while the game runs (not a part of the step: left out of ``acting``)
_ANYTIME: Final = frozenset(c.TYPE for c in _WHILE_PAUSED)
_TABLE_COMMANDS: Final = frozenset(cmd.COMMAND_CLASSES)


__all__ = ["ERRORS", "Settings", "Table", "pause_end"]
