"""Complete games over HTTP for every player count: each seat is its own API client with its own token; what
each sends is chosen by the ruleset's bot logic (on the server's fold) but sent over HTTP like any client."""

from __future__ import annotations

from typing import Any

import pytest

from games import loading, store
from games.api.commands import kebab
from games.audit.verify import verify_record
from games.models import Game
from games.rules.registry import get_ruleset
from tests.conftest import Api, make_api

RULESET = get_ruleset("goodcritters")
OPTIONS: dict[int, dict[str, Any]] = {
    4: {"payoffs": True},
    5: {},
    6: {"payoffs": True, "no_vote_rule": "russian", "boss_term_limit": 3},
    7: {"fuzz_depth": "short", "shuffle_seats": True},
    8: {"payoffs": True, "fuzz_depth": "short"},
}


def _strategy(players: int, position: int) -> str:
    return "random" if (position + players) % 2 else "sensible"


def play_over_http(apis: list[Api], game_id: int, *, max_commands: int = 5000) -> int:
    """Drive the game to its end; returns the number of commands sent."""
    sent = 0
    by_uid = {f"p{api.player.pk}": api for api in apis}
    while sent < max_commands:
        game = Game.objects.get(pk=game_id)
        if game.status == "over":
            return sent
        state = loading.load_state(game)
        players = RULESET.view_for(state, None)["players"]
        progressed = False
        for position, uid in enumerate(players):
            command = RULESET.bot_command(
                state, position, strategy=_strategy(len(players), position), salt=sent
            )
            if command is None:
                continue
            body = RULESET.command_to_json(command)
            kind = body.pop("type")
            response = by_uid[uid].command(game_id, kebab(kind), body)
            assert response.status_code == 200, (kind, body, response.content[:400])
            view = response.json()
            assert view["viewer"] == position
            assert (
                response["ETag"]
                == f'"{game_id}.{view["game"]["version"] and Game.objects.get(pk=game_id).revision}"'
            )
            sent += 1
            progressed = True
            break
        assert progressed, "no seat had anything to do but the game is not over"
    raise AssertionError("the game did not end")


@pytest.mark.django_db
@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
def test_a_complete_game_over_http(players: int) -> None:
    apis = [make_api() for _ in range(players)]
    creator = apis[0]
    r = creator.post(
        "/api/v1/games", {"seats": players, "options": OPTIONS[players], "name": f"{players} players"}
    )
    assert r.status_code == 201, r.content
    game_id = r.json()["id"]
    for api in apis[1:]:
        r = api.post(f"/api/v1/games/{game_id}/join", {})
        assert r.status_code == 200, r.content
    assert r.json()["status"] == "running"

    sent = play_over_http(apis, game_id)
    assert sent > 0

    # over: the full record is public, the chain verifies, the served state equals a replay
    game = Game.objects.get(pk=game_id)
    assert game.status == "over"
    assert store.verify_chain(game_id)
    final = creator.get(f"/api/v1/games/{game_id}/state").json()
    assert final["over"] is True
    assert final["scores"] is not None
    assert len(final["scores"]) == players
    assert final["state"]["seed"] is not None
    items: list[dict[str, Any]] = []
    after = 0
    while True:
        feed = creator.get(f"/api/v1/games/{game_id}/events", limit=1000, after=after).json()
        items += feed["events"]
        after = feed["next_after"]
        if not feed["more"]:
            break
    assert [item["seq"] for item in items] == list(range(1, game.version + 1))
    feed["events"] = items
    types = [item["event"]["type"] for item in feed["events"]]
    assert types[0] == "GameStarted"
    assert types[-1] == "GameEnded"
    assert feed["events"][0]["event"]["seed"] is not None
    assert feed["head_hash"] == game.head_hash
    replay = RULESET.fold(RULESET.event_from_json(item["event"]) for item in feed["events"])
    assert RULESET.view_for(replay, final["viewer"]) == final["state"]
    # the public record of the game passes the independent verifier (docs/AUDIT.md)
    record = creator.get(f"/api/v1/games/{game_id}/record").json()
    verdict = verify_record(record)
    assert verdict.ok, verdict.text()
    assert verdict.events == game.version
