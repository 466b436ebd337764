"""Sending one delivery: the SSRF guard, Standard Webhooks signing, the attempt record, exponential backoff
and disabling an endpoint that keeps failing. Called by the Celery tasks (and directly by tests)."""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from standardwebhooks import Webhook

from critters_api.problems import Problem

from .models import Delivery, DeliveryAttempt, DeliveryStatus, WebhookEndpoint

logger = logging.getLogger(__name__)

USER_AGENT = "GoodCritters-Webhooks/1.0"
LEASE_MARGIN = timedelta(seconds=30)


# --------------------------------------------------------------------------------------------------
# SSRF guard
# --------------------------------------------------------------------------------------------------
class DestinationRefused(Exception):
    """The URL is not an acceptable webhook destination (why in the message)."""


def _allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [
        ipaddress.ip_network(n.strip(), strict=False) for n in settings.WEBHOOK_ALLOWED_NETWORKS if n.strip()
    ]


def _public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return _public(ip.ipv4_mapped)
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)


def check_destination(url: str) -> list[str]:
    """Refuse (``DestinationRefused``) a URL that is not http(s), has credentials, or resolves to any address
    in a private, loopback, link-local, multicast or reserved range that ``WEBHOOK_ALLOWED_NETWORKS`` does
    not list. Returns the resolved addresses. Checked at registration and again before every attempt (the
    name may resolve elsewhere by then)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise DestinationRefused("Only http and https URLs are accepted.")
    if parts.username or parts.password:
        raise DestinationRefused("Credentials in the URL are not accepted.")
    host = parts.hostname
    if not host:
        raise DestinationRefused("The URL has no host.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise DestinationRefused("The URL's port is not valid.") from exc
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as exc:
        raise DestinationRefused(f"The host {host!r} does not resolve.") from exc
    allowed = _allowed_networks()
    addresses: list[str] = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not _public(ip) and not any(ip in net for net in allowed):
            raise DestinationRefused(
                f"The host {host!r} resolves to {ip}, a private, loopback or reserved address."
            )
        addresses.append(str(ip))
    return addresses


def validate_url(url: str) -> None:
    """For the API: the same check as a 422 problem."""
    try:
        check_destination(url)
    except DestinationRefused as exc:
        raise Problem(422, "webhook_destination_refused", str(exc)) from None


# --------------------------------------------------------------------------------------------------
# signing and sending
# --------------------------------------------------------------------------------------------------
def body_bytes(payload: Any) -> bytes:
    """The exact bytes sent (and signed)."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode("utf-8")


def signed_headers(secret: str, msg_id: str, body: bytes, at: datetime) -> dict[str, str]:
    """Standard Webhooks headers: ``webhook-signature`` = ``v1,`` base64 HMAC-SHA256 of ``id.timestamp.body``
    (``at`` must be UTC: the library replaces the timezone)."""
    at_utc = at.astimezone(UTC)
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at_utc.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id, at_utc, body.decode("utf-8")),
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }


@dataclass(frozen=True, slots=True)
class SendResult:
    status_code: int | None
    error: str
    excerpt: str
    duration_ms: int

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


_http: tuple[int, httpx.Client] | None = None


def _client() -> httpx.Client:
    """One client per process (connection reuse; made after a fork, never shared across one). Redirects are
    not followed: a redirect could lead past the destination check."""
    global _http
    if _http is None or _http[0] != os.getpid():
        _http = (
            os.getpid(),
            httpx.Client(timeout=settings.WEBHOOK_TIMEOUT_SECONDS, follow_redirects=False, trust_env=False),
        )
    return _http[1]


def send(url: str, headers: dict[str, str], body: bytes) -> SendResult:
    started = time.monotonic()
    try:
        check_destination(url)
        response = _client().post(url, content=body, headers=headers)
        text = response.text[:300] if response.content else ""
        return SendResult(response.status_code, "", text, int((time.monotonic() - started) * 1000))
    except DestinationRefused as exc:
        return SendResult(None, f"refused: {exc}"[:300], "", int((time.monotonic() - started) * 1000))
    except httpx.HTTPError as exc:
        return SendResult(
            None, f"{type(exc).__name__}: {exc}"[:300], "", int((time.monotonic() - started) * 1000)
        )


