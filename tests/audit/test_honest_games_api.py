"""Honest games verify (issue 13, item 2), through the public HTTP API: games with hand-overs (to a player and
to a bot), an operator's setup, resignations, a pause and an outage extension are each played to their end,
and their record (``/record``) and its verification (``/verify``) are ok; the record says who held each seat
from which event on, and the fair flag is the log's.

(The autouse ``finished_games_verify`` fixture in tests/conftest.py checks every finished game of every
database test as well; these tests look at the records themselves.)"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import deadlines
from games.audit import signature
from games.audit.verify import verify_record
from games.models import Event, Game
from tests.audit.play import play_to_end
from tests.conftest import Api, Table, hand_over_to, make_api, start_table

pytestmark = pytest.mark.django_db

ABSENCE = {
    "deadlines": {"distribute": 60, "choose": 60},
    "absence": {"extensions": 0, "autopilot_after": 1},
}


def _distribute(table: Table) -> None:
    state = table.state(0)["state"]
    shares: list[list[int]] = [[] for _ in state["seats"]]
    shares[state["boss"]] = [c["id"] for c in state["table"]]
    r = table.apis[state["boss"]].command(table.game_id, "distribute-loot", {"shares": shares})
    assert r.status_code == 200, r.content


def _choose_and_ready(api: Api, game_id: int, action: str = "vote_yes") -> None:
    assert api.command(game_id, "choose-action", {"action": action}).status_code == 200
    assert api.command(game_id, "set-ready", {"ready": True}).status_code == 200


def _due(game_id: int) -> Any:
    game = Game.objects.get(pk=game_id)
    assert game.deadline_at is not None
    return game.deadline_at


def _record_and_verdict(api: Api, game_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    record = api.get(f"/api/v1/games/{game_id}/record")
    assert record.status_code == 200, record.content
    verdict = api.get(f"/api/v1/games/{game_id}/verify")
    assert verdict.status_code == 200, verdict.content
    body: dict[str, Any] = verdict.json()
    assert body["ok"] is True, body["error"]
    assert body["error"] is None
    # and offline, with the key the server publishes
    keys = signature.public_keys_from(api.client.get("/.well-known/goodcritters-record-key").content.decode())
    offline = verify_record(record.json(), keys=keys)
    assert offline.ok, offline.text()
    return record.json(), body


def test_a_game_with_hand_overs_to_a_player_and_to_a_bot_and_a_resignation_verifies() -> None:
    table = start_table(4, ABSENCE)
    gid, creator = table.game_id, table.apis[0]
    assert table.apis[1].command(gid, "send-message", {"text": "back soon"}).status_code == 200
    _distribute(table)
    for seat in (0, 3):
        _choose_and_ready(table.apis[seat], gid)
    deadlines.sweep(now=_due(gid) + timedelta(seconds=1))  # seats 1 and 2 missed: autopilot
    carol = make_api("carol")
    r = hand_over_to(creator, gid, 1, carol)  # an offer carol accepts (issue #28, item 13)
    assert r.status_code == 200, r.content
    r = creator.post(f"/api/v1/games/{gid}/seats/2/hand-over", {"to": "bot", "strategy": "random"})
    assert r.status_code == 200, r.content
    handed = {e.data["seat"]: e.seq for e in Event.objects.filter(game_id=gid, type="SeatHandedOver")}
    assert set(handed) == {1, 2}
    assert table.apis[3].command(gid, "resign").status_code == 200
    players = {a.player.pk: a for a in (table.apis[0], carol)}
    game = play_to_end(gid, players)
    assert game.status == "over"

    record, verdict = _record_and_verdict(creator, gid)
    assert record["format_version"] == 3  # public chain 2 (issue 28 item 15)
    seats = record["seats"]
    old1, old2 = table.apis[1].player, table.apis[2].player
    assert [(h["from_seq"], h["player_id"], h["bot"]) for h in seats[1]["holders"]] == [
        (1, old1.pk, None),
        (handed[1], carol.player.pk, None),
    ]
    assert [(h["from_seq"], h["player_id"], h["bot"]) for h in seats[2]["holders"]] == [
        (1, old2.pk, None),
        (handed[2], None, "random"),
    ]
    assert (seats[1]["uid"], seats[1]["player_id"]) == (f"p{carol.player.pk}", carol.player.pk)
    assert (seats[2]["player_id"], seats[2]["bot"]) == (None, "random")
    assert [len(s["holders"]) for s in (seats[0], seats[3])] == [1, 1]
    # the old holders acted in their seats before the hand-over, the new ones after: both attributed
    actors = {e["actor"] for e in record["events"] if e["command"] and e["command"]["seat"] == 1}
    assert {old1.pk, carol.player.pk} <= actors
    assert verdict["checks"][:4] == ["signature", "chain", "public", "seed"]
    # the replay page names every holder of a seat, and from which event on
    page = creator.client.get(f"/games/{gid}/replay").content.decode()
    assert f"{old1.public_name} → carol <small>(from event #{handed[1]})</small>" in page
    assert f"(bot) <small>(from event #{handed[2]})</small>" in page
    # the same game as a version-1 record (as the server wrote it before: each seat's holder at the end, no
    # public chain, no signature) verifies too: earlier holders are named by the server's uid, p{player id}
    old = _as_version_1(record)
    legacy = verify_record(old)
    assert legacy.ok, legacy.text()
    old["seats"][1]["player_id"] = table.apis[3].player.pk  # a seat given to the wrong account is caught
    assert not verify_record(old).ok


def _as_version_1(record: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in record.items() if k not in ("signature", "public_head_hash")}
    out["format_version"] = 1
    out["seats"] = [{k: v for k, v in s.items() if k != "holders"} for s in record["seats"]]
    out["events"] = [
        {k: v for k, v in e.items() if k not in ("public_hash", "salt")} for e in record["events"]
    ]
    return out


def test_a_game_whose_seed_an_operator_fixed_says_so_everywhere_and_verifies() -> None:
    operator = make_api("operator", staff=True)
    others = [make_api() for _ in range(3)]
    seed = "ab" * 32
    r = operator.post("/api/v1/games", {"seats": 4, "options": {}, "setup": {"seed": seed}})
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert r.json()["fair"] is False
    for api in others:
        assert api.post(f"/api/v1/games/{gid}/join").status_code == 200
    state = operator.get(f"/api/v1/games/{gid}/state").json()
    assert state["game"]["fair"] is False
    assert state["state"]["fair"] is False  # the log's GameStarted tells players the truth
    started = Event.objects.get(game_id=gid, seq=1)
    assert started.data["fair"] is False
    assert started.command is not None
    assert started.command["fixed_seed"] is True
    assert others[0].command(gid, "resign").status_code == 200
    game = play_to_end(gid, {a.player.pk: a for a in (operator, *others)})
    record, verdict = _record_and_verdict(operator, gid)
    assert record["seed"] == seed
    assert record["game"]["fair"] is False
    assert verdict["fair"] is False
    assert game.fair is False


def test_a_client_cannot_set_the_fixed_seed_flag_itself() -> None:
    operator = make_api("operator", staff=True)
    body = {"seats": 4, "options": {}, "setup": {"seed": "cd" * 32, "fixed_seed": False}}
    r = operator.post("/api/v1/games", body)
    assert r.status_code == 422, r.content


def test_a_game_paused_resumed_and_extended_after_an_outage_verifies() -> None:
    table = start_table(4, {**ABSENCE, "absence": {"extensions": 0, "autopilot_after": None}})
    gid, creator = table.game_id, table.apis[0]
    assert creator.post(f"/api/v1/games/{gid}/pause").status_code == 200
    assert creator.post(f"/api/v1/games/{gid}/resume").status_code == 200
    due = _due(gid)
    start = timezone.now()
    deadlines.sweep(now=start)  # the sweeper was alive ...
    report = deadlines.sweep(now=due + timedelta(seconds=300))  # ... then nothing ran past the deadline
    assert report.extended == [gid]
    types = set(Event.objects.filter(game_id=gid).values_list("type", flat=True))
    assert {"GamePaused", "GameResumed", "DeadlineExtended"} <= types
    play_to_end(gid, {a.player.pk: a for a in table.apis})
    record, _verdict = _record_and_verdict(creator, gid)
    assert all(len(s["holders"]) == 1 for s in record["seats"])
