"""Lobby: create, list and filter with cursor pagination, join, leave, bots, start, cancel, operator setup."""

from __future__ import annotations

import pytest

from games.models import Event, Game
from games.services import bots
from tests.conftest import Api, assert_problem, make_api

pytestmark = pytest.mark.django_db


def test_create_join_leave_and_auto_start_when_full(alice: Api) -> None:
    r = alice.post(
        "/api/v1/games",
        {"seats": 4, "name": "heist", "options": {"payoffs": True, "deadlines": {"choose": 600}}},
    )
    assert r.status_code == 201, r.content
    game = r.json()
    assert game["status"] == "open"
    assert game["taken"] == 1
    assert game["your_seat"] == 0
    assert game["options"]["payoffs"] is True
    assert game["options"]["deadlines"]["choose"] == 600
    assert game["fair"] is True
    assert r["ETag"]
    gid = game["id"]
    bob, carol, dave = make_api("bob"), make_api("carol"), make_api("dave")
    r = bob.post(f"/api/v1/games/{gid}/join", {"seat": 3})
    assert r.status_code == 200
    assert r.json()["your_seat"] == 3
    assert_problem(carol.post(f"/api/v1/games/{gid}/join", {"seat": 3}), 409, "seat_taken")
    assert_problem(carol.post(f"/api/v1/games/{gid}/join", {"seat": 7}), 422, "invalid_seat")
    assert_problem(bob.post(f"/api/v1/games/{gid}/join"), 409, "already_seated")
    assert bob.post(f"/api/v1/games/{gid}/leave").status_code == 200
    assert_problem(bob.post(f"/api/v1/games/{gid}/leave"), 409, "not_seated")
    for api in (bob, carol):
        assert api.post(f"/api/v1/games/{gid}/join").json()["status"] == "open"
    r = dave.post(f"/api/v1/games/{gid}/join")
    assert r.json()["status"] == "running"
    assert Event.objects.filter(game_id=gid).values_list("type", flat=True).first() == "GameStarted"
    assert_problem(make_api().post(f"/api/v1/games/{gid}/join"), 409, "already_started")
    assert_problem(bob.post(f"/api/v1/games/{gid}/leave"), 409, "already_started")


def test_bots_and_start_by_the_creator(alice: Api) -> None:
    gid = alice.post("/api/v1/games", {"seats": 6}).json()["id"]
    bob = make_api("bob")
    assert_problem(bob.post(f"/api/v1/games/{gid}/bots", {"strategy": "random"}), 403, "not_creator")
    assert alice.post(f"/api/v1/games/{gid}/bots", {"strategy": "random"}).status_code == 200
    assert alice.post(f"/api/v1/games/{gid}/bots", {"strategy": "sensible", "seat": 5}).status_code == 200
    assert_problem(alice.post(f"/api/v1/games/{gid}/start"), 409, "not_enough_players")
    bob.post(f"/api/v1/games/{gid}/join")
    assert_problem(bob.post(f"/api/v1/games/{gid}/start"), 403, "not_creator")
    r = alice.post(f"/api/v1/games/{gid}/start")
    assert r.status_code == 200
    assert r.json()["status"] == "running"
    assert r.json()["seats"] == 4
    players = r.json()["players"]
    assert [p["seat"] for p in players] == [0, 1, 2, 3]
    assert sorted(p["bot"] or "human" for p in players) == ["human", "human", "random", "sensible"]


def test_cancel_before_start_only(alice: Api) -> None:
    gid = alice.post("/api/v1/games", {"seats": 4}).json()["id"]
    assert_problem(make_api().post(f"/api/v1/games/{gid}/cancel"), 403, "not_creator")
    assert alice.post(f"/api/v1/games/{gid}/cancel").json()["status"] == "cancelled"
    assert_problem(alice.post(f"/api/v1/games/{gid}/cancel"), 409, "game_cancelled")
    assert_problem(make_api().post(f"/api/v1/games/{gid}/join"), 409, "game_cancelled")


def test_list_open_games_with_filters_and_cursor_pagination(alice: Api) -> None:
    ids = [alice.post("/api/v1/games", {"seats": 4, "name": f"g{i}"}).json()["id"] for i in range(5)]
    full = alice.post("/api/v1/games", {"seats": 4, "join": False}).json()["id"]
    for _ in range(3):
        make_api().post(f"/api/v1/games/{full}/join")
    seen: list[int] = []
    page = alice.get("/api/v1/games", page_size="2").json()
    while True:
        seen += [g["id"] for g in page["results"]]
        if not page["next"]:
            break
        page = alice.client.get(page["next"], headers={"Authorization": f"Bearer {alice.token}"}).json()
    assert seen == sorted([*ids, full], reverse=True)
    free = [g["id"] for g in alice.get("/api/v1/games", free_seats="true").json()["results"]]
    assert set(free) == {*ids, full}  # the 3-of-4 game still has a free seat
    last = make_api()
    last.post(f"/api/v1/games/{full}/join")
    assert full not in [g["id"] for g in alice.get("/api/v1/games").json()["results"]]
    running = [g["id"] for g in alice.get("/api/v1/games", status="running").json()["results"]]
    assert running == [full]
    mine = [g["id"] for g in last.get("/api/v1/me/games").json()["results"]]
    assert mine == [full]


def test_operator_setup_makes_an_unfair_game_and_fixes_the_seed() -> None:
    op = make_api("operator", staff=True)
    seed = "ab" * 32
    r = op.post(
        "/api/v1/games",
        {"seats": 4, "bots": ["sensible"] * 3, "setup": {"seed": seed, "seat_order": [3, 2, 1, 0]}},
    )
    assert r.status_code == 201, r.content
    game = r.json()
    assert game["fair"] is False
    assert game["status"] == "running"
    assert [p["player"] for p in game["players"]][-1] == "operator"  # lobby seat 0 sits last
    first = Event.objects.get(game_id=game["id"], seq=1)
    assert first.data["seed"] == seed
    assert first.data["fair"] is False
    state = op.get(f"/api/v1/games/{game['id']}/state").json()
    assert state["state"]["fair"] is False
    assert state["viewer"] == 3
    assert "setup" not in state["game"]
    assert seed not in str(state)


def test_bots_play_is_idempotent_and_bounded(alice: Api) -> None:
    gid = alice.post("/api/v1/games", {"seats": 4, "join": False, "bots": ["random"] * 4}).json()["id"]
    game = Game.objects.get(pk=gid)
    # bots never play inside the request: a Celery task (games.tasks.play_bots) is published on commit,
    # and the game is on the sweeper's list until they have played (tests/deadlines prove the task path)
    assert game.status == "running"
    assert game.bots_due_at is not None
    assert bots.bots_play(gid) > 0  # what the task runs: only bots, they play it to the end
    game.refresh_from_db()
    assert (game.status, game.bots_due_at) == ("over", None)
    assert bots.bots_play(gid) == 0
