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
from datetime import datetime
from typing import Any, Final

from games.rules.bounds import check_new_game
from games.rules.core import JSON, AuditSecrets, Context, InvalidOptions, Sample, Seat, Step, Viewer

from . import commands as cmd
from . import events as ev
from . import serde
from .absence import Absence, hand_over, resign, take_back
from .acting import Acting
from .base import Run, utc
from .deadlines import Deadlines, due_at, expire, extend, warn
from .errors import fail
from .evolve import HANDLERS, with_game
from .facts import merged, writer
from .game import Game
from .messages import send_message
from .options import TABLE_KEYS, Options, parse_settings, settings_to_json
from .pause import pause_by_creator, pause_end, vote_pause
from .ready import set_ready
from .state import TableState
from .types import table_types
from .views import Views

SETTLE_LIMIT: Final = 100_000  # defaults played in one go, at most (a game that never settles is a bug)
RULES_VERSION: Final = "1"


class Table(Deadlines, Absence, Views, Acting):
    """The play-by-web table around ``game``: what the service registers (``games.rules.registry``). Each
    concern is a module of its own (``deadlines``, ``absence``, ``pause``, ``ready``, ``views``, ``acting``,
    ``messages``); how the game's table facts are written (``facts``) is chosen here, once."""

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
        self._game_commands = {cls.TYPE: cls for cls in game.player_commands}
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
        self._game_evolve = game.evolve
        self._last = (None, None)
        # how the game's table facts are written (GoodCritters' own events, or the table's), once
        self.facts = writer(game)
        self._folds = self.facts.folds()
        self._start_type = self.facts.start_type
        self._parsers: dict[str, Any] = dict.fromkeys(serde.COMMAND_TYPES, self._codec.command_from_json)
        self._parsers[self._start_type.TYPE] = self._start_from_json
        if game.rules_versions:  # the game's own rules versions (ruling 32)
            self.rules_versions = game.rules_versions
        self.sample: Sample | None = game.sample  # core.Sample: the spec's examples
        # core.AuditHooks of the game's own (``None``: the audit's default)
        self.spectator_data = game.spectator_data
        self.replay_sections = game.replay_sections
        secrets = game.audit_secrets
        self.audit_secrets = None if secrets is None else lambda seed: _GameSecrets(secrets(seed))

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
        return merged(self.game.options.to_json(options.game), settings_to_json(options.settings))

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
        fold = self._folds.get(type(event))
        if fold is None:  # the game's own
            return with_game(state, self._game_evolve(state.game, event))
        new, game = fold(state, state.game, event)
        return new if game is state.game else with_game(new, game)

    def fold(self, events: Iterable[Any], state: TableState | None = None) -> TableState:
        """``evolve`` over ``events``, inlined: the game's state is put back into the table's once, at the end
        (no fold of the table's reads it)."""
        s = self._initial if state is None else state
        game = s.game
        folds, game_evolve = self._folds, self._game_evolve
        for event in events:
            fold = folds.get(type(event))
            if fold is None:
                game = game_evolve(game, event)
            else:
                s, game = fold(s, game, event)
        return with_game(s, game)

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
        run = Run(self, state, ctx)
        if isinstance(command, cmd.StartGame) or type(command) is self._start_type:
            if command.seat is not None:
                fail("system_only", "only the system starts a game")
            if state.opened:
                fail("already_started", "the game has already started")
            self.facts.start(self, run, command)
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

    def _play(self, run: Run, seat: int, command: Any) -> None:
        """A seat's own command of the game."""
        if getattr(command, "reason", None) is not None:
            fail("invalid_command", "a default's reason is the table's to give")
        w = self._waiting(run.state.game)
        run.play(command)
        self.facts.after_play(self, run, seat, w)
        self._settle(run)

    # --- settling: deadlines of new steps, resigned seats' defaults, ready steps ------------------------
    def _due(self, run: Run, w: Step) -> str | None:
        return due_at(run.state, self.step_seconds_of(run.state, w), run.ctx.now)

    def _settle(self, run: Run) -> None:
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

    def redact_event(self, event: Any, viewer: Viewer, *, terminal: bool) -> JSON:
        if type(event) not in HANDLERS:
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
        if type(event) in HANDLERS:
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
        parse = self._parsers.get(kind) if isinstance(kind, str) else None
        if parse is not None:  # the table's, and the start as this game's facts are written
            return parse(data, seat)
        if not isinstance(kind, str) or kind not in self._game_commands or type(seat) is not int:
            fail("invalid_command", f"malformed command: unknown command type {kind!r}")
        command = self.game.codec.command_from_json(data, seat)
        if getattr(command, "reason", None) is not None:
            fail("invalid_command", "malformed command: a default's reason is the table's to give")
        return command

    def _start_from_json(self, data: Mapping[str, Any], seat: Seat | None) -> Any:
        return self.facts.start_from_json(self, data, seat)

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
        return self.facts.start_command(players, creator, opts, seed, rest, fixed)

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
        since = None if idle_since is None else utc(idle_since).isoformat()
        return cmd.HandOverSeat(seat=None, target=seat, to=to, player=player, idle_since=since)

    # --- audit hooks ---------------------------------------------------------------------------------
    def started_options(self, events: Sequence[Mapping[str, Any]]) -> JSON | None:
        """The options a game started with, in full, from its log's JSON (``{"type", "data"}`` items)."""
        return self.facts.started_options(events)

    def chart(self, state: TableState) -> Any:
        return self.game.chart(state.game) if state.opened else None


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


_SYSTEM: Final[dict[type[Any], Any]] = {
    cmd.ExpireDeadline: expire,
    cmd.WarnDeadline: warn,
    cmd.ExtendDeadline: extend,
    cmd.PauseGame: pause_by_creator,
    cmd.ResumeGame: pause_by_creator,
    cmd.HandOverSeat: hand_over,
}
_PLAYER: Final[dict[type[Any], Any]] = {
    cmd.Resign: resign,
    cmd.SendMessage: send_message,
    cmd.SetReady: set_ready,
    cmd.TakeBackSeat: take_back,
    cmd.VotePause: vote_pause,
}
_WHILE_PAUSED: Final = (cmd.SendMessage, cmd.Resign, cmd.TakeBackSeat, cmd.VotePause)
_TABLE_COMMANDS: Final = frozenset(cmd.COMMAND_CLASSES)


__all__ = ["Table"]
