"""Wounds and the dead (LT5), the end and the score (LT6)."""

from __future__ import annotations

from games.rules.loose_triggers import decide as d
from games.rules.loose_triggers.commands import Aim, CloseStep, ElectBagman, GiveLoot
from games.rules.loose_triggers.events import (
    BagmanChanged,
    BagmanElected,
    Died,
    GameEnded,
    Wounded,
)
from games.rules.loose_triggers.state import State, setitem, update
from games.rules.loose_triggers.waiting import waiting

from .helpers import discussion, given, of, refused, start_events, when


def _dealt(n: int = 4, **kwargs: object) -> State:
    state = given(start_events(n, **kwargs))  # type: ignore[arg-type]
    for seat in range(n):
        assert state.bagman is not None
        _, state = when(state, GiveLoot(seat=state.bagman, slot=0, to=seat))
    return state


def _wounds(state: State, **by_seat: int) -> State:
    wounds = state.wounds
    for key, value in by_seat.items():
        wounds = setitem(wounds, int(key[1:]), value)
    return update(state, wounds=wounds)


def test_lt5_1_four_wounds_kill_and_the_killer_takes_the_loot_and_the_bagman_card() -> None:
    """LT5.1: the fourth Wound kills; the killer takes all the Loot; a dead Bagman's job goes
    to the killer."""
    state = _wounds(_dealt(4), s0=3)  # seat 0 is the Bagman, holding card 0
    events, state = discussion(state, [(1, 0)], {1: 2})
    assert of(events, Wounded)[0].wounds == 4
    died = of(events, Died)[0]
    assert died.seat == 0
    assert died.killer == 1
    assert died.loot_to == "killer"
    assert of(events, BagmanChanged)[0] == BagmanChanged(seat=1, cause="killed")
    assert state.stacks[1] == (0, 1)
    assert state.bagman == 1
    assert not state.alive[0]
    assert state.step == "claim"  # the hit Bagman's spoils: a displayed card may still be claimed


def test_lt5_1_a_crossfire_death_gives_loot_and_bagman_card_to_the_crossfire_player() -> None:
    """LT5.1."""
    hands = [(1, 13), (31, 2), (3,), (4,)]
    state = _wounds(_dealt(4, hands=hands), s0=3)
    events, state = discussion(state, [(0, 1), (2, 1), (1, 3)], {0: 1, 1: 31})
    died = of(events, Died)[0]
    assert died.seat == 0
    assert died.killer == 1
    assert died.loot_to == "killer"
    assert of(events, BagmanChanged)[0] == BagmanChanged(seat=1, cause="crossfire")
    assert state.stacks[1] == (0, 1)


def test_lt5_2_a_dead_gunner_still_fires_but_takes_nothing_and_a_bagman_so_killed_is_elected() -> None:
    """LT5.2/LT5.3: seat 1's BANG! 1 kills seat 0 first; seat 0's BANG! 2 then kills the Bagman, seat 1:
    seat 1's Loot is discarded, nobody gets the Bagman card, an election follows; hands go to the discard."""
    hands = [(2, 13), (1, 14), (3,), (4,)]
    state = _wounds(_dealt(4, hands=hands, bagman=1), s0=3, s1=3)
    events, state = discussion(state, [(1, 0), (0, 1)], {0: 2, 1: 1})
    deaths = of(events, Died)
    assert [(x.seat, x.killer, x.loot_to) for x in deaths] == [(0, 1, "killer"), (1, 0, "discard")]
    assert state.deaths == (0, 1)  # LT5.3: in the order of the killing Wounds
    assert of(events, BagmanChanged)[0] == BagmanChanged(seat=-1, cause="vacant")
    assert 13 in state.action_discard
    assert 14 in state.action_discard
    assert set(state.loot_discard) == {0, 1}
    assert state.step == "elect"


def test_lt5_3_a_crossfire_wound_happens_at_the_bang_that_caused_it() -> None:
    """LT5.3: deaths in the order the Wounds happened during resolution."""
    hands = [(2, 13), (31, 14), (1,), (4,)]
    state = _wounds(_dealt(4, hands=hands), s0=3, s3=3)
    # BANG! 1 (seat 2) kills seat 3 first; BANG! 2 (seat 0) into seat 1's CROSSFIRE! kills seat 0
    events, state = discussion(state, [(2, 3), (0, 1), (3, 1), (1, 2)], {2: 1, 0: 2, 1: 31})
    assert [x.seat for x in of(events, Died)] == [3, 0]
    assert state.deaths == (3, 0)


