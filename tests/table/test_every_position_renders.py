"""Issue #28 item 6: every position of every game renders. ``GET /games/{id}/states/{seq}`` answers 200 for
each ``seq`` of a game of each ruleset, as a seated player and as a spectator while it runs, and for anyone
once it is over (the audit's step-through, docs/AUDIT.md). Were-cats answered 500 for the positions between
one turn's end and the next turn's start (an ``AssertionError`` in ``were_cats/waiting.py``).

The games are played over HTTP with deadlines (a seat stays away for a while, so defaults are played), a
pause and a resume by the creator (R7.6), and a resignation (R7.4, LT/WC's own). Time moves by calling the
sweeper with an explicit ``now``; every step lasts 30 s, less than DEADLINE_OUTAGE_AFTER.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.models import GameStatus
from tests.conftest import make_api
from tests.table.helpers import Seated, drive, open_game, sweep_past

pytestmark = pytest.mark.django_db

GAMES = [
    pytest.param(
        "goodcritters",
        4,
        ["sensible"],
        {"deadlines": {"distribute": 30, "choose": 30}, "fuzz_depth": "short", "payoffs": True},
        id="goodcritters",
    ),
    pytest.param(
        "loose_triggers",
        4,
        ["sensible"],
        {"deadlines": {"give": 30, "choose": 30, "pick": 30}, "countdown": 20},
        id="loose_triggers",
    ),
    pytest.param(
        "were_cats",
        3,
        ["random"],
        {"deadlines": {"setup": 30, "place": 30, "populate": 30, "act": 30}, "max_rounds": 3},
        id="were_cats",
    ),
]


def _walk(t: Seated, viewers: list[Any], *, over: bool) -> int:
    """GET every position of the game as each of ``viewers``; each must answer 200 with that position."""
    version = t.version()
    for seq in range(1, version + 1):
        for api in viewers:
            r = api.get(f"{t.url}/states/{seq}")
            assert r.status_code == 200, (seq, version, r.status_code, r.content[:2000])
            body = r.json()
            assert (body["seq"], body["game_over"], body["full"]) == (seq, over, over), body
    return version


@pytest.mark.parametrize(("ruleset", "humans", "bots", "options"), GAMES)
def test_every_position_of_a_game_renders_for_players_and_spectators_issue_28_item_6(
    ruleset: str, humans: int, bots: list[str], options: dict[str, Any]
) -> None:
    """Issue #28 item 6 (R8.3's step-through of a game): no position of a game answers 500, while it runs
    (its seated player's view, a spectator's view) nor once it is over (the full view, for a player and a
    spectator)."""
    t = open_game(ruleset, humans, bots, options)
    creator = t.creator_seat
    others = sorted(s for s in t.by_seat if s != creator)
    absent, quitter = others[0], others[-1]
    spectator = make_api()

    # a while with one seat away: its deadlines pass and the table plays its defaults (R7.2/R7.3)
    present = {s: api for s, api in t.by_seat.items() if s != absent}
    drive(t, present, until=lambda state: bool(t.events("DeadlinePassed")) and t.version() >= 30)

    # a pause and a resume by the creator (R7.6), a deadline sweep while paused runs nothing
    step_due = t.game().deadline_at
    assert step_due is not None
    assert t.creator.post(f"{t.url}/pause").status_code == 200
    version = t.version()
    sweep_past(step_due)
    assert t.version() == version
    assert t.creator.post(f"{t.url}/resume").status_code == 200

    # a resignation; then everyone plays on
    assert t.command(quitter, "resign").status_code == 200
    drive(t, t.by_seat, until=lambda state: t.version() >= 60)
    assert t.game().status == GameStatus.RUNNING
    walked = _walk(t, [t.by_seat[absent], spectator], over=False)

    drive(t, t.by_seat)
    assert t.game().status == GameStatus.OVER
    total = _walk(t, [t.creator, spectator], over=True)
    assert total > walked
    assert t.events("GamePaused")
    assert t.events("GameResumed")
    assert t.events("PlayerResigned")
