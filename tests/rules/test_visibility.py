"""R8.3: what each player may see, through the view, the feed and the errors."""

from __future__ import annotations

import json

from games.rules.goodcritters import commands as c
from games.rules.goodcritters import events as e
from tests.rules.gc import RULESET

from .helpers import SEED, all_to, card, choose_all, default_stash, given, make_setup, start

TOP7 = [card(2000, k) for k in range(7)]


def test_a_seat_sees_its_own_stash_and_only_the_sizes_of_others_r8_3() -> None:
    g = all_to(given(start(5, setup=make_setup(5, top=TOP7))), 0).do(c.ChooseAction(seat=2, action="skim"))
    view = RULESET.view_for(g.table, 2)
    me, other = view["seats"][2], view["seats"][3]
    assert [x["id"] for x in me["stash"]] == sorted(default_stash(2))
    assert me["action"] == "skim"
    assert me["stash_value"] == 14000
    assert (other["stash"], other["action"], other["stash_value"], other["stash_size"]) == (
        None,
        None,
        None,
        4,
    )
    assert (view["pile"], view["seed"], view["scores"]) == (None, None, None)
    assert view["pile_size"] == g.state.pile_size
    assert [x["id"] for x in view["shares"][0]] == sorted(TOP7)  # what was dealt to whom is public
    assert [x["id"] for x in view["table"]] == TOP7


def test_a_spectator_sees_no_secrets_at_all_r8_3() -> None:
    g = all_to(given(start(5, setup=make_setup(5, top=TOP7))), 0).do(c.ChooseAction(seat=2, action="skim"))
    view = RULESET.view_for(g.table, None)
    assert all(s["stash"] is None and s["action"] is None for s in view["seats"])
    text = json.dumps(view)
    assert SEED.hex() not in text
    for event in g.events:
        shown = RULESET.redact_event(event, None, terminal=False)
        assert SEED.hex() not in json.dumps(shown)
    started = RULESET.redact_event(g.events[0], None, terminal=False)
    assert started["stashes"] == [None] * 5
    assert started["pile_size"] == 141 - 20


def test_the_whole_record_is_public_once_the_game_is_over_r8_3() -> None:
    g = given(start(5, setup=make_setup(5, top=TOP7, fuzz_at=7)))
    g = all_to(g, 0).do(c.PlaceThreat(seat=1, target=2))
    g = choose_all(g, {0: "vote_yes", 1: "rob", 2: "skim", 3: "vote_yes", 4: "vote_yes"})
    assert RULESET.is_terminal(g.table)
    view = RULESET.view_for(g.table, 3)
    assert all(s["stash"] is not None for s in view["seats"])
    assert view["scores"] == list(g.state.scores or ())
    robbed = g.last(e.RobSucceeded)
    assert RULESET.redact_event(robbed, 3, terminal=True)["card"] == robbed.card
    assert RULESET.redact_event(g.events[0], None, terminal=True)["seed"] == SEED.hex()


def test_errors_name_nothing_of_another_players_r8_3() -> None:
    g = all_to(given(start(5, options={"payoffs": True}, setup=make_setup(5, top=TOP7))), 0)
    theirs = default_stash(3)[0]
    error = g.when(c.GiveGift(seat=1, to=2, loot=(theirs,))).raises("card_not_in_stash")
    assert "your Stash" in error.message
    assert "3" not in json.dumps(error.details).replace(str(theirs), "")


def test_a_feed_never_skips_an_event_r8_3() -> None:
    g = all_to(given(start(5, setup=make_setup(5, top=TOP7))), 0)
    g = choose_all(g, dict.fromkeys(range(5), "vote_yes"))
    for viewer in (None, 0, 4):
        feed = [RULESET.redact_event(x, viewer, terminal=False) for x in g.events]
        assert [x["type"] for x in feed] == [x.TYPE for x in g.events]
