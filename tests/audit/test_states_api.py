"""The replay's reads (issue #22): ``GET /games/{id}/states`` (a page of positions, each exactly what
``GET /games/{id}/states/{seq}`` gives) and ``GET /games/{id}/chart`` (the replay page's chart data). While a
game runs the positions are the caller's own view only and the chart is refused (R8.3); once it is over,
everything."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from games.audit import replay
from games.models import Game
from tests.audit.test_record_api import finished_bot_game
from tests.conftest import Api, Table, assert_problem


@pytest.mark.django_db
def test_a_finished_game_pages_through_every_position(alice: Api) -> None:
    game = finished_bot_game(alice, 4, {"payoffs": True})
    version = game.version
    seen: list[int] = []
    after: int | None = 0
    while after is not None:
        page = alice.get(f"/api/v1/games/{game.pk}/states?after={after}&limit=100")
        assert page.status_code == 200, page.content
        assert page["ETag"] == game.etag
        body = page.json()
        assert (body["game"], body["version"], body["game_over"], body["full"], body["viewer"]) == (
            game.pk,
            version,
            True,
            True,
            None,
        )
        seen += [item["seq"] for item in body["states"]]
        after = body["next_after"]
    assert seen == list(range(1, version + 1))
    # each position is the one /states/{seq} gives
    page = alice.get(f"/api/v1/games/{game.pk}/states?after=40&limit=3").json()
    assert [item["seq"] for item in page["states"]] == [41, 42, 43]
    assert page["next_after"] == 43
    for item in page["states"]:
        one = alice.get(f"/api/v1/games/{game.pk}/states/{item['seq']}").json()
        assert (item["event"], item["state"]) == (one["event"], one["state"])
    # past the end: an empty last page
    tail = alice.get(f"/api/v1/games/{game.pk}/states?after={version}").json()
    assert (tail["states"], tail["next_after"]) == ([], None)
    for bad in ("limit=0", "limit=101", "after=-1", "after=x"):
        assert_problem(alice.get(f"/api/v1/games/{game.pk}/states?{bad}"), 400, "invalid_query")
    assert_problem(alice.get("/api/v1/games/987654/states"), 404, "game_not_found")


@pytest.mark.django_db
def test_the_chart_is_the_replay_pages_chart(alice: Api) -> None:
    game = finished_bot_game(alice, 5, {"payoffs": True})
    record = alice.get(f"/api/v1/games/{game.pk}/record").json()
    built = replay.build(record)
    response = alice.get(f"/api/v1/games/{game.pk}/chart")
    assert response.status_code == 200, response.content
    chart = response.json()
    assert chart == {"names": built["names"], **built["chart"]}
    assert chart["label"] == "Stash value"
    assert chart["seqs"][-1] == game.version
    final = record["events"][-1]["data"]
    assert final["type"] == "GameEnded"
    assert len(chart["series"][-1]) == 5


@pytest.mark.django_db
def test_a_running_game_gives_only_the_callers_view(table: Table, api_factory: Callable[..., Api]) -> None:
    gid = table.game_id
    seat0 = table.apis[0]
    version = Game.objects.get(pk=gid).version
    body = seat0.get(f"/api/v1/games/{gid}/states?after=0&limit=100").json()
    assert (body["full"], body["game_over"], body["viewer"]) == (False, False, 0)
    assert [item["seq"] for item in body["states"]] == list(range(1, min(version, 100) + 1))
    for item in body["states"]:
        one = seat0.get(f"/api/v1/games/{gid}/states/{item['seq']}").json()
        assert (item["event"], item["state"]) == (one["event"], one["state"])
    last = body["states"][-1]["state"]
    assert last["seats"][0]["stash"] is not None
    assert all(s["stash"] is None for s in last["seats"][1:])
    first = body["states"][0]["event"]
    assert [row is None for row in first["stashes"]] == [False, True, True, True]
    watcher = api_factory()
    seen = watcher.get(f"/api/v1/games/{gid}/states").json()
    assert seen["viewer"] is None
    assert all(s["stash"] is None for item in seen["states"] for s in item["state"]["seats"])
    assert_problem(seat0.get(f"/api/v1/games/{gid}/chart"), 409, "game_not_over")