def test_lt5_4_the_living_elect_a_bagman_most_votes_wins() -> None:
    """LT5.4: ElectBagman; the vote closes when every voter voted; most votes wins."""
    hands = [(2, 13), (1, 14), (3,), (4,)]
    state = _wounds(_dealt(4, hands=hands, bagman=1), s0=3, s1=3)
    _, state = discussion(state, [(1, 0), (0, 1)], {0: 2, 1: 1})
    w = waiting(state)
    assert w is not None
    assert w.seats == frozenset({2, 3})
    assert w.deadline == "give"
    refused(state, ElectBagman(seat=2, candidate=0), "invalid_candidate")
    _, state = when(state, ElectBagman(seat=2, candidate=3))
    refused(state, ElectBagman(seat=2, candidate=2), "already_voted")
    events, state = when(state, ElectBagman(seat=3, candidate=3))
    assert of(events, BagmanElected)[0].seat == 3
    assert state.bagman == 3
    assert state.step == "give"


def test_lt5_4_a_tie_or_no_vote_goes_clockwise_from_the_dead_bagman() -> None:
    """LT5.4: a tie: the next living player clockwise from the dead Bagman; a Discussion during the vote
    suspends it and clears the votes; it restarts afterwards."""
    hands = [(2, 13), (1, 14), (3, 21), (4, 22)]
    state = _wounds(_dealt(4, hands=hands, bagman=1), s0=3, s1=3)
    _, state = discussion(state, [(1, 0), (0, 1)], {0: 2, 1: 1})
    _, state = when(state, ElectBagman(seat=2, candidate=2))
    _, state = when(state, Aim(seat=3, target=2))  # seat 3 opened none in this display
    assert state.votes == (None,) * 4
    _, state = discussion(state, [], {3: 22})
    assert state.step == "elect"
    _, state = when(state, ElectBagman(seat=2, candidate=2))
    events, state = when(state, ElectBagman(seat=3, candidate=3))
    elected = of(events, BagmanElected)[0]
    assert elected.tie
    assert elected.seat == 2  # clockwise from seat 1


def test_lt5_4_no_vote_at_the_deadline() -> None:
    """LT5.4: the table closes the vote: no vote gives the job clockwise."""
    hands = [(2, 13), (1, 14), (3,), (4,)]
    state = _wounds(_dealt(4, hands=hands, bagman=1), s0=3, s1=3)
    _, state = discussion(state, [(1, 0), (0, 1)], {0: 2, 1: 1})
    events, state = when(state, CloseStep(seat=None, step_no=state.step_no))
    assert of(events, BagmanElected)[0].seat == 2


def test_lt6_1_the_game_ends_when_the_loot_is_gone() -> None:
    """LT6.1: no Loot displayed and the deck empty."""
    state = given(start_events(4))
    state = update(state, loot_deck=(), loot_discard=tuple(range(4, 56)))
    for _ in range(3):
        _, state = when(state, GiveLoot(seat=0, slot=0, to=1))
    events, state = when(state, GiveLoot(seat=0, slot=0, to=2))
    ended = of(events, GameEnded)[0]
    assert ended.reason == "loot_gone"
    assert state.phase == "over"
    refused(state, GiveLoot(seat=0, slot=0, to=2), "game_over")


def test_lt6_1_a_lone_survivor_wins_once_the_discussion_has_resolved() -> None:
    """LT6.1 (README ruling 13): the last alive is the sole winner; the score is still computed."""
    state = _dealt(4)
    state = update(state, alive=(True, True, False, False), deaths=(2, 3), wounds=(0, 3, 4, 4))
    events, state = discussion(state, [(0, 1)], {0: 1})
    ended = of(events, GameEnded)[0]
    assert ended.reason == "last_alive"
    assert ended.winners == (0,)
    assert ended.scores == state.scores


def test_lt6_1_if_nobody_is_alive_ranks_follow_the_deaths_and_nobody_gets_the_bonus() -> None:
    """LT6.1."""
    state = given(start_events(4, pals=(1, 2, 3, 0)))
    state = update(state, alive=(False,) * 4, deaths=(2, 0, 3, 1))
    run = d._Run(state)
    d._settle(run)
    ended = of(run.events, GameEnded)[0]
    assert ended.reason == "none_alive"
    assert ended.ranks == (2, 4, 1, 3)
    assert ended.bonus == (0, 0, 0, 0)
    assert ended.scores == (6, 5, 4, 5)


