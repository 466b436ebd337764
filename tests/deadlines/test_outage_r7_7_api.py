"""R7.7 (issue #28 item 4) for every game on the table, through the service: after an outage of the timers
(no deadline sweep for longer than DEADLINE_OUTAGE_AFTER), a deadline that fell due during it or falls due
within the grace after it is extended to the end of the outage plus the grace; a deadline after that is played
as always; and an extension never brings a deadline earlier than it was (a 600-second Countdown extended 15 s
in for an outage with a 120-second grace ended after 135 seconds).

Time moves by calling the sweeper with an explicit ``now``; the sweeps that are not meant as an outage are
less than DEADLINE_OUTAGE_AFTER (60 s) apart.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import deadlines, loading, roster
from games.services import timers
from tests.table.helpers import Seated, open_game

pytestmark = pytest.mark.django_db

GRACE = 120
NO_ABSENCE = {
    "extensions": 0,
    "autopilot_after": None,
}  # a missed deadline is played at once: no other extension
GAMES = [
    pytest.param(
        "goodcritters",
        {"deadlines": {"distribute": 600, "choose": 600}, "absence": NO_ABSENCE},
        id="goodcritters",
    ),
    pytest.param(
        "loose_triggers",
        # no LT2.5 aim window: the first step is the give, with its 600 s
        {
            "deadlines": {"give": 600, "choose": 600, "pick": 600, "aim": 0},
            "countdown": 600,
            "absence": NO_ABSENCE,
        },
        id="loose_triggers",
    ),
    pytest.param(
        "were_cats",
        {"deadlines": {"setup": 600, "place": 600, "populate": 600, "act": 600}, "absence": NO_ABSENCE},
        id="were_cats",
    ),
]


@pytest.fixture(autouse=True)
def _grace(settings: Any) -> None:
    settings.DEADLINE_OUTAGE_GRACE = GRACE
    settings.DEADLINE_OUTAGE_AFTER = 60


def _due(t: Seated) -> datetime:
    due = t.game().deadline_at
    assert due is not None
    return due


def _sweeps(*moments: datetime) -> deadlines.SweepReport:
    report = deadlines.SweepReport()
    for at in moments:
        report = deadlines.sweep(now=at, timers=("deadline_at", "warn_at"))
    return report


@pytest.mark.parametrize(("ruleset", "options"), GAMES)
def test_a_deadline_falling_due_within_the_grace_after_an_outage_is_extended_to_its_end_r7_7(
    ruleset: str, options: dict[str, Any]
) -> None:
    """R7.7: the outage ended 60 s before the deadline, which falls due within the grace (120 s) after it:
    extended to the outage's end plus the grace (60 s more), not played; then played at that time."""
    t = open_game(ruleset, 4, [], options)
    due = _due(t)
    step_no = t.game().step_no
    end = due - timedelta(seconds=60)
    report = _sweeps(due - timedelta(seconds=200), end)  # no sweep for 140 s: an outage
    assert report.outage == (due - timedelta(seconds=200), end)
    assert not t.events("DeadlineExtended", "DeadlinePassed")
    report = _sweeps(due - timedelta(seconds=30), due + timedelta(seconds=1))  # the sweeper runs again
    assert report.extended == [t.game_id]
    assert not t.events("DeadlinePassed")
    [extended] = t.events("DeadlineExtended")
    assert extended["reason"] == "outage"
    assert extended["step_no"] == step_no
    assert datetime.fromisoformat(extended["previous_due_at"]) == due
    assert datetime.fromisoformat(extended["due_at"]) == end + timedelta(seconds=GRACE)
    assert _due(t) == end + timedelta(seconds=GRACE)
    _sweeps(due + timedelta(seconds=50), end + timedelta(seconds=GRACE + 1))
    assert len(t.events("DeadlineExtended")) == 1  # once: the grace is over, the deadline is played
    assert t.events("DeadlinePassed")[0]["step_no"] == step_no


@pytest.mark.parametrize(("ruleset", "options"), GAMES)
def test_a_deadline_due_during_an_outage_is_extended_to_its_end_plus_the_grace_r7_7(
    ruleset: str, options: dict[str, Any]
) -> None:
    """R7.7: a deadline that fell due during the outage is extended to the outage's end plus the grace, with
    no budget spent; then played at that time, with no second extension."""
    t = open_game(ruleset, 4, [], options)
    due = _due(t)
    end = due + timedelta(seconds=10)
    report = _sweeps(due - timedelta(seconds=300), end)
    assert report.extended == [t.game_id]
    [extended] = t.events("DeadlineExtended")
    assert (extended["reason"], extended["seats"]) == ("outage", [])
    assert datetime.fromisoformat(extended["due_at"]) == end + timedelta(seconds=GRACE)
    _sweeps(
        *(end + timedelta(seconds=s) for s in range(40, GRACE + 1, 40)), end + timedelta(seconds=GRACE + 1)
    )
    assert len(t.events("DeadlineExtended")) == 1
    assert t.events("DeadlinePassed")


