"""Issue #22: what every page must do besides playing: markup in names, game names and messages stays text on
every page; axe-core finds no serious or critical violation (lobby, a table of each game, a replay page); the
pages carry a strict Content-Security-Policy and load nothing from elsewhere; an API error is shown in words;
a table page's first load is small and quick (its transfer size, gzip-compressed as WhiteNoise serves it in
production, and its time to interactive are printed)."""

from __future__ import annotations

import gzip
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.notifications.helpers import AsgiServer
from tests.web.browser import PASSWORD, Person, chromium, play_one_move

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "web" / "node_modules" / "axe-core" / "axe.min.js"
EVIL = '<img src=x onerror="window.__pwned=1">'


def api_token(base: str, username: str) -> str:
    response = httpx.post(
        f"{base}/api/v1/auth/tokens", json={"username": username, "password": PASSWORD, "name": "t"}
    )
    assert response.status_code == 201, response.text
    return str(response.json()["token"])


def no_markup_ran(page: Any) -> None:
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("main img").count() == 0, "markup from a name or message became an element"


def test_names_game_names_and_messages_with_markup_render_as_text_on_every_page(
    web_server: AsgiServer,
) -> None:
    base = web_server.base_url
    with chromium() as browser:
        al = Person(browser, base, "al", f"Al {EVIL}")
        al.sign_up()
        page = al.page
        game_name = f"<b>bold</b> {EVIL}"
        game_id = al.create_game("were_cats", game_name, 3, 2, {"max_rounds": "1"})
        page.wait_for_selector("[data-version]", timeout=20_000)
        message = f"hi {EVIL} <script>window.__pwned=2</script>"
        page.fill("#message-text", message)
        page.click("button:has-text('Send to the table')")
        page.locator(".messages li", has_text=message).wait_for(timeout=15_000)
        assert (
            page.locator("h1", has_text=game_name).count() == 1
        )  # the name, as typed, is the heading's text
        assert page.locator("section[aria-labelledby=seats-h]", has_text=f"Al {EVIL}").count() == 1
        no_markup_ran(page)
        # the lobby (running games), my games, the account page: the same text, never markup
        for path, text in (
            ("/play/?", game_name),
            ("/play/me", game_name),
            ("/play/settings", f"Al {EVIL}"),
        ):
            page.goto(f"{base}{path}")
            if path.startswith("/play/?"):
                page.select_option("#filter-status", '"running"' if False else "running")
            locator = (
                page.locator("main", has_text=text)
                if path != "/play/settings"
                else page.locator("#display-name")
            )
            if path == "/play/settings":
                locator.wait_for(timeout=15_000)
                assert locator.input_value() == text
            else:
                locator.wait_for(timeout=15_000)
            no_markup_ran(page)
        # a replay page of the game once it is over (played through the page)
        page.goto(f"{base}/play/games/{game_id}")
        sent: set[tuple[str, str]] = set()
        deadline = time.monotonic() + 120
        while page.locator("[data-over=true]").count() == 0 and time.monotonic() < deadline:
            if not play_one_move(page, sent):
                time.sleep(0.2)
        page.goto(f"{base}/play/games/{game_id}/replay")
        page.wait_for_selector("main h1", timeout=20_000)
        time.sleep(1)
        no_markup_ran(page)


def test_axe_finds_no_serious_or_critical_violation(web_server: AsgiServer) -> None:
    base = web_server.base_url
    assert AXE.exists(), "axe-core is installed by npm ci (web/package.json)"
    source = AXE.read_text()
    with chromium() as browser:
        person = Person(browser, base, "ax", bypass_csp=True)
        person.sign_up()
        page = person.page
        checked: dict[str, list[str]] = {}

        def audit(name: str) -> None:
            page.add_script_tag(content=source)
            result = page.evaluate(
                "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                ".filter((v) => v.impact === 'serious' || v.impact === 'critical')"
                ".map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)"
            )
            checked[name] = result

        page.goto(f"{base}/play/")
        page.wait_for_selector("h1:has-text('Lobby')")
        page.click("summary:has-text('Options of')")
        audit("lobby")
        over_game = None
        for ruleset, seats in (("goodcritters", 4), ("loose_triggers", 4), ("were_cats", 3)):
            opts = {"max_rounds": "1"} if ruleset == "were_cats" else {}
            game_id = person.create_game(ruleset, f"axe {ruleset}", seats, seats - 1, opts)
            page.wait_for_selector("[data-version]", timeout=20_000)
            time.sleep(1)  # the drawing and the moves in place
            audit(f"table {ruleset}")
            if ruleset == "were_cats":
                over_game = game_id
        assert over_game is not None
        sent: set[tuple[str, str]] = set()
        deadline = time.monotonic() + 120
        while page.locator("[data-over=true]").count() == 0 and time.monotonic() < deadline:
            if not play_one_move(page, sent):
                time.sleep(0.2)
        page.goto(f"{base}/play/games/{over_game}/replay")
        page.wait_for_selector("main h1", timeout=20_000)
        time.sleep(1)
        audit("replay")
        page.goto(f"{base}/play/notifications")
        page.wait_for_selector("h1:has-text('Notifications')")
        page.wait_for_selector("#time-zone")
        audit("notifications")
        page.goto(f"{base}/play/login")
        audit("login")
    print(f"\naxe: {checked}")
    assert all(not v for v in checked.values()), checked


