"""The rulebook's worked examples (seeds/001), played through the engine with an operator setup."""

from __future__ import annotations

from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from games.rules.table import commands as tc

from .helpers import Given, card, default_stash, distribute, given, make_setup, start

AL, BONNIE, LOUIE, KATE, SAMMY = range(5)
NAMES = ["Al", "Bonnie", "Louie", "Kate", "Sammy"]
SEVEN = [
    card(5000, 0),
    card(2000, 0),
    card(3000, 0),
    card(5000, 1),
    card(4000, 0),
    card(3000, 1),
    card(2000, 1),
]


def five_player_game(options: dict[str, object] | None = None, names: list[str] = NAMES) -> Given:
    return given(start(5, names=names, creator=names[0], options=options, setup=make_setup(5, top=SEVEN)))


def test_al_turns_over_seven_cards_for_five_players_r2_1() -> None:
    """R2.1: "Al's the Boss, so he turns over the top 7 Loot cards (5 players +2 cards)". R1.6: the creator
    is the first Boss."""
    g = five_player_game()
    assert g.state.boss == AL
    revealed = g.last(e.LootRevealed)
    assert revealed.cards == tuple(SEVEN)
    assert g.state.phase == "distribute"


def test_al_gives_two_to_bonnie_two_to_sammy_keeps_two_and_tosses_one_to_louie_r2_2() -> None:
    """R2.2: any split, the Boss included, every face-up card assigned, one final command."""
    g = five_player_game()
    best_two = [card(5000, 0), card(5000, 1)]
    shares = {
        AL: best_two,
        BONNIE: [card(4000, 0), card(2000, 0)],
        SAMMY: [card(3000, 0), card(3000, 1)],
        LOUIE: [card(2000, 1)],
    }
    g = distribute(g, shares)
    dealt = g.last(e.LootDistributed)
    assert dealt.shares[AL] == tuple(best_two)
    assert dealt.shares[KATE] == ()
    assert g.state.phase == "choose"
    # the shares cannot be changed during Step 3
    g.when(c.DistributeLoot(seat=AL, shares=dealt.shares)).raises("wrong_step")


def test_the_threat_example_sammy_louie_and_bonnie_r2_5_r3_5() -> None:
    """Threat example: Sammy threatens Louie (A), Louie threatens Sammy (B), Bonnie threatens Sammy (C).
    With Sammy guarding, both robbers lose a random card to him (R3.5), his Guard shows once (R3.4); the
    vote Yes 1 / No 1 is a tie (R4.2): the cards are awarded, the Boss passes to Bonnie."""
    g = five_player_game()
    g = distribute(
        g,
        {
            AL: [card(5000, 0), card(5000, 1)],
            BONNIE: [card(4000, 0), card(2000, 0)],
            SAMMY: [card(3000, 0), card(3000, 1)],
            LOUIE: [card(2000, 1)],
        },
    )
    g = g.do(
        c.PlaceThreat(seat=SAMMY, target=LOUIE),
        c.PlaceThreat(seat=LOUIE, target=SAMMY),
        c.PlaceThreat(seat=BONNIE, target=SAMMY),
    )
    assert g.state.threats == (None, SAMMY, SAMMY, None, LOUIE)
    g = g.do(
        c.ChooseAction(seat=AL, action="vote_yes"),
        c.ChooseAction(seat=BONNIE, action="rob"),
        c.ChooseAction(seat=LOUIE, action="rob"),
        c.ChooseAction(seat=KATE, action="vote_no"),
        c.ChooseAction(seat=SAMMY, action="guard"),
    )
    mark = len(g.events)
    for seat in range(5):
        g = g.do(tc.SetReady(seat=seat))
    step4 = g.since(mark)
    reveals = [x.seat for x in step4 if isinstance(x, e.ActionRevealed)]
    assert reveals == [AL, BONNIE, SAMMY, LOUIE, KATE]  # Sammy's Guard out of turn, not again on his turn
    early = [x for x in step4 if isinstance(x, e.ActionRevealed) and x.early]
    assert [(x.seat, x.action) for x in early] == [(SAMMY, "guard")]
    guarded = [x for x in step4 if isinstance(x, e.RobGuarded)]
    assert [(x.robber, x.guard) for x in guarded] == [(BONNIE, SAMMY), (LOUIE, SAMMY)]
    assert guarded[0].card in default_stash(BONNIE)
    assert guarded[1].card in default_stash(LOUIE)
    assert g.all(e.VoteResolved)[0] == e.VoteResolved(yes=1, no=1, outcome="tie")
    assert g.all(e.BossChanged)[0] == e.BossChanged(boss=BONNIE, previous=AL, reason="tie")
    assert card(3000, 0) in g.state.stashes[SAMMY]
    assert g.state.boss == BONNIE
    assert g.all(e.RoundStarted)[-1] == e.RoundStarted(round=2, boss=BONNIE)


def test_the_payoff_example_r6_1_r6_3() -> None:
    """Payoff example: Al puts a Yes token with 2 Payoff cards in front of Sammy and a Yes token with 1 Loot
    card and 1 Payoff card in front of Bonnie. Sammy (right after Al) reveals No: the cards go back to Al.
    Bonnie reveals Yes: she keeps the Loot card and the Payoff card. Al takes his tokens back (R4.6)."""
    seats = ["Al", "Sammy", "Louie", "Kate", "Bonnie"]  # "Sammy takes his turn after Al"
    al, sammy, louie, kate, bonnie = range(5)
    g = five_player_game({"payoffs": True}, names=seats)
    g = distribute(g, {al: SEVEN})
    al_loot = default_stash(al)[0]
    g = g.do(
        c.OfferPayoff(seat=al, token=0, side="yes", target=sammy, payoff_cards=2),
        c.OfferPayoff(
            seat=al, token=1, side="yes", target=bonnie, loot=(al_loot,), visibility="open", payoff_cards=1
        ),
    )
    assert g.state.payoff_cards[al] == 2  # 5 - 2 - 1: the bundles are in nobody's hands (R6.1)
    assert al_loot not in g.state.stashes[al]
    mark = len(g.events)
    g = g.do(
        c.ChooseAction(seat=al, action="vote_yes"),
        c.ChooseAction(seat=sammy, action="vote_no"),
        c.ChooseAction(seat=louie, action="vote_yes"),
        c.ChooseAction(seat=kate, action="vote_yes"),
        c.ChooseAction(seat=bonnie, action="vote_yes"),
    )
    for seat in range(5):
        g = g.do(tc.SetReady(seat=seat))
    resolved = [x for x in g.since(mark) if isinstance(x, e.PayoffResolved)]
    assert [(x.target, x.taken) for x in resolved] == [(sammy, False), (bonnie, True)]
    assert g.state.payoff_cards[al] == 4
    assert g.state.payoff_cards[sammy] == 5
    assert g.state.payoff_cards[bonnie] == 6
    assert al_loot in g.state.stashes[bonnie]
    assert all(b is None for b in g.state.bundles)  # tokens back with their owner