def _example() -> State:
    """The rulebook's example: Steve $25,000, Mia $18,000, Joe $6,000, Nancy killed second, Dwight first."""
    steve = (34, 35, 30, 31, 32, 33, 24, 8)
    mia = (25, 26, 27, 28, 29, 16, 17, 18, 19, 9, 10)
    joe = (20, 21, 22, 23)
    state = given(start_events(5, pals=(3, 0, 1, 4, 2)))
    used = set(steve + mia + joe)
    return update(
        state,
        stacks=(steve, mia, joe, (), ()),
        alive=(True, True, True, False, False),
        deaths=(4, 3),
        display=(),
        display_down=(),
        loot_deck=(),
        loot_discard=tuple(c for c in range(56) if c not in used),
    )


def test_lt6_2_and_lt6_3_the_rulebooks_worked_example() -> None:
    """LT6.2/LT6.3: ranks 5 (+1), 4, 3, 2, 1; Steve 5+1+2 = 8, Mia 4+5 = 9 (the +1 is Steve's own only),
    Joe 3+4 = 7; Mia wins."""
    run = d._Run(_example())
    d._settle(run)
    ended = of(run.events, GameEnded)[0]
    assert ended.values[:3] == (25000, 18000, 6000)
    assert ended.ranks == (5, 4, 3, 2, 1)
    assert ended.bonus == (1, 0, 0, 0, 0)
    assert ended.scores[:3] == (8, 9, 7)
    assert ended.winners == (1,)


def test_lt6_2_equal_values_share_the_higher_rank_and_the_bonus() -> None:
    """LT6.2: 5, 5, 3; both top survivors get the +1."""
    state = _example()
    state = update(state, stacks=((34,), (35,), (30,), (), ()))
    state = update(state, loot_discard=tuple(c for c in range(56) if c not in (34, 35, 30)))
    ranks = d.final_ranks(state)
    assert ranks[1] == (5, 5, 3, 2, 1)
    assert ranks[2] == (1, 1, 0, 0, 0)


def test_lt6_3_ties_go_to_the_higher_loot_value_then_share() -> None:
    """LT6.3: equal scores: the higher Loot value wins; equal again: a shared win."""
    state = _example()
    # Steve 5+1 + Nancy... make Steve's Pal Mia (4): 10; Mia's Pal Steve: 4 + 5 = 9 -> Steve alone
    state = update(state, pals=(1, 0, 3, 4, 2))
    run = d._Run(state)
    d._settle(run)
    assert of(run.events, GameEnded)[0].winners == (0,)
    # Joe ties Mia at 9 with a Pal ranked 5 +1 excluded: Joe 3 + Steve 5 = 8; make Joe rank 4 with Mia
    state = update(state, pals=(3, 2, 0, 4, 1), stacks=((34,), (35,), (), (), ()))
    state = update(state, loot_discard=tuple(c for c in range(56) if c not in (34, 35)))
    run = d._Run(state)
    d._settle(run)
    ended = of(run.events, GameEnded)[0]
    assert ended.ranks[:3] == (5, 5, 3)
    # Steve 5+1+2 = 8, Mia 5+1+3 = 9, Joe 3+5 = 8: Mia wins
    assert ended.scores[:3] == (8, 9, 8)
    assert ended.winners == (1,)
    state = update(state, pals=(2, 0, 1, 4, 3))
    run = d._Run(state)
    d._settle(run)
    ended = of(run.events, GameEnded)[0]
    # Steve 5+1+3 = 9, Mia 5+1+5 = 11, Joe 3+5 = 8
    assert ended.winners == (1,)
    state = update(state, pals=(1, 0, 3, 4, 2))
    run = d._Run(state)
    d._settle(run)
    ended = of(run.events, GameEnded)[0]
    assert ended.scores[:2] == (11, 11)  # equal scores, equal $5,000: a shared win
    assert ended.winners == (0, 1)


def test_lt6_1_resign_then_end_a_resigned_seat_cannot_win() -> None:
    """LT7.3 with LT6.3: the resigned best score does not win."""
    state = _example()
    state = update(state, resigned=(False, True, False, False, False))
    run = d._Run(state)
    d._settle(run)
    assert of(run.events, GameEnded)[0].winners == (0,)
