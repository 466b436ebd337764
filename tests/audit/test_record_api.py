"""The record, the verification and the state at an event over HTTP, and ``manage.py verify_game``: nothing
of a running game leaks (409 while it runs; the state at an event only as the caller's own view, R8.3), the
record of a finished game verifies, offline and through the API, and the stored commands carry their seat."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from games.audit import signature
from games.audit.verify import verify_record
from games.models import Game, GameStatus
from games.rules.registry import get_ruleset
from games.services import bots, lobby
from tests.conftest import Api, Table, assert_problem, start_table

RULESET = get_ruleset("goodcritters")


def finished_bot_game(api: Api, players: int = 4, options: dict[str, Any] | None = None) -> Game:
    """A game of bots only, played to its end by the service (each bot command its own transaction)."""
    game = lobby.game_create(
        creator=api.player,
        seats=players,
        options=options or {},
        join=False,
        bots=["sensible" if s % 2 else "random" for s in range(players)],
        name="bots",
    )
    bots.bots_play(game.pk, max_steps=100_000)
    game.refresh_from_db()
    assert game.status == GameStatus.OVER
    return game


@pytest.fixture
def finished(alice: Api) -> Game:
    return finished_bot_game(alice, 5, {"payoffs": True})


@pytest.mark.django_db
def test_the_record_of_a_finished_game_verifies(alice: Api, finished: Game, tmp_path: Path) -> None:
    response = alice.get(f"/api/v1/games/{finished.pk}/record")
    assert response.status_code == 200, response.content
    record = response.json()
    assert record["format"] == "goodcritters.record"
    assert record["format_version"] == 3  # public chain 2 (issue 28 item 15)
    assert record["game"]["id"] == finished.pk
    assert record["game"]["ruleset_version"] == "3"  # the rules it was played under (ruling 32)
    assert record["game"]["options"] == finished.options
    assert [s["seat"] for s in record["seats"]] == list(range(5))
    assert record["head_hash"] == finished.head_hash
    assert len(record["events"]) == finished.version
    # the seed is revealed and matches the commitment published at the start (R8.2)
    assert record["seed"] == record["events"][0]["data"]["seed"] == record["events"][-1]["data"]["seed"]
    # every batch starts with its command, with the acting seat: bots act in their seat, the start is system
    commands = [e["command"] for e in record["events"] if e["command"] is not None]
    assert commands[0]["type"] == "StartGame"
    assert commands[0]["seat"] is None
    assert all(isinstance(c["seat"], int) for c in commands[1:])
    verdict = verify_record(record)
    assert verdict.ok, verdict.text()

    served = alice.get(f"/api/v1/games/{finished.pk}/verify")
    assert served.status_code == 200
    assert served.json()["ok"] is True
    assert served.json()["error"] is None
    jwks = alice.client.get("/.well-known/goodcritters-record-key")
    assert jwks.status_code == 200
    keys = signature.public_keys_from(jwks.content.decode())
    assert served.json() == verify_record(record, keys=keys).to_json()

    path = tmp_path / "record.json"
    path.write_text(response.content.decode())
    call_command("verify_game", str(path), stdout=(out := _Sink()))
    assert out.text.startswith(f"OK: game {finished.pk}:")
    call_command("verify_game", "--game", str(finished.pk), "--json", stdout=(out := _Sink()))
    assert json.loads(out.text)["ok"] is True


@pytest.mark.django_db
def test_verify_game_exits_non_zero_naming_the_first_bad_event(
    alice: Api, finished: Game, tmp_path: Path
) -> None:
    record = alice.get(f"/api/v1/games/{finished.pk}/record").json()
    target = next(e for e in record["events"] if e["type"] == "LootDistributed")
    target["data"]["boss"] = (target["data"]["boss"] + 1) % 5
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    with pytest.raises(CommandError) as raised:
        call_command("verify_game", str(path), stdout=(out := _Sink()))
    assert raised.value.returncode == 1
    assert f"FAILED [chain] at event #{target['seq']} (LootDistributed)" in out.text
    with pytest.raises(CommandError) as raised:
        call_command("verify_game", str(tmp_path / "missing.json"))
    assert raised.value.returncode == 2
    with pytest.raises(CommandError) as raised:
        call_command("verify_game")
    assert raised.value.returncode == 2


@pytest.mark.django_db
def test_nothing_of_a_running_game_is_public(table: Table, api_factory: Callable[..., Api]) -> None:
    """R8.3: while the game runs, no record, no verification, no replay; the state at an event is the
    caller's own view only."""
    gid = table.game_id
    seat0 = table.apis[0]
    for path in (f"/api/v1/games/{gid}/record", f"/api/v1/games/{gid}/verify"):
        assert_problem(seat0.get(path), 409, "game_not_over")
    page = seat0.client.get(f"/games/{gid}/replay")
    assert page.status_code == 409
    assert page["Content-Type"].startswith("application/problem+json")
    with pytest.raises(CommandError):
        call_command("verify_game", "--game", str(gid))

    version = Game.objects.get(pk=gid).version
    body = seat0.get(f"/api/v1/games/{gid}/states/{version}").json()
    assert body["full"] is False
    assert body["game_over"] is False
    assert body["viewer"] == 0
    assert body["state"] == seat0.get(f"/api/v1/games/{gid}/state").json()["state"]
    seats = body["state"]["seats"]
    assert seats[0]["stash"] is not None
    assert all(s["stash"] is None and s["stash_value"] is None for s in seats[1:])
    assert body["state"]["seed"] is None
    assert body["state"]["pile"] is None
    first = seat0.get(f"/api/v1/games/{gid}/states/1").json()
    assert first["event"]["type"] == "GameStarted"
    assert first["event"]["seed"] is None
    assert first["event"]["pile"] is None
    assert [row is None for row in first["event"]["stashes"]] == [False, True, True, True]
    # a spectator sees no Stash at all
    watcher = api_factory()
    spectator = watcher.get(f"/api/v1/games/{gid}/states/1").json()
    assert spectator["viewer"] is None
    assert all(s["stash"] is None for s in spectator["state"]["seats"])
    assert all(row is None for row in spectator["event"]["stashes"])
    # no such event
    for seq in (0, version + 1, 10**12):
        assert_problem(seat0.get(f"/api/v1/games/{gid}/states/{seq}"), 404, "no_such_event")
    assert_problem(seat0.get("/api/v1/games/999999/record"), 404, "game_not_found")


