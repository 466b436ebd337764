"""§6 Payoff rules: payoffs, bundles, gifts, trades, messages."""

from __future__ import annotations

import pytest

from games.rules import rng
from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from games.rules.table import commands as tc
from games.rules.table import events as te
from tests.rules.gc import RULESET

from .helpers import Given, all_to, card, choose_all, default_stash, given, make_setup, start

TOP7 = [card(2000, k) for k in range(7)]
PAYOFFS = {"payoffs": True}


def step2(n: int = 5) -> Given:
    return given(start(n, options=PAYOFFS, setup=make_setup(n, top=TOP7)))


def step3(n: int = 5) -> Given:
    return all_to(step2(n), 0)


def shown(event: e.Event, viewer: int | None) -> dict[str, object]:
    return RULESET.redact_event(event, viewer, terminal=False)


def test_payoff_commands_need_the_payoff_rules_r6_1() -> None:
    g = all_to(given(start(5, setup=make_setup(5, top=TOP7))), 0)
    g.when(c.OfferPayoff(seat=1, token=0, side="yes", target=2, payoff_cards=1)).raises("payoffs_off")
    g.when(c.GiveGift(seat=1, to=2, loot=(default_stash(1)[0],))).raises("payoffs_off")


def test_a_payoff_bundle_leaves_the_stash_and_comes_back_when_withdrawn_r6_1() -> None:
    """R6.1: at least one card; in nobody's Stash while on the table; given back if withdrawn."""
    g = step3()
    mine = default_stash(1)[3]
    g.when(c.OfferPayoff(seat=1, token=0, side="yes", target=1, payoff_cards=1)).raises("cannot_pay_self")
    g.when(c.OfferPayoff(seat=1, token=0, side="yes", target=2)).raises("empty_bundle")
    g.when(c.OfferPayoff(seat=1, token=2, side="yes", target=2, payoff_cards=1)).raises("invalid_token")
    g.when(c.OfferPayoff(seat=1, token=0, side="maybe", target=2, payoff_cards=1)).raises("invalid_side")
    g.when(c.OfferPayoff(seat=1, token=0, side="yes", target=2, payoff_cards=6)).raises(
        "not_enough_payoff_cards"
    )
    g.when(c.OfferPayoff(seat=1, token=0, side="yes", target=2, loot=(0,))).raises("card_not_in_stash")
    g.when(c.OfferPayoff(seat=1, token=0, side="yes", target=2, loot=(mine, mine))).raises("duplicate_card")
    g.when(c.OfferPayoff(seat=1, token=0, side="yes", target=2, loot=(mine,), visibility="x")).raises(
        "invalid_visibility"
    )
    g = g.do(c.OfferPayoff(seat=1, token=0, side="yes", target=2, loot=(mine,), payoff_cards=2))
    assert mine not in g.state.stashes[1]
    assert g.state.payoff_cards[1] == 3
    g = g.do(c.WithdrawPayoff(seat=1, token=0))
    assert mine in g.state.stashes[1]
    assert g.state.payoff_cards[1] == 5
    g.when(c.WithdrawPayoff(seat=1, token=0)).raises("token_not_placed")


def test_placing_a_token_again_replaces_its_bundle_and_clears_both_targets_r6_1_r2_4() -> None:
    g = step3().do(
        c.ChooseAction(seat=2, action="vote_yes"),
        tc.SetReady(seat=2),
        c.ChooseAction(seat=3, action="vote_yes"),
        tc.SetReady(seat=3),
    )
    g = g.do(c.OfferPayoff(seat=1, token=0, side="yes", target=2, payoff_cards=5))
    assert not g.state.ready[2]
    g = g.do(tc.SetReady(seat=2), c.OfferPayoff(seat=1, token=0, side="no", target=3, payoff_cards=4))
    assert g.last(e.PayoffOffered).unready == (2, 3)
    assert g.state.payoff_cards[1] == 1
    bundle = g.state.bundle(1, 0)
    assert bundle is not None
    assert bundle.target == 3


