"""The independent verifier on records built without the database: it passes every finished simulator game
(every player count, every option value), and it catches every kind of tampering, naming the first bad event
(RULES.md R8.1 the seeded generator, R8.2 the seed commitment, and the commitments of face-down choices)."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.audit.verify import Verdict, verify_file, verify_record
from games.rules import rng
from tests.audit.helpers import absent_record, first, people_record, rechain, sim_record, tampered

ROOT = Path(__file__).resolve().parents[2]

# every player count, and every value of every option at least once
COVER: list[tuple[int, dict[str, Any]]] = [
    (4, {}),
    (4, {"payoffs": True, "timeout_action": "skim"}),
    (5, {"no_vote_rule": "russian", "boss_term_limit": 1}),
    (5, {"payoffs": True, "fuzz_depth": "long"}),
    (6, {"payoffs": True, "boss_term_limit": 3, "shuffle_seats": True}),
    (6, {"fuzz_depth": [0.3, 0.5], "no_vote_rule": "english"}),
    (7, {"fuzz_depth": "short", "shuffle_seats": True, "timeout_action": "vote_yes"}),
    (7, {"payoffs": True, "no_vote_rule": "russian", "fuzz_depth": "standard"}),
    (8, {"payoffs": True, "fuzz_depth": "short"}),
    (8, {"deadlines": {"distribute": 60, "choose": 120}, "timeout_action": "rob", "shuffle_seats": False}),
]
ABSENT: list[tuple[int, dict[str, Any]]] = [
    (4, {"deadlines": {"distribute": 30, "choose": 30}}),
    (5, {"deadlines": {"distribute": 30, "choose": 30}, "timeout_action": "guard", "payoffs": True}),
    (6, {"deadlines": {"distribute": 30, "choose": 30}, "timeout_action": "rob"}),
    (7, {"deadlines": {"distribute": 30, "choose": 30}, "timeout_action": "skim"}),
    (8, {"deadlines": {"distribute": 30, "choose": 30}, "timeout_action": "vote_no"}),
    (5, {"deadlines": {"distribute": 30, "choose": 30}, "timeout_action": "vote_yes"}),
]


def assert_ok(verdict: Verdict) -> None:
    assert verdict.ok, verdict.text()
    assert verdict.error is None
    assert verdict.checks == ["chain", "public", "seed", "seats", "commitment", "random", "rules"]


def assert_caught(verdict: Verdict, seq: int | None, check: str) -> None:
    assert not verdict.ok
    assert verdict.error is not None
    assert (verdict.error.seq, verdict.error.check) == (seq, check), verdict.text()
    assert (f"event #{seq}" if seq is not None else "the record") in verdict.text()


@pytest.mark.parametrize(("players", "options"), COVER, ids=lambda v: json.dumps(v, sort_keys=True))
@pytest.mark.parametrize("game_no", [0, 1, 2])
def test_the_verifier_passes_every_simulator_game(
    players: int, options: dict[str, Any], game_no: int
) -> None:
    record = sim_record(players, options, game_no)
    verdict = verify_record(record)
    assert_ok(verdict)
    assert verdict.events == len(record["events"])
    # every batch's first event carries its command, and every command was re-decided
    assert verdict.commands == sum(1 for e in record["events"] if e["command"] is not None)
    # every face-down card revealed with a salt was opened against its commitment
    opened = sum(
        1 for e in record["events"] if e["type"] in ("ActionRevealed", "PayoffResolved") and e["data"]["salt"]
    )
    assert verdict.commitments == opened
    picks = sum(1 for e in record["events"] if e["type"] in ("RobSucceeded", "RobGuarded"))
    assert verdict.random_picks == picks


@pytest.mark.parametrize(("players", "options"), ABSENT, ids=lambda v: json.dumps(v, sort_keys=True))
def test_the_verifier_passes_games_with_expired_deadlines_messages_and_resignations(
    players: int, options: dict[str, Any]
) -> None:
    """R7.2/R7.3: expired deadlines are system commands in the record, re-decided at their own time."""
    record = absent_record(players, options)
    kinds = {e["type"] for e in record["events"]}
    assert {"DeadlinePassed", "MessageSent"} <= kinds
    if players >= 5:
        assert "PlayerResigned" in kinds
    expiries = [e for e in record["events"] if e["command"] and e["command"]["type"] == "ExpireDeadline"]
    assert expiries
    assert all(e["command"]["seat"] is None for e in expiries)
    assert_ok(verify_record(record))


# --------------------------------------------------------------------------------------------------
# tampering
# --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A payoffs game with a successful Rob from a Stash of several cards and a hidden bundle taken."""
    for game_no in range(60):
        candidate = sim_record(5, {"payoffs": True}, game_no)
        events = candidate["events"]
        robs = [e for e in events if e["type"] == "RobSucceeded" and e["data"]["card"] is not None]
        hidden = [
            e
            for e in events
            if e["type"] == "PayoffResolved" and e["data"]["visibility"] == "hidden" and e["data"]["loot"]
        ]
        if robs and hidden:
            return candidate
    raise AssertionError("no simulator game with both a Rob and a hidden bundle")


