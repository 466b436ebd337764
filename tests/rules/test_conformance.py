"""Conformance: random bot games (random and sensible bots, mixed) across every option combination and
4-8 players, with resignations, deadlines, chat and random (often illegal) commands thrown in, played by the
shared harness (``tests/rules/conformance.py``: replay equals fold, JSON round-trips, no secret in any view,
every game ends). GoodCritters' own checks after every event: cards conserved, and redaction shows no
viewer anything R8.3 forbids (an oracle written apart from the redactor)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

from hypothesis import given as hgiven
from hypothesis import strategies as st

from games.rules.goodcritters import commands as c
from games.rules.goodcritters.cards import ACTIONS, FUZZ
from games.rules.goodcritters.options import RULES
from games.rules.goodcritters.state import OVER, State
from games.rules.table import commands as tc
from games.rules.table.state import TableState
from tests.rules.gc import RULESET

from .conformance import Checks, Conformance, Setup, play, setups
from .conftest import rules_settings
from .invariants import Oracle, check_conservation, check_final

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
        lambda: tc.SetReady(seat=seat, ready=rnd.random() < 0.5),
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
        lambda: tc.SendMessage(
            seat=seat, text=rnd.choice(["hi", "", "x" * 2001]), to=rnd.choice([None, (0,), ()])
        ),
        lambda: tc.ExpireDeadline(seat=None, step_no=state.step_no),
    ]
    return options[kind]()


class GoodCrittersChecks(Checks):
    """Cards conserved after every event (R1.2); the redaction oracle (R8.3) for every seat and spectators
    after every event and, at random, on the views."""

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.oracle = Oracle(setup.n)
        self.rnd = random.Random(setup.salt ^ 0x5EED)
        self.seed_hex = setup.seed.hex()

    def event(self, before: TableState, state: TableState, event: Any, *, heavy: bool) -> None:
        if heavy:
            game: State = state.game
            check_conservation(game)
            self.oracle.learn(game, event)
            if game.phase != OVER:
                self.oracle.check_event(event, game, self.seed_hex)

    def command(self, state: TableState, *, heavy: bool) -> None:
        check_conservation(state.game)
        if heavy and state.game.phase != OVER and self.rnd.random() < 0.2:
            self.oracle.check_view(state, self.seed_hex)

    def final(self, state: TableState, events: Sequence[Any]) -> None:
        check_final(state, list(events))


def start(setup: Setup, rnd: random.Random) -> c.StartGame:
    """The ruleset's start command, under the rules version ``setup.variant`` (ruling 32: a game under
    older rules, as the verifier re-decides them)."""
    names = [f"player-{i}" for i in range(setup.n)]
    command = RULESET.start_command(
        players=names,
        creator=rnd.choice([*names, None]),
        options=RULESET.parse_options(setup.options),
        seed=setup.seed,
    )
    rules = RULES if setup.variant is None else setup.variant
    return command if rules == command.rules else dataclasses.replace(command, rules=rules)


SPEC = Conformance(
    ruleset=RULESET,
    codes={code: error.kind for code, error in RULESET.types.errors.items()},  # the game's and the table's
    options=OPTIONS,
    junk=random_command,
    checks=GoodCrittersChecks,
    every_viewer=0.25,  # the oracle reads every viewer after every event
    start=start,
)


@rules_settings(examples=100)
@hgiven(setup=setups(SPEC))
def test_random_games_keep_every_invariant_after_every_event_r8_3(setup: Setup) -> None:
    """Heavy checks after every event, including the redaction oracle (R8.3) for every seat and spectators."""
    play(SPEC, setup, heavy=True)


@rules_settings(examples=1000)
@hgiven(setup=setups(SPEC))
def test_thousands_of_random_games_conserve_cards_and_end(setup: Setup) -> None:
    """Lighter checks after every command (conservation, replay, JSON), many more games."""
    play(SPEC, setup, heavy=False)
