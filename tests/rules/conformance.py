"""One conformance harness for every ruleset: it plays whole games through the
:class:`games.rules.core.Ruleset` protocol and checks the generic invariants after every event.

A game's test module supplies a :class:`Conformance` (its registered ruleset, error catalogue, options,
bot strategies, junk commands and its own invariants, as a :class:`Checks`) and writes its hypothesis tests
with :func:`setups` and :func:`play`::

    @rules_settings(examples=120)
    @hgiven(setup=setups(SPEC))
    def test_random_games_keep_every_invariant(setup: Setup) -> None:
        play(SPEC, setup, heavy=True)

Each game: every seat a bot (``bot_command`` with a strategy drawn per seat), junk commands (often illegal:
``decide`` answers with events or a catalogued :class:`RuleError`, nothing else), resignations and chat
(the table's ``Resign`` and ``SendMessage``, read from JSON as the service does), deadlines
(``expire_command(step_no)`` once the clock passes ``waiting().due_at``), and with ``web`` the table's
system commands (``pause_command``, ``extend_command``, ``warn_command``, ``hand_over_command``) and the
players' (``TakeBackSeat``, ``VotePause``, ``SetReady``). The same for every game: GoodCritters speaks the
table's vocabulary, Loose Triggers and Were-cats are played on the table. Checked, generically:

* after every event: it round-trips through JSON; each seat's and the spectator's redacted event is JSON,
  names the event's type and shows none of the viewer's secrets (the seed, the private messages of
  others, and what the game's ``secrets`` lists) while the game runs;
* after every accepted command: ``decide``'s own state (``step``, where the ruleset has it) is the fold of
  its events; the command round-trips through JSON; a seat's command was in ``legal_commands``; a bot's or
  the table's command is accepted; ``waiting`` is there exactly while the game runs and its ``step_no``
  never goes back; each view is JSON and shows no secret; the replay of every event so far (``fold``)
  equals the incrementally evolved state (at random, always at the end);
* a timer early or for a step gone changes nothing;
* the game ends within ``max_rounds`` rounds, with scores for each seat, the seed public in every view
  and every event unredacted;
* the game's own :class:`Checks` after every event, every command and at the end.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from games.rules.core import Context, ErrorKind, RuleError, Step

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
NO_VARIANT: st.SearchStrategy[Any] = st.none()
ABSENT = "absent"  # a seat whose player does not play (web games): the table's absence rules take it


@dataclasses.dataclass(frozen=True)
class Setup:
    """One game to play, as hypothesis draws it: everything else comes from ``salt``."""

    n: int
    options: Mapping[str, Any]
    seed: bytes
    salt: int
    variant: Any = None  # what a game's own ``variants`` strategy drew (e.g. GoodCritters' rules version)


class Checks:
    """A game's own invariants, one instance per game played (override what applies)."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup

    def event(self, before: Any, state: Any, event: Any, *, heavy: bool) -> None:
        """After each event (``state`` is after it)."""

    def command(self, state: Any, *, heavy: bool) -> None:
        """After each accepted command."""

    def final(self, state: Any, events: Sequence[Any]) -> None:
        """Once the game is over."""


def _resigned(state: Any, seat: int) -> bool:
    return bool(state.resigned[seat])


@dataclasses.dataclass(frozen=True)
class Conformance:
    """What a game supplies to the harness.

    ``ruleset`` is driven through the Ruleset protocol; ``codes`` is its error catalogue (code -> kind);
    ``strategies`` the bot strategies a seat is drawn from (repeat a name to weigh it); ``bots`` the
    test-only ones (``(state, seat, salt) -> command | None``); ``junk(rnd, state)`` any command at all;
    ``resigned(state, seat)`` whether a seat resigned (a resignation is accepted exactly when not);
    ``secrets(state, viewer)`` strings ``viewer`` must not see while the game runs (the seed always);
    ``start`` builds the start command from the setup and ``rnd`` (default: the ruleset's, with a random
    creator); ``web``: send the table's system commands (pause and resume, outage extensions, warnings,
    hand-over) and the players' (take a seat back, vote a pause, ready flags). ``every_viewer``: in heavy
    games, the share of events after which every viewer's redaction is checked (else one viewer's; the views:
    a fifth of that); lower it where the game's own checks already read every viewer."""

    ruleset: Any
    codes: Mapping[str, ErrorKind]
    options: st.SearchStrategy[dict[str, Any]]
    strategies: Sequence[str] = ("random", "sensible")
    bots: Mapping[str, Callable[[Any, int, int], Any]] = dataclasses.field(default_factory=dict)
    junk: Callable[[random.Random, Any], Any] | None = None
    resigned: Callable[[Any, int], bool] = _resigned
    secrets: Callable[[Any, int | None], Iterable[str]] | None = None
    checks: Callable[[Setup], Checks] = Checks
    start: Callable[[Setup, random.Random], Any] | None = None
    variants: st.SearchStrategy[Any] = NO_VARIANT
    players: tuple[int, int] | None = None  # default: the ruleset's seat_range()
    max_rounds: int = 20_000
    web: bool = False
    every_viewer: float = 1.0


