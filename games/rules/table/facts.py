"""How a game's table facts are written, chosen once, when the table is built (``Table(game)``).

Every game but one has the table write its own facts (:class:`TableWrites`): ``TableOpened`` after the
game's start, ``DeadlineSet`` for each step that opens, ``PlayerReturned`` and lowered ``ReadySet`` after a
seat's own play. GoodCritters' log predates the table and stays as clients know it (:class:`GameWrites`, for
a game with ``facts``, ``games.rules.table.game.WritesTableFacts``): its own events carry the table's facts,
and the table reads them from there. The table's paths ask the writer; none of them branches on which it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from games.rules.core import JSON, Context, InvalidOptions, Step

from . import commands as cmd
from . import events as ev
from .base import Run
from .deadlines import due_at
from .errors import fail
from .evolve import HANDLERS, deadline_set, opened
from .game import Game, Opening, SeatFacts, StepClosing, StepOpening, WritesTableFacts
from .options import TABLE_KEYS, Options, parse_settings, settings_to_json
from .state import TableState, setitem

if TYPE_CHECKING:
    from .ruleset import Table

Fold = Callable[[TableState, Any, Any], tuple[TableState, Any]]
"""One event's fold: (the table's state, the game's, the event) -> both after it."""

_CHECK_TIME: Final = datetime(2000, 1, 1, tzinfo=UTC)  # an operator's setup is checked by deciding the start


def _table_only(handler: Callable[[TableState, Any], TableState]) -> Fold:
    def fold(s: TableState, game: Any, event: Any) -> tuple[TableState, Any]:
        return handler(s, event), game

    return fold


def _game_start(
    game: Game[Any],
    players: Sequence[str],
    creator: str | None,
    options: Options,
    seed: bytes,
    setup: Mapping[str, Any] | None,
    fixed: bool,
) -> Any:
    """The game's own start (an operator's ``setup`` is checked now, in full: refused before anything is
    made)."""
    start = game.start_command(
        players,
        options.game,
        bytes(seed),
        setup or None,
        fixed_seed=fixed,
        creator=creator,
        settings=settings_to_json(options.settings),
    )
    if setup:
        game.decide(game.initial_state(), start, Context(now=_CHECK_TIME))
    return start


def merged(game: Mapping[str, Any], table: Mapping[str, Any]) -> JSON:
    """A game's options and the table's settings in one object; ``deadlines`` holds the table's steps and
    the game's own (``own_deadlines``, e.g. LT2.5's ``aim``)."""
    out: JSON = {**game, **table}
    own = game.get("deadlines")
    if isinstance(own, Mapping) and isinstance(table.get("deadlines"), Mapping):
        out["deadlines"] = {**table["deadlines"], **own}
    return out


