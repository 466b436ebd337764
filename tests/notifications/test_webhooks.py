"""Webhooks: registration (SSRF guard, secret once), the outbox written with the events, Standard Webhooks
signatures verified by a real receiver on loopback, retries with backoff, disabling, and redaction (R8.3:
no delivery shows another seat's secrets)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.db import transaction
from django.test import override_settings
from standardwebhooks import Webhook

from games.models import Event, Game
from games.rules.registry import get_ruleset
from games.services import lobby
from notifications import delivery as delivery_service
from notifications.models import Delivery, DeliveryAttempt, DeliveryStatus, WebhookEndpoint
from tests.conftest import Api, assert_problem, make_api
from tests.e2e.test_full_games import play_over_http

from .helpers import Receiver, receiver

RULESET = get_ruleset("goodcritters")
SHORT = {"fuzz_depth": [0.06, 0.08]}
"""The Fuzz! near the top of the pile (R1.5): a complete game of a few dozen events."""
ALL_TYPES = ["game.deadline_near", "game.ended", "game.event", "game.started", "game.your_turn"]


def register(api: Api, url: str, events: list[str] | None = None) -> dict[str, Any]:
    r = api.post("/api/v1/me/webhooks", {"url": url, "events": events or ALL_TYPES})
    assert r.status_code == 201, r.content
    body: dict[str, Any] = r.json()
    return body


def new_game(apis: list[Api], options: dict[str, Any] | None = None) -> int:
    r = apis[0].post("/api/v1/games", {"seats": len(apis), "options": SHORT if options is None else options})
    assert r.status_code == 201, r.content
    game_id: int = r.json()["id"]
    for api in apis[1:]:
        assert api.post(f"/api/v1/games/{game_id}/join").status_code == 200
    return game_id


def drain(limit_seconds: float = 30.0) -> None:
    """Run the delivery service like the worker would, until nothing is pending (bounded)."""
    deadline = time.monotonic() + limit_seconds
    while Delivery.objects.filter(status=DeliveryStatus.PENDING).exists():
        assert time.monotonic() < deadline, "deliveries still pending"
        due = delivery_service.due_deliveries()
        if not due:
            time.sleep(0.02)
        for delivery_id in due:
            delivery_service.attempt_delivery(delivery_id)


# --------------------------------------------------------------------------------------------------
# registration
# --------------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_the_secret_is_shown_once_and_endpoints_are_private(alice: Api) -> None:
    created = register(alice, "http://127.0.0.1:9/hook", ["game.your_turn"])
    assert created["secret"].startswith("whsec_")
    Webhook(created["secret"])  # a valid Standard Webhooks secret
    listed = alice.get("/api/v1/me/webhooks").json()
    assert [e["id"] for e in listed] == [created["id"]]
    assert "secret" not in listed[0]
    assert "secret" not in alice.get(f"/api/v1/me/webhooks/{created['id']}").json()
    bob = make_api("bob")
    assert_problem(bob.get(f"/api/v1/me/webhooks/{created['id']}"), 404, "webhook_not_found")
    assert_problem(bob.delete(f"/api/v1/me/webhooks/{created['id']}"), 404, "webhook_not_found")
    assert_problem(bob.get(f"/api/v1/me/webhooks/{created['id']}/deliveries"), 404, "webhook_not_found")
    assert WebhookEndpoint.objects.filter(pk=created["id"]).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.7/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://192.168.1.1/",
        "http://[::1]:8000/",
        "http://[::ffff:10.0.0.1]/",
        "http://0.0.0.0/",
        "http://localhost:8000/",
        "ftp://example.com/hook",
        "http://user:pw@example.com/hook",
    ],
)
def test_private_and_loopback_destinations_are_refused_unless_allowed(alice: Api, url: str) -> None:
    with override_settings(WEBHOOK_ALLOWED_NETWORKS=[]):
        r = alice.post("/api/v1/me/webhooks", {"url": url, "events": ["game.your_turn"]})
        assert r.status_code in (400, 422), r.content
        assert r["Content-Type"].startswith("application/problem+json")
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.django_db
def test_the_guard_is_checked_again_before_each_attempt(alice: Api) -> None:
    with receiver() as rec:
        register(alice, rec.url, ["game.started"])
        game_id = new_game([alice, make_api(), make_api(), make_api()])
        (pending,) = Delivery.objects.filter(game_id=game_id)
        with override_settings(WEBHOOK_ALLOWED_NETWORKS=[]):
            delivery_service.attempt_delivery(pending.pk)
        assert rec.requests == []
    attempt = DeliveryAttempt.objects.get(delivery=pending)
    assert attempt.status_code is None
    assert attempt.error.startswith("refused:")


@pytest.mark.django_db
def test_bad_registrations_are_problems_and_change_nothing(alice: Api) -> None:
    bodies: list[Any] = [
        {"url": "not a url", "events": ["game.your_turn"]},
        {"url": "http://127.0.0.1/x", "events": []},
        {"url": "http://127.0.0.1/x", "events": ["game.nope"]},
        {"url": "http://127.0.0.1/x", "events": "game.your_turn"},
        {"url": "http://127.0.0.1/x", "events": ["game.your_turn"], "extra": 1},
        {"events": ["game.your_turn"]},
        {"url": "http://127.0.0.1/x\u0000", "events": ["game.your_turn"]},
        {"url": "http://127.0.0.1/x", "events": ["game.your_turn"], "description": "a\u0000b"},
        {"url": "http://127.0.0.1/" + "x" * 2000, "events": ["game.your_turn"]},
        [],
    ]
    for body in bodies:
        r = alice.post("/api/v1/me/webhooks", body)
        assert r.status_code in (400, 422), (body, r.content)
        assert r["Content-Type"].startswith("application/problem+json")
    assert not WebhookEndpoint.objects.exists()
    for _ in range(10):
        register(alice, "http://127.0.0.1:9/hook")
    assert_problem(
        alice.post("/api/v1/me/webhooks", {"url": "http://127.0.0.1/x", "events": ["game.event"]}),
        409,
        "too_many_webhooks",
    )


@pytest.mark.django_db
def test_update_and_delete(alice: Api) -> None:
    created = register(alice, "http://127.0.0.1:9/hook", ["game.your_turn"])
    path = f"/api/v1/me/webhooks/{created['id']}"
    r = alice.patch(path, {"events": ["game.ended", "game.ended"], "enabled": False})
    assert r.status_code == 200, r.content
    assert r.json()["events"] == ["game.ended"]
    assert r.json()["enabled"] is False
    assert r.json()["disabled_reason"]
    r = alice.patch(path, {"enabled": True})
    assert r.json()["enabled"] is True
    assert r.json()["disabled_at"] is None
    with override_settings(WEBHOOK_ALLOWED_NETWORKS=[]):
        assert_problem(alice.patch(path, {"url": "http://10.1.2.3/"}), 422, "webhook_destination_refused")
    assert WebhookEndpoint.objects.get(pk=created["id"]).url == "http://127.0.0.1:9/hook"
    bad_updates: list[Any] = [{"enabled": "yes"}, {"events": []}, {"nope": 1}, {"url": 3}, []]
    for bad in bad_updates:
        r = alice.patch(path, bad)
        assert r.status_code in (400, 422), (bad, r.content)
        assert r["Content-Type"].startswith("application/problem+json")
    assert_problem(make_api().patch(path, {"enabled": False}), 404, "webhook_not_found")
    assert WebhookEndpoint.objects.get(pk=created["id"]).enabled is True
    assert alice.delete(path).status_code == 204
    assert_problem(alice.get(path), 404, "webhook_not_found")


# --------------------------------------------------------------------------------------------------
# the outbox
# --------------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_deliveries_are_written_in_the_events_transaction_and_roll_back_with_them(alice: Api) -> None:
    register(alice, "http://127.0.0.1:9/hook", ["game.started", "game.your_turn", "game.event"])
    apis = [alice, make_api(), make_api(), make_api()]
    r = alice.post("/api/v1/games", {"seats": 4, "options": SHORT})
    game_id = r.json()["id"]
    for api in apis[1:3]:
        api.post(f"/api/v1/games/{game_id}/join")
    assert not Delivery.objects.exists()

    class Boom(Exception):
        pass

    written = []

    def join_then_fail() -> None:
        with transaction.atomic():
            lobby.game_join(game_id=game_id, player=apis[3].player)
            written.append(Delivery.objects.filter(game_id=game_id).count())  # written with the events...
            raise Boom

    with pytest.raises(Boom):
        join_then_fail()
    assert written[0] > 0
    assert not Delivery.objects.exists()  # ...and gone with them: no phantom notification
    assert not Event.objects.filter(game_id=game_id).exists()

    assert apis[3].post(f"/api/v1/games/{game_id}/join").status_code == 200
    version = Game.objects.get(pk=game_id).version
    kinds = sorted(Delivery.objects.values_list("type", flat=True))
    assert kinds.count("game.event") == version
    assert kinds.count("game.started") == 1
    # a step opened that waits on everyone (the first distribution or choice): alice's turn
    assert kinds.count("game.your_turn") == 1


@pytest.mark.django_db
def test_a_refused_command_notifies_nobody(alice: Api) -> None:
    register(alice, "http://127.0.0.1:9/hook")
    apis = [alice, make_api(), make_api(), make_api()]
    game_id = new_game(apis)
    before = Delivery.objects.count()
    r = alice.command(game_id, "send-message", {"text": ""})
    assert r.status_code >= 400
    assert Delivery.objects.count() == before


# --------------------------------------------------------------------------------------------------
# a whole game delivered to a real receiver
# --------------------------------------------------------------------------------------------------
def _check_signed(rec: Receiver, secrets_by_path: dict[str, str]) -> dict[str, bytes]:
    """Every request verifies with standardwebhooks; returns webhook-id → body (one body per id)."""
    bodies: dict[str, bytes] = {}
    for req in rec.requests:
        headers = {k.lower(): v for k, v in req.headers.items()}
        payload = Webhook(secrets_by_path[headers["webhook-id"]]).verify(req.body, headers)
        assert payload["type"] in ALL_TYPES
        assert bodies.setdefault(headers["webhook-id"], req.body) == req.body, "an id was sent twice, changed"
    return bodies


@pytest.mark.django_db
def test_a_full_game_is_delivered_signed_once_per_id_after_retries_and_redacted_r8_3() -> None:
    apis = [make_api() for _ in range(4)]
    with receiver(fail_first=3) as rec:
        hooks = {api.player.pk: register(api, rec.url) for api in apis}
        game_id = new_game(apis)
        play_over_http(apis, game_id)
        drain()

        deliveries = list(Delivery.objects.filter(game_id=game_id).select_related("endpoint"))
        assert deliveries
        assert all(d.status == DeliveryStatus.DELIVERED for d in deliveries)
        secret_of = {d.id: hooks[d.endpoint.player_id]["secret"] for d in deliveries}
        bodies = _check_signed(rec, secret_of)
    # every delivery arrived (with its one id), the failed first tries were retried
    accepted_ids = [r.headers["webhook-id"] for r in rec.accepted()]
    assert sorted(accepted_ids) == sorted(d.id for d in deliveries)
    assert len(rec.requests) == len(deliveries) + 3
    retried = Delivery.objects.filter(game_id=game_id, attempts__gt=1)
    assert retried.exists()
    for d in retried:
        log = list(d.attempt_log.order_by("number"))
        assert [a.ok for a in log] == [False] * (len(log) - 1) + [True]
        assert log[0].status_code == 500

    # no delivery shows another seat's secrets: each event is exactly the receiving seat's redaction
    game = Game.objects.get(pk=game_id)
    rows = {e.seq: e for e in Event.objects.filter(game_id=game_id)}
    last_batch = {s for s, e in rows.items() if e.command_id == rows[game.version].command_id}
    seed = rows[1].data["seed"]
    n_event = 0
    for d in deliveries:
        payload = json.loads(bodies[d.id])
        data = payload["data"]
        seat = data["seat"]
        final = data["seq"] in last_batch
        if not final:
            assert seed not in bodies[d.id].decode(), "the seed left before the end (R8.2)"
        if d.type != "game.event":
            continue
        n_event += 1
        event = RULESET.event_from_json(rows[data["seq"]].data)
        mine = RULESET.redact_event(event, seat, terminal=final)
        assert data["event"] == json.loads(json.dumps(mine, default=str))
        for other in range(4):
            theirs = json.loads(json.dumps(RULESET.redact_event(event, other, terminal=final), default=str))
            if other != seat and theirs != mine:
                assert data["event"] != theirs
    assert n_event == 4 * game.version
    types = {d.type for d in deliveries}
    assert {"game.started", "game.ended", "game.your_turn", "game.event"} <= types
    ended = [json.loads(bodies[d.id]) for d in deliveries if d.type == "game.ended"]
    assert len(ended) == 4
    assert all(e["data"]["scores"] is not None for e in ended)


@pytest.mark.django_db
def test_deliveries_and_attempts_are_visible_through_the_api() -> None:
    apis = [make_api() for _ in range(4)]
    with receiver(fail_first=1) as rec:
        hook = register(apis[0], rec.url, ["game.started"])
        new_game(apis)
        drain()
    listed = apis[0].get(f"/api/v1/me/webhooks/{hook['id']}/deliveries").json()
    assert len(listed) == 1
    (item,) = listed
    assert item["status"] == "delivered"
    assert item["attempts"] == 2
    assert item["type"] == "game.started"
    assert [a["ok"] for a in item["attempt_log"]] == [False, True]
    assert [a["status_code"] for a in item["attempt_log"]] == [500, 204]
    assert item["id"] == rec.requests[0].headers["webhook-id"] == rec.requests[1].headers["webhook-id"]


@pytest.mark.django_db
def test_retries_back_off_exponentially() -> None:
    with override_settings(WEBHOOK_RETRY_BASE_SECONDS=30.0, WEBHOOK_RETRY_MAX_SECONDS=3600.0):
        assert [delivery_service.backoff_seconds(n) for n in (1, 2, 3, 4)] == [30.0, 60.0, 120.0, 240.0]
        assert delivery_service.backoff_seconds(20) == 3600.0


@pytest.mark.django_db
def test_attempting_twice_sends_once() -> None:
    apis = [make_api() for _ in range(4)]
    with receiver() as rec:
        register(apis[0], rec.url, ["game.started"])
        new_game(apis)
        (d,) = Delivery.objects.all()
        delivery_service.attempt_delivery(d.pk)
        delivery_service.attempt_delivery(d.pk)  # a redelivered task: a no-op
        assert len(rec.requests) == 1


@pytest.mark.django_db
def test_deadline_near_goes_to_the_seats_that_have_not_acted_r7_5() -> None:
    from games import deadlines

    apis = [make_api() for _ in range(4)]
    hooks = {api.player.pk: register(api, "http://127.0.0.1:9/hook", ["game.deadline_near"]) for api in apis}
    options = {**SHORT, "deadlines": {"distribute": 600, "choose": 600}, "warn_before": 600}
    game_id = new_game(apis, options)
    assert not Delivery.objects.exists()
    game = Game.objects.get(pk=game_id)
    assert game.step_no is not None
    assert deadlines.warn(game_id, game.step_no) > 0
    near = Event.objects.get(game_id=game_id, type="DeadlineNear")
    warned = set(near.data["seats"])
    assert warned
    rows = list(Delivery.objects.filter(game_id=game_id).select_related("endpoint"))
    assert {d.payload["data"]["seat"] for d in rows} == warned
    assert len(rows) == len(warned)
    for d in rows:
        assert d.type == "game.deadline_near"
        assert d.seq == near.seq
        assert d.payload["data"]["step_no"] == near.data["step_no"]
        assert d.payload["data"]["due_at"] == near.data["due_at"]
        assert d.endpoint_id == hooks[d.endpoint.player_id]["id"]
