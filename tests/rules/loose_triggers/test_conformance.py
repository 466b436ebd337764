"""Conformance: random bot games of Loose Triggers on the table, as registered (random, sensible and
aggressive bots, mixed) across the game's and the table's options and 4-8 players, with resignations,
deadlines, pauses, hand-overs, stale closes and random (often illegal) commands thrown in, played by the
shared harness (``tests/rules/conformance.py``: JSON round trips, replay equals fold, the seed never shows
before the end, every game ends, LT6.1). Loose Triggers' own checks after every event: cards conserved
(LT1.5, LT1.6: decks, display, hands, play, stacks and discards) and what each viewer may read of each
secret-bearing event and view (LT7.2, written apart from the redactor)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

from hypothesis import given as hgiven
from hypothesis import strategies as st

from games.rules.loose_triggers import commands as c
from games.rules.loose_triggers.events import EVENT_CLASSES, Event
from games.rules.loose_triggers.evolve import fold
from games.rules.loose_triggers.game import GAME
from games.rules.loose_triggers.state import OVER, State, card_places
from games.rules.loose_triggers.views import redact_event, view_for
from games.rules.loose_triggers.waiting import legal_commands
from games.rules.registry import get_ruleset
from games.rules.table.ruleset import Table
from games.rules.table.state import TableState

from ..conformance import Checks, Conformance, Setup, play, setups, table_options
from ..conftest import SCALE, rules_settings

RULESET = get_ruleset("loose_triggers")
assert isinstance(RULESET, Table)
GAME_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "countdown": st.integers(1, 600),
        "max_retargets": st.integers(0, 3),
        "shuffle_seats": st.booleans(),
        "rules": st.sampled_from([1, 2]),  # absent: a game made now (2); 1: before LT2.5's aim window
    },
)


def _with_aim(drawn: tuple[dict[str, Any], int | None]) -> dict[str, Any]:
    """LT2.5's ``deadlines.aim`` (rules 2 only): none given (20), 0 (no window) or a short window."""
    options, aim = drawn
    if aim is None or options.get("rules") == 1:
        return options
    return {**options, "deadlines": {**options.get("deadlines", {}), "aim": aim}}


OPTIONS = st.tuples(
    table_options(GAME_OPTIONS, GAME.deadline_steps), st.none() | st.sampled_from([0, 1, 20])
).map(_with_aim)


def random_command(rnd: random.Random, state: State) -> Any:
    """Any command at all, often illegal: decide answers with events or a RuleError, nothing else."""
    n = state.n
    seat = rnd.choice([*range(n), n, -1]) if rnd.random() < 0.1 else rnd.randrange(n)
    card = rnd.randrange(-2, 60)
    return rnd.choice(
        [
            lambda: c.GiveLoot(seat=seat, slot=rnd.randrange(-1, 9), to=rnd.randrange(-1, n + 1)),
            lambda: c.Aim(seat=seat, target=rnd.randrange(-1, n + 1)),
            lambda: c.ChooseAction(seat=seat, card=card),
            lambda: c.PickLoot(seat=seat, card=card),
            lambda: c.ClaimSpoils(seat=seat, slot=rnd.randrange(-2, 9), bagman=rnd.random() < 0.5),
            lambda: c.Grab(
                seat=seat, sources=tuple(rnd.choice(["loot", "display:0", "x", "action"]) for _ in "ab")
            ),
            lambda: c.BurnLoot(seat=seat, card=card, loot=(rnd.randrange(56), rnd.randrange(56))),
            lambda: c.ElectBagman(seat=seat, candidate=rnd.randrange(-1, n + 1)),
            lambda: c.CloseStep(seat=None, step_no=state.step_no - rnd.randrange(2)),
            lambda: c.Resign(seat=None, target=rnd.randrange(n)),
        ]
    )()


def check_redaction(state: State, before: State, event: Event, viewers: list[int | None]) -> None:
    """LT7.2, written apart from the redactor: what each viewer may read of each secret-bearing event."""
    data = GAME.codec.event_to_json(event)
    for viewer in viewers:
        seen = redact_event(event, viewer, terminal=False)
        assert set(seen) >= set(data)
        t = event.TYPE
        e: Any = event
        if t == "GameStarted":
            assert seen["seed"] is None
            assert seen["loot_deck"] is None
            assert seen["action_deck"] is None
            assert all((p is None) == (s != viewer) for s, p in enumerate(seen["pals"]))
            assert all((h is None) == (s != viewer) for s, h in enumerate(seen["hands"]))
            continue
        if t == "LootDisplayed":
            if viewer != e.bagman:
                assert all(x is None for x, down in zip(seen["cards"], e.face_down, strict=True) if down)
            continue
        hidden = _must_hide(e, viewer)
        if hidden is not None:
            assert seen[hidden] is None, (t, viewer)
        else:  # nothing hidden that this viewer may see
            assert {key: seen[key] for key in data} == data, (t, viewer)
        assert state.seed.hex() not in json.dumps(seen)


