"""The per-token limit counted in reservations (critters_api.throttling.count_leased): never a request served
beyond the limit, across processes; near the limit every request is counted one by one."""

from __future__ import annotations

import uuid

import pytest

from critters_api import throttling


@pytest.fixture(autouse=True)
def _fresh_leases() -> None:
    throttling._leases.clear()


def _other_process() -> None:
    """What another web process holds is its own: forget this one's reservations."""
    throttling._leases.clear()


def test_reservations_never_serve_beyond_the_limit_across_processes() -> None:
    bucket, limit = f"lease-{uuid.uuid4().hex}", 2000
    served = 0
    for i in range(2600):
        if i % 7 == 0:  # the requests spread over several processes, each with its own reservation
            _other_process()
        counted = throttling.count_leased(bucket, 60, limit)
        assert counted is not None
        n, ttl_ms = counted
        assert 0 < ttl_ms <= 60_000
        if n <= limit:
            served += 1
    # a few requests may be refused early (reservations other processes left unused), never one too many
    assert limit - 16 * (2600 // 7 + 1) <= served <= limit
    assert served <= limit


def test_one_process_serves_exactly_the_limit() -> None:
    bucket, limit = f"lease-{uuid.uuid4().hex}", 1500
    verdicts = [throttling.count_leased(bucket, 60, limit) for _ in range(1600)]
    assert all(v is not None for v in verdicts)
    served = sum(1 for v in verdicts if v is not None and v[0] <= limit)
    assert served == limit
    assert all(v is not None and v[0] > limit for v in verdicts[limit:])


def test_a_reservation_saves_round_trips_far_from_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = throttling._reserver

    def counting() -> object:
        calls.append(1)
        return real()

    monkeypatch.setattr(throttling, "_reserver", counting)
    bucket = f"lease-{uuid.uuid4().hex}"
    for _ in range(160):
        assert throttling.count_leased(bucket, 60, 100_000) is not None
    assert len(calls) <= 160 // throttling.LEASE_MAX + 1


def test_small_limits_are_counted_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(throttling, "_reserver", lambda: pytest.fail("no reservation under a small limit"))
    bucket = f"lease-{uuid.uuid4().hex}"
    seen = [throttling.count_leased(bucket, 60, 5) for _ in range(7)]
    assert [v[0] for v in seen if v is not None] == [1, 2, 3, 4, 5, 6, 7]
