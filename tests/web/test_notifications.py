"""The notifications page (issue #23 for people, not programs), with the real parts: a person signs up, opens
their account, follows it to the notifications page and gives a mail address; the page's own server
(uvicorn) writes the verification mail, a real Celery worker sends it to the real SMTP server process of the
mail tests; the link in that mail is opened in the browser and confirmed there, and the page then shows the
address confirmed. A second link asked for at once is refused and the page says so in words (without waiting
the minute out); mail settings chosen in plain words are stored (read back through the API), with the time
zone taken from the browser; a game is muted and unmuted; a chat room is connected (a refused address in
words first); and the page fits a 390 px phone without sideways scrolling."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.notifications.helpers import AsgiServer
from tests.notifications.mailbox import SmtpServer, smtp_server
from tests.web.browser import ARTIFACTS, PASSWORD, PHONE, Person, chromium
from tests.web.conftest import DIST
from tests.worker import CeleryWorkerProcess, database_url_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ZONE = "America/Chicago"  # the browser's time zone (not the server's default, UTC)


@pytest.fixture
def stack(django_db_setup: None, tmp_path: Path) -> Iterator[tuple[AsgiServer, SmtpServer]]:
    """uvicorn whose mailed links point at itself, the SMTP server, and a worker that sends to it."""
    from django.db import connection

    from critters_api.celery import app

    if not DIST.exists():
        pytest.fail("web/dist/app.js is missing: build the browser client first (scripts/web)")
    with smtp_server(tmp_path / "mail") as mailbox:
        server = AsgiServer(tmp_path / "uvicorn.log", {"STREAM_KEEPALIVE_SECONDS": "2"})
        server.env["PUBLIC_BASE_URL"] = server.base_url
        app.control.purge()  # nothing an earlier run left in this run's broker db
        worker = CeleryWorkerProcess(
            tmp_path / "worker",
            database_url_for(dict(connection.settings_dict)),
            {**mailbox.env(), "PUBLIC_BASE_URL": server.base_url},
        )
        worker.workdir.mkdir(parents=True, exist_ok=True)
        server.start()
        try:
            worker.start()
            try:
                yield server, mailbox
            finally:
                worker.stop()
        finally:
            server.stop()


def token_for(base: str, username: str) -> str:
    r = httpx.post(
        f"{base}/api/v1/auth/tokens", json={"username": username, "password": PASSWORD, "name": "t"}
    )
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def test_a_person_gives_and_confirms_an_address_and_chooses_what_they_are_told(
    stack: tuple[AsgiServer, SmtpServer],
) -> None:
    server, mailbox = stack
    base = server.base_url
    started = time.monotonic()
    with chromium() as browser:
        person = Person(browser, base, "nell", timezone_id=ZONE)
        person.sign_up()
        page = person.page
        address = f"{person.username}@example.com"
        auth = {"Authorization": f"Bearer {token_for(base, person.username)}"}

        def read(path: str) -> Any:
            r = httpx.get(f"{base}/api/v1/{path}", headers=auth)
            assert r.status_code == 200, r.text
            return r.json()

        # from the account page to the notifications page, as a person finds it
        page.goto(f"{base}/play/settings")
        page.click("a:has-text('Mail and chat notifications')")
        page.wait_for_selector("h1:has-text('Notifications')")
        assert page.locator("header nav a:has-text('Notifications')").count() == 1
        page.get_by_text("You have not given a mail address yet").wait_for()

        # (1) the address: asked for, pending, the link mailed by the worker through the SMTP server
        page.get_by_label("Mail address", exact=True).fill(address)
        page.click("button:has-text('Send me a confirmation link')")
        pending = page.locator("[data-testid=email-pending]")
        pending.wait_for(timeout=10_000)
        assert f"We sent a link to {address}. Open it to confirm this address." in pending.inner_text()
        # another link at once: refused, and said in words at once (not after waiting the minute out)
        asked = time.monotonic()
        page.click("button:has-text('Send the link again')")
        refusal = page.locator(".error-box", has_text="A link was mailed moments ago")
        refusal.wait_for(timeout=5_000)
        assert time.monotonic() - asked < 5
        assert "ask again in" in refusal.inner_text()
        (verification,) = mailbox.wait_for(address, 1, timeout=30)
        assert verification.message["Subject"] == "Confirm your address for game notifications"
        (link,) = [u for u in verification.links() if "/email/verify" in u]
        assert link.startswith(f"{base}/api/v1/email/verify?token=")
        assert read("me/email")["address"] == ""  # nothing is confirmed by asking

        # the link, opened in another tab of the same browser (as from a webmail), confirmed there
        tab = person.context.new_page()
        tab.goto(link)
        tab.click("button:has-text('Confirm')")
        tab.wait_for_selector("h1:has-text('Address confirmed')")
        tab.close()
        page.bring_to_front()
        page.click("button:has-text('I opened the link: check again')")
        verified = page.locator("[data-testid=email-verified]")
        verified.wait_for(timeout=10_000)
        assert address in verified.inner_text()
        assert "confirmed" in verified.inner_text()
        assert page.locator("[data-testid=email-pending]").count() == 0
        page.reload()
        page.locator("[data-testid=email-verified]", has_text=address).wait_for(timeout=10_000)
        email = read("me/email")
        assert email["address"] == address
        assert email["verified_at"] is not None
        assert email["pending_address"] == ""

        # (2) what is mailed and how often, in words; the time zone taken from the browser
        mail_panel = page.get_by_role("region", name="What we mail you")
        assert page.locator("#time-zone").input_value() == ZONE
        assert mail_panel.get_by_label("Send me notification mail").is_checked()
        mail_panel.get_by_label("A game I sit in has started").uncheck()
        mail_panel.get_by_label("Once a day, as a summary").check()
        mail_panel.get_by_label("Send the daily summary at").select_option("7")
        page.click("button:has-text('Save mail settings')")
        page.locator("[role=status]", has_text="Saved.").wait_for(timeout=10_000)
        stored = read("me/notifications")
        assert stored["delivery"] == "digest"
        assert stored["digest_hour"] == 7
        assert stored["time_zone"] == ZONE
        assert stored["mail_enabled"] is True
        assert "game_started" not in stored["kinds"]
        assert {"your_turn", "deadline_near", "private_message"} <= set(stored["kinds"])
        assert stored["next_digest_at"] is not None
        page.reload()  # what the page shows is what is stored
        mail_panel.get_by_label("Once a day, as a summary").wait_for(timeout=10_000)
        assert mail_panel.get_by_label("Once a day, as a summary").is_checked()
        assert not mail_panel.get_by_label("A game I sit in has started").is_checked()
        assert page.locator("#digest-hour").input_value() == "7"

        # (3) a game of theirs muted, then unmuted
        r = httpx.post(f"{base}/api/v1/games", json={"seats": 4, "name": "quiet heist"}, headers=auth)
        assert r.status_code == 201, r.text
        game_id = r.json()["id"]
        page.reload()
        page.get_by_label("Mute one of your games").select_option(str(game_id))
        page.click("button:has-text('Mute')")
        page.locator("ul[aria-label='Muted games'] li", has_text="quiet heist").wait_for(timeout=10_000)
        assert read("me/notifications")["muted_games"] == [game_id]
        page.click("button[aria-label='Unmute quiet heist']")
        page.get_by_text("No game is muted.").wait_for(timeout=10_000)
        assert read("me/notifications")["muted_games"] == []

        # (4) a chat room: a private address is refused in words, a reachable one is connected
        chat_panel = page.get_by_role("region", name="Chat messages")
        chat_panel.get_by_label("Chat app").select_option("slack")
        chat_panel.get_by_label("The room's webhook address").fill("http://10.20.30.40/hook")
        page.click("button:has-text('Connect this room')")
        refused = page.locator(".error-box", has_text="10.20.30.40")
        refused.wait_for(timeout=10_000)
        assert "The host '10.20.30.40' resolves to" in refused.inner_text()  # the server's words, not a code
        assert read("me/webhooks") == []
        chat_panel.get_by_label("The room's webhook address").fill("http://127.0.0.1:9/slack-hook")
        page.click("button:has-text('Connect this room')")
        page.locator("[role=status]", has_text="The Slack room is connected.").wait_for(timeout=10_000)
        (hook,) = read("me/webhooks")
        assert hook["kind"] == "slack"
        assert hook["url"] == "http://127.0.0.1:9/slack-hook"
        assert set(hook["events"]) == {"game.your_turn", "game.deadline_near"}

        # a phone: everything within 390 px, nothing scrolls sideways
        page.set_viewport_size(PHONE)
        page.reload()
        page.locator("[data-testid=email-verified]").wait_for(timeout=10_000)
        widths = page.evaluate(
            "() => ({ doc: document.documentElement.scrollWidth, body: document.body.scrollWidth,"
            " view: window.innerWidth, widest: Math.max(...[...document.querySelectorAll('main *')]"
            ".map((e) => e.getBoundingClientRect().right)) })"
        )
        assert widths["view"] == PHONE["width"]
        assert widths["doc"] <= widths["view"], widths
        assert widths["body"] <= widths["view"], widths
        assert widths["widest"] <= widths["view"], widths
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "notifications-phone.png"), full_page=True)

        # the refused requests above are the only things the browser logged as errors
        unexpected = [e for e in person.errors if "429" not in e and "422" not in e]
        assert not unexpected, person.errors
    print(f"\nnotifications page test: {time.monotonic() - started:.1f} s in the browser")
