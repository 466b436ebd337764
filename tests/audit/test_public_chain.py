"""GoodCritters' pinned public-chain redaction (``games.rules.goodcritters.audit.SPECTATOR_NULLS``, the
table in docs/AUDIT.md) is exactly what the rules show a spectator while the game runs (``redact_event(event,
None, terminal=False)``), on every event of simulator games of every size and of games with absent seats,
messages and resignations; and the record's public hashes are that chain."""

from __future__ import annotations

from typing import Any

import pytest

from games.audit import public
from games.rules.registry import get_ruleset
from tests.audit.helpers import absent_record, sim_record

RULESET = get_ruleset("goodcritters")

RECORDS = [
    *[(players, {"payoffs": True}, n) for players in (4, 5, 6, 8) for n in range(2)],
    (5, {}, 3),
]


@pytest.mark.parametrize(("players", "options", "game_no"), RECORDS)
def test_the_pinned_redaction_is_the_spectators_view(
    players: int, options: dict[str, Any], game_no: int
) -> None:
    record = sim_record(players, options, game_no)
    seen = _check(record)
    assert {"GameStarted", "ActionChosen", "GameEnded"} <= seen


def test_the_pinned_redaction_covers_messages_resignations_and_defaults() -> None:
    record = absent_record(5, {"deadlines": {"distribute": 30, "choose": 30}, "payoffs": True})
    seen = _check(record)
    assert {"MessageSent", "PlayerResigned", "DeadlinePassed"} <= seen


def _check(record: dict[str, Any]) -> set[str]:
    seen: set[str] = set()
    prev = public.GENESIS
    for event in record["events"]:
        parsed = RULESET.event_from_json(event["data"])
        shown = RULESET.redact_event(parsed, None, terminal=False)
        assert public.spectator_data("goodcritters", event["data"]) == shown, event["type"]
        prev = public.chain_hash("goodcritters", record["game"]["id"], event, prev)
        assert event["public_hash"] == prev
        seen.add(event["type"])
    assert record["public_head_hash"] == prev
    return seen
