"""Conformance: random bot games (random and sensible bots, mixed) across every option combination and
4-8 players, with resignations, deadlines, chat and random (often illegal) commands thrown in. After every
event: cards conserved, replay equals fold, JSON round-trips, redaction shows no viewer anything R8.3
forbids; every game ends."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from hypothesis import given as hgiven
from hypothesis import strategies as st

from games.rules.core import Context, RuleError
from games.rules.goodcritters import commands as c
from games.rules.goodcritters.cards import ACTIONS, FUZZ
from games.rules.goodcritters.errors import CODES
from games.rules.goodcritters.ruleset import RULESET
from games.rules.goodcritters.state import State

from .conftest import rules_settings
from .helpers import T0
from .invariants import Oracle, check_command_json, check_conservation, check_final, check_json

OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "payoffs": st.booleans(),
        "boss_term_limit": st.none() | st.integers(1, 4),
        "fuzz_depth": st.sampled_from(["standard", "short", "long", [0.0, 0.3], [0.5, 0.5], [0.9, 1.0]]),
        "no_vote_rule": st.sampled_from(["english", "russian"]),
        "shuffle_seats": st.booleans(),
        "timeout_action": st.sampled_from(["none", *ACTIONS]),
        "deadlines": st.fixed_dictionaries(
            {},
            optional={
                "distribute": st.none() | st.integers(1, 100),
                "choose": st.none() | st.integers(1, 100),
            },
        ),
    },
)


def random_command(rnd: random.Random, state: State) -> Any:
    """Any command at all, often illegal: decide must answer with events or a RuleError, nothing else."""
    n = state.n
    seat = rnd.choice([*range(n), n, -1, None]) if rnd.random() < 0.1 else rnd.randrange(n)

    def cards() -> tuple[int, ...]:
        return tuple(rnd.randrange(-1, FUZZ + 2) for _ in range(rnd.randrange(3)))

    kind = rnd.randrange(14)
    options: list[Any] = [
        lambda: c.DistributeLoot(seat=seat, shares=tuple(cards() for _ in range(rnd.choice([n, n - 1])))),
        lambda: c.ChooseAction(seat=seat, action=rnd.choice([*ACTIONS, "dance"])),
        lambda: c.PlaceThreat(seat=seat, target=rnd.randrange(-1, n + 1)),
        lambda: c.RemoveThreat(seat=seat),
        lambda: c.SetReady(seat=seat, ready=rnd.random() < 0.5),
        lambda: c.OfferPayoff(
            seat=seat,
            token=rnd.randrange(-1, 3),
            side=rnd.choice(["yes", "no", "?"]),
            target=rnd.randrange(-1, n + 1),
            loot=cards(),
            visibility=rnd.choice(["open", "peek", "hidden", "?"]),
            payoff_cards=rnd.randrange(-1, 7),
        ),
        lambda: c.WithdrawPayoff(seat=seat, token=rnd.randrange(-1, 3)),
        lambda: c.GiveGift(
            seat=seat, to=rnd.randrange(-1, n + 1), loot=cards(), payoff_cards=rnd.randrange(-1, 3)
        ),
        lambda: c.OfferTrade(
            seat=seat,
            to=rnd.randrange(n),
            give_loot=cards(),
            give_payoff=rnd.randrange(3),
            want_values=tuple(rnd.choice([2000, 3000, 4000, 5000, 7]) for _ in range(rnd.randrange(2))),
            want_payoff=rnd.randrange(3),
        ),
        lambda: c.AcceptTrade(seat=seat, trade_id=rnd.randrange(1, 6), loot=cards()),
        lambda: c.DeclineTrade(seat=seat, trade_id=rnd.randrange(1, 6)),
        lambda: c.WithdrawTrade(seat=seat, trade_id=rnd.randrange(1, 6)),
        lambda: c.SendMessage(
            seat=seat, text=rnd.choice(["hi", "", "x" * 2001]), to=rnd.choice([None, (0,), ()])
        ),
        lambda: c.ExpireDeadline(seat=None, step_no=state.step_no),
    ]
    return options[kind]()


class Game:
    """A game driven by bots plus random disturbances, checking invariants as it goes."""

    def __init__(self, n: int, options: dict[str, Any], seed: bytes, salt: int, *, heavy: bool) -> None:
        self.n = n
        self.rnd = random.Random(salt)
        self.heavy = heavy
        self.salt = salt
        self.strategies = [self.rnd.choice(["random", "sensible"]) for _ in range(n)]
        self.now = T0
        names = [f"player-{i}" for i in range(n)]
        start = RULESET.start_command(
            players=names,
            creator=self.rnd.choice([*names, None]),
            options=RULESET.parse_options(options),
            seed=seed,
        )
        self.seed_hex = seed.hex()
        self.state: State = RULESET.initial_state()
        self.events: list[Any] = []
        self.oracle = Oracle(n)
        self.resign_rate = self.rnd.choice([0.0, 0.0, 0.002, 0.01])
        self.noise_rate = self.rnd.choice([0.0, 0.02, 0.1])
        self.apply(start)

    def apply(self, command: Any) -> bool:
        """Decide and fold; True when accepted."""
        check_command_json(command) if command.seat is not None or command.TYPE == "ExpireDeadline" else None
        try:
            events, stepped = RULESET.step(self.state, command, Context(now=self.now))
        except RuleError as error:
            refused: RuleError | None = error
        else:
            refused = None
        if refused is not None:
            assert refused.code in CODES
            assert refused.kind == CODES[refused.code]
            return False
        before = self.state
        state = before
        for event in events:
            state = RULESET.evolve(state, event)
            check_json(event)
            if self.heavy:
                check_conservation(state)
                self.oracle.learn(state, event)
                if state.phase != "over":
                    self.oracle.check_event(event, state, self.seed_hex)
        assert state == stepped, "decide's own state differs from the fold of its events"
        check_conservation(state)
        self.state = state
        self.events.extend(events)
        if self.heavy and state.phase != "over" and self.rnd.random() < 0.2:
            self.oracle.check_view(state, self.seed_hex)
        if self.heavy and self.rnd.random() < 0.05:
            assert RULESET.fold(self.events) == state, "replaying from the start differs from the fold"
        return True

    def disturb(self) -> None:
        rnd, state = self.rnd, self.state
        if rnd.random() < self.resign_rate:
            seat = rnd.randrange(self.n)
            accepted = self.apply(c.Resign(seat=seat))
            assert accepted != state.resigned[seat]
        if rnd.random() < self.noise_rate:
            self.apply(random_command(rnd, self.state))
        if rnd.random() < 0.01:
            to = rnd.choice([None, (0,), (1, 2)])
            seat = rnd.randrange(3, self.n)
            # The state now, not the one read before the resignation and the noise: either may end the game.
            if self.state.phase != "over":
                assert self.apply(c.SendMessage(seat=seat, text="let's make a deal", to=to))

    def expire(self) -> bool:
        waiting = RULESET.waiting(self.state)
        if waiting is None or waiting.due_at is None:
            return False
        self.now = waiting.due_at + timedelta(seconds=1)
        return self.apply(RULESET.expire_command(waiting.step_no))

    def play(self) -> None:
        for _ in range(20_000):
            if RULESET.is_terminal(self.state):
                break
            before = len(self.events)
            for seat in self.rnd.sample(range(self.n), self.n):
                self.disturb()
                if RULESET.is_terminal(self.state):
                    break
                legal = RULESET.legal_commands(self.state, seat)
                command = RULESET.bot_command(
                    self.state, seat, strategy=self.strategies[seat], salt=self.salt
                )
                if command is None:
                    continue
                assert command.TYPE in legal, (command, legal)
                assert self.apply(command), f"a bot sent an illegal command {command!r}"
                if RULESET.is_terminal(self.state):
                    break
            if len(self.events) == before and not RULESET.is_terminal(self.state):
                assert self.expire(), "the game waits but nothing can move"
            elif self.rnd.random() < 0.05:
                self.expire()
        assert RULESET.is_terminal(self.state), "the game did not end"
        check_final(self.state, self.events)


@rules_settings(examples=120)
@hgiven(
    n=st.integers(4, 8),
    options=OPTIONS,
    seed=st.binary(min_size=32, max_size=32),
    salt=st.integers(0, 2**32),
)
def test_random_games_keep_every_invariant_after_every_event_r8_3(
    n: int, options: dict[str, Any], seed: bytes, salt: int
) -> None:
    """Heavy checks after every event, including the redaction oracle (R8.3) for every seat and spectators."""
    Game(n, options, seed, salt, heavy=True).play()


@rules_settings(examples=1600)
@hgiven(
    n=st.integers(4, 8),
    options=OPTIONS,
    seed=st.binary(min_size=32, max_size=32),
    salt=st.integers(0, 2**32),
)
def test_thousands_of_random_games_conserve_cards_and_end(
    n: int, options: dict[str, Any], seed: bytes, salt: int
) -> None:
    """Lighter checks after every command (conservation, replay, JSON), many more games."""
    Game(n, options, seed, salt, heavy=False).play()
