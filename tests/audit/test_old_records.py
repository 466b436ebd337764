"""Records made before format version 2 still verify: two records checked in before the record's format
changed (``fixtures/record-v1-4p.json``, the simulator's worked example as it was, and
``fixtures/record-v1-server.json``, a game of two players, a player who wrote and resigned and two bots,
played to its end through the HTTP API by the server of that day)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.audit.verify import verify_record

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize("name", ["record-v1-4p.json", "record-v1-server.json"])
def test_a_version_1_record_made_before_the_change_still_verifies(name: str) -> None:
    record = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    assert record["format_version"] == 1
    verdict = verify_record(record)
    assert verdict.ok, verdict.text()
    assert verdict.events == len(record["events"])


def test_a_version_1_record_is_still_checked() -> None:
    record = json.loads((FIXTURES / "record-v1-server.json").read_text(encoding="utf-8"))
    vote = next(e for e in record["events"] if e["type"] == "ActionChosen")
    vote["data"]["action"] = "guard" if vote["data"]["action"] != "guard" else "rob"
    verdict = verify_record(record)
    assert not verdict.ok
    assert verdict.error is not None
    assert verdict.error.check == "chain"