@pytest.mark.parametrize(("ruleset", "options"), GAMES)
def test_a_deadline_falling_due_after_the_grace_is_played_not_extended_r7_7(
    ruleset: str, options: dict[str, Any]
) -> None:
    """R7.7: only the deadlines due during the outage or within the grace after it are extended; one that
    falls due later (the outage ended 180 s before it, the grace is 120 s) is played as always."""
    t = open_game(ruleset, 4, [], options)
    due = _due(t)
    report = _sweeps(due - timedelta(seconds=300), due - timedelta(seconds=180))
    assert report.outage == (due - timedelta(seconds=300), due - timedelta(seconds=180))
    _sweeps(*(due - timedelta(seconds=s) for s in (130, 80, 30)), due + timedelta(seconds=1))
    assert not t.events("DeadlineExtended")
    assert t.events("DeadlinePassed")


@pytest.mark.parametrize(("ruleset", "options"), GAMES)
def test_an_outage_extension_never_brings_a_deadline_earlier_r7_7(
    ruleset: str, options: dict[str, Any]
) -> None:
    """R7.7: an extension for an outage ending 15 s into a 600-second step, with a 120-second grace, would end
    it after 135 s: the step keeps its deadline, and nothing is recorded."""
    t = open_game(ruleset, 4, [], options)
    due = _due(t)
    opened = due - timedelta(seconds=600)
    version = t.version()
    game = roster.lock_game(t.game_id)
    rs = loading.ruleset_for(game)
    timers.extend_for_outage(game, rs, loading.load_state(game, rs), opened + timedelta(seconds=15))
    assert t.version() == version
    assert not t.events("DeadlineExtended")
    assert _due(t) == due
    view = t.state()
    assert view.get("play", view)["due_at"] == due.isoformat()  # GoodCritters' view has no "play"


@pytest.mark.parametrize(("ruleset", "options"), GAMES)
def test_a_request_right_after_an_outage_extends_before_the_sweeper_has_run_r7_7(
    ruleset: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """R7.7, issue #26 item 2: the database was down for 90 s, and the deadline fell due 30 s before it came
    back. The first request to reach the game after that (a player's read, before the sweeper has run again
    and recorded the outage) finds no sweep for 90 s: it extends the deadline to now plus the grace, and
    plays no default. The sweeper, back a moment later, records the outage's true end and does not play it
    either; the default comes only once the grace is over."""
    t = open_game(ruleset, 4, [], options)
    due = _due(t)
    step_no = t.game().step_no
    _sweeps(due - timedelta(seconds=60))  # the last sweep before the database went down
    back = due + timedelta(seconds=30)
    monkeypatch.setattr(timezone, "now", lambda: back)  # the database is back: a player reads the game
    t.state()
    assert not t.events("DeadlinePassed"), "a default played before its extension"
    [extended] = t.events("DeadlineExtended")
    assert extended["reason"] == "outage"
    assert extended["step_no"] == step_no
    assert datetime.fromisoformat(extended["due_at"]) == back + timedelta(seconds=GRACE)
    report = _sweeps(back + timedelta(seconds=1))  # the sweeper runs again and records the outage
    assert report.outage == (due - timedelta(seconds=60), back + timedelta(seconds=1))
    assert not t.events("DeadlinePassed")
    _sweeps(*(back + timedelta(seconds=s) for s in (41, 81, GRACE + 5)))  # the sweeper runs as it should
    assert t.events("DeadlinePassed")[0]["step_no"] == step_no


@pytest.mark.parametrize(("ruleset", "options"), GAMES[:1])
def test_a_deadline_that_passed_before_the_outage_began_is_played_as_always_r7_7(
    ruleset: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """R7.7 extends only what fell due during the outage: a deadline that had passed before the last sweep
    (the sweeper had not got to it yet) is played by the first request, outage or not."""
    t = open_game(ruleset, 4, [], options)
    due = _due(t)
    with monkeypatch.context() as m:
        m.setattr(deadlines, "_drain", lambda *a, **k: None)  # the sweeper ran, but did not get to this game
        _sweeps(due + timedelta(seconds=5))
    monkeypatch.setattr(timezone, "now", lambda: due + timedelta(seconds=95))
    t.state()
    assert not t.events("DeadlineExtended")
    assert t.events("DeadlinePassed")