def test_bundled_cards_cannot_be_robbed_r6_1() -> None:
    stash1 = default_stash(1)
    g = step3().do(
        c.OfferPayoff(seat=1, token=0, side="yes", target=3, loot=stash1[:3], visibility="hidden"),
        c.PlaceThreat(seat=2, target=1),
    )
    g = choose_all(g, {0: "vote_yes", 1: "vote_no", 2: "rob", 3: "vote_no", 4: "vote_yes"})
    assert g.last(e.RobSucceeded).card == stash1[3]
    assert set(stash1[:3]) <= g.state.stashes[1]  # the bundle went back after the rob


@pytest.mark.parametrize(
    ("visibility", "sees"),
    [("open", {0, 1, 2, 3, 4, None}), ("peek", {1, 2}), ("hidden", {1})],
)
def test_bundle_loot_is_open_peek_or_hidden_r6_2(visibility: str, sees: set[int | None]) -> None:
    """R6.2: open (everyone), peek (the target too), hidden (the giver only); counts always public."""
    loot = default_stash(1)[:2]
    g = step3().do(
        c.OfferPayoff(seat=1, token=1, side="no", target=2, loot=loot, visibility=visibility, payoff_cards=1)
    )
    offered = g.last(e.PayoffOffered)
    for viewer in (0, 1, 2, 3, 4, None):
        out = shown(offered, viewer)
        assert (out["loot"] is not None) == (viewer in sees)
        assert (out["loot_count"], out["payoff_cards"], out["side"]) == (2, 1, "no")
        bundle = RULESET.view_for(g.table, viewer)["payoffs"][0]
        assert (bundle["loot"] is not None) == (viewer in sees)
        assert bundle["loot_count"] == 2
    if visibility != "open":
        assert offered.commitment is not None
        # a hidden bundle's commitment opens at the reveal, for those who see its cards
        g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "vote_yes", 3: "vote_yes", 4: "vote_yes"})
        resolved = g.last(e.PayoffResolved)
        assert resolved.taken is False
        assert resolved.salt is not None
        salt = bytes.fromhex(resolved.salt)
        assert rng.commitment(salt, {"loot": sorted(loot)}) == offered.commitment
        assert shown(resolved, 3)["salt"] is None


def test_the_target_takes_the_bundle_when_its_card_matches_the_token_r6_3() -> None:
    """R6.3: No token + Vote No, or Yes token + Vote Yes: the target takes it; else it goes back."""
    loot = (default_stash(1)[0],)
    g = step3().do(
        c.OfferPayoff(seat=1, token=0, side="no", target=2, loot=loot, visibility="hidden"),
        c.OfferPayoff(seat=1, token=1, side="yes", target=3, payoff_cards=2),
    )
    g = choose_all(g, {0: "vote_yes", 1: "vote_yes", 2: "vote_no", 3: "guard", 4: "vote_yes"})
    resolved = g.all(e.PayoffResolved)
    assert [(x.target, x.taken) for x in resolved] == [(2, True), (3, False)]
    assert loot[0] in g.state.stashes[2]
    assert shown(resolved[0], 2)["loot"] == list(loot)  # a taken hidden bundle is seen by its taker
    assert shown(resolved[0], 4)["loot"] is None
    assert g.state.payoff_cards[1] == 5


def test_a_gift_moves_cards_at_once_and_others_see_only_counts_r6_4() -> None:
    g = step2()  # gifts work in Step 2 too
    gift = c.GiveGift(seat=1, to=2, loot=(default_stash(1)[2],), payoff_cards=2)
    g = g.do(gift)
    assert default_stash(1)[2] in g.state.stashes[2]
    assert g.state.payoff_cards[1:3] == (3, 7)
    given_ = g.last(e.GiftGiven)
    assert shown(given_, 2)["loot"] == [default_stash(1)[2]]
    assert shown(given_, 3)["loot"] is None
    assert shown(given_, 3)["loot_count"] == 1
    g.when(c.GiveGift(seat=1, to=1, payoff_cards=1)).raises("cannot_gift_self")
    g.when(c.GiveGift(seat=1, to=2)).raises("empty_gift")
    g.when(c.GiveGift(seat=1, to=2, payoff_cards=-1)).raises("invalid_count")