@pytest.mark.django_db
def test_after_the_end_the_state_at_any_event_is_the_full_state(alice: Api, finished: Game) -> None:
    record = alice.get(f"/api/v1/games/{finished.pk}/record").json()
    seq = next(
        e["seq"] for e in record["events"] if e["type"] == "StepOpened" and e["data"]["step"] == "choose"
    )
    body = alice.get(f"/api/v1/games/{finished.pk}/states/{seq}").json()
    assert body["full"] is True
    assert body["viewer"] is None
    state = RULESET.fold(RULESET.event_from_json(e["data"]) for e in record["events"][:seq])
    assert body["state"] == json.loads(json.dumps(RULESET.full_view(state)))  # type: ignore[attr-defined]
    assert [sorted(c["id"] for c in s["stash"]) for s in body["state"]["seats"]] == [
        sorted(stash) for stash in state.game.stashes
    ]
    assert body["state"]["pile"] == list(state.game.pile_cards())
    assert body["state"]["over"] is False
    assert body["state"]["seed"] == record["seed"]
    assert body["event"] == record["events"][seq - 1]["data"]


@pytest.mark.django_db
def test_a_cancelled_game_has_no_record(alice: Api) -> None:
    r = alice.post("/api/v1/games", {"seats": 4})
    gid = r.json()["id"]
    assert alice.post(f"/api/v1/games/{gid}/cancel").status_code == 200
    assert_problem(alice.get(f"/api/v1/games/{gid}/record"), 409, "game_not_over")
    assert_problem(alice.get(f"/api/v1/games/{gid}/states/1"), 404, "no_such_event")


@pytest.mark.django_db
def test_a_game_played_by_people_over_http_verifies(api_factory: Callable[..., Api]) -> None:
    """Four people, each with their own token, play to the end over HTTP; the record then verifies."""
    from tests.e2e.test_full_games import play_over_http

    table = start_table(4, {"fuzz_depth": "short"})
    play_over_http(table.apis, table.game_id)
    record = table.apis[2].get(f"/api/v1/games/{table.game_id}/record").json()
    actors = {e["actor"] for e in record["events"] if e["command"] is not None} - {None}
    assert actors == {api.player.pk for api in table.apis}  # every player acted, as themselves
    verdict = verify_record(record)
    assert verdict.ok, verdict.text()


class _Sink:
    """A stdout for call_command that keeps what was written."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass
