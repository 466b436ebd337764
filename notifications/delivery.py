"""Sending one delivery: the SSRF guard, Standard Webhooks signing, the attempt record, exponential backoff
and disabling an endpoint that keeps failing. Called by the Celery tasks (and directly by tests)."""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from standardwebhooks import Webhook

from critters_api.citus import is_citus, one_connection_per_node
from critters_api.problems import Problem

from . import chat
from .models import Delivery, DeliveryAttempt, DeliveryStatus, EndpointKind, WebhookEndpoint
from .outbox import enqueue

logger = logging.getLogger(__name__)

USER_AGENT = "GoodCritters-Webhooks/1.0"
LEASE_MARGIN = timedelta(seconds=30)
COUNTDOWN_HORIZON = 300.0
"""Retries due within this many seconds get a short countdown task; later ones are left to the sweeper
(long ETA tasks are not a timer store, see PITFALLS)."""


# --------------------------------------------------------------------------------------------------
# SSRF guard
# --------------------------------------------------------------------------------------------------
class DestinationRefused(Exception):
    """The URL is not an acceptable webhook destination (why in the message)."""


Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
"""``::a.b.c.d`` (deprecated, RFC 4291)."""
IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
"""``::ffff:0:a.b.c.d`` (SIIT, RFC 2765)."""
NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")
"""RFC 6052: ``64:ff9b::a.b.c.d`` is translated to ``a.b.c.d`` by a NAT64 gateway."""
NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
"""RFC 8215 local-use NAT64 prefixes (any length from /48): the IPv4 address sits where the prefix length
says (RFC 6052 §2.2), so every possible place is checked."""
ISATAP_IID = 0x00005EFE
"""An ISATAP interface identifier is ``[02]00:5efe:a.b.c.d`` (RFC 5214; the u/g bits are masked)."""


