"""Mail notifications against a real SMTP server process (aiosmtpd, ``smtp_server.py``): the verification
link, "your turn", "deadline near" (R7.5's warning), the digest, one-click unsubscribe (RFC 8058), pacing
(the bound logic, with the clock moved by rewriting ``last_mail_at``), settings, and that an address is shown
to nobody else. The flushes and sends are run here as the worker runs them (``pump``); the worker itself,
kills and outages are in ``test_mail_worker.py``."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from games.models import Game
from notifications import mail
from notifications.models import MailNotice, MailSettings, MailStatus, NoticeStatus, OutgoingMail
from tests.conftest import Api, assert_problem, make_api

from .mailbox import SmtpServer, smtp_server, token_of

pytestmark = pytest.mark.slow  # each test starts a real SMTP server process

BASE = "https://critters.example"
SHORT = {"fuzz_depth": [0.06, 0.08]}


def pump(rounds: int = 3) -> None:
    """What the worker does: flush every player with pending notices, send every due mail."""
    for _ in range(rounds):
        players = set(
            MailNotice.objects.filter(status=NoticeStatus.PENDING).values_list("player_id", flat=True)
        )
        for player_id in sorted(players):
            mail.flush(player_id)
        for mail_id in OutgoingMail.objects.filter(
            status=MailStatus.PENDING, next_attempt_at__lte=timezone.now()
        ).values_list("pk", flat=True):
            mail.send(mail_id)


def set_address(api: Api, server: SmtpServer, address: str) -> None:
    """The whole verification: ask, receive the link, follow it (the GET page changes nothing), confirm."""
    before = len(server.to(address))
    r = api.client.put(
        "/api/v1/me/email",
        json.dumps({"email": address}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {api.token}"},
    )
    assert r.status_code == 200, r.content
    assert r.json()["pending_address"] == address
    pump()
    got = server.wait_for(address, before + 1)[-1]
    (link,) = [u for u in got.links() if "/email/verify" in u]
    page = Client().get(urlsplit(link).path + "?" + urlsplit(link).query)
    assert page.status_code == 200
    assert b"<form" in page.content
    assert MailSettings.objects.get(pk=api.player.pk).email == ""  # a GET changes nothing
    r = Client().post("/api/v1/email/verify", {"token": token_of(link)}, content_type="application/json")
    assert r.status_code == 200, r.content
    assert r.json()["address"] == address


def minute_passes(api: Api) -> None:
    """The clock moves on by a minute, as far as the pacing bound is concerned: the last mail was composed
    and handed to the server 61 s earlier than it was."""
    ms = MailSettings.objects.get(pk=api.player.pk)
    earlier = timedelta(seconds=61)
    MailSettings.objects.filter(pk=api.player.pk).update(
        last_mail_at=ms.last_mail_at - earlier if ms.last_mail_at else None,
        last_sent_at=ms.last_sent_at - earlier if ms.last_sent_at else None,
    )


def new_game(apis: list[Api], options: dict[str, Any] | None = None, name: str = "first heist") -> int:
    r = apis[0].post(
        "/api/v1/games", {"seats": len(apis), "options": SHORT if options is None else options, "name": name}
    )
    assert r.status_code == 201, r.content
    game_id: int = r.json()["id"]
    for api in apis[1:]:
        assert api.post(f"/api/v1/games/{game_id}/join").status_code == 200
    return game_id


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with smtp_server(tmp_path / "mail") as s, s.settings(PUBLIC_BASE_URL=BASE):
        yield s


@pytest.mark.django_db
def test_verification_then_your_turn_mail(server: SmtpServer) -> None:
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    r = alice.client.put(
        "/api/v1/me/email",
        json.dumps({"email": "alice@example.com"}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {alice.token}"},
    )
    assert r.status_code == 200
    # nothing but the verification link goes to an address that is not verified yet
    new_game([bob, carol, dave, alice], name="too early")
    pump()
    (verification,) = server.wait_for("alice@example.com", 1)
    assert verification.message["Subject"].startswith("Confirm your address")
    assert verification.message["List-Unsubscribe"] is None
    assert "/email/verify?token=" in verification.text
    assert "/email/verify?token=" in verification.html
    assert not OutgoingMail.objects.filter(purpose="notice").exists()
    link = next(u for u in verification.links() if "/email/verify" in u)
    r = Client().post("/api/v1/email/verify", {"token": token_of(link)}, content_type="application/json")
    assert r.status_code == 200
    assert r.json()["address"] == "alice@example.com"
    assert_problem(
        Client().post("/api/v1/email/verify", {"token": token_of(link)}, content_type="application/json"),
        400,
        "email_token_invalid",
    )
    # bob starts a game (bob joins last: alice did not act) that waits on alice
    game_id = new_game([alice, carol, dave, bob])
    pump()
    mails = server.wait_for("alice@example.com", 2)
    turn = mails[-1]
    assert turn.message["Subject"] == "Your turn in first heist"
    assert turn.message["From"]
    assert turn.message["Message-ID"].endswith("@critters.example>")
    assert turn.message["List-Unsubscribe"].strip().startswith(f"<{BASE}/api/v1/email/unsubscribe?token=")
    assert turn.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert f"{BASE}/play/games/{game_id}" in turn.text
    assert f'href="{BASE}/play/games/{game_id}"' in turn.html
    assert "it's your turn" in turn.text
    # the game started before the address was verified: nothing of it waits for later either
    assert not MailNotice.objects.filter(game__name="too early").exists()


@pytest.mark.django_db
def test_deadline_near_mail_r7_5(server: SmtpServer) -> None:
    from games import deadlines

    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    set_address(alice, server, "alice@example.com")
    options = {**SHORT, "deadlines": {"distribute": 600, "choose": 600}, "warn_before": 600}
    game_id = new_game([alice, carol, dave, bob], options, name="slow heist")
    pump()
    server.wait_for("alice@example.com", 2)  # verification, your turn
    minute_passes(alice)
    step_no = Game.objects.get(pk=game_id).step_no
    assert step_no is not None
    assert deadlines.warn(game_id, step_no) > 0
    pump()
    near = server.wait_for("alice@example.com", 3)[-1]
    assert near.message["Subject"] == "Deadline near in slow heist"
    assert "your move is due soon" in near.text
    assert "deadline in 10 min" in near.text


@pytest.mark.django_db
def test_one_click_unsubscribe_stops_further_mail(server: SmtpServer) -> None:
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    set_address(alice, server, "alice@example.com")
    new_game([alice, carol, dave, bob], name="one")
    pump()
    turn = server.wait_for("alice@example.com", 2)[-1]
    url = turn.message["List-Unsubscribe"].strip().strip("<>")
    path = urlsplit(url).path + "?" + urlsplit(url).query
    # a mail scanner following the link changes nothing
    page = Client().get(path)
    assert page.status_code == 200
    assert b"List-Unsubscribe" in page.content
    assert MailSettings.objects.get(pk=alice.player.pk).mail_enabled
    # a broken token is refused and changes nothing
    assert_problem(
        Client().post(
            "/api/v1/email/unsubscribe?token=x",
            "List-Unsubscribe=One-Click",
            content_type="application/x-www-form-urlencoded",
        ),
        400,
        "email_token_invalid",
    )
    # the RFC 8058 POST, as a mail provider sends it: no login, no cookie
    r = Client().post(path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 200, r.content
    assert r.json()["unsubscribed"] is True
    assert not MailSettings.objects.get(pk=alice.player.pk).mail_enabled
    minute_passes(alice)
    new_game([alice, carol, dave, bob], name="two")
    new_game([alice, carol, dave, bob], name="three")
    pump()
    assert len(server.to("alice@example.com")) == 2
    # turning mail on again resumes it
    assert alice.patch("/api/v1/me/notifications", {"mail_enabled": True}).status_code == 200
    new_game([alice, carol, dave, bob], name="four")
    pump()
    assert "four" in server.wait_for("alice@example.com", 3)[-1].message["Subject"]


@pytest.mark.django_db
def test_a_burst_becomes_one_mail_within_the_bound(server: SmtpServer) -> None:
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    set_address(alice, server, "alice@example.com")
    new_game([alice, carol, dave, bob], name="g0")
    pump()
    server.wait_for("alice@example.com", 2)
    for i in range(1, 6):  # five more turns within the minute: held back by the bound
        new_game([alice, carol, dave, bob], name=f"g{i}")
    pump()
    assert len(server.to("alice@example.com")) == 2
    ms = MailSettings.objects.get(pk=alice.player.pk)
    assert ms.last_mail_at is not None
    assert ms.flush_at == ms.last_mail_at + timedelta(seconds=60)
    minute_passes(alice)
    pump()
    burst = server.wait_for("alice@example.com", 3)[-1]
    assert burst.message["Subject"].startswith("5 games: ")
    for i in range(1, 6):
        assert f"* g{i} (" in burst.text
    pump()
    assert len(server.to("alice@example.com")) == 3


@pytest.mark.django_db
def test_the_digest_goes_once_a_day_at_the_players_hour(server: SmtpServer) -> None:
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    set_address(alice, server, "alice@example.com")
    r = alice.patch(
        "/api/v1/me/notifications", {"delivery": "digest", "digest_hour": 8, "time_zone": "Europe/Berlin"}
    )
    assert r.status_code == 200, r.content
    at = MailSettings.objects.get(pk=alice.player.pk).next_digest_at
    assert at is not None
    assert at > timezone.now()
    assert at - timezone.now() <= timedelta(days=1)
    local = at.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Berlin"))
    assert (local.hour, local.minute) == (8, 0)
    assert r.json()["next_digest_at"] is not None
    for i in range(3):
        new_game([alice, carol, dave, bob], name=f"d{i}")
    pump()
    assert len(server.to("alice@example.com")) == 1  # the verification only
    # the hour comes (the clock is moved by moving the digest's time)
    MailSettings.objects.filter(pk=alice.player.pk).update(
        next_digest_at=timezone.now() - timedelta(seconds=1)
    )
    pump()
    digest = server.wait_for("alice@example.com", 2)[-1]
    assert digest.message["Subject"] == "Your daily digest: news from 3 games"
    for i in range(3):
        assert f"* d{i} (" in digest.text
    assert digest.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    after = MailSettings.objects.get(pk=alice.player.pk).next_digest_at
    assert after is not None
    assert after > timezone.now()
    pump()
    assert len(server.to("alice@example.com")) == 2


@pytest.mark.django_db
def test_muted_games_and_kinds_are_respected(server: SmtpServer) -> None:
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    set_address(alice, server, "alice@example.com")
    muted = new_game([alice, carol, dave, bob], name="muted one")
    assert alice.patch("/api/v1/me/notifications", {"muted_games": [muted]}).status_code == 200
    pump()
    assert len(server.to("alice@example.com")) == 1
    assert alice.patch("/api/v1/me/notifications", {"kinds": ["game_ended"]}).status_code == 200
    new_game([alice, carol, dave, bob], name="not about turns")
    pump()
    assert len(server.to("alice@example.com")) == 1


@pytest.mark.django_db
def test_the_address_is_shown_to_nobody_else(server: SmtpServer) -> None:
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    set_address(alice, server, "alice.secret@example.com")
    game_id = new_game([alice, carol, dave, bob])
    assert alice.get("/api/v1/me/email").json()["address"] == "alice.secret@example.com"
    for path in (
        f"/api/v1/games/{game_id}",
        f"/api/v1/games/{game_id}/state",
        f"/api/v1/games/{game_id}/events",
        "/api/v1/games",
        "/api/v1/me/email",
        "/api/v1/me/notifications",
        "/api/v1/me",
    ):
        r = bob.get(path)
        assert r.status_code == 200, path
        assert b"alice.secret" not in r.content, path
    assert bob.get("/api/v1/me/email").json()["address"] == ""


@pytest.mark.django_db
def test_asking_for_links_is_paced(server: SmtpServer, alice: Api) -> None:
    def ask(address: str) -> Any:
        return alice.client.put(
            "/api/v1/me/email",
            json.dumps({"email": address}),
            content_type="application/json",
            headers={"Authorization": f"Bearer {alice.token}"},
        )

    assert ask("a@example.com").status_code == 200
    r = ask("b@example.com")
    assert_problem(r, 429, "verification_throttled")
    assert int(r["Retry-After"]) > 0
    assert MailSettings.objects.get(pk=alice.player.pk).pending_email == "a@example.com"
    for bad in ("not an address", "", "a@b@c"):
        assert ask(bad).status_code in (400, 422)
    assert alice.delete("/api/v1/me/email").status_code == 204
    pump()
    assert server.received() == []  # the pending link was cancelled with the address


@pytest.mark.django_db
def test_no_turn_mail_right_after_acting_in_that_game(server: SmtpServer) -> None:
    alice, bob, carol, dave = (make_api(n) for n in ("alice", "bob", "carol", "dave"))
    set_address(alice, server, "alice@example.com")
    game_id = new_game([alice, carol, dave, bob], name="just joined")  # seat 0: the first step is hers
    # before any mail went, alice says hello at the table: she acted in the game a moment ago
    r = alice.command(game_id, "send-message", {"text": "hello", "to": None})
    assert r.status_code == 200, r.content
    pump()
    assert len(server.to("alice@example.com")) == 1  # the verification only
    held = MailNotice.objects.filter(player=alice.player, game_id=game_id)
    assert {n.kind for n in held} == {"game_started", "your_turn"}
    assert {n.status for n in held} == {NoticeStatus.PENDING}
    with override_settings(MAIL_RECENT_ACTION_SECONDS=0):  # minutes later, she has not come back
        pump()
    assert "just joined" in server.wait_for("alice@example.com", 2)[-1].message["Subject"]


@pytest.mark.django_db
def test_autopilot_and_a_seat_offer_are_mailed_r7_5(server: SmtpServer) -> None:
    from games import deadlines
    from tests.conftest import start_table

    from .test_channel_rights import _choose_and_ready, _distribute, _due, _options

    table = start_table(4, _options(absence={"extensions": 0, "autopilot_after": 1}))
    gid = table.game_id
    absent, newcomer = table.apis[1], make_api("newcomer")
    for api, address in ((absent, "absent@example.com"), (newcomer, "newcomer@example.com")):
        MailSettings.objects.create(player=api.player, email=address, verified_at=timezone.now())
    _distribute(table)
    for seat in (0, 2, 3):
        _choose_and_ready(table.apis[seat], gid)
    deadlines.sweep(now=_due(table) + timedelta(seconds=1))  # seat 1 missed the step: autopilot (R7.5)
    pump()
    autopilot = server.wait_for("absent@example.com", 1)[-1]
    assert "you were put on autopilot" in autopilot.text
    r = table.apis[0].post(f"/api/v1/games/{gid}/seats/1/hand-over", {"to": "player", "player": "newcomer"})
    assert r.status_code == 202, r.content
    pump()
    (offer,) = server.wait_for("newcomer@example.com", 1)
    assert "offered you seat 1" in offer.text
    assert f"{BASE}/play/games/{gid}" in offer.text