def test_the_untouched_record_holds(record: dict[str, Any]) -> None:
    assert_ok(verify_record(record))


def test_an_edited_event_breaks_the_chain_at_that_event(record: dict[str, Any]) -> None:
    bad = tampered(record)
    vote = first(bad, "VoteResolved")
    vote["data"]["yes"] += 1
    assert_caught(verify_record(bad), vote["seq"], "chain")


def test_an_edited_event_with_recomputed_hashes_is_caught_by_the_rules(record: dict[str, Any]) -> None:
    bad = tampered(record)
    vote = first(bad, "VoteResolved")
    vote["data"]["yes"] += 1
    assert_caught(verify_record(rechain(bad)), vote["seq"], "rules")


def test_a_dropped_event_is_named(record: dict[str, Any]) -> None:
    bad = tampered(record)
    target = first(bad, "LootAwarded")
    del bad["events"][target["seq"] - 1]
    assert_caught(verify_record(bad), target["seq"], "chain")
    # renumbered and re-hashed: the batch that lost it no longer is what the rules decide
    for seq, event in enumerate(bad["events"], start=1):
        event["seq"] = seq
    assert_caught(verify_record(rechain(bad)), target["seq"], "rules")


def test_the_last_events_cut_off_are_caught(record: dict[str, Any]) -> None:
    bad = tampered(record)
    del bad["events"][-3:]
    assert_caught(verify_record(bad), len(bad["events"]), "chain")  # the head no longer matches
    rechained = rechain(bad)
    assert_caught(verify_record(rechained), len(bad["events"]) + 1, "rules")  # the first missing one


def test_two_swapped_events_are_named(record: dict[str, Any]) -> None:
    bad = tampered(record)
    a = first(bad, "ActionRevealed")["seq"]
    events = bad["events"]
    events[a - 1], events[a] = events[a], events[a - 1]
    assert_caught(verify_record(bad), a, "chain")
    events[a - 1]["seq"], events[a]["seq"] = a, a + 1
    assert_caught(verify_record(rechain(bad)), a, "rules")


def test_a_changed_seed_is_caught_at_its_commitment_r8_2(record: dict[str, Any]) -> None:
    bad = tampered(record)
    bad["seed"] = hashlib.sha256(b"another seed").hexdigest()
    assert_caught(verify_record(bad), 1, "seed")


def test_a_seed_changed_everywhere_is_caught_by_the_deal_r8_1(record: dict[str, Any]) -> None:
    """A forger swaps the seed and its commitment consistently (first event, start command, last event):
    the setup the new seed gives is not the deal the game was played with."""
    bad = tampered(record)
    seed = hashlib.sha256(b"another seed").digest()
    bad["seed"] = seed.hex()
    bad["seed_commitment"] = rng.seed_commitment(seed)
    start = bad["events"][0]
    start["data"]["seed"] = seed.hex()
    start["data"]["seed_commitment"] = rng.seed_commitment(seed)
    start["command"]["seed"] = seed.hex()
    bad["events"][-1]["data"]["seed"] = seed.hex()
    assert_caught(verify_record(rechain(bad)), 1, "random")


def test_a_changed_chosen_card_is_caught_at_its_commitment(record: dict[str, Any]) -> None:
    bad = tampered(record)
    chosen = first(bad, "ActionChosen")
    chosen["data"]["action"] = "rob" if chosen["data"]["action"] != "rob" else "guard"
    assert_caught(verify_record(rechain(bad)), chosen["seq"], "commitment")


