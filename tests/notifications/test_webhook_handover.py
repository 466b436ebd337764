"""A webhook subscription never carries secrets of a seat its owner no longer holds (issue 13, item 1; R8.3).

Why it holds: an endpoint belongs to a player; ``outbox.write_outbox`` decides the viewer when the events are
appended, from the seat rows of that moment (the hand-over changes the seat row BEFORE its events are
appended), and the payload is stored redacted for that seat and never changes: a retry sends the same bytes.
So deliveries written before the hand-over carry only what the old holder could see then, and nothing is
written for them afterwards. Proven with a normal hand-over and with one during the old holder's receiver
outage (deliveries queued across the hand-over and delivered after it)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from games import deadlines
from games.models import Event, Game
from games.rules.registry import get_ruleset
from notifications import delivery as delivery_service
from notifications.models import Delivery, DeliveryStatus
from tests.conftest import Api, Table, hand_over_to, make_api, start_table

from .helpers import Receiver, receiver
from .test_webhooks import drain, register

pytestmark = pytest.mark.django_db

RULESET = get_ruleset("goodcritters")
SECRET_TEXT = "carol-only: meet me behind the barn"
TYPES = ["game.event", "game.your_turn", "game.deadline_near", "game.ended"]


def _due(game_id: int) -> Any:
    game = Game.objects.get(pk=game_id)
    assert game.deadline_at is not None
    return game.deadline_at


def _distribute(table: Table, apis: list[Api]) -> None:
    state = table.state(0)["state"]
    boss = state["boss"]
    shares: list[list[int]] = [[] for _ in state["seats"]]
    shares[boss] = [c["id"] for c in state["table"]]
    r = apis[boss].command(table.game_id, "distribute-loot", {"shares": shares})
    assert r.status_code == 200, r.content


def _hand_over_then_carol_plays(table: Table, url: str) -> tuple[int, int]:
    """Seat 1 misses a step (autopilot), the creator hands it to carol (who registered an endpoint at ``url``
    before), carol chooses face-down and sends a private message. Returns carol's endpoint id and the seq of
    the hand-over."""
    gid, apis = table.game_id, table.apis
    _distribute(table, apis)
    for seat in (0, 2, 3):
        assert apis[seat].command(gid, "choose-action", {"action": "vote_yes"}).status_code == 200
        assert apis[seat].command(gid, "set-ready", {"ready": True}).status_code == 200
    deadlines.sweep(now=_due(gid) + timedelta(seconds=1))  # seat 1 missed the step: autopilot
    assert Event.objects.filter(game_id=gid, type="AutopilotEngaged").exists()
    carol = make_api()
    carol_endpoint: int = register(carol, url, TYPES)["id"]
    r = hand_over_to(apis[0], gid, 1, carol)  # an offer carol accepts (issue #28, item 13)
    assert r.status_code == 200, r.content
    row = Event.objects.get(game_id=gid, type="SeatHandedOver")
    # the first event of the hand-over's batch (AutopilotReleased, SeatHandedOver)
    handed = min(Event.objects.filter(game_id=gid, command_id=row.command_id).values_list("seq", flat=True))
    # carol plays seat 1 until she has chosen face-down in a choose step
    seats = [apis[0], carol, apis[2], apis[3]]
    for _ in range(6):
        state = carol.get(f"/api/v1/games/{gid}/state").json()
        waiting = state.get("waiting") or {}
        if waiting.get("step") == "choose" and 1 in waiting.get("seats", []):
            break
        if waiting.get("step") == "distribute":
            _distribute(table, seats)
            continue
        for seat in waiting.get("seats", []):
            seats[seat].command(gid, "choose-action", {"action": "vote_yes"})
            seats[seat].command(gid, "set-ready", {"ready": True})
    r = carol.command(gid, "choose-action", {"action": "rob"})
    assert r.status_code == 200, r.content
    r = carol.command(gid, "send-message", {"text": SECRET_TEXT, "to": [2]})
    assert r.status_code == 200, r.content
    return carol_endpoint, handed


def _check_old_holder(rec: Receiver, old_endpoint: int, game_id: int, handed: int) -> None:
    """Every delivery to the old holder is from before the hand-over, exactly seat 1's redaction then, and
    none carries carol's face-down choice or private message."""
    rows = {e.seq: e for e in Event.objects.filter(game_id=game_id)}
    carol_rob = [
        s
        for s, e in rows.items()
        if s > handed and e.type == "ActionChosen" and e.data.get("action") == "rob"
    ]
    assert carol_rob, "carol's face-down choice is in the log"
    mine = list(Delivery.objects.filter(endpoint_id=old_endpoint))
    assert mine
    assert all(d.status == DeliveryStatus.DELIVERED for d in mine)
    assert max(d.seq for d in mine) < handed
    accepted = {r.headers["webhook-id"]: r.body for r in rec.accepted()}
    assert set(accepted) >= {d.id for d in mine}
    for d in mine:
        body = accepted[d.id].decode()
        assert SECRET_TEXT not in body
        payload = json.loads(body)
        assert payload["data"]["seat"] == 1
        if d.type == "game.event":
            event = RULESET.event_from_json(rows[d.seq].data)
            expected = RULESET.redact_event(event, 1, terminal=False)
            assert payload["data"]["event"] == json.loads(json.dumps(expected, default=str))


def _check_new_holder(carol_endpoint: int, handed: int) -> None:
    """The control: carol's own endpoint does carry her secrets (so the check above can fail)."""
    bodies = [
        json.dumps(d.payload) for d in Delivery.objects.filter(endpoint_id=carol_endpoint, type="game.event")
    ]
    assert any(SECRET_TEXT in b for b in bodies)
    assert any('"action": "rob"' in b for b in bodies)
    assert min(d.seq for d in Delivery.objects.filter(endpoint_id=carol_endpoint)) >= handed


def api_command_ok(api: Api, game_id: int) -> bool:
    r = api.command(game_id, "send-message", {"text": "before the outage ends"})
    return bool(r.status_code == 200)


OPTIONS = {"deadlines": {"distribute": 60, "choose": 60}, "absence": {"extensions": 0, "autopilot_after": 1}}


def test_a_normal_hand_over_leaves_the_old_holder_nothing_of_the_new_one() -> None:
    with receiver() as rec:
        table = start_table(4, OPTIONS)
        old = register(table.apis[1], rec.url, TYPES)
        carol_endpoint, handed = _hand_over_then_carol_plays(table, rec.url)
        drain()
        _check_old_holder(rec, old["id"], table.game_id, handed)
        _check_new_holder(carol_endpoint, handed)


def test_a_hand_over_during_the_old_holders_outage_leaves_them_nothing_of_the_new_one() -> None:
    with receiver(always_fail=True) as rec:
        table = start_table(4, OPTIONS)
        old = register(table.apis[1], rec.url, TYPES)
        assert api_command_ok(table.apis[1], table.game_id)  # something for the old holder's endpoint
        for delivery_id in delivery_service.due_deliveries():  # the workers try: the receiver is down
            delivery_service.attempt_delivery(delivery_id)
        assert rec.requests
        assert not rec.accepted()
        carol_endpoint, handed = _hand_over_then_carol_plays(table, rec.url)
        before = Delivery.objects.filter(endpoint_id=old["id"], status=DeliveryStatus.PENDING)
        assert before.filter(seq__lt=handed).exists()  # queued across the hand-over
        rec.always_fail = False
        drain()
        _check_old_holder(rec, old["id"], table.game_id, handed)
        _check_new_holder(carol_endpoint, handed)