def _must_hide(e: Any, viewer: int | None) -> str | None:
    """The field of event ``e`` that ``viewer`` may not read before the end, if any."""
    t = e.TYPE
    hide: tuple[str, bool] = ("", False)
    if t in ("CardsDrawn", "ActionChosen", "LootBurned"):
        hide = ({"CardsDrawn": "cards", "ActionChosen": "card", "LootBurned": "loot"}[t], viewer != e.seat)
    elif t == "ActionDeckRemade":
        hide = ("deck", True)
    elif t == "LootGiven":
        hide = ("card", e.face_down and viewer not in (e.bagman, e.to))
    elif t == "LootTaken":
        hide = ("card", viewer not in (e.seat, e.victim))
    elif t == "Died":
        hide = ("loot", viewer != e.seat and not (e.loot_to == "killer" and viewer == e.killer))
    elif t == "CardGrabbed" and e.source in ("loot", "action"):
        hide = ("card", viewer != e.seat)
    elif t == "CardGrabbed" and e.source == "display":
        hide = ("card", e.face_down and viewer not in (e.seat, e.bagman))
    elif t == "SpoilsClaimed":
        hide = ("card", e.face_down and viewer not in (e.seat, e.from_bagman))
    elif t == "GameEnded":  # the seed, as the running game's public chain hashes it (LT7.2)
        hide = ("seed", True)
    return hide[0] if hide[1] else None


def check_view(state: State, viewer: int | None) -> None:
    view = view_for(state, viewer)
    over = state.phase == OVER
    assert (view["seed"] is None) != over
    for seat in view["seats"]:
        mine = seat["seat"] == viewer
        assert (seat["hand"] is None) == (not (mine or over))
        assert (seat["pal"] is None) == (not (mine or over))
        if not (mine or over) and not (state.step == "pick" and viewer == state.pending_seat):
            assert seat["stack"] is None
    for shown in view["display"]:
        if shown["face_down"] and not over and viewer != state.bagman:
            assert shown["loot"] is None
    json.dumps(view)


def aggressive(table: TableState, seat: int, salt: int) -> Any:
    """A test-only player who shoots the Bagman (or anyone) at every chance: deaths, dead Gunners, vacant
    Bagman jobs, elections and last-survivor endings, which polite bots rarely reach. Else the table's
    sensible bot (which also raises the ready flag)."""
    state: State = table.game
    if table.resigned[seat] or table.paused_at is not None or state.phase == OVER:
        return None  # the table plays a resigned seat's defaults itself (LT7.3)
    legal = legal_commands(state, seat)
    if "Aim" in legal and state.aims[seat] is None:
        others = [s for s in state.living() if s != seat]
        target = state.bagman if state.bagman in others else others[salt % len(others)]
        return c.Aim(seat=seat, target=target)
    if "ChooseAction" in legal and state.chosen[seat] is None:
        bangs = [card for card in state.hands[seat] if card <= 12]
        return c.ChooseAction(seat=seat, card=bangs[0] if bangs else state.hands[seat][0])
    if "ElectBagman" in legal:
        return c.ElectBagman(seat=seat, candidate=seat)
    return RULESET.bot_command(table, seat, strategy="sensible", salt=salt)


class LooseTriggersChecks(Checks):
    """Cards conserved after every event (LT1.5, LT1.6); LT7.2's redaction of every game event (heavy) and,
    after every command, a random viewer's view of the game."""

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.viewers: list[int | None] = [None, *range(setup.n)]
        self.rnd = random.Random(setup.salt ^ 0x5EED)

    def event(self, before: TableState, state: TableState, event: Any, *, heavy: bool) -> None:
        if not state.opened:
            return
        card_places(state.game)
        if heavy and isinstance(event, GAME_EVENTS):
            check_redaction(state.game, before.game, event, self.viewers)

    def command(self, state: TableState, *, heavy: bool) -> None:
        check_view(state.game, self.rnd.choice(self.viewers))

    def final(self, state: TableState, events: Sequence[Any]) -> None:
        assert state.game.phase == OVER
        card_places(state.game)


GAME_EVENTS = tuple(EVENT_CLASSES)
SPEC = Conformance(
    ruleset=RULESET,
    codes={code: error.kind for code, error in RULESET.types.errors.items()},
    options=OPTIONS,
    strategies=("random", "sensible", "aggressive"),
    bots={"aggressive": aggressive},
    junk=lambda rnd, table: random_command(rnd, table.game),
    checks=LooseTriggersChecks,
    web=True,
    every_viewer=0.25,  # check_redaction reads every viewer after every event
)


@rules_settings(100)
@hgiven(setup=setups(SPEC))
def test_random_bot_games_keep_every_invariant(setup: Setup) -> None:
    play(SPEC, setup, heavy=True)


def test_thousands_of_bot_games_end_with_cards_conserved() -> None:
    """Many more games, lighter checks: each ends (LT6.1), conserves every card and replays to itself."""
    from games.rules.loose_triggers.simulate import play

    for i in range(1500 * SCALE):
        n = 4 + i % 5
        strategies = ["random" if (i >> k) & 1 else "sensible" for k in range(8)]
        events, state = play(n, i.to_bytes(32, "big"), strategies)
        assert state.phase == OVER
        card_places(state)
        assert fold(events) == state