def test_a_changed_card_at_its_reveal_does_not_open_the_commitment(record: dict[str, Any]) -> None:
    bad = tampered(record)
    revealed = first(bad, "ActionRevealed", lambda d: d["salt"] is not None)
    revealed["data"]["action"] = "skim" if revealed["data"]["action"] != "skim" else "guard"
    verdict = verify_record(rechain(bad))
    assert_caught(verdict, revealed["seq"], "commitment")
    assert verdict.error is not None
    assert "does not open the commitment made at event #" in verdict.error.message


def test_a_changed_choice_with_a_forged_commitment_is_caught_by_the_rules(record: dict[str, Any]) -> None:
    """The forger even recomputes the commitment (knowing the seed, after the game): the stored command
    asked for another card."""
    bad = tampered(record)
    chosen = first(bad, "ActionChosen")
    data = chosen["data"]
    data["action"] = "rob" if data["action"] != "rob" else "guard"
    salt = rng.salt(bytes.fromhex(bad["seed"]), f"salt/{data['commit_no']}")
    data["commitment"] = rng.commitment(salt, {"action": data["action"]})
    assert_caught(verify_record(rechain(bad)), chosen["seq"], "rules")


def test_a_changed_hidden_bundle_does_not_open_its_commitment(record: dict[str, Any]) -> None:
    bad = tampered(record)
    resolved = first(bad, "PayoffResolved", lambda d: d["visibility"] == "hidden" and d["loot"])
    resolved["data"]["loot"] = [*resolved["data"]["loot"][:-1], (resolved["data"]["loot"][-1] + 1) % 140]
    assert_caught(verify_record(rechain(bad)), resolved["seq"], "commitment")


def test_a_changed_random_pick_is_caught_r3_6_r8_1(record: dict[str, Any]) -> None:
    """R3.6: a robbed card is the seed's pick from the victim's Stash; another card of it is caught."""
    bad = tampered(record)
    rob = first(bad, "RobSucceeded", lambda d: d["card"] is not None)
    # another card the victim held at that moment: from the record's own full state before the event
    from games.rules.registry import get_ruleset

    rs = get_ruleset("goodcritters")
    state = rs.fold(rs.event_from_json(e["data"]) for e in record["events"][: rob["seq"] - 1])
    others = sorted(state.game.stashes[rob["data"]["victim"]] - {rob["data"]["card"]})
    assert others, "the victim had a single card"
    rob["data"]["card"] = others[0]
    verdict = verify_record(rechain(bad))
    assert_caught(verdict, rob["seq"], "random")
    assert "the seed picks" in (verdict.error.message if verdict.error else "")


def test_a_changed_command_is_caught(record: dict[str, Any]) -> None:
    bad = tampered(record)
    distribute = first(bad, "LootDistributed")
    assert distribute["command"] is not None
    distribute["command"]["seat"] = (distribute["command"]["seat"] + 1) % 5  # not the Boss (R2.2)
    assert_caught(verify_record(rechain(bad)), distribute["seq"], "rules")


def test_a_changed_time_is_caught(record: dict[str, Any]) -> None:
    bad = tampered(record)
    event = bad["events"][5]
    event["created_at"] = "2030-01-01T00:00:00+00:00"
    assert_caught(verify_record(bad), event["seq"], "chain")


def test_an_unfinished_or_malformed_record_is_refused(record: dict[str, Any]) -> None:
    assert_caught(verify_record([]), None, "format")
    assert_caught(verify_record({**record, "format_version": 4}), None, "format")
    assert_caught(verify_record({**record, "seed": "zz"}), 1, "seed")
    bad = tampered(record)
    bad["events"][3]["surprise"] = 1
    assert_caught(verify_record(bad), 4, "format")
    bad = tampered(record)
    bad["game"]["options"] = {**bad["game"]["options"], "payoffs": False}
    assert_caught(verify_record(bad), 1, "seed")