def test_the_pages_are_strict_small_quick_and_say_errors_in_words(web_server: AsgiServer) -> None:
    base = web_server.base_url
    # every /play/ address: the one shell, a strict CSP, no inline script or style
    shell = httpx.get(f"{base}/play/games/1")
    assert shell.status_code == 200
    csp = shell.headers["Content-Security-Policy"]
    for directive in ("default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'"):
        assert directive in csp
    assert "unsafe-inline" not in csp
    assert "unsafe-eval" not in csp
    assert "<script>" not in shell.text
    assert "style=" not in shell.text
    root = httpx.get(f"{base}/", follow_redirects=False)
    assert root.status_code == 302
    assert root.headers["Location"] == "/play/"
    with chromium() as browser:
        person = Person(browser, base, "sz")
        person.sign_up()
        game_id = person.create_game("goodcritters", "size", 4, 3, {})
        person.page.wait_for_selector("[data-version]", timeout=20_000)
        # a fresh context (nothing cached), logged in with the same token: the table page's first load
        token = person.page.evaluate("() => localStorage.getItem('critters.auth')")
        context = browser.new_context()
        context.add_init_script(f"localStorage.setItem('critters.auth', {token!r})")
        sizes: dict[str, int] = {}
        foreign: list[str] = []
        csp_errors: list[str] = []

        def record(response: Any) -> None:
            if not response.url.startswith(base):
                foreign.append(response.url)
            if "/stream" in response.url:
                return  # the live stream stays open: not part of the load
            try:
                body = response.body()
            except Exception:  # a redirect or an aborted request: nothing transferred
                return
            sizes[response.url] = len(gzip.compress(body, 6)) + 300  # + headers, roughly

        def on_console(message: Any) -> None:
            if "Content Security Policy" in message.text:
                csp_errors.append(message.text)

        # three first loads, each in a fresh context (nothing cached); the best counts (a busy machine)
        times = []
        for attempt in range(3):
            context = browser.new_context()
            context.add_init_script(f"localStorage.setItem('critters.auth', {token!r})")
            page = context.new_page()
            page.on("console", on_console)
            if attempt == 0:
                page.on("response", record)
            started = time.monotonic()
            page.goto(f"{base}/play/games/{game_id}")
            page.wait_for_selector(".actions form.move button:not([disabled])", timeout=20_000)
            times.append(time.monotonic() - started)
            time.sleep(0.5)
            if attempt < 2:
                context.close()
        interactive = min(times)
        total = sum(sizes.values())
        print(f"\ntable page first load: {total / 1024:.1f} KB compressed in {len(sizes)} responses; ")
        print(f"interactive (a move's button ready) after {[round(t * 1000) for t in times]} ms")
        assert not foreign, foreign
        assert not csp_errors, csp_errors
        assert total <= 300 * 1024
        load = os.getloadavg()[0]
        if load <= 4 * (os.cpu_count() or 1):
            assert interactive < 1.0, f"{interactive:.2f} s to interactive (load average {load:.1f})"
        else:  # a machine this overloaded measures the load, not the page: said, not asserted
            print(f"load average {load:.1f}: the time to interactive ({interactive:.2f} s) is not checked")
        # an API error in words, never a blank page: a game that does not exist
        page.goto(f"{base}/play/games/999999")
        page.locator(".error-box").wait_for(timeout=15_000)
        assert "could not be shown" in page.locator(".error-box").inner_text()
        # a bad option in words, before anything is sent (as the server would refuse it)
        person.page.goto(f"{base}/play/")
        person.page.select_option("#create-ruleset", "loose_triggers")
        person.page.fill("#create-seats", "9")
        person.page.click("button:has-text('Create the game')")
        person.page.locator(".create .error-box").wait_for(timeout=10_000)
        assert "4 to 8" in person.page.locator(".create").inner_text()
        # the server's problem in words: a wrong password
        page.evaluate("() => localStorage.clear()")
        page.goto(f"{base}/play/login")
        page.fill("#login-username", person.username)
        page.fill("#login-password", "not-the-password")
        page.click("main button:has-text('Log in')")
        page.locator(".error-box").wait_for(timeout=10_000)
        assert "Wrong username or password" in page.locator(".error-box").inner_text()
        context.close()


def test_a_drawing_bug_in_one_part_leaves_the_rest_of_the_table_usable(web_server: AsgiServer) -> None:
    """One part of the table page that fails to draw (here every dollar amount, which GoodCritters' cards and
    log print) is shown as an error in words and logged; the page does not go blank: the creator can still
    pause and resume the game."""
    base = web_server.base_url
    with chromium() as browser:
        al = Person(browser, base, "al")
        al.sign_up()
        page = al.page
        game_id = al.create_game("goodcritters", "broken drawing", 4, 3, {})
        page.add_init_script(
            "(() => { const plain = Number.prototype.toLocaleString;"
            " Number.prototype.toLocaleString = function (...a) {"
            " if (a[0] === 'en-US') throw new Error('drawing bug'); return plain.apply(this, a); }; })()"
        )
        page.goto(f"{base}/play/games/{game_id}")
        page.locator(".error-box", has_text="could not be drawn").first.wait_for(timeout=20_000)
        assert any("drawing bug" in e for e in al.errors), al.errors  # logged, not swallowed
        page.click("button:has-text('Pause the game')")
        page.locator(".status-line", has_text="Paused").wait_for(timeout=15_000)
        page.click("button:has-text('Resume the game')")
        page.locator("button:has-text('Pause the game')").wait_for(timeout=15_000)
