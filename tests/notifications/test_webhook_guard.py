"""The webhook SSRF guard (issue 13, item 7): every IPv4 address embedded in an IPv6 destination is checked
(mapped, compatible, translated, 6to4, Teredo, NAT64, ISATAP) at registration, on update and at every
attempt, and the connection goes to the very addresses that were checked (no DNS rebinding between the check
and the connection)."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from django.test import override_settings

from notifications import delivery as delivery_service
from notifications.models import Delivery, DeliveryAttempt, WebhookEndpoint
from tests.conftest import Api, assert_problem, make_api

from .helpers import receiver
from .test_webhooks import new_game, register


def _teredo(client: str) -> str:
    """A Teredo address (server 65.54.227.120) whose obfuscated client is ``client``."""
    obfuscated = ~int(socket.inet_aton(client).hex(), 16) & 0xFFFFFFFF
    return f"2001:0:4136:e378:8000:63bf:{obfuscated >> 16:x}:{obfuscated & 0xFFFF:x}"


# (form, IPv6 literal, accepted?)
DESTINATIONS = [
    ("plain public", "2001:4860:4860::8888", True),
    ("mapped loopback", "::ffff:127.0.0.1", False),
    ("mapped private", "::ffff:10.0.0.1", False),
    ("mapped public", "::ffff:8.8.8.8", True),
    ("compatible loopback", "::127.0.0.1", False),
    ("compatible private", "::192.168.1.1", False),
    ("compatible public (deprecated form: refused anyway)", "::8.8.8.8", False),
    ("translated loopback", "::ffff:0:127.0.0.1", False),
    ("6to4 loopback (the issue's)", "2002:7f00:1::", False),
    ("6to4 private", "2002:a00:1::", False),
    ("6to4 link-local metadata", "2002:a9fe:a9fe::", False),
    ("6to4 public", "2002:808:808::", True),
    ("Teredo loopback client", _teredo("127.0.0.1"), False),
    ("Teredo private client", _teredo("192.168.0.7"), False),
    ("Teredo public client (not globally reachable: refused anyway)", _teredo("8.8.8.8"), False),
    ("NAT64 loopback", "64:ff9b::7f00:1", False),
    ("NAT64 private", "64:ff9b::a00:1", False),
    ("NAT64 public (translated to 8.8.8.8)", "64:ff9b::808:808", True),
    ("NAT64 local-use loopback", "64:ff9b:1::7f00:1", False),
    ("NAT64 local-use loopback at /48", "64:ff9b:1:7f00:0:1::", False),
    ("NAT64 local-use public (local prefix: refused anyway)", "64:ff9b:1::808:808", False),
    ("ISATAP loopback", "2001:4860:1::5efe:7f00:1", False),
    ("ISATAP private (u bit)", "2001:4860:1::200:5efe:a00:1", False),
    ("ISATAP public", "2001:4860:1::5efe:808:808", True),
]


@pytest.mark.django_db
@override_settings(WEBHOOK_ALLOWED_NETWORKS=[])
@pytest.mark.parametrize(("form", "address", "accepted"), DESTINATIONS, ids=[d[0] for d in DESTINATIONS])
def test_every_embedded_ipv4_is_checked_at_registration_and_update(
    alice: Api, form: str, address: str, accepted: bool
) -> None:
    url = f"http://[{address}]:9/hook"
    r = alice.post("/api/v1/me/webhooks", {"url": url, "events": ["game.your_turn"]})
    if accepted:
        assert r.status_code == 201, (form, r.content)
        assert WebhookEndpoint.objects.filter(url=url).exists()
    else:
        assert_problem(r, 422, "webhook_destination_refused")
        assert not WebhookEndpoint.objects.exists()
    # the same verdict on update
    hook = register(alice, "http://[2001:4860:4860::8888]:9/hook", ["game.your_turn"])
    r = alice.patch(f"/api/v1/me/webhooks/{hook['id']}", {"url": url})
    if accepted:
        assert r.status_code == 200, (form, r.content)
    else:
        assert_problem(r, 422, "webhook_destination_refused")
        assert WebhookEndpoint.objects.get(pk=hook["id"]).url == "http://[2001:4860:4860::8888]:9/hook"


@pytest.mark.django_db
def test_allowed_networks_apply_to_the_embedded_address() -> None:
    """``WEBHOOK_ALLOWED_NETWORKS`` (127.0.0.0/8 in tests) allows what it names, embedded or not; no more."""
    with override_settings(WEBHOOK_ALLOWED_NETWORKS=["127.0.0.0/8"]):
        delivery_service.check_destination("http://[::ffff:127.0.0.1]:9/")
        delivery_service.check_destination("http://[2002:7f00:1::]:9/")
        with pytest.raises(delivery_service.DestinationRefused):
            delivery_service.check_destination("http://[2002:a00:1::]:9/")


@pytest.mark.django_db
def test_the_connection_goes_to_the_checked_address_dns_rebinding(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name that resolves to a public address when checked and to loopback a moment later (a rebinding
    DNS server, played by a stand-in for the system resolver): the attempt is refused, nothing reaches the
    loopback receiver."""
    real = socket.getaddrinfo
    calls: list[str] = []

    def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "rebind.example":
            return real(host, port, *args, **kwargs)
        calls.append(host)
        # registration and the check before the attempt see a public address; then it points home
        address = "93.184.215.14" if len(calls) <= 2 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    apis = [make_api() for _ in range(4)]
    with receiver() as rec, override_settings(WEBHOOK_ALLOWED_NETWORKS=[]):
        port = rec.url.split(":")[2].split("/")[0]
        register(apis[0], f"http://rebind.example:{port}/hook", ["game.started"])
        game_id = new_game(apis)
        (pending,) = Delivery.objects.filter(game_id=game_id)
        delivery_service.attempt_delivery(pending.pk)
        assert rec.requests == []
    assert len(calls) >= 3
    attempt = DeliveryAttempt.objects.get(delivery=pending)
    assert attempt.status_code is None
    assert attempt.error.startswith("refused:")
    assert "127.0.0.1" in attempt.error
