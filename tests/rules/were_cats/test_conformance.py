"""Conformance: random bot games of Were-cats (random and sensible bots, mixed) across 2-5 players, with
the table's defaults (timeouts, resigned seats, WC4.1) and random, often illegal commands thrown in. After
every event: 10 pennies, 6 nickels, 6 dimes and the quarter always somewhere (WC1.1), replay equals fold,
JSON round trips, the seed never shows before the end (WC4.2); every game ends (WC3.1)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given as hgiven
from hypothesis import strategies as st

from games.rules.core import RuleError
from games.rules.were_cats import commands as c
from games.rules.were_cats.coins import KINDS, MAX_PLAYERS
from games.rules.were_cats.errors import CODES
from games.rules.were_cats.game import GAME
from games.rules.were_cats.state import ACT, NEW, POPULATE, State

from ..conftest import rules_settings
from .helpers import assert_conserved

OPTIONS = st.fixed_dictionaries({}, optional={"max_rounds": st.integers(1, 30)})


def _coins(rnd: random.Random) -> tuple[int, int, int]:
    return (rnd.randrange(-1, 3), rnd.randrange(3), rnd.randrange(3))


def random_command(rnd: random.Random, state: State) -> Any:
    """Any command at all, often illegal: decide must answer with events or a RuleError, nothing else."""
    n = state.n
    seat = rnd.choice([*range(n), n, -1, None]) if rnd.random() < 0.1 else rnd.randrange(n)
    kind = rnd.choice([*KINDS, "quarter"])
    reason = rnd.choice([None, None, "timeout", "resigned", "bored"])
    options: list[Any] = [
        lambda: c.ChooseStartingCoins(seat=seat, kind=kind),
        lambda: c.PlaceVictims(seat=seat, eat=_coins(rnd), scare=_coins(rnd)),
        lambda: c.FinishPlacing(seat=seat, reason=reason),
        lambda: c.PopulateCity(seat=seat, kind=kind, reason=reason),
        lambda: c.TakeVictim(seat=seat, kind=kind, eat=_coins(rnd)),
        lambda: c.MakeCat(seat=seat, kind=kind, slot=rnd.randrange(0, 8), eat=_coins(rnd)),
        lambda: c.Repopulate(seat=seat, eat=_coins(rnd)),
        lambda: c.Pass(seat=seat, reason=reason),
    ]
    return rnd.choice(options)()


def check_event(state: State, event: Any, seed_hex: str) -> None:
    assert_conserved(state)
    # the quarter is always somewhere: between the players until the first Phase 1 ends, then held
    if state.phase in (POPULATE, ACT) or state.round > 1:
        assert state.quarter in range(state.n)
    data = json.loads(json.dumps(GAME.event_to_json(event)))
    assert GAME.event_from_json(data) == event
    terminal = GAME.is_terminal(state)
    for viewer in (None, *range(state.n)):
        shown = json.dumps(GAME.redact_event(event, viewer, terminal=terminal))
        assert terminal or seed_hex not in shown


def check_state(state: State, seed_hex: str) -> None:
    view = json.dumps(GAME.view_for(state, None))
    assert GAME.is_terminal(state) or seed_hex not in view
    w = GAME.waiting(state)
    if GAME.is_terminal(state):
        assert w is None
        assert GAME.scores(state) is not None
        return
    assert w is not None
    assert w.seats
    for seat in w.seats:
        assert GAME.default_command(state, seat, "timeout") is not None
        assert GAME.legal_commands(state, seat)


class Game:
    def __init__(self, n: int, options: dict[str, Any], seed: bytes, salt: int) -> None:
        self.rnd = random.Random(salt)
        self.salt = salt
        self.seed_hex = seed.hex()
        self.strategies = [self.rnd.choice(["random", "sensible"]) for _ in range(n)]
        self.timeout_rate = self.rnd.choice([0.0, 0.05, 0.3])
        self.noise_rate = self.rnd.choice([0.0, 0.05, 0.2])
        self.resigned = {s for s in range(n) if self.rnd.random() < 0.1}
        self.state: State = GAME.initial_state()
        self.events: list[Any] = []
        setup = {"first_seat": self.rnd.randrange(n)} if self.rnd.random() < 0.2 else None
        start = GAME.start_command(
            [f"player-{i}" for i in range(n)], GAME.parse_options(options), seed, setup
        )
        assert self.apply(start)

    def apply(self, command: Any) -> bool:
        if command.seat is not None and type(command.seat) is int:
            data = json.loads(json.dumps(GAME.command_to_json(command)))
            assert GAME.command_from_json(data, command.seat) == command
        try:
            events = GAME.decide(self.state, command)
        except RuleError as error:
            refused: RuleError | None = error
        else:
            refused = None
        if refused is not None:
            assert refused.code in CODES
            assert refused.kind == CODES[refused.code]
            return False
        step_no = self.state.step_no
        state = self.state
        for event in events:
            state = GAME.evolve(state, event)
            check_event(state, event, self.seed_hex)
        assert state.step_no >= step_no
        self.state = state
        self.events.extend(events)
        check_state(state, self.seed_hex)
        if self.rnd.random() < 0.05:
            assert GAME.fold(self.events) == state, "replaying from the start differs from the fold"
        return True

    def play(self) -> None:
        for _ in range(5_000):
            if GAME.is_terminal(self.state):
                break
            if self.rnd.random() < self.noise_rate:
                self.apply(random_command(self.rnd, self.state))
                continue
            w = GAME.waiting(self.state)
            assert w is not None
            seat = self.rnd.choice(sorted(w.seats))
            if seat in self.resigned or self.rnd.random() < self.timeout_rate:
                reason = "resigned" if seat in self.resigned else "timeout"
                command = GAME.default_command(self.state, seat, reason)
            else:
                command = GAME.bot_command(self.state, seat, strategy=self.strategies[seat], salt=self.salt)
            assert command is not None
            assert command.TYPE in GAME.legal_commands(self.state, seat)
            assert self.apply(command), f"a legal move was refused: {command!r}"
        assert GAME.is_terminal(self.state), "the game did not end"
        assert self.state.round <= self.state.options.max_rounds
        assert GAME.fold(self.events) == self.state
        assert self.state.phase != NEW


@rules_settings(examples=300)
@hgiven(
    n=st.integers(2, MAX_PLAYERS),
    options=OPTIONS,
    seed=st.binary(min_size=32, max_size=32),
    salt=st.integers(0, 2**32),
)
def test_random_games_conserve_the_coins_and_end_wc1_1_wc3_1(
    n: int, options: dict[str, Any], seed: bytes, salt: int
) -> None:
    Game(n, options, seed, salt).play()
