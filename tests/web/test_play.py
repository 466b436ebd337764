"""Issue #22: people play whole games in the browser, through the pages alone (Debian's Chromium, Playwright).

For each ruleset, two people in two browser contexts (each signed up through the page, each with their own
token) sit at a table with bots, under deadlines; they talk (in public and in private), the creator pauses
and resumes, and they play every move through the page's move forms until the game ends; then each game's
replay page is stepped through. The three games run side by side (one thread and one Chromium each) to keep
the run to a few minutes. Screenshots of every table page at desktop and phone width are kept under
var/web-screenshots/ (their paths are printed)."""

from __future__ import annotations

import threading
import time
import traceback
from pathlib import Path
from typing import Any

import pytest

from tests.notifications.helpers import AsgiServer
from tests.web.browser import ARTIFACTS, DESKTOP, PHONE, Person, chromium, play_one_move

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

MARKUP_NAME = '<img src=x onerror="window.__pwned=1">'
GAMES: dict[str, dict[str, Any]] = {
    "goodcritters": {
        "seats": 4,
        "options": {"fuzz_depth": '"short"', "deadlines.distribute": "120", "deadlines.choose": "120"},
    },
    "loose_triggers": {
        "seats": 4,
        "options": {
            "countdown": "1",
            "deadlines.give": "120",
            "deadlines.choose": "120",
            "deadlines.pick": "120",
            # LT2.5's window: a bot Bagman waits for the people to pass before each give (with no window, two
            # sensible bots dealt and fought the whole game out before the page's pause step)
            "deadlines.aim": "120",
        },
    },
    "were_cats": {
        "seats": 3,
        "options": {
            "max_rounds": "1",
            "deadlines.setup": "120",
            "deadlines.place": "120",
            "deadlines.populate": "120",
            "deadlines.act": "120",
        },
    },
}
GAME_SECONDS = 420


