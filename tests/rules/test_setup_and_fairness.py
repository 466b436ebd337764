"""§1 Components and setup, §8 Fairness and replay."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from typing import TypeVar

import pytest

from games.rules import rng
from games.rules.core import Context, RuleError
from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from games.rules.goodcritters.cards import FUZZ, LOOT_COUNT, LOOT_TYPES, PILE_SPLIT, VALUES
from games.rules.table import commands as tc
from tests.rules.gc import RULESET

from .helpers import CTX, SEED, given, make_setup, players, start

T = TypeVar("T")

# --------------------------------------------------------------------------------------------------
# §1
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 9, 0])
def test_a_game_needs_four_to_eight_players_r1_1(n: int) -> None:
    """R1.1: 4 to 8 players."""
    command = RULESET.start_command(
        players=players(n), creator=None, options=RULESET.parse_options({}), seed=SEED
    )
    with pytest.raises(RuleError) as info:
        RULESET.decide(RULESET.initial_state(), command, CTX)
    assert info.value.code == "invalid_players"


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_every_player_count_from_four_to_eight_starts_r1_1(n: int) -> None:
    g = given(start(n))
    assert g.state.n == n
    assert g.state.phase == "distribute"
    assert len(g.state.table) == n + 2


def test_seats_follow_join_order_unless_shuffle_seats_r1_1() -> None:
    """R1.1: join order, or a seeded shuffle with ``shuffle_seats``."""
    assert given(start(6)).state.players == tuple(players(6))
    shuffled = [
        given(start(6, options={"shuffle_seats": True}, seed=bytes([i]) * 32)).state.players for i in range(8)
    ]
    assert all(sorted(p) == players(6) for p in shuffled)
    assert len(set(shuffled)) > 1
    again = given(start(6, options={"shuffle_seats": True}, seed=bytes([3]) * 32)).state.players
    assert again == shuffled[3]


def test_the_deck_is_140_loot_cards_35_of_each_value_r1_2() -> None:
    """R1.2: 35 of each of the four values; types are flavour, equal numbers, by the seeded shuffle."""
    assert LOOT_COUNT == 140
    assert Counter(VALUES) == {2000: 35, 3000: 35, 4000: 35, 5000: 35}
    types = given(start(5)).last(e.GameStarted).types
    assert Counter(types) == dict.fromkeys(LOOT_TYPES, 28)


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_each_player_starts_with_one_card_of_each_value_r1_3(n: int) -> None:
    """R1.3: one card of each value, taken out of the 140; the rest (and The Fuzz!) make the pile."""
    started = given(start(n, seed=bytes([n]) * 32)).last(e.GameStarted)
    for stash in started.stashes:
        assert sorted(VALUES[x] for x in stash) == [2000, 3000, 4000, 5000]
    everything = [x for s in started.stashes for x in s] + list(started.pile)
    assert sorted(everything) == list(range(LOOT_COUNT + 1))
    assert len(started.pile) == 140 - 4 * n + 1


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_the_fuzz_is_shuffled_into_part_k_of_p_parts_r1_4(n: int) -> None:
    """R1.4: the table (5 players: 7 parts, The Fuzz! in the fifth, two parts below it)."""
    parts, part = PILE_SPLIT[n]
    m = 140 - 4 * n
    sizes = [m // parts + (1 if j < m % parts else 0) for j in range(parts)]
    low = sum(sizes[: part - 1])
    high = low + sizes[part - 1]
    seen = set()
    for i in range(60):
        pile = given(start(n, seed=hashlib.sha256(bytes([n, i])).digest())).last(e.GameStarted).pile
        at = pile.index(FUZZ)
        assert low <= at <= high
        seen.add(at)
    assert len(seen) > 5
    assert PILE_SPLIT[5] == (7, 5)


@pytest.mark.parametrize(
    ("depth", "span"), [("short", (0.25, 0.50)), ("long", (0.75, 1.00)), ([0.1, 0.2], (0.1, 0.2))]
)
def test_alternate_game_length_puts_the_fuzz_in_its_span_r1_5(
    depth: object, span: tuple[float, float]
) -> None:
    """R1.5: ``fuzz_depth`` short | long | [from, to] of the pile, counted from the top."""
    m = 140 - 4 * 5
    for i in range(40):
        started = given(start(5, options={"fuzz_depth": depth}, seed=bytes([i]) * 32)).last(e.GameStarted)
        at = started.pile.index(FUZZ)
        assert span[0] * m - 1 <= at <= span[1] * m + 1


def test_the_fuzz_on_top_ends_the_game_at_the_first_step_1_r1_5_r5_1() -> None:
    g = given(start(5, options={"fuzz_depth": [0, 0]}))
    assert g.state.phase == "over"
    assert g.last(e.GameEnded).reason == "fuzz_reveal"


def test_the_creator_is_the_first_boss_else_the_first_seat_r1_6() -> None:
    """R1.6: "the owner of the game is always the first Boss"."""
    assert given(start(5, creator="p3")).state.boss == 3
    assert given(start(5, creator="someone-else")).state.boss == 0


def test_payoff_rules_give_five_payoff_cards_and_two_tokens_each_r1_7() -> None:
    """R1.7: 5 Payoff cards ($1,000 each), 2 tokens; kept apart from the Stash."""
    g = given(start(5, options={"payoffs": True}))
    assert g.state.payoff_cards == (5,) * 5
    assert len(g.state.bundles) == 10
    assert given(start(5)).state.payoff_cards == (0,) * 5


def test_an_operator_setup_fixes_seats_and_cards_and_is_marked_unfair() -> None:
    setup = make_setup(5, seats=["p4", "p3", "p2", "p1", "p0"], boss=2)
    started = given(start(5, setup=setup)).last(e.GameStarted)
    assert started.fair is False
    assert started.players == ("p4", "p3", "p2", "p1", "p0")
    assert started.boss == 2
    assert given(start(5)).last(e.GameStarted).fair is True


@pytest.mark.parametrize(
    "setup",
    [
        {"pile": [FUZZ]},
        {"stashes": [[0]] * 5, "pile": [*range(140), FUZZ]},
        {"seats": ["p0", "p1", "p2", "p3", "nobody"]},
        {"stashes": [[0]], "pile": [FUZZ]},
        {"boss": 7},
        {"colour": "red"},
    ],
)
def test_an_invalid_operator_setup_is_refused(setup: dict[str, object]) -> None:
    with pytest.raises(RuleError) as info:
        start(5, setup=setup)
    assert info.value.code == "invalid_setup"


def test_start_twice_is_refused() -> None:
    g = given(start(5))
    command = RULESET.start_command(
        players=players(5), creator=None, options=RULESET.parse_options({}), seed=SEED
    )
    g.when(command).raises("already_started")


def test_commands_before_the_start_are_refused() -> None:
    with pytest.raises(RuleError) as info:
        RULESET.decide(RULESET.initial_state(), c.ChooseAction(seat=0, action="rob"), CTX)
    assert info.value.code == "not_started"


# --------------------------------------------------------------------------------------------------
# §8
# --------------------------------------------------------------------------------------------------
def _block(seed: bytes, label: str, i: int) -> bytes:
    """The README's generator, written again from its text (an auditor's own implementation)."""
    return hmac.new(seed, label.encode() + b"\0" + i.to_bytes(8, "big"), hashlib.sha256).digest()


class _AuditStream:
    def __init__(self, seed: bytes, label: str) -> None:
        self.data = b"".join(_block(seed, label, i) for i in range(64))
        self.pos = 0

    def below(self, n: int) -> int:
        while True:
            x = int.from_bytes(self.data[self.pos : self.pos + 8], "big")
            self.pos += 8
            if x < 2**64 - 2**64 % n:
                return x % n

    def shuffle(self, items: list[T]) -> list[T]:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def test_the_generator_matches_its_published_test_vector_r8_1() -> None:
    """R8.1: the test vector of games/rules/README.md."""
    seed = bytes(range(32))
    assert rng.block(seed, "test/vector", 0).hex() == (
        "33939dc8cace42d4bd730da54d5c393b0c6523ced5326004656536ad76a7cf47"
    )
    stream = rng.Stream(seed, "test/vector")
    assert [stream.below(140) for _ in range(5)] == [56, 47, 92, 87, 79]
    assert rng.Stream(seed, "test/shuffle").shuffle(list(range(10))) == [4, 2, 5, 8, 3, 9, 7, 6, 0, 1]
    assert rng.salt(seed, "salt/0").hex() == "c021c2f1fab3ab67c676e257de8769cd"
    assert rng.commitment(rng.salt(seed, "salt/0"), {"action": "rob"}) == (
        "23a4e0913e96fb8a5bf7e76b13b3120c01af89534fa2d9733c17de24b6ad186b"
    )
    audit = _AuditStream(seed, "test/vector")
    assert [audit.below(140) for _ in range(5)] == [56, 47, 92, 87, 79]


def test_an_auditor_rederives_the_whole_setup_from_the_seed_r8_1() -> None:
    """R8.1: deck, Stashes, Fuzz place and types re-derived independently from the seed and the README."""
    seed = hashlib.sha256(b"audit").digest()
    started = given(start(5, seed=seed)).last(e.GameStarted)
    deck = _AuditStream(seed, "setup/deck").shuffle(list(range(140)))
    firsts: dict[int, list[int]] = {v: [x for x in deck if VALUES[x] == v] for v in (2000, 3000, 4000, 5000)}
    stashes = tuple(tuple(firsts[v][s] for v in (2000, 3000, 4000, 5000)) for s in range(5))
    assert started.stashes == stashes
    rest = [x for x in deck if x not in {y for s in stashes for y in s}]
    sizes = [120 // 7 + (1 if j < 120 % 7 else 0) for j in range(7)]
    at = sum(sizes[:4]) + _AuditStream(seed, "setup/fuzz").below(sizes[4] + 1)
    assert started.pile == (*rest[:at], FUZZ, *rest[at:])
    types = _AuditStream(seed, "setup/types").shuffle([t for t in LOOT_TYPES for _ in range(28)])
    assert started.types == tuple(types)


def test_the_seed_is_committed_at_start_and_revealed_at_the_end_r8_2() -> None:
    """R8.2: ``seed_commitment`` = SHA-256(seed) public; the seed hidden from all until GameEnded."""
    g = given(start(5, options={"fuzz_depth": [0.2, 0.3]}))
    assert g.state.phase != "over"
    started = g.last(e.GameStarted)
    assert started.seed_commitment == hashlib.sha256(SEED).hexdigest()
    for viewer in (None, 0, 1):
        shown = RULESET.redact_event(started, viewer, terminal=False)
        assert shown["seed"] is None
        assert shown["seed_commitment"] == started.seed_commitment
        assert SEED.hex() not in json.dumps(RULESET.view_for(g.table, viewer))
    # play until the end
    while g.state.phase != "over":
        seat = g.state.boss
        command = RULESET.bot_command(g.table, seat, strategy="sensible", salt=1)
        if command is None:
            for s in range(5):
                command = RULESET.bot_command(g.table, s, strategy="sensible", salt=1)
                if command is not None:
                    break
        assert command is not None
        g = g.do(command)
    ended = g.last(e.GameEnded)
    assert ended.seed == SEED.hex()
    assert RULESET.redact_event(ended, None, terminal=True)["seed"] == SEED.hex()
    assert RULESET.view_for(g.table, None)["seed"] == SEED.hex()


def test_a_chosen_action_is_committed_then_opened_at_the_reveal_r8_2() -> None:
    """Face-down choices: SHA-256(salt || canonical JSON) published when made, opened at the reveal."""
    g = given(start(5))
    g = g.do(c.DistributeLoot(seat=0, shares=(g.state.table, (), (), (), ())))
    g = g.do(c.ChooseAction(seat=1, action="rob"), c.ChooseAction(seat=1, action="vote_no"))
    chosen = g.all(e.ActionChosen)
    assert chosen[0].commitment != chosen[1].commitment
    for seat in (0, 2, 3, 4):
        g = g.do(c.ChooseAction(seat=seat, action="vote_yes"))
    for seat in range(5):
        g = g.do(tc.SetReady(seat=seat))
    revealed = next(x for x in g.events if isinstance(x, e.ActionRevealed) and x.seat == 1)
    assert revealed.action == "vote_no"
    assert revealed.salt is not None
    salt = bytes.fromhex(revealed.salt)
    assert rng.commitment(salt, {"action": "vote_no"}) == chosen[1].commitment
    assert rng.commitment(salt, {"action": "rob"}) != chosen[0].commitment


def test_replaying_the_events_gives_the_same_state_r8_2() -> None:
    g = given(start(6, options={"payoffs": True}))
    for _ in range(300):
        if g.state.phase == "over":
            break
        for seat in range(6):
            command = RULESET.bot_command(g.table, seat, strategy="random", salt=5)
            if command is not None:
                g = g.do(command)
                break
    assert RULESET.fold(g.events) == g.table
    again = [RULESET.event_from_json(json.loads(json.dumps(RULESET.event_to_json(x)))) for x in g.events]
    assert RULESET.fold(again) == g.table


def test_the_time_comes_in_through_the_context_only() -> None:
    later = Context(now=CTX.now.replace(year=2030))
    a = RULESET.decide(
        RULESET.initial_state(),
        RULESET.start_command(players=players(4), creator=None, options=RULESET.parse_options({}), seed=SEED),
        later,
    )
    b = start(4)
    assert a == b  # no deadlines: nothing depends on the time


def test_a_state_pickles_for_snapshots() -> None:
    import pickle

    g = given(start(6, options={"payoffs": True, "fuzz_depth": [0.5, 0.6]}))
    g = g.do(c.DistributeLoot(seat=0, shares=(g.state.table, (), (), (), (), ())))
    g = g.do(c.OfferPayoff(seat=1, token=0, side="yes", target=2, payoff_cards=1))
    assert pickle.loads(pickle.dumps(g.state)) == g.state  # noqa: S301 (our own bytes)