class TableWrites:
    """The table writes its own facts, in its own events (every game without ``facts``)."""

    start_type: type[Any] = cmd.StartGame

    def __init__(self, game: Game[Any]) -> None:
        self.game = game
        # a game with its own rules versions: the table's StartGame records its rules (ruling 32)
        self._own_rules = bool(game.rules_versions)

    def folds(self) -> dict[type[Any], Fold]:
        return {kind: _table_only(handler) for kind, handler in HANDLERS.items()}

    def record(self, run: Run, events: list[Any]) -> None:
        run.events.extend(events)

    def after_play(self, table: Table, run: Run, seat: int, before: Step | None) -> None:
        """After a seat's own play: it is back (its missed deadlines restart), and any change clears its ready
        flag (R2.4)."""
        state = run.state
        if state.misses[seat] and not state.autopilot[seat]:  # by itself, not the autopilot's bot
            run.emit(ev.PlayerReturned(seat=seat))
        now = table._waiting(state.game)
        if (
            before is not None
            and before.ready
            and state.ready[seat]
            and now is not None
            and now.step_no == before.step_no
        ):
            run.emit(ev.ReadySet(seat=seat, ready=False))

    def start(self, table: Table, run: Run, command: Any) -> None:
        """The table's ``StartGame``: the game's own start, then ``TableOpened``."""
        options = command.options
        if not isinstance(options, Options):
            fail("invalid_command", "the options of a start command")
        game = self.game
        if self._own_rules:  # the game's rules version, as the stored start says (ruling 32)
            versions = game.rules_versions
            rules = versions[0] if command.rules is None else command.rules
            if rules not in versions:
                fail("invalid_command", f"unknown rules {rules!r} (known: {', '.join(versions)})")
            starter: Any = game.start_command  # takes ``rules`` (game.Game, rules versions)
            start = starter(
                command.players,
                options.game,
                command.seed,
                command.setup,
                fixed_seed=command.fixed_seed,
                rules=rules,
            )
        elif command.rules is not None:
            fail("invalid_command", f"{game.slug} has no rules versions of its own")
        else:
            start = game.start_command(
                command.players, options.game, command.seed, command.setup, fixed_seed=command.fixed_seed
            )
        run.play(start)
        players = game.players(run.state.game)
        run.emit(ev.TableOpened(players=players, settings=options.settings))
        table._settle(run)

    def start_from_json(self, table: Table, data: Mapping[str, Any], seat: int | None) -> Any:
        return table._codec.command_from_json(data, seat)

    def start_command(
        self,
        players: Sequence[str],
        creator: str | None,
        options: Options,
        seed: bytes,
        setup: Mapping[str, Any],
        fixed: bool,
    ) -> Any:
        if setup:  # the game checks an operator's setup now
            _game_start(self.game, players, creator, options, seed, setup, fixed)
        return cmd.StartGame(
            seat=None,
            players=tuple(players),
            options=options,
            seed=bytes(seed),
            setup=dict(setup) or None,
            fixed_seed=fixed,
            rules=self.game.rules_versions[-1] if self._own_rules else None,  # a game starts on the newest
        )

    def started_options(self, events: Sequence[Mapping[str, Any]]) -> JSON | None:
        """The game's own options (its ``GameStarted``) and the table's settings (``TableOpened``)."""
        game: JSON | None = None
        table: JSON | None = None
        for event in events:
            if event.get("type") == "GameStarted" and game is None:
                game = event["data"].get("options")
            elif event.get("type") == ev.TableOpened.TYPE:
                table = event["data"].get("settings")
                break
        if not isinstance(game, Mapping) or not isinstance(table, Mapping):
            return None
        return merged(game, table)


def _opening(s: TableState, o: Opening, steps: tuple[str, ...]) -> TableState:
    """``TableOpened``'s fold, from a game's own start event."""
    new = opened(s, ev.TableOpened(players=o.players, settings=parse_settings(o.settings, steps)))
    return new._replace(pause_limit=o.pause_limit)


def _step_opening(s: TableState, o: StepOpening) -> TableState:
    """``DeadlineSet``'s fold, from a game's own step-opening event that carries its deadline."""
    return deadline_set(s, ev.DeadlineSet(step_no=o.step_no, step=o.step, due_at=o.due_at))


def _seat_facts(s: TableState, f: SeatFacts) -> TableState:
    ready = s.ready
    if f.unready and True in ready:
        ready = tuple(False if i in f.unready else r for i, r in enumerate(ready))
    misses = s.misses
    if f.acted is not None and misses[f.acted]:
        misses = setitem(misses, f.acted, 0)
    return s._replace(ready=ready, misses=misses) if ready is not s.ready or misses is not s.misses else s


def _apply_fact(s: TableState, fact: Any, steps: tuple[str, ...]) -> TableState:
    """The fold of a table fact a game's event carries."""
    if type(fact) is SeatFacts:  # the most frequent
        return _seat_facts(s, fact)
    if isinstance(fact, StepOpening):
        return _step_opening(s, fact)
    if isinstance(fact, Opening):
        return _opening(s, fact, steps)
    assert isinstance(fact, StepClosing), fact
    return s._replace(due_at=None)  # a step closed: no deadline runs until the next step opens


