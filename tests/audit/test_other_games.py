"""The audit is the same for every registered game: a finished Loose Triggers game and a finished Were-cats
game (played by the pure bots through the registered ruleset, the table around the game) give a record that
the verifier accepts, that fails at the event a forger altered, whose public chain is what a spectator was
shown, and whose replay has the game's own chart (Loot value, Points) ending at the game's final values."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from games.audit import public, replay
from games.audit.record import simulated_record
from games.audit.verify import verify_record
from games.rules import rng
from games.rules.registry import get_ruleset
from games.rules.simulate import game_seed
from tests.audit.helpers import first, rechain, tampered

# (ruleset, players, the chart's label, the GameEnded field the chart's last values are)
GAMES = [
    ("loose_triggers", 4, "Loot value", "values"),
    ("loose_triggers", 6, "Loot value", "values"),
    ("were_cats", 3, "Points", "scores"),
    ("were_cats", 5, "Points", "scores"),
]


def game_record(slug: str, players: int, game_no: int = 0) -> dict[str, Any]:
    return simulated_record(
        players=players,
        options={},
        seed=game_seed(f"audit-{slug}", game_no),
        salt=game_no,
        ruleset=slug,
        name=f"{slug} bots",
    )


@pytest.fixture(scope="module", params=GAMES, ids=[f"{g[0]}-{g[1]}" for g in GAMES])
def game(request: pytest.FixtureRequest) -> tuple[dict[str, Any], str, str]:
    slug, players, label, field = request.param
    return game_record(slug, players), label, field


def assert_caught(verdict: Any, seq: int | None, check: str) -> None:
    assert not verdict.ok, "the verifier accepted a forged record"
    assert verdict.error is not None
    assert (verdict.error.seq, verdict.error.check) == (seq, check), verdict.text()


def test_the_record_verifies(game: tuple[dict[str, Any], str, str]) -> None:
    record, _label, _field = game
    verdict = verify_record(record)
    assert verdict.ok, verdict.text()
    assert verdict.checks == ["chain", "public", "seed", "seats", "rules"]
    assert verdict.events == len(record["events"])
    assert verdict.commands == sum(1 for e in record["events"] if e["command"] is not None)
    assert verdict.fair is True
    assert record["format"] == "goodcritters.record"
    assert record["events"][-1]["type"] == "GameEnded"
    commitment = record["events"][0]["data"]["seed_commitment"]
    assert rng.seed_commitment(bytes.fromhex(record["seed"])) == commitment


def test_the_public_chain_is_what_a_spectator_saw(game: tuple[dict[str, Any], str, str]) -> None:
    record, _label, _field = game
    rs = get_ruleset(record["game"]["ruleset"])
    prev = public.GENESIS
    for event in record["events"]:
        shown = rs.redact_event(rs.event_from_json(event["data"]), None, terminal=False)
        assert public.spectator_data(rs.slug, event["data"]) == shown
        prev = public.public_hash(
            game_id=record["game"]["id"],
            seq=event["seq"],
            type=event["type"],
            schema_version=event["schema_version"],
            public_data=shown,
            created_at=event["created_at"],
            prev_public_hash=prev,
            seal=public.event_seal(event),  # public chain 2: the event's other facts, salted
        )
        assert event["public_hash"] == prev
    assert record["public_head_hash"] == prev
    # the seed is no spectator's while the game runs
    started = public.spectator_data(rs.slug, record["events"][0]["data"])
    assert started["seed"] is None
    assert started["seed_commitment"] == record["events"][0]["data"]["seed_commitment"]


def test_an_altered_event_fails(game: tuple[dict[str, Any], str, str]) -> None:
    record, _label, field = game
    ended = record["events"][-1]
    # an edited event: the private chain breaks at it
    bad = tampered(record)
    bad["events"][-1]["data"][field][0] += 1
    assert_caught(verify_record(bad), ended["seq"], "chain")
    # a forger who recomputes both chains: the rules do not decide that event
    assert_caught(verify_record(rechain(bad)), ended["seq"], "rules")
    # with a watcher's checkpoint at the end: the public chain already says it is not the game watched
    checkpoint = (ended["seq"], ended["public_hash"])
    assert_caught(verify_record(rechain(tampered(bad)), checkpoints=[checkpoint]), ended["seq"], "public")
    assert verify_record(record, checkpoints=[checkpoint]).ok


def test_a_changed_face_down_card_fails() -> None:
    """Loose Triggers' Action cards are chosen face down (a commitment, LT7.2): a card changed after the
    fact is an event the rules do not decide; its commitment changed too is no longer what spectators saw."""
    record = game_record("loose_triggers", 5)
    chosen = first(record, "ActionChosen")
    bad = tampered(record)
    event = bad["events"][chosen["seq"] - 1]
    event["data"]["card"] = next(c for c in range(40) if c != event["data"]["card"])
    assert_caught(verify_record(rechain(bad)), chosen["seq"], "rules")
    event["data"]["commitment"] = hashlib.sha256(b"another").hexdigest()
    later = record["events"][chosen["seq"] + 5]
    checkpoint = (later["seq"], later["public_hash"])
    assert_caught(verify_record(rechain(bad), checkpoints=[checkpoint]), later["seq"], "public")


def test_a_changed_seed_fails() -> None:
    record = game_record("were_cats", 4)
    bad = tampered(record)
    other = "00" * 32
    bad["seed"] = bad["events"][0]["data"]["seed"] = bad["events"][-1]["data"]["seed"] = other
    assert_caught(verify_record(rechain(bad)), 1, "seed")


def test_the_replay_has_the_games_chart(game: tuple[dict[str, Any], str, str]) -> None:
    record, label, field = game
    steps = replay.build(record)
    chart = steps["chart"]
    assert chart is not None
    assert chart["label"] == label
    assert chart["seqs"][-1] == record["events"][-1]["seq"]
    assert chart["series"][-1] == record["events"][-1]["data"][field]
    assert len(chart["series"]) >= 3, "the values change during the game"
    assert all(len(row) == len(record["seats"]) for row in chart["series"])
    # one step per command, covering every event once, in order
    sections = steps["sections"]
    assert len(sections) == sum(1 for e in record["events"] if e["command"] is not None)
    covered = [seq for s in sections for seq in range(s["first_seq"], s["last_seq"] + 1)]
    assert covered == [e["seq"] for e in record["events"]]
    geometry = replay.chart(chart["label"], chart["seqs"], chart["series"], steps["names"])
    assert [line["last"] for line in geometry["lines"]] == record["events"][-1]["data"][field]
