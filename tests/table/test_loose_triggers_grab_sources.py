"""Issue #28 item 7, LT4.2 (README ruling 9): a Grab source names a display slot in ASCII digits only. Over
HTTP, ``display:²`` (a Unicode digit that ``int()`` refuses: once a 500) and ``display:\u0661`` (ARABIC-INDIC
DIGIT ONE, once taken as slot 1) are a 422 ``validation_error`` that changes nothing; ``display:1`` is
taken."""

from __future__ import annotations

from typing import Any

import pytest

from games.rules.core import RuleError
from games.rules.loose_triggers.decide import parse_sources
from tests.table.helpers import Seated, due, open_game, problem, sweep_past

pytestmark = pytest.mark.django_db

OPTIONS: dict[str, Any] = {"deadlines": {"give": 40, "choose": 40, "pick": 40}, "countdown": 30}


def _at_the_grab() -> tuple[Seated, int]:
    """A Gunner plays GRAB! (LT4.2) while the first display (four cards) is out: the game waits on its
    Grab."""
    t = open_game("loose_triggers", 4, [], OPTIONS)
    bagman = t.state()["bagman"]
    grabber = (bagman + 1) % 4
    grab = next(c["card"] for c in t.state(grabber)["seats"][grabber]["hand"] if c["kind"] == "GRAB!")
    t.ok(grabber, "aim", {"target": (grabber + 1) % 4})
    sweep_past(due(t.play()))  # the Countdown ends (LT3.3)
    t.ok(grabber, "choose-action", {"card": grab})
    t.ok(grabber, "set-ready", {"ready": True})
    play = t.play()
    assert (play["step"], play["waiting_on"]) == ("grab", [grabber])
    assert len(t.state()["display"]) >= 2
    return t, grabber


@pytest.mark.parametrize(
    "source", ["display:²", "display:\u0661", "display:1\n", "display:+1", "display:", ""]
)
def test_lt4_2_a_grab_source_with_other_than_ascii_digits_is_a_422_that_changes_nothing(source: str) -> None:
    t, grabber = _at_the_grab()
    before = (t.version(), t.etag(), len(t.events()))
    response = t.command(grabber, "grab", {"sources": [source, "loot", "loot"]})
    body = problem(response, 422, "validation_error")
    assert "sources" in str(body.get("errors", body)), body
    assert (t.version(), t.etag(), len(t.events())) == before
    grabbed = t.ok(grabber, "grab", {"sources": ["display:1", "loot", "loot"]})  # the step was real
    assert grabbed is not None
    sources = [(e["source"], e["slot"]) for e in t.events("CardGrabbed")]
    assert sources == [("display", 1), ("loot", -1), ("loot", -1)]


@pytest.mark.parametrize("source", ["display:²", "display:\u0661", "display:1\n", "display:\u0663"])
def test_lt4_2_the_rules_refuse_a_slot_in_other_than_ascii_digits(source: str) -> None:
    """The rules alone (a command that did not come through the API's serializer) refuse it too."""
    from tests.rules.loose_triggers.helpers import given, start_events

    state = given(start_events(4))
    with pytest.raises(RuleError) as info:
        parse_sources(state, (source, "loot", "loot"))
    assert info.value.code == "invalid_sources"


def test_lt4_2_rules_1_still_read_a_slot_in_other_digits_ruling_32() -> None:
    """A game under rules 1 re-decides a stored ``display:\u0661`` as slot 1, as it was decided (ruling 32);
    ``display:²`` never got past ``int`` (a 500 then, nothing stored): refused, no longer a crash."""
    from tests.rules.loose_triggers.helpers import given, start_events

    state = given(start_events(4, rules=1))
    assert parse_sources(state, ("display:\u0661", "loot", "loot"))[0] == ("display", state.display[1])
    with pytest.raises(RuleError) as info:
        parse_sources(state, ("display:²", "loot", "loot"))
    assert info.value.code == "invalid_sources"
