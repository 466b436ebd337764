"""Discussions played by web (LT3)."""

from __future__ import annotations

from games.rules import rng
from games.rules.loose_triggers.commands import Aim, ChooseAction, CloseStep, GiveLoot
from games.rules.loose_triggers.events import ActionChosen, ActionsRevealed, Aimed, CountdownEnded
from games.rules.loose_triggers.options import Options
from games.rules.loose_triggers.views import redact_event, view_for
from games.rules.loose_triggers.waiting import default_command, legal_commands, waiting

from .helpers import SEED, discussion, given, of, refused, start_events, types, when


def test_lt3_1_any_living_player_opens_a_discussion_by_aiming() -> None:
    """LT3.1: the aimer is a Gunner and the Counter; the Countdown opens with the option's seconds."""
    state = given(start_events(4, options=Options(countdown=45)))
    refused(state, Aim(seat=1, target=1), "invalid_target")
    refused(state, Aim(seat=1, target=9), "invalid_seat")
    events, state = when(state, Aim(seat=1, target=2))
    assert of(events, Aimed)[0] == Aimed(seat=1, target=2, how="open")
    assert state.discussion == "countdown"
    assert state.counter == 1
    assert state.aims[1] == 2
    w = waiting(state)
    assert w is not None
    assert w.step == "countdown"
    assert w.seconds == 45
    assert w.seats == frozenset()
    assert default_command(state, 1, "timeout") is None


def test_lt3_2_joining_and_changing_target_restart_the_countdown() -> None:
    """LT3.2: a join or a change opens a new Countdown (new step_no) and makes the Counter; the Counter
    cannot change target; at most max_retargets changes each; nobody leaves."""
    state = given(start_events(5, options=Options(max_retargets=1)))
    _, state = when(state, Aim(seat=0, target=1))
    first = state.step_no
    events, state = when(state, Aim(seat=2, target=0))
    assert of(events, Aimed)[0].how == "join"
    assert state.counter == 2
    assert state.step_no == first + 1
    refused(state, Aim(seat=2, target=3), "counter_locked")
    refused(state, Aim(seat=0, target=1), "invalid_target")
    events, state = when(state, Aim(seat=0, target=3))
    assert of(events, Aimed)[0].how == "retarget"
    assert state.aims[0] == 3
    assert state.counter == 0
    _, state = when(state, Aim(seat=4, target=0))
    refused(state, Aim(seat=0, target=2), "too_many_retargets")
    assert state.step == "countdown"
    assert state.step_no == first + 3


def test_lt3_2_a_stale_countdown_close_is_refused() -> None:
    """LT3.2: a timer of a Countdown that restarted is stale."""
    state = given(start_events(4))
    _, state = when(state, Aim(seat=0, target=1))
    old = state.step_no
    _, state = when(state, Aim(seat=1, target=0))
    refused(state, CloseStep(seat=None, step_no=old), "stale_step")
    refused(state, GiveLoot(seat=0, slot=0, to=0), "wrong_step")


def test_lt3_3_at_zero_only_gunners_with_cards_choose() -> None:
    """LT3.3: the Discussion locks; Gunners choose face down (simultaneous); Targets who are not Gunners
    play no card; nobody joins any more."""
    state = given(start_events(4))
    _, state = when(state, Aim(seat=0, target=1))
    _, state = when(state, Aim(seat=2, target=1))
    events, state = when(state, CloseStep(seat=None, step_no=state.step_no))
    assert types(events) == ["CountdownEnded", "StepOpened"]
    w = waiting(state)
    assert w is not None
    assert w.step == "choose"
    assert w.closes  # all at once: the table closes it when every seat is ready
    assert w.ready
    assert w.seats == frozenset({0, 2})
    refused(state, ChooseAction(seat=1, card=2), "not_a_gunner")
    refused(state, Aim(seat=3, target=0), "wrong_step")
    refused(state, ChooseAction(seat=0, card=2), "card_not_in_hand")
    assert legal_commands(state, 0) == ["ChooseAction"]
    assert legal_commands(state, 1) == []
    assert default_command(state, 0, "timeout") == ChooseAction(seat=0, card=-1)


def test_lt3_3_a_gunner_without_cards_plays_none() -> None:
    """LT3.3: with no Gunner holding cards the reveal follows the lock at once."""
    state = given(start_events(4, hands=[(), (2,), (3,), (4,)]))
    _, state = when(state, Aim(seat=0, target=1))
    events, state = when(state, CloseStep(seat=None, step_no=state.step_no))
    assert of(events, CountdownEnded)
    assert of(events, ActionsRevealed)[0].cards == (-1, -1, -1, -1)


def test_lt3_4_choices_are_committed_face_down_and_revealed_at_once() -> None:
    """LT3.4/LT7.2: each choice is a commitment; the card is the chooser's secret until the reveal."""
    state = given(start_events(4))
    _, state = when(state, Aim(seat=0, target=1))
    _, state = when(state, Aim(seat=1, target=0))
    _, state = when(state, CloseStep(seat=None, step_no=state.step_no))
    events, state = when(state, ChooseAction(seat=0, card=13))
    chosen = of(events, ActionChosen)[0]
    assert chosen.commitment == rng.commitment(rng.salt(SEED, "salt/0"), 13)
    assert redact_event(chosen, 1, terminal=False)["card"] is None
    assert redact_event(chosen, 0, terminal=False)["card"] == 13
    assert view_for(state, 1)["seats"][0]["chose"] is True
    assert view_for(state, 1)["seats"][0]["chosen"] is None
    _, state = when(state, ChooseAction(seat=0, card=1))  # changed before the close
    events, state = when(state, CloseStep(seat=None, step_no=state.step_no))
    assert of(events, ActionsRevealed)[0].cards == (1, -1, -1, -1)


def test_lt3_5_a_target_who_is_not_a_gunner_is_a_sitting_duck() -> None:
    """LT3.5 (and LT4.1): the Gunner picks from a Sitting Duck's stack."""
    state = given(start_events(4))
    _, state = when(state, GiveLoot(seat=0, slot=0, to=1))
    _, state = discussion(state, [(2, 1)], {2: 3})
    assert state.step == "pick"
    assert state.pending_seat == 2
    assert state.pending_target == 1
    assert view_for(state, 2)["seats"][1]["stack"] is not None  # the Gunner sees the whole stack
    assert view_for(state, 3)["seats"][1]["stack"] is None


def test_lt3_6_one_discussion_per_display_each() -> None:
    """LT3.6: a player who opened one may not open another until the next display; joining is free."""
    state = given(start_events(4))
    _, state = discussion(state, [(0, 1)], {0: 21})
    refused(state, Aim(seat=0, target=2), "already_opened")
    assert "Aim" not in legal_commands(state, 0)
    _, state = discussion(state, [(1, 2), (0, 2)], {})
    for slot in range(len(state.display)):
        _, state = when(state, GiveLoot(seat=0, slot=0, to=slot))
    assert state.opened == (False,) * 4  # a new display
    _, state = when(state, Aim(seat=0, target=2))
