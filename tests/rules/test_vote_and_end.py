"""§4 The vote and §5 The end."""

from __future__ import annotations

from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from tests.rules.gc import RULESET

from .helpers import Given, all_to, card, choose_all, given, make_setup, start

TOP7 = [card(2000, k) for k in range(7)]
NEXT = [card(3000, k) for k in range(10)]


def step3(n: int = 5, *, options: dict[str, object] | None = None, fuzz_at: int | None = None) -> Given:
    g = given(start(n, options=options, setup=make_setup(n, top=TOP7 + NEXT, fuzz_at=fuzz_at)))
    return all_to(g, 0)


def vote(g: Given, *actions: str) -> Given:
    return choose_all(g, dict(enumerate(actions)))


def test_a_passed_vote_awards_the_shares_and_keeps_the_boss_r4_1() -> None:
    """R4.1: Y > N: everyone adds their share; the Boss stays; next round at Step 1."""
    g = vote(step3(), "vote_yes", "vote_yes", "vote_no", "guard", "skim")
    assert g.all(e.VoteResolved)[0].outcome == "pass"
    assert set(TOP7) <= g.state.stashes[0]
    assert g.state.boss == 0
    assert g.all(e.RoundStarted)[-1] == e.RoundStarted(round=2, boss=0)
    assert g.last(e.LootRevealed).extra is False
    assert len(g.state.table) == 7


def test_a_tie_awards_the_shares_and_the_boss_passes_clockwise_r4_2() -> None:
    """R4.2: Y = N, 0 = 0 included."""
    g = vote(step3(), "guard", "guard", "skim", "guard", "guard")
    assert g.all(e.VoteResolved)[0] == e.VoteResolved(yes=0, no=0, outcome="tie")
    assert set(TOP7) <= g.state.stashes[0]
    assert g.state.boss == 1
    assert g.all(e.BossChanged)[0].reason == "tie"


def test_a_failed_vote_returns_the_cards_and_the_first_no_voter_clockwise_is_boss_r4_3() -> None:
    """R4.3: N > Y: the cards go back face up; the first No voter clockwise after the Boss is the new Boss;
    two more cards; the next round starts at Step 2."""
    g = vote(step3(), "vote_no", "vote_yes", "vote_yes", "vote_no", "vote_no")
    assert g.all(e.VoteResolved)[0] == e.VoteResolved(yes=2, no=3, outcome="fail")
    assert g.all(e.BossChanged)[0] == e.BossChanged(boss=3, previous=0, reason="vote_failed")
    assert not set(TOP7) & g.state.stashes[0]
    extra = g.last(e.LootRevealed)
    assert extra.extra is True
    assert extra.cards == tuple(NEXT[:2])
    assert g.state.table == (*TOP7, *NEXT[:2])
    assert g.state.phase == "distribute"
    assert g.state.boss == 3


def test_the_boss_s_lone_no_keeps_the_job_r4_4() -> None:
    """R4.4: Y = 0, N = 1 and that No is the Boss's: the Boss stays; two more cards; Step 2."""
    g = vote(step3(), "vote_no", "guard", "skim", "guard", "guard")
    assert g.all(e.VoteResolved)[0].outcome == "boss_keeps"
    assert not g.all(e.BossChanged)
    assert g.state.boss == 0
    assert len(g.state.table) == 9
    assert g.state.phase == "distribute"


def test_another_player_s_lone_no_fails_the_vote_in_the_english_rules_r4_3() -> None:
    g = vote(step3(), "guard", "guard", "skim", "vote_no", "guard")
    assert g.all(e.VoteResolved)[0].outcome == "fail"
    assert g.state.boss == 3


def test_the_russian_rule_passes_the_boss_clockwise_on_two_or_more_nos_r4_5() -> None:
    """R4.5: N > Y and N >= 2: the next player clockwise (whoever voted); N = 1: the Boss keeps the job."""
    g = vote(step3(options={"no_vote_rule": "russian"}), "vote_yes", "guard", "skim", "vote_no", "vote_no")
    assert g.all(e.VoteResolved)[0].outcome == "fail"
    assert g.state.boss == 1
    assert len(g.state.table) == 9
    g = vote(step3(options={"no_vote_rule": "russian"}), "guard", "guard", "skim", "vote_no", "guard")
    assert g.all(e.VoteResolved)[0].outcome == "boss_keeps"
    assert g.state.boss == 0
    assert g.state.phase == "distribute"


def test_after_the_vote_everyone_takes_back_cards_markers_and_tokens_r4_6() -> None:
    g = step3(options={"payoffs": True}).do(
        c.PlaceThreat(seat=1, target=2), c.OfferPayoff(seat=0, token=0, side="yes", target=1, payoff_cards=1)
    )
    g = vote(g, "vote_yes", "vote_yes", "vote_yes", "vote_yes", "vote_yes")
    assert g.state.threats == (None,) * 5
    assert g.state.actions == (None,) * 5
    assert g.state.bundles == (None,) * 10
    assert g.state.ready == (False,) * 5