def backoff_seconds(attempts: int) -> float:
    """Delay before the next attempt after ``attempts`` failed ones: base * 2^(attempts-1), capped."""
    base: float = settings.WEBHOOK_RETRY_BASE_SECONDS
    cap: float = settings.WEBHOOK_RETRY_MAX_SECONDS
    return float(min(cap, base * (2 ** max(0, attempts - 1))))


# --------------------------------------------------------------------------------------------------
# one attempt
# --------------------------------------------------------------------------------------------------
def attempt_delivery(delivery_id: str) -> float | None:
    """Make one attempt at a due pending delivery (a no-op for anything else: safe to call twice, from any
    worker). Returns the delay before the next attempt when one is scheduled, else None."""
    now = timezone.now()
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("endpoint")
            .filter(pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
            .first()
        )
        if delivery is None:
            return None
        endpoint = delivery.endpoint
        if not endpoint.enabled:
            delivery.status = DeliveryStatus.CANCELLED
            delivery.save(update_fields=["status"])
            return None
        delivery.attempts += 1
        number = delivery.attempts
        # the claim: nobody else takes it until this attempt had time to finish
        delivery.next_attempt_at = now + timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS) + LEASE_MARGIN
        delivery.save(update_fields=["attempts", "next_attempt_at"])
        url, secret, payload = endpoint.url, endpoint.secret, delivery.payload

    body = body_bytes(payload)
    result = send(url, signed_headers(secret, delivery_id, body, now), body)

    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().filter(pk=delivery_id).first()
        if delivery is None:  # the endpoint was deleted meanwhile (its deliveries with it)
            return None
        endpoint = WebhookEndpoint.objects.select_for_update().get(pk=delivery.endpoint_id)
        DeliveryAttempt.objects.create(
            delivery=delivery,
            number=number,
            started_at=now,
            duration_ms=result.duration_ms,
            status_code=result.status_code,
            error=result.error,
            response_excerpt=result.excerpt,
        )
        if result.ok:
            delivery.status = DeliveryStatus.DELIVERED
            delivery.delivered_at = timezone.now()
            delivery.save(update_fields=["status", "delivered_at"])
            if endpoint.consecutive_failures:
                endpoint.consecutive_failures = 0
                endpoint.save(update_fields=["consecutive_failures"])
            return None
        endpoint.consecutive_failures += 1
        endpoint.save(update_fields=["consecutive_failures"])
        if endpoint.enabled and endpoint.consecutive_failures >= settings.WEBHOOK_DISABLE_AFTER_FAILURES:
            disable_endpoint(
                endpoint,
                f"Disabled after {endpoint.consecutive_failures} failed attempts in a row "
                f"(last: {result.error or f'HTTP {result.status_code}'}).",
            )
            return None
        if delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
            delivery.status = DeliveryStatus.FAILED
            delivery.save(update_fields=["status"])
            return None
        delay = backoff_seconds(delivery.attempts)
        delivery.next_attempt_at = timezone.now() + timedelta(seconds=delay)
        delivery.save(update_fields=["next_attempt_at"])
        return delay


def disable_endpoint(endpoint: WebhookEndpoint, reason: str) -> None:
    """Turn an endpoint off with a notice its owner sees on the endpoint (``disabled_at``,
    ``disabled_reason``); its pending deliveries are cancelled."""
    endpoint.enabled = False
    endpoint.disabled_at = timezone.now()
    endpoint.disabled_reason = reason[:300]
    endpoint.save(update_fields=["enabled", "disabled_at", "disabled_reason"])
    Delivery.objects.filter(endpoint=endpoint, status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.CANCELLED
    )
    logger.warning("webhook endpoint %s disabled: %s", endpoint.pk, reason)


def due_deliveries(limit: int = 500) -> list[str]:
    return list(
        Delivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=timezone.now())
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
