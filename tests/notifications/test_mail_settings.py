"""Notification settings without a mail server: typed, checked, and the digest's hour in the player's zone."""

from __future__ import annotations

import pytest

from notifications import mail
from tests.conftest import Api, assert_problem


def test_next_digest_at_follows_the_time_zone() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 11, 28, 6, 30, tzinfo=UTC)
    assert mail.next_digest_at(8, "Europe/Berlin", now) == datetime(2026, 11, 28, 7, 0, tzinfo=UTC)
    assert mail.next_digest_at(7, "Europe/Berlin", now) == datetime(2026, 11, 29, 6, 0, tzinfo=UTC)
    assert mail.next_digest_at(8, "America/New_York", now) == datetime(2026, 11, 28, 13, 0, tzinfo=UTC)
    summer = datetime(2026, 7, 1, 5, 0, tzinfo=UTC)
    assert mail.next_digest_at(8, "Europe/Berlin", summer) == datetime(2026, 7, 1, 6, 0, tzinfo=UTC)


@pytest.mark.django_db
def test_settings_are_typed_and_checked(alice: Api) -> None:
    r = alice.get("/api/v1/me/notifications")
    assert r.status_code == 200
    body = r.json()
    assert body["delivery"] == "immediate"
    assert body["mail_enabled"] is True
    assert "your_turn" in body["kinds"]
    assert body["email"]["address"] == ""
    for bad in (
        {"time_zone": "Mars/Olympus"},
        {"digest_hour": 24},
        {"delivery": "weekly"},
        {"kinds": ["everything"]},
        {"mail_enabled": "yes"},
        {"unknown": 1},
        {"muted_games": ["x"]},
    ):
        r = alice.patch("/api/v1/me/notifications", bad)
        assert r.status_code in (400, 422), (bad, r.content)
        assert r["Content-Type"].startswith("application/problem+json")
    assert_problem(alice.patch("/api/v1/me/notifications", {"muted_games": [999999]}), 422, "game_not_yours")
    assert alice.get("/api/v1/me/notifications").json() == body
