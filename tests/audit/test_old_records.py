"""Records made before format version 2 still verify: two records checked in before the record's format
changed (``fixtures/record-v1-4p.json``, the simulator's worked example as it was, and
``fixtures/record-v1-server.json``, a game of two players, a player who wrote and resigned and two bots,
played to its end through the HTTP API by the server of that day).

And games played before R7.6 are re-decided under the rules they started with (rules 2, ruling 32 in
games/rules/README.md): ``fixtures/record-v1-old-rules-resign.json`` and ``-autopilot.json``, made by the code
before R7.6 (``fixtures/make_old_rules_records.py``, run on that code), are games that R7.6 decides otherwise
(pause votes not counted again when a seat resigned or went on autopilot, a step opened during a pause with
its deadline counted from then, every seat resigned while paused: the game ended still paused and the Boss
job went round the resigned seats with the term bonus)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from games.audit.verify import verify_record
from games.rules.core import Context, RuleError
from tests.rules.gc import RULESET

FIXTURES = Path(__file__).parent / "fixtures"
OLD_RULES = ["record-v1-old-rules-resign.json", "record-v1-old-rules-autopilot.json"]


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("name", ["record-v1-4p.json", "record-v1-server.json", *OLD_RULES])
def test_a_version_1_record_made_before_the_change_still_verifies(name: str) -> None:
    record = load(name)
    assert record["format_version"] == 1
    assert record["game"]["ruleset_version"] == "2"
    verdict = verify_record(record)
    assert verdict.ok, verdict.text()
    assert verdict.events == len(record["events"])
    assert verdict.commands == sum(e["command"] is not None for e in record["events"])


def test_a_record_made_before_goodcritters_moved_onto_the_table_still_verifies() -> None:
    """Issue 15: ``fixtures/record-v2-main-8d1b482.json`` was made by the code before GoodCritters moved onto
    the table (main at 8d1b482, ``tests/audit/helpers.absent_record``: a seat that never acts, its deadlines
    extended, passed, then played by the autopilot; a private message; a resignation; Payoffs). The table
    re-decides every command of it to the same events."""
    record = load("record-v2-main-8d1b482.json")
    assert (record["format_version"], record["game"]["ruleset_version"]) == (2, "3")
    kinds = {e["type"] for e in record["events"]}
    assert {
        "DeadlineExtended",
        "DeadlinePassed",
        "AutopilotEngaged",
        "PlayerResigned",
        "MessageSent",
    } <= kinds
    verdict = verify_record(record)
    assert verdict.ok, verdict.text()
    assert (verdict.events, verdict.commands) == (
        len(record["events"]),
        sum(e["command"] is not None for e in record["events"]),
    )
    assert verdict.random_picks > 0
    assert verdict.commitments > 0
    bad = load("record-v2-main-8d1b482.json")  # and it is still checked: a deadline moved is caught
    extended = next(e for e in bad["events"] if e["type"] == "DeadlineExtended")
    extended["data"]["due_at"] = "2030-01-01T00:00:00+00:00"
    assert not verify_record(bad).ok


def test_a_version_1_record_is_still_checked() -> None:
    record = load("record-v1-server.json")
    vote = next(e for e in record["events"] if e["type"] == "ActionChosen")
    vote["data"]["action"] = "guard" if vote["data"]["action"] != "guard" else "rob"
    verdict = verify_record(record)
    assert not verdict.ok
    assert verdict.error is not None
    assert verdict.error.check == "chain"


def _first_difference(record: dict[str, Any], rules: int) -> dict[str, Any] | None:
    """Re-decide every stored command after the start from the stored state, the game's rules set to
    ``rules``: the first stored event whose batch differs (or whose command is refused), else None."""
    events = record["events"]
    state = RULESET.initial_state()
    i = 0
    while i < len(events):
        end = i + 1
        while end < len(events) and events[end]["command"] is None:
            end += 1
        batch = events[i:end]
        stored = dict(batch[0]["command"])
        seat = stored.pop("seat")
        command = RULESET.command_from_json(stored, seat)
        if stored["type"] != "StartGame":
            try:
                decided = RULESET.decide(
                    state, command, Context(now=datetime.fromisoformat(batch[0]["created_at"]))
                )
            except RuleError:
                return batch[0]
            if [RULESET.event_to_json(e) for e in decided] != [e["data"] for e in batch]:
                return batch[0]
        state = RULESET.fold([RULESET.event_from_json(e["data"]) for e in batch], state)
        if stored["type"] == "StartGame":
            assert (
                state.game.rules == 2
            )  # decided under ``rules`` instead: GoodCritters' and the table's (R7.6)
            state = state._replace(game=state.game._replace(rules=rules), pause_limit=rules >= 3)
        i = end
    return None


@pytest.mark.parametrize(
    ("name", "differs_at"), [(OLD_RULES[0], "PlayerResigned"), (OLD_RULES[1], "DeadlineMissed")]
)
def test_the_old_games_are_decided_otherwise_under_r7_6(name: str, differs_at: str) -> None:
    """The fixtures do exercise rules that R7.6 changed: each is exactly what rules 2 decide, and rules 3
    decide otherwise from the resignation (or the autopilot) after which the votes cast are a majority."""
    record = load(name)
    assert _first_difference(record, 2) is None
    first = _first_difference(record, 3)
    assert first is not None
    assert first["type"] == differs_at
    kinds = [e["type"] for e in record["events"]]
    assert "max_pause" not in record["events"][0]["data"]["options"]
    assert record["events"][0]["schema_version"] == 1
    paused = kinds.index("GamePaused")
    assert "GameResumed" not in kinds  # the game ended while paused
    during = [e for e in record["events"][paused:] if e["type"] == "StepOpened"]
    assert during  # a step opened during the pause, its deadline counted from when it opened
    assert (
        during[0]["data"]["due_at"]
        == (datetime.fromisoformat(during[0]["created_at"]) + timedelta(seconds=3600)).isoformat()
    )
    last_resigned = max(i for i, k in enumerate(kinds) if k == "PlayerResigned")
    assert (
        "BossBonus" in kinds[last_resigned:]
    )  # every seat resigned: the job still went round, with the bonus


@pytest.mark.parametrize(
    ("claimed", "check"), [("3", "seed"), ("1", "format"), ("4", "format"), (2, "format")]
)
def test_the_record_names_the_rules_its_game_was_played_under(claimed: Any, check: str) -> None:
    """The verifier re-decides rules 2 and 3 and no other; a record's ruleset_version is the rules its
    GameStarted names (a version-1 GameStarted: rules 2)."""
    record = load(OLD_RULES[0])
    record["game"]["ruleset_version"] = claimed
    verdict = verify_record(record)
    assert not verdict.ok
    assert verdict.error is not None
    assert verdict.error.check == check, verdict.text()
    if check == "format":
        assert "re-decides versions '2', '3'" in verdict.error.message
    else:
        assert "started under the rules '2'" in verdict.error.message


def test_a_loose_triggers_record_made_before_its_rules_2_still_verifies() -> None:
    """Issue 28 (ruling 32): ``fixtures/record-v2-lt-rules-1.json`` was made by main at 65d220b, before Loose
    Triggers wrote its rules' version (``fixtures/make_lt_record.py``): BANG!s absorbed by a DUCK! (LT4.1, the
    BANG! discarded when fired), an Action deck remade after them (LT4.6), a Gunner who chose a card and
    resigned and one who chose none and resigned (LT7.2, R8.3). It is re-decided under rules "1" to the same
    events."""
    record = load("record-v2-lt-rules-1.json")
    assert (record["format_version"], record["game"]["ruleset"]) == (2, "loose_triggers")
    assert record["game"]["ruleset_version"] == "1"
    outcomes = [e["data"].get("outcome") for e in record["events"] if e["type"] == "BangFired"]
    assert "ducked" in outcomes
    assert sum(e["type"] == "PlayerResigned" for e in record["events"]) == 2
    verdict = verify_record(record)
    assert verdict.ok, verdict.text()
    assert (verdict.events, verdict.commands) == (
        len(record["events"]),
        sum(e["command"] is not None for e in record["events"]),
    )
    bad = load("record-v2-lt-rules-1.json")  # and it is still checked: a changed outcome is caught
    fired = next(i for i, e in enumerate(bad["events"]) if e["data"].get("outcome") == "ducked")
    bad["events"][fired]["data"]["outcome"] = "hit"
    assert not verify_record(bad).ok


@pytest.mark.parametrize("slug", ["loose_triggers", "were_cats"])
def test_a_loose_triggers_or_were_cats_record_made_by_main_still_verifies(slug: str) -> None:
    """Issue 28 item 15: records of Loose Triggers and Were-cats made by main at 65d220b, before the public
    chain committed to every fact of an event (``fixtures/make_main_records.py``: people's seats, a private
    message), verify with that day's public chain (format 2), and are still checked."""
    name = f"record-v2-main-65d220b-{slug}.json"
    record = load(name)
    assert (record["format_version"], record["game"]["ruleset"]) == (2, slug)
    message = next(e for e in record["events"] if e["type"] == "MessageSent")
    assert message["data"]["to"] == [2]
    assert message["actor"] == 101
    verdict = verify_record(record)
    assert verdict.ok, verdict.text()
    assert verdict.events == len(record["events"])
    bad = load(name)
    next(e for e in bad["events"] if e["type"] == "MessageSent")["data"]["text"] = "rewritten"
    assert not verify_record(bad).ok