# --------------------------------------------------------------------------------------------------
# the command line, without Django
# --------------------------------------------------------------------------------------------------
def test_the_command_line_runs_without_django(record: dict[str, Any], tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    bad_record = tampered(record)
    first(bad_record, "VoteResolved")["data"]["no"] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_record))
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    script = (
        "import sys, runpy; sys.argv = ['verify', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('games.audit.verify', run_name='__main__')\n"
        "except SystemExit as exit:\n"
        "    loaded = [m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework')]\n"
        "    assert not loaded, loaded\n"
        "    raise\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    ok = subprocess.run([sys.executable, "-c", script, str(good)], capture_output=True, text=True, env=env)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("OK: game 1:")
    no = subprocess.run([sys.executable, "-c", script, str(bad)], capture_output=True, text=True, env=env)
    seq = first(bad_record, "VoteResolved")["seq"]
    assert no.returncode == 1, no.stderr
    assert f"FAILED [chain] at event #{seq} (VoteResolved)" in no.stdout
    unreadable = subprocess.run(
        [sys.executable, "-c", script, str(junk)], capture_output=True, text=True, env=env
    )
    assert unreadable.returncode == 2
    assert verify_file(junk).error is not None


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, (*path, k))]
    if isinstance(value, list) and value:
        return [p for i, v in enumerate(value) for p in _leaves(v, (*path, i))]
    return [path]


def test_random_forgeries_never_pass_and_never_crash_the_verifier(record: dict[str, Any]) -> None:
    """300 random edits of one value anywhere in the events (any field, any depth, any JSON type), with and
    without recomputed hashes: each is refused, none raises."""
    rnd = random.Random(6)
    replacements: list[Any] = [None, True, -1, 0, 1, 2**70, 1.5, "", "x", [], [1], {}, {"a": 1}, 139, 140]
    for attempt in range(300):
        bad = tampered(record)
        event = rnd.choice(bad["events"])
        # (with recomputed hashes, editing a hash or a free-text id changes nothing the verifier could see)
        free = {("hash",), ("prev_hash",), ("public_hash",), ("command_id",)} if attempt % 2 else set()
        path = rnd.choice([p for p in _leaves(event) if p not in free])
        holder: Any = event
        for key in path[:-1]:
            holder = holder[key]
        old = holder[path[-1]] if path else None
        new = rnd.choice([r for r in replacements if r != old or type(r) is not type(old)])
        holder[path[-1]] = new
        verdict = verify_record(rechain(bad) if attempt % 2 else bad)
        assert not verdict.ok, (event["seq"], path, old, new)
        assert verdict.error is not None
        assert verdict.error.seq is None or 1 <= verdict.error.seq <= len(record["events"]) + 1


def test_a_command_attributed_to_another_player_is_caught() -> None:
    """Each command is the acting seat's player's (or the system's, a bot's): moving it onto another
    player's account, even with recomputed hashes, is caught."""
    record = absent_record(5, {"deadlines": {"distribute": 30, "choose": 30}})
    assert_ok(verify_record(record))
    bad = tampered(record)
    event = next(e for e in bad["events"] if e["command"] is not None and e["command"]["seat"] == 2)
    event["actor"] = 103  # seat 3's player
    assert_caught(verify_record(rechain(bad)), event["seq"], "rules")
    bad = tampered(record)
    bad["events"][0]["actor"] = 101  # the start is the system's
    assert_caught(verify_record(rechain(bad)), 1, "rules")


@pytest.mark.parametrize(
    "spelling",
    [
        "2026-01-01T00:00:01.0000000+00:00",  # seven fractional digits: the same instant
        "2026-01-01T00:00:01.000000+00:00",  # six zeros: isoformat writes none
        "2026-01-01T00:00:01.00000+00:00",
        "2026-01-01T00:00:01Z",
        "2026-01-01T01:00:01+01:00",
        "2026-01-01T00:00:01",
    ],
)
def test_created_at_must_be_written_as_the_format_says(spelling: str) -> None:
    """Issue 28 item 16: ``created_at`` is ISO-8601 UTC with ``+00:00`` and six fractional digits or none
    (docs/AUDIT.md); the verifier refuses any other spelling, even of the same instant, though a forger
    recomputed every hash (on main, seven fractional digits passed)."""
    record = people_record("goodcritters", 4)
    seq = first(record, "MessageSent")["seq"]
    message = record["events"][seq - 1]
    assert (message["command"]["type"], message["created_at"]) == ("SendMessage", "2026-01-01T00:00:01+00:00")
    assert verify_record(record).ok
    bad = tampered(record)
    bad["events"][seq - 1]["created_at"] = spelling
    assert bad["events"][seq]["command"] is not None  # the message's batch is this one event
    assert_caught(verify_record(rechain(bad)), seq, "format")
