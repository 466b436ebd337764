"""Issue #28 item 5, LT7.2 and R8.3: a resignation shows the same public facts whatever the resigner had
chosen face down. Every game with a face-down choice is played into it through the registered ruleset (the
table around the game); the resigner's choice differs and nothing else, then the seat resigns. What every
other seat and a spectator are shown of the resignation's events (the feed, their number included) and
their views after it are the same in every variant. Were-cats has no face-down choice (WC4.2: nothing is
secret but the seed). Pure."""

from __future__ import annotations

from typing import Any

from tests.rules.table.test_table import LT_DEADLINES, Game, start, types

GC_OPTIONS = {"deadlines": {"distribute": 600, "choose": 600}}


def _lt_choosing() -> tuple[Game, int, tuple[int, ...]]:
    """Loose Triggers (rules 2, the newest) at LT3.3's choice with two Gunners: (game, a Gunner, its hand)."""
    game = start("loose_triggers", 4, LT_DEADLINES)
    aimer = next(s for s in range(4) if "Aim" in game.rs.legal_commands(game.state, s))
    game.send(aimer, {"type": "Aim", "target": (aimer + 1) % 4})
    game.send((aimer + 1) % 4, {"type": "Aim", "target": aimer})
    game.expire()
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.step == "choose"
    assert len(w.seats) == 2
    seat = min(w.seats)
    return game, seat, game.state.game.hands[seat]


def _gc_choosing() -> Game:
    game = start("goodcritters", 4, GC_OPTIONS)
    game.bots(until="choose")
    w = game.rs.waiting(game.state)
    assert w is not None
    assert w.step == "choose"
    return game


def _public(game: Game, events: list[Any], resigner: int) -> list[Any]:
    """What a spectator and every seat but the resigner see of ``events``, and their views after them."""
    shown: list[Any] = []
    for viewer in (None, *(s for s in range(game.state.n) if s != resigner)):
        shown.append([game.rs.redact_event(e, viewer, terminal=False) for e in events])
        shown.append(game.view(viewer))
    return shown


def _resign_after(choose: list[dict[str, Any]], make: Any, seat: int) -> tuple[list[str], list[Any]]:
    game = make()
    for body in choose:
        game.send(seat, body)
    events = game.send(seat, {"type": "Resign"})
    return types(events), _public(game, events, seat)


def test_lt7_2_r8_3_a_gunner_who_resigns_shows_the_same_whatever_they_chose() -> None:
    """LT7.3 plays "no card" for a resigned Gunner; under rules 1 it was played (a public ActionChosen) over a
    chosen card and not over an explicit "no card": the resignation told which. From rules 2 it is always
    played anew."""
    _game, seat, hand = _lt_choosing()
    make = lambda: _lt_choosing()[0]  # noqa: E731
    variants = [
        [{"type": "ChooseAction", "card": -1}],
        [{"type": "ChooseAction", "card": hand[0]}],
        [{"type": "ChooseAction", "card": hand[-1]}],
    ]
    seen = [_resign_after(v, make, seat) for v in variants]
    assert seen[0][0] == ["PlayerResigned", "SeatResigned", "ActionChosen"], seen[0][0]
    for kinds, public in seen[1:]:
        assert kinds == seen[0][0]
        assert public == seen[0][1]
    # no choice at all (public already: no ActionChosen of the seat) resigns the same way
    kinds, _public_facts = _resign_after([], make, seat)
    assert kinds == seen[0][0]


def test_lt7_3_a_resigned_gunner_plays_no_card_whatever_they_chose() -> None:
    """LT7.3: the card chosen before resigning stays in the hand; the reveal shows "no card" for the seat."""
    game, seat, hand = _lt_choosing()
    game.send(seat, {"type": "ChooseAction", "card": hand[0]})
    game.send(seat, {"type": "Resign"})
    other = next(s for s in game.rs.waiting(game.state).seats if s != seat)  # type: ignore[union-attr]
    events = game.send(other, {"type": "ChooseAction", "card": -1})
    events += game.send(other, {"type": "SetReady", "ready": True})
    revealed = next(e for e in events if e.TYPE == "ActionsRevealed")
    assert revealed.cards[seat] == -1
    assert hand[0] in game.state.game.hands[seat] or not game.state.game.alive[seat]


def test_r8_3_a_goodcritters_player_who_resigns_in_step_3_shows_the_same_whatever_they_chose() -> None:
    """R7.4 (R7.3: an unready choice stands): nothing is played at the resignation, whatever was chosen."""
    seen = [
        _resign_after([{"type": "ChooseAction", "action": action}], _gc_choosing, 1)
        for action in ("vote_yes", "vote_no", "guard", "rob", "skim")
    ]
    for kinds, public in seen[1:]:
        assert kinds == seen[0][0]
        assert public == seen[0][1]
    kinds, _public_facts = _resign_after([], _gc_choosing, 1)  # no choice (public already): the same events
    assert kinds == seen[0][0]