def test_a_loose_triggers_record_made_before_the_aim_window_still_verifies() -> None:
    """Issue 28 item 2 (LT2.5, ruling 32): ``fixtures/record-v2-lt-main-65d220b.json``, a finished bot game of
    Loose Triggers made by main at 65d220b (``games.audit.record.simulated_record``: 5 players, deadlines on
    give, choose and pick), before LT2.5's aim window. It is re-decided under the rules it started with (LT
    rules 1: no window, each give straight after the display or the previous give) to the same events."""
    record = load("record-v2-lt-main-65d220b.json")
    assert (record["format_version"], record["game"]["ruleset"]) == (2, "loose_triggers")
    assert record["game"]["ruleset_version"] == "1"
    kinds = [e["type"] for e in record["events"]]
    assert {"LootGiven", "Aimed", "DiscussionEnded", "GameEnded"} <= set(kinds)
    gives = [e["data"] for e in record["events"] if e["type"] == "StepOpened" and e["data"]["step"] == "give"]
    assert gives
    assert all(e["data"]["step"] != "aim" for e in record["events"] if e["type"] == "StepOpened")
    verdict = verify_record(record)
    assert verdict.ok, verdict.text()
    assert (verdict.events, verdict.commands) == (
        len(record["events"]),
        sum(e["command"] is not None for e in record["events"]),
    )
    bad = load("record-v2-lt-main-65d220b.json")  # and it is still checked: a give moved is caught
    given = next(e for e in bad["events"] if e["type"] == "LootGiven")
    given["data"]["to"] = (given["data"]["to"] + 1) % 5
    assert not verify_record(bad).ok