class GameWrites:
    """The game writes the table's facts into its own events (``facts``: GoodCritters, whose log predates
    the table): its start event opens the table, its step-opening events carry the deadline the table writes
    in, its events say whose ready flags they lower and who acted; it folds the table's events it
    ``follows`` too."""

    def __init__(self, game: Game[Any], facts: WritesTableFacts) -> None:
        self.game = game
        self.facts = facts
        self.start_type = facts.start_type
        self._steps = game.deadline_steps
        self._table = TableWrites(game)  # a table's own StartGame, given as such

    def _fold_fact(self, s: TableState, event: Any) -> TableState:
        fact = self.facts.table_fact(event)
        return s if fact is None else _apply_fact(s, fact, self._steps)

    def folds(self) -> dict[type[Any], Fold]:
        game_evolve = self.game.evolve
        out = self._table.folds()

        def followed(handler: Callable[[TableState, Any], TableState]) -> Fold:
            def fold(s: TableState, game: Any, event: Any) -> tuple[TableState, Any]:
                return handler(s, event), game_evolve(game, event)  # the game's rules read this fact too

            return fold

        def carrying(s: TableState, game: Any, event: Any) -> tuple[TableState, Any]:
            return self._fold_fact(s, event), game_evolve(game, event)

        for kind, handler in HANDLERS.items():
            if kind.TYPE in self.facts.follows:
                out[kind] = followed(handler)
        for kind in self.facts.fact_types:
            out[kind] = carrying
        return out

    def record(self, run: Run, events: list[Any]) -> None:
        """The table's facts in the game's events: each step opened gets its deadline written in."""
        facts = self.facts
        fact_types = facts.fact_types
        s = run.state
        for event in events:
            if type(event) in fact_types:
                fact = facts.table_fact(event)
                if isinstance(fact, StepOpening):  # the table writes the deadline in
                    assert s.settings is not None
                    due = due_at(s, s.settings.deadline(fact.step), run.ctx.now)
                    event = facts.with_due_at(event, due)
                    fact = StepOpening(step_no=fact.step_no, step=fact.step, due_at=due)
                if fact is not None:
                    s = _apply_fact(s, fact, self._steps)
            run.events.append(event)
        run.state = s

    def after_play(self, table: Table, run: Run, seat: int, before: Step | None) -> None:
        """Nothing: the game's events said which flags they lower and who acted."""

    def start(self, table: Table, run: Run, command: Any) -> None:
        """The game's own start: its start event opens the table."""
        if type(command) is not self.start_type:
            self._table.start(table, run, command)
            return
        run.play(command)
        if not run.state.opened:
            raise RuntimeError(f"{self.game.slug}: the start event carries no opening")
        table._settle(run)

    def start_from_json(self, table: Table, data: Mapping[str, Any], seat: int | None) -> Any:
        """The game's own start command, its table settings in full (a start stored with some of them left
        out, as they were once stored, starts the game with their defaults written out)."""
        command = self.game.codec.command_from_json(data, seat)
        raw = data.get("options")
        settings = {k: raw[k] for k in TABLE_KEYS if k in raw} if isinstance(raw, Mapping) else {}
        try:
            parsed = parse_settings(settings, self._steps)
        except InvalidOptions as exc:
            fail("invalid_command", f"malformed command: {exc}")
        return self.facts.with_settings(command, settings_to_json(parsed))

    def start_command(
        self,
        players: Sequence[str],
        creator: str | None,
        options: Options,
        seed: bytes,
        setup: Mapping[str, Any],
        fixed: bool,
    ) -> Any:
        """Recorded as the game's own start (its log predates the table)."""
        return _game_start(self.game, players, creator, options, seed, setup, fixed)

    def started_options(self, events: Sequence[Mapping[str, Any]]) -> JSON | None:
        """The game's start event holds the table's settings too."""
        for event in events:
            if event.get("type") == "GameStarted":
                found = event["data"].get("options")
                return dict(found) if isinstance(found, Mapping) else None
        return None


FactsWriter = TableWrites | GameWrites


def writer(game: Game[Any]) -> FactsWriter:
    """How ``game``'s table facts are written."""
    return TableWrites(game) if game.facts is None else GameWrites(game, game.facts)