def test_an_accepted_trade_swaps_both_sides_at_once_r6_4() -> None:
    """R6.4 / DECISIONS.md: exact cards offered, values wanted; the acceptor names matching cards."""
    g = step2()
    five = default_stash(1)[3]
    g = g.do(c.OfferTrade(seat=1, to=2, give_loot=(five,), want_payoff=3))
    offer = g.last(e.TradeOffered)
    assert shown(offer, 3)["give_loot"] is None
    assert shown(offer, 2)["give_loot"] == [five]
    g.when(c.AcceptTrade(seat=3, trade_id=offer.trade_id)).raises("not_your_trade")
    g = g.do(c.AcceptTrade(seat=2, trade_id=offer.trade_id))
    assert five in g.state.stashes[2]
    assert g.state.payoff_cards[1:3] == (8, 2)
    g.when(c.AcceptTrade(seat=2, trade_id=offer.trade_id)).raises("no_such_trade")


def test_payoff_cards_are_bought_with_loot_by_value_r6_4() -> None:
    g = step2().do(c.OfferTrade(seat=1, to=2, give_payoff=4, want_values=(5000,)))
    trade_id = g.last(e.TradeOffered).trade_id
    g.when(c.AcceptTrade(seat=2, trade_id=trade_id, loot=(default_stash(2)[0],))).raises("trade_mismatch")
    g.when(c.AcceptTrade(seat=2, trade_id=trade_id, loot=(default_stash(1)[3],))).raises("card_not_in_stash")
    g = g.do(c.AcceptTrade(seat=2, trade_id=trade_id, loot=(default_stash(2)[3],)))
    assert default_stash(2)[3] in g.state.stashes[1]
    assert g.state.payoff_cards[1:3] == (1, 9)


def test_a_trade_fails_cleanly_when_the_offerer_no_longer_holds_its_side_r6_4() -> None:
    g = step2().do(c.OfferTrade(seat=1, to=2, give_payoff=5, want_values=(2000,)))
    g = g.do(c.GiveGift(seat=1, to=3, payoff_cards=1))
    trade_id = g.last(e.TradeOffered).trade_id
    g = g.when(c.AcceptTrade(seat=2, trade_id=trade_id, loot=(default_stash(2)[0],))).then(
        e.TradeFailed(trade_id=trade_id, seat=2, offerer=1, unready=())
    )
    assert g.state.trades == ()
    assert default_stash(2)[0] in g.state.stashes[2]


def test_trades_can_be_declined_or_withdrawn_and_lapse_when_the_step_closes_r6_4() -> None:
    g = step2().do(
        c.OfferTrade(seat=1, to=2, give_payoff=1, want_payoff=1),
        c.OfferTrade(seat=1, to=3, give_payoff=1, want_payoff=1),
        c.OfferTrade(seat=4, to=2, give_payoff=1, want_payoff=1),
    )
    ids = [x.trade_id for x in g.all(e.TradeOffered)]
    g.when(c.WithdrawTrade(seat=2, trade_id=ids[0])).raises("not_your_trade")
    g.when(c.DeclineTrade(seat=1, trade_id=ids[0])).raises("not_your_trade")
    g = g.do(c.DeclineTrade(seat=2, trade_id=ids[0]), c.WithdrawTrade(seat=1, trade_id=ids[1]))
    assert [t.trade_id for t in g.state.trades] == [ids[2]]
    g = all_to(g, 0)
    assert g.last(e.TradesLapsed).trade_ids == (ids[2],)
    assert g.state.trades == ()
    g.when(c.OfferTrade(seat=1, to=2, give_payoff=1)).raises("empty_trade")
    g.when(c.OfferTrade(seat=1, to=2, give_payoff=1, want_values=(1000,))).raises("invalid_values")


def test_messages_are_part_of_the_record_public_or_private_r6_5() -> None:
    g = step2().do(tc.SendMessage(seat=1, text="Trust me!"), tc.SendMessage(seat=1, text="psst", to=(2,)))
    public, private = g.all(te.MessageSent)
    assert shown(public, None)["text"] == "Trust me!"
    assert shown(private, 2)["text"] == "psst"
    assert shown(private, 1)["text"] == "psst"
    assert shown(private, 3)["text"] is None
    assert shown(private, None)["to"] is None
    g.when(tc.SendMessage(seat=1, text="   ")).raises("invalid_message")
    g.when(tc.SendMessage(seat=1, text="x" * 2001)).raises("invalid_message")
    g.when(tc.SendMessage(seat=1, text="hi", to=(1,))).raises("invalid_message")
    g.when(tc.SendMessage(seat=1, text="hi", to=())).raises("invalid_message")