def _ipv4_at(packed: bytes, positions: tuple[int, ...]) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address(bytes(packed[i] for i in positions))


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Every IPv4 address ``ip`` carries: IPv4-mapped ``::ffff:a.b.c.d``, IPv4-compatible ``::a.b.c.d``,
    IPv4-translated ``::ffff:0:a.b.c.d``, 6to4 ``2002:AABB:CCDD::/48``, Teredo ``2001:0::/32`` (server and
    de-obfuscated client), NAT64 ``64:ff9b::/96`` and ``64:ff9b:1::/48`` (every RFC 6052 position) and an
    ISATAP interface identifier ``…:0:5efe:a.b.c.d`` under any prefix."""
    value = int(ip)
    packed = ip.packed
    low32 = ipaddress.IPv4Address(value & 0xFFFFFFFF)
    out: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        out.append(ip.ipv4_mapped)
    if ip in IPV4_COMPATIBLE or ip in IPV4_TRANSLATED or ip in NAT64_WELL_KNOWN:
        out.append(low32)
    if ip in NAT64_LOCAL:
        for positions in ((6, 7, 9, 10), (7, 9, 10, 11), (9, 10, 11, 12), (12, 13, 14, 15)):
            out.append(_ipv4_at(packed, positions))
    if ip.sixtofour is not None:
        out.append(ip.sixtofour)
    if ip.teredo is not None:
        out.extend(ip.teredo)
    if (value >> 32) & 0xFCFFFFFF == ISATAP_IID:
        out.append(low32)
    return out


def _allowed_networks() -> list[Network]:
    return [
        ipaddress.ip_network(n.strip(), strict=False) for n in settings.WEBHOOK_ALLOWED_NETWORKS if n.strip()
    ]


def _listed(ip: Address, allowed: list[Network]) -> bool:
    return any(ip.version == net.version and ip in net for net in allowed)


def _public(ip: Address) -> bool:
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)


def refusal(ip: Address, allowed: list[Network]) -> str | None:
    """Why ``ip`` is not an acceptable destination, or None. An address in ``allowed`` is accepted as is.
    An IPv6 address that is only a translation of an IPv4 address (IPv4-mapped, NAT64 ``64:ff9b::/96``) is
    judged as that IPv4 address (the connection ends there); any other IPv6 address must be public itself
    and every IPv4 address it embeds (tunnels: 6to4, Teredo, ISATAP; deprecated forms) must be public too
    (or allowed)."""
    if _listed(ip, allowed):
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        translated = ip.ipv4_mapped
        if translated is None and ip in NAT64_WELL_KNOWN:
            translated = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if translated is not None:
            if _listed(translated, allowed) or _public(translated):
                return None
            return f"{ip}, which leads to {translated}, a private, loopback or reserved address"
        for inner in embedded_ipv4(ip):
            if not (_listed(inner, allowed) or _public(inner)):
                return f"{ip}, which embeds {inner}, a private, loopback or reserved address"
    if not _public(ip):
        return f"{ip}, a private, loopback or reserved address"
    return None


def resolve_checked(host: str, port: int) -> list[str]:
    """Resolve ``host`` once and refuse (``DestinationRefused``) if ANY of its addresses is not acceptable
    (see ``refusal``); returns the addresses (in the resolver's order, without duplicates). The connection is
    made to these very addresses (``_CheckedBackend``), so a name that resolves elsewhere between a check and
    the connection cannot lead past the guard (DNS rebinding)."""
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as exc:
        raise DestinationRefused(f"The host {host!r} does not resolve.") from exc
    allowed = _allowed_networks()
    addresses: list[str] = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        why = refusal(ip, allowed)
        if why is not None:
            raise DestinationRefused(f"The host {host!r} resolves to {why}.")
        if str(ip) not in addresses:
            addresses.append(str(ip))
    if not addresses:
        raise DestinationRefused(f"The host {host!r} does not resolve.")
    return addresses


def check_destination(url: str) -> list[str]:
    """Refuse (``DestinationRefused``) a URL that is not http(s), has credentials, or resolves to any address
    that ``refusal`` refuses (private, loopback, link-local, multicast or reserved ranges, including IPv4
    addresses embedded in IPv6 ones) unless ``WEBHOOK_ALLOWED_NETWORKS`` lists it. Returns the resolved
    addresses. Checked at registration, on update and before every attempt; the connection itself is checked
    again on the addresses it goes to (``_CheckedBackend``)."""
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
    return resolve_checked(host, port)


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


class _CheckedBackend(httpcore.SyncBackend):
    """httpcore's network backend, except that the host is resolved by ``resolve_checked`` (the guard) and the
    socket connects to one of those checked addresses: one resolution, checked, then used. TLS still
    verifies the certificate against the URL's host name (httpcore passes it as the server name)."""

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        error: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in resolve_checked(host, port):
            try:
                return super().connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        assert error is not None
        raise error


class _CheckedTransport(httpx.HTTPTransport):
    """httpx's transport on a connection pool that connects through ``_CheckedBackend``."""

    def __init__(self) -> None:
        super().__init__(trust_env=False)
        limits = httpx.Limits()
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_CheckedBackend(),
        )


_http: tuple[int, httpx.Client] | None = None


