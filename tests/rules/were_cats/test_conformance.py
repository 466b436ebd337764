"""Conformance: random bot games of Were-cats on the table, as registered (random and sensible bots, mixed)
across 2-5 players and the game's and the table's options, with the table's defaults (timeouts, resigned
seats, WC4.1), pauses, hand-overs and random, often illegal commands thrown in, played by the shared harness
(``tests/rules/conformance.py``: replay equals fold, JSON round trips, the seed never shows before the end,
WC4.2; every game ends, WC3.1). Were-cats' own checks after every event: 10 pennies, 6 nickels, 6 dimes and
the quarter always somewhere (WC1.1); after every command, a default for every seat the game waits on."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from hypothesis import given as hgiven
from hypothesis import strategies as st

from games.rules.registry import get_ruleset
from games.rules.table.ruleset import Table
from games.rules.table.state import TableState
from games.rules.were_cats import commands as c
from games.rules.were_cats.coins import KINDS
from games.rules.were_cats.game import GAME
from games.rules.were_cats.state import ACT, NEW, POPULATE, State

from ..conformance import Checks, Conformance, Setup, play, setups, table_options
from ..conftest import rules_settings
from .helpers import assert_conserved

RULESET = get_ruleset("were_cats")
assert isinstance(RULESET, Table)
OPTIONS = table_options(
    st.fixed_dictionaries({}, optional={"max_rounds": st.integers(1, 30)}), GAME.deadline_steps
)


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


class WereCatsChecks(Checks):
    def event(self, before: TableState, table: TableState, event: Any, *, heavy: bool) -> None:
        state: State = table.game
        if state.phase == NEW:
            return
        assert_conserved(state)
        # the quarter is always somewhere: between the players until the first Phase 1 ends, then held
        if state.phase in (POPULATE, ACT) or state.round > 1:
            assert state.quarter in range(state.n)
        assert state.step_no >= before.game.step_no

    def command(self, table: TableState, *, heavy: bool) -> None:
        state: State = table.game
        w = GAME.waiting(state)
        if w is None:
            return
        assert w.seats
        for seat in w.seats:
            assert GAME.default_command(state, seat, "timeout") is not None
            assert GAME.legal_commands(state, seat)

    def final(self, table: TableState, events: Sequence[Any]) -> None:
        state: State = table.game
        assert state.round <= state.options.max_rounds
        assert state.phase != NEW


def start(setup: Setup, rnd: random.Random) -> Any:
    """The ruleset's start command; now and then with an operator's first seat (WC1.3)."""
    first = {"first_seat": rnd.randrange(setup.n)} if rnd.random() < 0.2 else None
    players = [f"player-{i}" for i in range(setup.n)]
    options = RULESET.parse_options(setup.options)
    return RULESET.start_command(players=players, creator=None, options=options, seed=setup.seed, setup=first)


SPEC = Conformance(
    ruleset=RULESET,
    codes={code: error.kind for code, error in RULESET.types.errors.items()},
    options=OPTIONS,
    junk=lambda rnd, table: random_command(rnd, table.game),
    checks=WereCatsChecks,
    start=start,
    web=True,
    max_rounds=5_000,
)


@rules_settings(examples=170)
@hgiven(setup=setups(SPEC))
def test_random_games_conserve_the_coins_and_end_wc1_1_wc3_1(setup: Setup) -> None:
    play(SPEC, setup, heavy=True)
