"""Chat webhooks (issue #23): endpoints of kind discord, slack and matrix get each notification as one message
in that chat's own JSON, through the same deliveries (retries, SSRF guard) as signed webhooks; a muted game is
silent on them too."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings

from notifications import chat
from notifications.models import Delivery
from tests.conftest import Api, make_api

from .helpers import receiver
from .test_webhooks import drain, new_game

BASE = "https://critters.example"


def register(api: Api, url: str, kind: str, events: list[str] | None = None) -> dict[str, Any]:
    r = api.post("/api/v1/me/webhooks", {"url": url, "events": events or ["game.your_turn"], "kind": kind})
    assert r.status_code == 201, r.content
    body: dict[str, Any] = r.json()
    assert body["kind"] == kind
    return body


@pytest.mark.django_db
@override_settings(PUBLIC_BASE_URL=BASE)
def test_discord_slack_and_matrix_payloads_reach_a_local_receiver() -> None:
    alice = make_api("alice")
    others = [make_api() for _ in range(3)]
    with receiver() as discord, receiver() as slack, receiver() as matrix:
        register(alice, discord.url, "discord")
        register(alice, slack.url, "slack")
        register(alice, matrix.url, "matrix")
        options = {"fuzz_depth": [0.06, 0.08], "deadlines": {"distribute": 3 * 3600, "choose": 3 * 3600}}
        r = alice.post("/api/v1/games", {"seats": 4, "options": options, "name": "first *heist* @everyone"})
        assert r.status_code == 201, r.content
        game_id = r.json()["id"]
        for api in others:
            assert api.post(f"/api/v1/games/{game_id}/join").status_code == 200
        drain()
        url = f"{BASE}/play/games/{game_id}"
        (d,) = discord.accepted()
        body = json.loads(d.body)
        assert set(body) == {"content", "allowed_mentions"}
        assert body["allowed_mentions"] == {"parse": []}  # "@everyone" in a game's name pings nobody
        assert body["content"].startswith("alice, it's your turn in **first \\*heist\\* \\@everyone**")
        assert ", deadline in 3 h" in body["content"]
        assert body["content"].endswith(f"<{url}>")
        assert "webhook-signature" not in d.headers
        (s,) = slack.accepted()
        body = json.loads(s.body)
        assert body["text"].startswith(
            "alice, it's your turn in *first \u2217heist\u2217 @everyone*, deadline in 3 h"
        )
        assert body["text"].endswith(f"<{url}|open the game>")
        (m,) = matrix.accepted()
        body = json.loads(m.body)
        assert body["text"] == f"alice, it's your turn in first *heist* @everyone, deadline in 3 h: {url}"
        assert "<b>first *heist* @everyone</b>" in body["html"]
        assert f'href="{url}"' in body["html"]
        # the deliveries list shows the facts the message was written from (redacted for alice)
        assert {row.type for row in Delivery.objects.filter(game_id=game_id)} == {"game.your_turn"}


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["discord", "slack", "matrix"])
@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:9/hook", "http://10.1.2.3/api/webhooks/1/x", "http://[::1]/x", "http://localhost/x"],
)
def test_chat_endpoints_on_private_or_loopback_addresses_are_refused(kind: str, url: str) -> None:
    alice = make_api("alice")
    with override_settings(WEBHOOK_ALLOWED_NETWORKS=[]):
        r = alice.post("/api/v1/me/webhooks", {"url": url, "events": ["game.your_turn"], "kind": kind})
    assert r.status_code == 422, r.content
    assert r.json()["code"] == "webhook_destination_refused"


@pytest.mark.django_db
def test_the_guard_is_checked_again_before_each_chat_post() -> None:
    alice = make_api("alice")
    with receiver() as rec:
        register(alice, rec.url, "slack")
        new_game([alice, make_api(), make_api(), make_api()])
        with override_settings(WEBHOOK_ALLOWED_NETWORKS=[]):
            (pending,) = Delivery.objects.all()
            from notifications import delivery

            delivery.attempt_delivery(pending.pk)
        assert rec.requests == []
    assert pending.attempt_log.get().error.startswith("refused:")


@pytest.mark.django_db
def test_a_muted_game_is_silent_on_chat_and_signed_webhooks_too() -> None:
    alice = make_api("alice")
    others = [make_api() for _ in range(3)]
    with receiver() as rec:
        register(alice, rec.url, "discord", ["game.your_turn", "game.event"])
        first = new_game([alice, *others])
        assert alice.patch("/api/v1/me/notifications", {"muted_games": [first]}).status_code == 200
        before = Delivery.objects.filter(game_id=first).count()
        assert before > 0
        r = alice.command(first, "send-message", {"text": "hello", "to": None})
        assert r.status_code == 200
        assert Delivery.objects.filter(game_id=first).count() == before


def test_durations_in_words() -> None:
    assert chat.in_words(45) == "45 s"
    assert chat.in_words(12 * 60) == "12 min"
    assert chat.in_words(3 * 3600 - 20) == "3 h"
    assert chat.in_words(3 * 86400) == "3 days"