_mostly_seconds = st.one_of(st.integers(1, 100), st.integers(1, 100), st.integers(1, 100), st.none())


def table_options(
    game: st.SearchStrategy[dict[str, Any]], steps: Sequence[str]
) -> st.SearchStrategy[dict[str, Any]]:
    """A game's own options with the table's beside them: deadlines for the game's ``steps`` (mostly short,
    so that they pass; some none), the absence policy, who pauses, warnings and the longest pause."""
    table = st.fixed_dictionaries(
        {},
        optional={
            "deadlines": st.fixed_dictionaries(dict.fromkeys(steps, _mostly_seconds)),
            "absence": st.fixed_dictionaries(
                {},
                optional={"extensions": st.integers(0, 3), "autopilot_after": st.none() | st.integers(1, 4)},
            ),
            "pause_by": st.sampled_from(["creator", "vote"]),
            "warn_before": st.none() | st.integers(0, 60),
            "max_pause": st.integers(1, 7 * 24 * 3600),
        },
    )
    return st.tuples(game, table).map(lambda both: {**both[0], **both[1]})


def setups(spec: Conformance) -> st.SearchStrategy[Setup]:
    """The games hypothesis draws for ``spec``: player count, options, seed, salt, the game's variant."""
    low, high = spec.players or spec.ruleset.seat_range()
    return st.builds(
        Setup,
        n=st.integers(low, high),
        options=spec.options,
        seed=st.binary(min_size=32, max_size=32),
        salt=st.integers(0, 2**32),
        variant=spec.variants,
    )


def play(spec: Conformance, setup: Setup, *, heavy: bool) -> Game:
    """Play ``setup`` to its end checking everything (``heavy``: every viewer after every event, replays and
    the game's heavy checks; else lighter checks, for many more games). Returns the played game."""
    game = Game(spec, setup, heavy=heavy)
    game.play()
    return game