def test_the_fuzz_in_step_1_ends_the_game_and_confiscates_the_table_r5_1() -> None:
    g = vote(step3(fuzz_at=10), "vote_yes", "vote_yes", "vote_yes", "vote_yes", "vote_yes")
    assert g.state.phase == "over"
    assert g.last(e.FuzzRevealed) == e.FuzzRevealed(cause="reveal", seat=None)
    assert g.last(e.LootConfiscated).cards == tuple(NEXT[:3])
    assert g.last(e.GameEnded).reason == "fuzz_reveal"
    assert RULESET.is_terminal(g.table)


def test_the_fuzz_among_the_two_extra_cards_ends_the_game_r5_1() -> None:
    g = vote(step3(fuzz_at=8), "vote_no", "vote_no", "vote_yes", "vote_yes", "vote_no")
    assert g.last(e.FuzzRevealed).cause == "extra"
    assert g.last(e.LootConfiscated).cards == (*TOP7, NEXT[0])
    assert g.last(e.GameEnded).reason == "fuzz_extra"


def test_the_fuzz_skimmed_lets_the_round_finish_then_ends_the_game_r5_2() -> None:
    """R5.2: the skimmer takes the next card instead; payoffs, vote and award happen; then the end."""
    g = vote(step3(fuzz_at=7), "vote_yes", "skim", "vote_yes", "vote_yes", "vote_yes")
    assert g.last(e.FuzzRevealed) == e.FuzzRevealed(cause="skim", seat=1)
    assert g.last(e.LootSkimmed) == e.LootSkimmed(seat=1, card=NEXT[0])
    assert set(TOP7) <= g.state.stashes[0]
    ended = g.last(e.GameEnded)
    assert ended.reason == "fuzz_skim"
    assert not g.all(e.LootConfiscated)


def test_a_failed_vote_after_the_fuzz_skimmed_confiscates_the_table_r5_2() -> None:
    g = vote(step3(fuzz_at=7), "vote_no", "skim", "vote_no", "vote_yes", "vote_no")
    assert g.last(e.LootConfiscated).cards == tuple(TOP7)
    assert not [x for x in g.all(e.LootRevealed) if x.extra]
    assert g.last(e.GameEnded).reason == "fuzz_skim"


def test_the_score_is_the_stash_plus_1000_per_payoff_card_and_ties_share_the_win_r5_3() -> None:
    g = given(start(5, options={"payoffs": True}, setup=make_setup(5, fuzz_at=0)))
    ended = g.last(e.GameEnded)
    assert ended.scores == (19000,) * 5
    assert ended.winners == (0, 1, 2, 3, 4)
    assert RULESET.scores(g.table) == (19000,) * 5


def test_the_highest_score_wins_r5_3() -> None:
    g = vote(step3(fuzz_at=10), "vote_yes", "vote_yes", "vote_yes", "vote_yes", "vote_yes")
    ended = g.last(e.GameEnded)
    assert ended.scores[0] == 14000 + 7 * 2000
    assert ended.winners == (0,)


def test_limited_boss_terms_pass_the_job_with_a_bonus_card_r5_4() -> None:
    """R5.4: after ``boss_term_limit`` rounds in a row and a pass or tie, the Boss passes clockwise and
    takes the top card of the pile."""
    g = vote(step3(options={"boss_term_limit": 1}), "vote_yes", "vote_yes", "vote_no", "guard", "skim")
    assert g.all(e.BossChanged)[0] == e.BossChanged(boss=1, previous=0, reason="term_limit")
    assert g.all(e.BossBonus)[0].seat == 0
    assert g.all(e.BossBonus)[0].card in g.state.stashes[0]
    assert RULESET.redact_event(g.all(e.BossBonus)[0], 2, terminal=False)["card"] is None


def test_limited_boss_terms_count_rounds_in_a_row_r5_4() -> None:
    g = vote(step3(options={"boss_term_limit": 2}), *["vote_yes"] * 5)
    assert not g.all(e.BossChanged)
    g = all_to(g, 0)
    g = vote(g, *["vote_yes"] * 5)
    assert g.all(e.BossChanged)[0].reason == "term_limit"


def test_a_failed_vote_gives_no_bonus_but_a_kept_job_counts_r5_4() -> None:
    g = vote(step3(options={"boss_term_limit": 1}), "vote_no", "guard", "skim", "guard", "guard")
    assert not g.all(e.BossBonus)
    assert g.state.boss_rounds == 1
    g = all_to(g, 0)
    g = vote(g, *["vote_yes"] * 5)
    assert g.all(e.BossBonus)[0].seat == 0


def test_the_fuzz_as_the_boss_bonus_ends_the_game_at_once_r5_4() -> None:
    g = vote(step3(options={"boss_term_limit": 1}, fuzz_at=7), *["vote_yes"] * 5)
    assert g.last(e.FuzzRevealed) == e.FuzzRevealed(cause="bonus", seat=0)
    assert g.last(e.BossBonus) == e.BossBonus(seat=0, card=NEXT[0])
    assert g.last(e.GameEnded).reason == "fuzz_bonus"
    assert g.state.phase == "over"


def test_commands_after_the_end_are_refused() -> None:
    g = given(start(5, setup=make_setup(5, fuzz_at=0)))
    g.when(c.ChooseAction(seat=1, action="rob")).raises("game_over")