def _client() -> httpx.Client:
    """One client per process (connection reuse; made after a fork, never shared across one). Redirects are
    not followed: a redirect could lead past the destination check. Connections go through
    ``_CheckedTransport`` (the guard on the addresses actually connected to)."""
    global _http
    if _http is None or _http[0] != os.getpid():
        _http = (
            os.getpid(),
            httpx.Client(
                timeout=settings.WEBHOOK_TIMEOUT_SECONDS,
                follow_redirects=False,
                trust_env=False,
                transport=_CheckedTransport(),
            ),
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
    """Delay before a delivery's next attempt after ``attempts`` failed ones: base * 2^(attempts-1),
    capped."""
    base: float = settings.WEBHOOK_RETRY_BASE_SECONDS
    cap: float = settings.WEBHOOK_RETRY_MAX_SECONDS
    return float(min(cap, base * (2 ** max(0, attempts - 1))))


def endpoint_hold_seconds(failing_for: float) -> float:
    """How long a failing endpoint is left alone after a failed attempt: as long as it has been failing
    (so the probes double: base, base, 2 base, 4 base…), at least the retry base, at most
    ``WEBHOOK_PROBE_MAX_SECONDS`` (one request a minute: a receiver that is back hears from us within that,
    however long it was down). Measured in time, not in attempts: a burst of failures in one second holds it
    for the base, no longer."""
    base: float = settings.WEBHOOK_RETRY_BASE_SECONDS
    cap: float = min(settings.WEBHOOK_RETRY_MAX_SECONDS, settings.WEBHOOK_PROBE_MAX_SECONDS)
    return float(min(cap, max(base, failing_for)))


def _save(delivery: Delivery, *fields: str) -> None:
    """Write ``fields`` of ``delivery``: ``save(update_fields=...)``, by its id and its game, so that on Citus
    the statement runs on the game's shard (an id alone would be looked for on every shard)."""
    Delivery.objects.filter(pk=delivery.pk, game_id=delivery.game_id).update(
        **{name: getattr(delivery, name) for name in fields}
    )


# --------------------------------------------------------------------------------------------------
# the queue: claims, so that no delivery is enqueued while a task for it is queued or running
# --------------------------------------------------------------------------------------------------
def _claim_until(now: datetime, delay: float = 0.0) -> datetime:
    """How long a task's claim on a delivery holds: its delay, then the lease (``queued_until``)."""
    return now + timedelta(seconds=delay + float(settings.WEBHOOK_QUEUED_LEASE_SECONDS))


def _unclaimed(now: datetime) -> Q:
    return Q(queued_until__isnull=True) | Q(queued_until__lte=now)


def _claimed_count(endpoint_id: int, now: datetime) -> int:
    return Delivery.objects.filter(
        endpoint_id=endpoint_id, status=DeliveryStatus.PENDING, queued_until__gt=now
    ).count()


def fill_window(endpoint: WebhookEndpoint, now: datetime) -> list[str]:
    """Claim the endpoint's next due deliveries (oldest first) up to ``WEBHOOK_ENDPOINT_CONCURRENCY`` held
    by tasks at once, and enqueue them once the transaction commits; returns their ids. Nothing for a
    failing or disabled endpoint. The caller holds the endpoint's lock (``_lock_endpoint``), so two callers
    never fill the same window. Called after every successful attempt: a receiver is sent as fast as it
    answers, never more than the window at once."""
    if not endpoint.enabled or endpoint.failing_since is not None:
        return []
    room = int(settings.WEBHOOK_ENDPOINT_CONCURRENCY) - _claimed_count(endpoint.pk, now)
    if room <= 0:
        return []
    due = (
        Delivery.objects.filter(endpoint=endpoint, status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .filter(_unclaimed(now))
        .order_by("created_at", "seq", "pk")
    )
    ids = [d.pk for d in _lock_first(due, room)]
    if ids:
        Delivery.objects.filter(pk__in=ids).update(queued_until=_claim_until(now))
        transaction.on_commit(lambda: enqueue(ids))
    return ids


def _claim_probe(endpoint: WebhookEndpoint, now: datetime) -> list[str]:
    """For a failing endpoint whose hold is over and that no task holds a delivery of: claim its probe
    candidate and enqueue it once the transaction commits. The caller holds the endpoint's lock."""
    if endpoint.retry_at is not None and endpoint.retry_at > now:
        return []
    if _claimed_count(endpoint.pk, now):
        return []
    probe = _probe_candidate(endpoint, now)
    if probe is None:
        return []
    Delivery.objects.filter(pk=probe.pk).update(queued_until=_claim_until(now))
    ids = [probe.pk]
    transaction.on_commit(lambda: enqueue(ids))
    return ids


def _release(delivery: Delivery) -> None:
    """This task no longer holds the delivery: whoever finds it due may enqueue it."""
    if delivery.queued_until is not None:
        delivery.queued_until = None
        _save(delivery, "queued_until")


# --------------------------------------------------------------------------------------------------
# one attempt
# --------------------------------------------------------------------------------------------------
def _lock_endpoint(endpoint_id: int) -> WebhookEndpoint | None:
    """The endpoint row, locked. Always taken BEFORE any of its delivery rows (one lock order: no
    deadlock with ``disable_endpoint``, which updates the deliveries under the endpoint's lock)."""
    one_connection_per_node(connection)  # Citus: the endpoint is written after reads over every shard
    return WebhookEndpoint.objects.select_for_update().filter(pk=endpoint_id).first()


def _probe_candidate(endpoint: WebhookEndpoint, now: datetime) -> Delivery | None:
    """The delivery a failing endpoint is tried with: a due pending one with the fewest attempts, oldest
    first (so one message the receiver refuses does not stand in front of the others)."""
    due = Delivery.objects.filter(
        endpoint=endpoint, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
    ).order_by("attempts", "created_at", "seq", "pk")
    first = _lock_first(due, 1)
    return first[0] if first else None


def _lock_first(due: QuerySet[Delivery], count: int) -> list[Delivery]:
    """The first ``count`` deliveries of ``due`` that no other transaction holds, locked (``FOR UPDATE SKIP
    LOCKED``). One statement on PostgreSQL. On Citus, where a locking statement must stay on one shard
    (docs/SCALING.md, §3), the candidates are listed without a lock (the endpoint's lock, which every caller
    holds, keeps two callers from listing the same window), then each is locked by a statement routed to
    its game's shard, which re-checks the conditions of ``due`` once it holds the row."""
    if count <= 0:
        return []
    if not is_citus(connection):
        return list(due.select_for_update(skip_locked=True)[:count])
    out: list[Delivery] = []
    for pk, game_id in list(due.values_list("pk", "game_id")[: count * 2]):
        row = due.select_for_update(skip_locked=True).filter(pk=pk, game_id=game_id).first()
        if row is not None:
            out.append(row)
            if len(out) == count:
                break
    return out


def attempt_delivery(delivery_id: str) -> float | None:
    """Make one attempt at a due pending delivery (a no-op for anything else: safe to call twice, from any
    worker). Returns the delay before this delivery's next attempt when one is scheduled, else None.

    While the endpoint answers, due deliveries are sent concurrently, at most ``WEBHOOK_ENDPOINT_CONCURRENCY``
    at once (``fill_window``: each success enqueues the next). Once an attempt fails the endpoint is *failing*
    (``failing_since``): the other deliveries are held, not attempted, until its ``retry_at``; then one
    delivery (``_probe_candidate``, whichever task arrives first) is tried, and only that one. A 2xx ends the
    failure: every held delivery is due at once and the window is filled, then refilled by each success, so
    the backlog drains as fast as the receiver answers. Every attempt to the endpoint failing for
    ``WEBHOOK_DISABLE_AFTER_SECONDS`` disables it."""
    now = timezone.now()
    found = Delivery.objects.filter(pk=delivery_id).values_list("endpoint_id", "game_id").first()
    if found is None:
        return None
    endpoint_id, game_id = found  # the game routes every statement on the delivery to its shard (Citus)
    with transaction.atomic():
        endpoint = _lock_endpoint(endpoint_id)
        if endpoint is None:
            return None
        delivery = (
            Delivery.objects.select_for_update(skip_locked=True)
            .filter(pk=delivery_id, game_id=game_id, status=DeliveryStatus.PENDING)
            .first()
        )
        if delivery is None:
            return None
        if not endpoint.enabled:
            delivery.status = DeliveryStatus.CANCELLED
            _save(delivery, "status")
            return None
        lease = now + timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS) + LEASE_MARGIN
        if endpoint.failing_since is not None:
            if endpoint.retry_at is not None and endpoint.retry_at > now:
                _release(delivery)  # held: enqueued again when the endpoint answers (or as a probe)
                return None
            probe = _probe_candidate(endpoint, now)
            if probe is None:  # nothing due (this task's own delivery waits for its backoff)
                _release(delivery)
                return None
            if probe.pk != delivery.pk:
                _release(delivery)
            delivery = probe
            # the probe's lease on the endpoint: no other attempt to it until this one had time to finish
            endpoint.retry_at = lease
            endpoint.save(update_fields=["retry_at"])
        elif delivery.next_attempt_at > now:
            return None  # not due: an attempt is in flight, or a stale task (the claim is someone else's)
        delivery.attempts += 1
        number = delivery.attempts
        # the claim: nobody else takes it until this attempt had time to finish (and it fills the window)
        delivery.next_attempt_at = lease
        delivery.queued_until = lease
        _save(delivery, "attempts", "next_attempt_at", "queued_until")
        sent_id, url, secret, payload = delivery.pk, endpoint.url, endpoint.secret, delivery.payload
        sent_game = delivery.game_id
        kind = endpoint.kind
        owner = endpoint.player.public_name if kind != EndpointKind.STANDARD else ""

    if kind == EndpointKind.STANDARD:
        body = body_bytes(payload)
        headers = signed_headers(secret, sent_id, body, now)
    else:  # a chat's incoming webhook: its own JSON, formatted from the same redacted payload (chat.body)
        body = body_bytes(chat.body(kind, payload, owner, now))
        headers = {"content-type": "application/json", "user-agent": USER_AGENT}
    result = send(url, headers, body)
    return _record(sent_id, sent_game, endpoint_id, number, now, result, delivery_id)


def _record(
    sent_id: str,
    sent_game: int,
    endpoint_id: int,
    number: int,
    started: datetime,
    result: SendResult,
    asked_id: str,
) -> float | None:
    """Record the attempt's outcome; returns the delay before ``asked_id`` may be tried again (None: not by
    this task)."""
    with transaction.atomic():
        endpoint = _lock_endpoint(endpoint_id)
        delivery = Delivery.objects.select_for_update().filter(pk=sent_id, game_id=sent_game).first()
        if endpoint is None or delivery is None:  # the endpoint was deleted meanwhile, deliveries with it
            return None
        DeliveryAttempt.objects.create(
            delivery=delivery,
            game_id=delivery.game_id,
            number=number,
            started_at=started,
            duration_ms=result.duration_ms,
            status_code=result.status_code,
            error=result.error,
            response_excerpt=result.excerpt,
        )
        now = timezone.now()
        delivery.queued_until = None
        if result.ok:
            delivery.status = DeliveryStatus.DELIVERED
            delivery.delivered_at = now
            _save(delivery, "status", "delivered_at", "queued_until")
            if endpoint.failing_since is not None or endpoint.consecutive_failures:
                endpoint.failing_since = None
                endpoint.retry_at = None
                endpoint.consecutive_failures = 0
                endpoint.save(update_fields=["failing_since", "retry_at", "consecutive_failures"])
                # the receiver is back: what was held for it (and the probes' backoffs) is due now
                Delivery.objects.filter(
                    endpoint=endpoint, status=DeliveryStatus.PENDING, next_attempt_at__gt=now
                ).exclude(pk=sent_id).filter(_unclaimed(now)).update(next_attempt_at=now)
            fill_window(endpoint, now)
            return None
        reason = result.error or f"HTTP {result.status_code}"
        if endpoint.failing_since is None or _stale(endpoint, started):
            endpoint.failing_since = started
            endpoint.consecutive_failures = 0
        endpoint.consecutive_failures += 1
        endpoint.last_failure = reason[:300]
        endpoint.last_failure_at = now
        failing_for = (now - endpoint.failing_since).total_seconds()
        endpoint.retry_at = now + timedelta(seconds=endpoint_hold_seconds(failing_for))
        endpoint.save(
            update_fields=[
                "consecutive_failures",
                "last_failure",
                "last_failure_at",
                "failing_since",
                "retry_at",
            ]
        )
        if endpoint.enabled and failing_for >= settings.WEBHOOK_DISABLE_AFTER_SECONDS:
            disable_endpoint(
                endpoint,
                f"Disabled: every attempt failed for {_duration(failing_for)} (since "
                f"{endpoint.failing_since.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC, "
                f"{endpoint.consecutive_failures} failed attempts; last: {reason}).",
            )
            return None
        if delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
            delivery.status = DeliveryStatus.FAILED
            _save(delivery, "status", "queued_until")
            return None
        delivery.next_attempt_at = now + timedelta(seconds=backoff_seconds(delivery.attempts))
        # the endpoint's next probe: this task comes back when its hold is over (the probe is then whichever
        # due delivery has had the fewest attempts); a hold beyond the horizon is left to the sweeper
        wait = max(0.0, (endpoint.retry_at - now).total_seconds())
        if wait <= COUNTDOWN_HORIZON:
            delivery.queued_until = _claim_until(now, wait)
            transaction.on_commit(lambda: enqueue([sent_id], countdown=wait))
        _save(delivery, "next_attempt_at", "queued_until")
        return wait


def _stale(endpoint: WebhookEndpoint, started: datetime) -> bool:
    """Whether the endpoint's run of failures is stale: nothing was tried for longer than two of the
    longest holds (nothing was pending), so this failure starts a new run. "Failing continuously" means
    failed attempts no further apart than that, not one failure days after another."""
    if endpoint.last_failure_at is None:
        return True
    gap = (started - endpoint.last_failure_at).total_seconds()
    return gap > 2 * float(settings.WEBHOOK_RETRY_MAX_SECONDS)


def _duration(seconds: float) -> str:
    if seconds >= 86400:
        return f"{seconds / 86400:.1f} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} hours"
    if seconds >= 60:
        return f"{seconds / 60:.1f} minutes"
    return f"{seconds:.1f} seconds"


def disable_endpoint(endpoint: WebhookEndpoint, reason: str) -> None:
    """Turn an endpoint off with a notice its owner sees on the endpoint (``disabled_at``,
    ``disabled_reason``); its pending deliveries are cancelled. The caller holds the endpoint's lock."""
    endpoint.enabled = False
    endpoint.disabled_at = timezone.now()
    endpoint.disabled_reason = reason[:300]
    endpoint.retry_at = None
    endpoint.save(update_fields=["enabled", "disabled_at", "disabled_reason", "retry_at"])
    Delivery.objects.filter(endpoint=endpoint, status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.CANCELLED
    )
    logger.warning("webhook endpoint %s disabled: %s", endpoint.pk, reason)


def enqueue_due(limit: int = 500) -> list[str]:
    """What the sweeper does (``notifications.sweep``): for every endpoint with due deliveries that no task
    holds, fill its window (an endpoint that answers) or claim its probe (a failing one whose hold is over),
    and enqueue them. Never a delivery a task holds (``queued_until``), never more than an endpoint's window:
    the queue holds at most endpoints x ``WEBHOOK_ENDPOINT_CONCURRENCY`` deliveries, and at most ``limit``
    endpoints are served per sweep (oldest due first)."""
    now = timezone.now()
    endpoint_ids = list(
        Delivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .filter(_unclaimed(now))
        .filter(Q(endpoint__retry_at__isnull=True) | Q(endpoint__retry_at__lte=now))
        .order_by()  # DISTINCT over the endpoint alone (the model's ordering would add its columns)
        .values_list("endpoint_id", flat=True)
        .distinct()[:limit]
    )
    out: list[str] = []
    for endpoint_id in endpoint_ids:
        with transaction.atomic():
            endpoint = _lock_endpoint(endpoint_id)
            if endpoint is None:
                continue
            if endpoint.failing_since is None:
                out += fill_window(endpoint, now)
            elif endpoint.enabled:
                out += _claim_probe(endpoint, now)
    return out


def due_deliveries(limit: int = 500) -> list[str]:
    """What the sweeper enqueues: every due pending delivery of an endpoint that answers, oldest first, and
    ONE (the probe candidate) per failing endpoint whose hold is over; nothing of a held endpoint."""
    now = timezone.now()
    healthy = list(
        Delivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lte=now, endpoint__failing_since__isnull=True
        )
        .order_by("created_at", "seq", "pk")
        .values_list("pk", flat=True)[:limit]
    )
    probes = list(
        Delivery.objects.filter(
            status=DeliveryStatus.PENDING,
            next_attempt_at__lte=now,
            endpoint__failing_since__isnull=False,
            endpoint__retry_at__lte=now,
        )
        .order_by("endpoint_id", "attempts", "created_at", "seq", "pk")
        .distinct("endpoint_id")
        .values_list("pk", flat=True)[:limit]
    )
    return healthy + probes