class Game:
    """A game driven by bots plus random disturbances, checking invariants as it goes."""

    def __init__(self, spec: Conformance, setup: Setup, *, heavy: bool) -> None:
        self.spec = spec
        self.ruleset = spec.ruleset
        self.setup = setup
        self.n = n = setup.n
        self.heavy = heavy
        self.salt = setup.salt
        self.rnd = rnd = random.Random(setup.salt)
        self.now = T0
        self.seed_hex = setup.seed.hex()
        self.viewers: list[int | None] = [None, *range(n)]
        self.strategies = [rnd.choice(list(spec.strategies)) for _ in range(n)]
        if spec.web and rnd.random() < 0.5:  # absent players: deadlines missed, autopilot, hand-overs
            for seat in rnd.sample(range(n), rnd.randrange(1, 3)):
                self.strategies[seat] = ABSENT
        self.resign_rate = rnd.choice([0.0, 0.0, 0.002, 0.01])
        self.junk_rate = rnd.choice([0.0, 0.02, 0.1]) if spec.junk is not None else 0.0
        self.expire_rate = rnd.choice([0.0, 0.05, 0.3])
        self.web_rate = rnd.choice([0.0, 0.05, 0.15]) if spec.web else 0.0
        self.handed = 0
        self.awake = False  # the absent players play this round
        self.said = 0
        self.private: list[tuple[str, int, frozenset[int]]] = []  # text, sender, recipients
        self.step_no = -1
        self.checks = spec.checks(setup)
        self.state: Any = self.ruleset.initial_state()
        self.events: list[Any] = []
        if spec.start is not None:
            start = spec.start(setup, rnd)
        else:
            names = [f"player-{i}" for i in range(n)]
            start = self.ruleset.start_command(
                players=names,
                creator=rnd.choice([*names, None]),
                options=self.ruleset.parse_options(setup.options),
                seed=setup.seed,
            )
        assert self.apply(start, trusted=True, system=True)

    # --- checks --------------------------------------------------------------------------------
    def _some_viewers(self, every: float) -> list[int | None]:
        """Heavy: every viewer (at rate ``every``, else one at random); light: now and then one."""
        if self.heavy:
            return self.viewers if self.rnd.random() < every else [self.rnd.choice(self.viewers)]
        return [self.rnd.choice(self.viewers)] if self.rnd.random() < 0.1 else []

    def _no_secret(self, shown: Any, viewer: int | None, what: str) -> None:
        text = json.dumps(shown)
        assert self.seed_hex not in text, f"the seed leaks to {viewer} in {what}"
        for said, sender, to in self.private:
            if viewer != sender and viewer not in to:
                assert said not in text, f"a private message of {sender} to {sorted(to)} leaks to {viewer}"
        if self.spec.secrets is not None:
            for secret in self.spec.secrets(self.state, viewer):
                assert secret not in text, f"{secret!r} leaks to {viewer} in {what}"

    def _check_command_json(self, command: Any, *, strict: bool) -> None:
        """A bot's, the table's or the system's command round-trips through JSON; any other (junk) either
        does or is one no client can send (``invalid_command``: a seat that is not one, a default's
        reason...)."""
        seat = command.seat
        if not strict and seat is not None and type(seat) is not int:
            return
        data = json.loads(json.dumps(self.ruleset.command_to_json(command)))
        if strict:
            assert self.ruleset.command_from_json(data, seat) == command, (command, data)
            return
        code: str | None = None
        try:
            parsed = self.ruleset.command_from_json(data, seat)
        except RuleError as error:
            code = error.code
        else:
            assert parsed == command, (command, data)
        assert code in (None, "invalid_command"), code

    def _check_event(self, before: Any, state: Any, event: Any) -> None:
        data = json.loads(json.dumps(self.ruleset.event_to_json(event)))
        assert data["type"] == event.TYPE
        assert self.ruleset.event_from_json(data) == event, (event, data)
        over = self.ruleset.is_terminal(state)
        for viewer in self._some_viewers(every=self.spec.every_viewer):
            shown = self.ruleset.redact_event(event, viewer, terminal=False)
            assert shown["type"] == event.TYPE
            if not over:
                self._no_secret(shown, viewer, event.TYPE)
        self.checks.event(before, state, event, heavy=self.heavy)

    def _check_state(self, state: Any) -> None:
        over = self.ruleset.is_terminal(state)
        waiting: Step | None = self.ruleset.waiting(state)
        assert (waiting is None) == over, waiting
        if waiting is not None:
            assert waiting.step_no >= self.step_no, "the step number went back"
            self.step_no = waiting.step_no
            assert self.ruleset.scores(state) is None
        for viewer in self._some_viewers(every=self.spec.every_viewer / 5):
            view = self.ruleset.view_for(state, viewer)
            if not over:
                self._no_secret(view, viewer, "the view")
        if self.heavy:
            for seat in range(self.n):
                legal = self.ruleset.legal_commands(state, seat)
                assert all(isinstance(name, str) for name in legal)
        self.checks.command(state, heavy=self.heavy)

    # --- commands ------------------------------------------------------------------------------
    def apply(self, command: Any, *, trusted: bool = False, system: bool = False) -> bool:
        """Decide and evolve; True when accepted. ``trusted``: a bot's or the table's own command, which the
        rules must accept; ``system``: a system command, which must round-trip through JSON."""
        self._check_command_json(command, strict=trusted or system)
        ctx = Context(now=self.now)
        before = self.state
        stepper = getattr(self.ruleset, "step", None)
        try:
            if stepper is not None:
                events, stepped = stepper(before, command, ctx)
            else:
                events, stepped = self.ruleset.decide(before, command, ctx), None
        except RuleError as error:
            refused: RuleError | None = error
        else:
            refused = None
        if refused is not None:
            assert refused.code in self.spec.codes, refused
            assert refused.kind == self.spec.codes[refused.code], refused
            assert not trusted, f"the rules refused a bot's or the table's command {command!r}: {refused!r}"
            return False
        seat = command.seat
        # what a player sends is in legal_commands; a bot playing a seat on autopilot sends game commands
        # (the service lets only it, and refuses them to the player: autopilot_on)
        if (
            type(seat) is int
            and 0 <= seat < self.n
            and events
            and seat not in self.ruleset.autopilot_seats(before)
        ):
            legal = self.ruleset.legal_commands(before, seat)
            assert command.TYPE in legal, f"{command!r} was accepted, legal_commands said {legal}"
        state = before
        for event in events:
            after = self.ruleset.evolve(state, event)
            self.state = after  # what ``secrets`` reads
            self._check_event(state, after, event)
            state = after
        if stepped is not None:
            assert state == stepped, "decide's own state differs from the fold of its events"
        self.state = state
        self.events.extend(events)
        if events:
            self._check_state(state)
            if self.heavy and self.rnd.random() < 0.05:
                assert self.ruleset.fold(self.events) == state, "replaying from the start differs"
        return True

    def terminal(self) -> bool:
        return bool(self.ruleset.is_terminal(self.state))

    def player(self, data: Mapping[str, Any], seat: int) -> Any:
        """The table's command a player sends (``Resign``, ``SendMessage``, ``TakeBackSeat``, ``VotePause``,
        ``SetReady``), as the service reads it from JSON: every ruleset knows them."""
        return self.ruleset.command_from_json(data, seat)

    def bot(self, seat: int) -> Any:
        """What seat ``seat`` plays now: its strategy's bot; an absent player nothing, unless the seat is on
        autopilot (the service's bot plays it then)."""
        strategy = self.strategies[seat]
        if strategy == ABSENT:
            if not self.awake and seat not in self.ruleset.autopilot_seats(self.state):
                return None
            strategy = "sensible"
        if strategy in self.spec.bots:
            return self.spec.bots[strategy](self.state, seat, self.salt)
        return self.ruleset.bot_command(self.state, seat, strategy=strategy, salt=self.salt)

    def expire(self) -> bool:
        """The deadline of the step the game waits on passes (the clock jumps past it); a game paused with
        no deadline (``web``) is resumed."""
        waiting = self.ruleset.waiting(self.state)
        if waiting is not None and waiting.due_at is None and self.spec.web:
            if self.apply(self.ruleset.pause_command(False), system=True):
                return True
            votes = [self.player({"type": "VotePause", "pause": False}, seat) for seat in range(self.n)]
            accepted = [self.apply(command) for command in votes]
            return any(accepted)
        if waiting is None or waiting.due_at is None:
            return False
        if self.rnd.random() < 0.1:  # a timer early, or for a step gone: nothing happens
            early = self.now < waiting.due_at
            step_no = waiting.step_no if early else waiting.step_no - 1
            count = len(self.events)
            assert self.apply(self.ruleset.expire_command(step_no), trusted=True, system=True)
            assert len(self.events) == count, "an early or stale timer moved the game"
        self.now = max(self.now, waiting.due_at + timedelta(seconds=1))
        return self.apply(self.ruleset.expire_command(waiting.step_no), trusted=True, system=True)

    def disturb(self) -> None:
        """Resignations, junk and (``web``) the table's commands, at the game's rates."""
        rnd, spec = self.rnd, self.spec
        if rnd.random() < self.resign_rate:
            seat = rnd.randrange(self.n)
            was = spec.resigned(self.state, seat)
            accepted = self.apply(self.player({"type": "Resign"}, seat))
            assert accepted != was, f"seat {seat} had resigned: {was}, resigns now: {accepted}"
        if spec.junk is not None and not self.terminal() and rnd.random() < self.junk_rate:
            self.apply(spec.junk(rnd, self.state))
        if self.n > 3 and not self.terminal() and rnd.random() < 0.01:  # to other seats: seats 3... send
            to = rnd.choice([None, [0], [1, 2]])
            self.said += 1
            # a private text is a secret; delimited, so that no text is a part of another
            text = f"let's make a deal, #{self.said:x}/{self.salt:x}#"
            if to is not None:
                self.private.append((text, rnd.randrange(3, self.n), frozenset(to)))
                seat = self.private[-1][1]
            else:
                seat = rnd.randrange(3, self.n)
            message = self.player({"type": "SendMessage", "text": text, "to": to}, seat)
            assert self.apply(message), "a chat message was refused"
        if self.web_rate and not self.terminal() and rnd.random() < self.web_rate:
            self.web()

    def web(self) -> None:
        """One of the table's commands: pause or resume, an outage extension, a warning (the clock moves a
        little), a hand-over, or a player's: take the seat back, vote a pause (or its end), a ready flag."""
        rnd, ruleset = self.rnd, self.ruleset
        seat = rnd.randrange(self.n)
        waiting = ruleset.waiting(self.state)
        step_no = waiting.step_no if waiting is not None else 0
        roll = rnd.randrange(7)
        if roll == 0:
            self.apply(ruleset.pause_command(rnd.random() < 0.5), system=True)
        elif roll == 1:  # mostly when the timers were down as the step fell due (as the sweeper sends it)
            due = waiting.due_at if waiting is not None else None
            if due is not None and rnd.random() < 0.7:
                self.now = max(self.now, due + timedelta(seconds=1))
            self.apply(ruleset.extend_command(step_no, rnd.randrange(1, 50), "outage"), system=True)
            after = ruleset.waiting(self.state)
            if due is not None and after is not None and after.step_no == step_no:
                assert after.due_at is not None
                assert after.due_at >= due, "an outage extension brought the deadline earlier (R7.7)"
        elif roll == 2:  # at the warning's time, or a little later than now
            warn_at = ruleset.warn_at(self.state)
            if warn_at is not None and rnd.random() < 0.5:
                self.now = max(self.now, warn_at)
            else:
                self.now += timedelta(seconds=rnd.randrange(0, 40))
            self.apply(ruleset.warn_command(step_no), system=True)
        elif roll == 3:  # mostly a seat on autopilot, to a bot or a newcomer who plays
            autopilot = sorted(ruleset.autopilot_seats(self.state))
            if autopilot and rnd.random() < 0.8:
                seat = rnd.choice(autopilot)
            self.handed += 1
            to = rnd.choice(["bot", "player"])
            command = ruleset.hand_over_command(seat, to=to, player=f"newcomer-{self.handed}")
            if self.apply(command, system=True):
                self.strategies[seat] = rnd.choice(list(self.spec.strategies))
        elif roll == 4:  # the absent player is back
            if self.apply(self.player({"type": "TakeBackSeat"}, seat)):
                self.strategies[seat] = rnd.choice(list(self.spec.strategies))
        else:
            key = rnd.choice(["pause", "ready"])
            kind = {"pause": "VotePause", "ready": "SetReady"}[key]
            self.apply(self.player({"type": kind, key: rnd.random() < 0.5}, seat))

    def wake(self) -> bool:
        """The absent players come back for one round (a step with no deadline waits for them forever)."""
        self.awake = any(strategy == ABSENT for strategy in self.strategies)
        return self.awake

    # --- the game ------------------------------------------------------------------------------
    def play(self) -> None:
        n, rnd = self.n, self.rnd
        awake = False
        for _ in range(self.spec.max_rounds):
            if self.terminal():
                break
            before = len(self.events)
            self.awake = awake
            awake = False
            for seat in rnd.sample(range(n), n):
                self.disturb()
                if self.terminal():
                    break
                command = self.bot(seat)
                if command is None:
                    continue
                legal = self.ruleset.legal_commands(self.state, seat)
                if seat not in self.ruleset.autopilot_seats(self.state):  # (as in apply)
                    assert command.TYPE in legal, (command, legal)
                self.apply(command, trusted=True)
                if self.terminal():
                    break
            if self.terminal():
                break
            if len(self.events) == before and not self.expire():
                assert not self.awake, "the game waits but nothing can move"
                awake = self.wake()
                assert awake, "the game waits but nothing can move"
            elif rnd.random() < self.expire_rate:
                self.expire()
        assert self.terminal(), f"the game did not end in {self.spec.max_rounds} rounds"
        self.final()

    def final(self) -> None:
        ruleset, state = self.ruleset, self.state
        assert ruleset.fold(self.events) == state, "replaying from the start differs from the fold"
        assert ruleset.waiting(state) is None
        scores = ruleset.scores(state)
        assert scores is not None
        assert len(scores) == self.n
        assert all(type(score) is int for score in scores)
        for viewer in self.viewers:
            assert self.seed_hex in json.dumps(ruleset.view_for(state, viewer)), "the seed is not public"
            if self.heavy and viewer in (None, self.rnd.randrange(self.n)):
                for event in self.events:
                    full = ruleset.event_to_json(event)
                    assert ruleset.redact_event(event, viewer, terminal=True) == full
        self.checks.final(state, self.events)