def shoot(page: Any, name: str) -> list[Path]:
    """The page at desktop and at phone width (full page), kept as test artifacts."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    paths = []
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        time.sleep(0.2)
        path = ARTIFACTS / f"{name}-{label}.png"
        page.screenshot(path=str(path), full_page=True)
        paths.append(path)
        if label == "phone":  # usable at 390 px: nothing wider than the screen
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= 390 + 1, f"{name}: the page is {width}px wide at a 390px-wide phone"
    page.set_viewport_size(DESKTOP)
    return paths


def wait_text(page: Any, selector: str, text: str, timeout: float = 15) -> None:
    page.locator(selector, has_text=text).first.wait_for(timeout=timeout * 1000)


def play_game(base: str, ruleset: str, shots: list[Path], results: dict[str, Any]) -> None:
    with chromium() as browser:
        al = Person(browser, base, "al", f"Al {MARKUP_NAME}")
        bo = Person(browser, base, "bo", "Bo <b>bold</b>")
        try:
            play_with(base, ruleset, al, bo, shots, results)
        except BaseException as exc:
            # what each page showed when it failed: a timeout alone says nothing of why a control was gone
            seen = []
            for person in (al, bo):
                try:
                    path = ARTIFACTS / f"{ruleset}-failed-{person.username}.png"
                    person.page.screenshot(path=str(path), full_page=True)
                    text = person.page.inner_text("body", timeout=5000)[:2000]
                    seen.append(
                        f"--- {person.username} ({person.page.url}, {path}):\n{text}\nerrors: {person.errors}"
                    )
                except Exception as inner:  # the page itself may be gone
                    seen.append(f"--- {person.username}: no page ({inner})")
            raise AssertionError("\n".join(seen)) from exc


def play_with(
    base: str, ruleset: str, al: Person, bo: Person, shots: list[Path], results: dict[str, Any]
) -> None:
    spec = GAMES[ruleset]
    al.sign_up()
    bo.sign_up()
    name = f"{ruleset} <script>window.__pwned=1</script>"
    game_id = al.create_game(ruleset, name, spec["seats"], spec["seats"] - 2, spec["options"])
    bo.join(game_id)
    for person in (al, bo):
        person.page.goto(f"{base}/play/games/{game_id}")
        person.page.wait_for_selector("[data-version]", timeout=20_000)
    # the deadline counts down on the page
    wait_text(al.page, ".status-line .countdown", "Deadline: ")
    al.page.locator(".status-line .countdown time").first.wait_for(timeout=15_000)
    # a message in public, then one in private
    public = "Hello <b>table</b> & all"
    al.page.fill("#message-text", public)
    al.page.click("button:has-text('Send to the table')")
    wait_text(bo.page, ".messages li", public)
    bo.page.locator(".send-message label.check", has_text="Al").locator("input").check()
    private = "psst <i>only you</i>"
    bo.page.fill("#message-text", private)
    bo.page.click("button:has-text('Send privately')")
    wait_text(al.page, ".messages li.private", private)
    # the creator pauses, everyone sees it, the creator resumes
    al.page.click("button:has-text('Pause the game')")
    wait_text(bo.page, ".status-line", "Paused")
    wait_text(al.page, ".status-line .countdown", "paused")
    shots.extend(shoot(al.page, f"{ruleset}-table-paused"))
    al.page.click("button:has-text('Resume the game')")
    wait_text(bo.page, ".status-line", "Step")
    # play every move through the page's forms, to the end
    sent: dict[str, set[tuple[str, str]]] = {al.username: set(), bo.username: set()}
    moves = 0
    started = time.monotonic()
    middle = False
    while time.monotonic() - started < GAME_SECONDS:
        if all(p.page.locator("[data-over=true]").count() for p in (al, bo)):
            break
        acted = False
        for person in (al, bo):
            if play_one_move(person.page, sent[person.username]):
                moves += 1
                acted = True
        if moves >= 6 and not middle:
            shots.extend(shoot(bo.page, f"{ruleset}-table-midgame"))
            middle = True
        if not acted:
            time.sleep(0.2)
    else:
        raise AssertionError(f"{ruleset}: game {game_id} not over after {GAME_SECONDS}s ({moves} moves)")
    wait_text(al.page, ".table-head .notice", "The game is over")
    shots.extend(shoot(al.page, f"{ruleset}-table-over"))
    # the replay page: step through it (event by event, then to the end)
    al.page.goto(f"{base}/play/games/{game_id}/replay")
    next_button = al.page.locator("button[data-control=next]")
    next_button.wait_for(timeout=20_000)
    for _ in range(25):
        if not next_button.is_enabled():
            break
        next_button.click()
    al.page.locator("button[data-control=last]").click()
    assert not next_button.is_enabled(), "the replay did not reach the game's last event"
    shots.extend(shoot(al.page, f"{ruleset}-replay"))
    for person in (al, bo):
        assert person.page.evaluate("() => window.__pwned") is None, "markup ran as code"
        assert not person.errors or all("409" in e or "404" in e for e in person.errors), person.errors
    results[ruleset] = {"game": game_id, "moves": moves, "seconds": round(time.monotonic() - started, 1)}


def test_two_people_play_a_whole_game_of_each_ruleset_through_the_pages(
    web_server: AsgiServer, celery_worker_process: Any
) -> None:
    shots: list[Path] = []
    results: dict[str, Any] = {}
    failures: list[str] = []

    def run(ruleset: str) -> None:
        try:
            play_game(web_server.base_url, ruleset, shots, results)
        except BaseException:  # reported by the main thread
            failures.append(f"{ruleset}:\n{traceback.format_exc()}")

    threads = [threading.Thread(target=run, args=(r,), name=r) for r in GAMES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(GAME_SECONDS + 240)
    print("\nscreenshots:\n" + "\n".join(str(p) for p in sorted(shots)))
    print(f"games: {results}")
    assert not failures, "\n".join(failures)
    assert set(results) == set(GAMES)
