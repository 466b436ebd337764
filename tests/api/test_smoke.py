from __future__ import annotations

import json
from typing import Any

from tests.conftest import Api


def test_create_game_with_bots_and_start(alice: Api, api_factory: Any) -> None:
    r = alice.post("/api/v1/games", {"seats": 4, "bots": ["sensible", "random", "sensible"]})
    assert r.status_code == 201, r.content
    game = r.json()
    assert game["status"] == "running"
    r = alice.get(f"/api/v1/games/{game['id']}/state")
    assert r.status_code == 200, r.content
    body = r.json()
    print(json.dumps(body)[:2000])
    assert body["viewer"] is not None
