"""The browser client's replay pages (issue #22, ``/play/games/<id>/replay``) in Debian's Chromium driven by
Playwright (no browser download): a finished game of each ruleset, played over HTTP by two people and bots,
is stepped through position by position with the keyboard (→, Home, End) on the drawn table; every event is
told in words (never a bare event type), the drawn table changes as the game goes, the verifier's verdict and
the chart show, names and the game's name with markup stay text, and nothing is loaded from elsewhere.
Screenshots at desktop and phone width (390 px) go to var/web-screenshots/ (their paths are printed)."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from games.models import Game
from players.models import ApiToken
from tests.audit.play import play_to_end
from tests.conftest import Api, make_api

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "var" / "web-screenshots"
MARKUP_GAME = '<b>bold</b> & <script>alert("game")</script>'
MARKUP_NAME = "<img src=x onerror=alert(1)> <i>Ann</i>"
MARKUP_ELEMENTS = "h1 b, h1 script, .replay img, .game-table img, .game-table i"
RULESETS = [
    ("goodcritters", 4, {"payoffs": True}, "Stash value"),
    ("loose_triggers", 4, {}, "Loot value"),
    ("were_cats", 3, {}, "Points"),
]


def finished_game(slug: str, seats: int, options: dict[str, Any]) -> tuple[Game, Api]:
    """Two people (one with markup in their display name) and bots, played to the end over HTTP."""
    apis = [make_api(), make_api()]
    apis[0].player.display_name = MARKUP_NAME
    apis[0].player.save(update_fields=["display_name"])
    bots = ["sensible" if s % 2 else "random" for s in range(seats - len(apis))]
    body = {"ruleset": slug, "name": MARKUP_GAME, "seats": seats, "options": options, "bots": bots}
    created = apis[0].post("/api/v1/games", body)
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    assert apis[1].post(f"/api/v1/games/{game_id}/join").status_code == 200
    return play_to_end(game_id, {api.player.pk: api for api in apis}), apis[0]


SHOWN = """seq => {
  const event = document.querySelector(`[data-replay-event='${seq}'][data-loaded='true']`);
  if (!event) return null;
  const table = document.querySelector('.game-table');
  const shown = document.querySelector('[data-replay-seq]');
  const seq_shown = shown && shown.dataset.replaySeq;
  return {text: event.textContent, table: table ? table.innerHTML : '', seq: seq_shown};
}"""
"""The replay showing event ``seq`` (its position loaded): the words, the drawn table, the controls' seq."""
AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"


def serious_violations(page: Any) -> list[tuple[str, str]]:
    """axe-core's serious or critical findings on the page (the raw event opened, so it is checked too)."""
    page.locator(".replay-audit summary").click()
    page.evaluate(AXE.read_text())
    found = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        (v["id"], str(v["nodes"][0]["target"]))
        for v in found["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def watch(page: Any, errors: list[str], requested: list[str]) -> None:
    """Collect the page's errors (a dialog would be markup run as script) and every URL it requested."""
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requested.append(request.url))
    page.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))


def at(seq: int) -> str:
    """The replay showing event ``seq`` with its position loaded."""
    return f"[data-replay-event='{seq}'][data-loaded='true']"


def session(api: Api) -> str:
    """The frame's stored login (web/src/api/auth.ts): the token, its id and the username."""
    token = ApiToken.objects.filter(player=api.player).order_by("-pk").first()
    assert token is not None
    return json.dumps({"token": api.token, "tokenId": token.pk, "username": api.player.username})


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.django_db(transaction=True)
def test_the_replay_pages_step_through_a_game_of_each_ruleset(live_server: Any) -> None:
    if not (ROOT / "web" / "dist" / "app.js").exists():
        pytest.fail("web/dist/app.js is missing: run scripts/web (scripts/test does)")
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    games = []
    for slug, seats, options, label in RULESETS:
        game, api = finished_game(slug, seats, options)
        games.append((slug, game.pk, game.version, seats, session(api), label))
    from playwright.sync_api import sync_playwright  # after the database work (its loop would refuse it)

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            for slug, game_id, version, seats, stored, label in games:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                errors: list[str] = []
                requested: list[str] = []
                watch(page, errors, requested)
                page.goto(f"{live_server.url}/play/")
                page.evaluate("s => localStorage.setItem('critters.auth', s)", stored)
                page.goto(f"{live_server.url}/play/games/{game_id}/replay")
                page.wait_for_selector("[data-verdict='ok']", timeout=60_000)
                assert page.locator("[data-verdict='bad']").count() == 0
                # markup in the game's name and a player's name is text, never elements
                assert page.locator("[data-game-name]").inner_text() == MARKUP_GAME
                assert page.locator(MARKUP_ELEMENTS).count() == 0
                assert MARKUP_NAME in page.locator(".replay-meta").inner_text()
                assert page.locator(".seat-name", has_text="<i>Ann</i>").count() == 1
                assert page.locator(f"[data-chart='{label}'] polyline").count() == seats

                page.keyboard.press("Home")
                page.wait_for_selector(at(1))
                tables: list[str] = []
                words: list[str] = []
                started = time.monotonic()
                for seq in range(1, version + 1):
                    if seq > 1:
                        page.keyboard.press("ArrowRight")
                    shown = page.wait_for_function(SHOWN, arg=seq, timeout=20_000).json_value()
                    assert shown["seq"] == str(seq)
                    tables.append(hashlib.sha256(shown["table"].encode()).hexdigest())
                    words.append(shown["text"])
                stepping = time.monotonic() - started
                # every event in words, none a bare type name
                for seq, text in enumerate(words, start=1):
                    head, _, said = text.partition(": ")
                    assert head == f"#{seq}", text
                    assert " " in said.strip(), f"event {seq} is not told in words: {text!r}"
                changes = sum(1 for a, b in itertools.pairwise(tables) if a != b)
                assert changes >= version // 4, (slug, changes, version)
                assert tables[0] != tables[-1]
                assert page.locator("[data-control='next']").is_disabled()
                assert page.locator(".game-over").count() == 1
                page.keyboard.press("ArrowLeft")
                page.wait_for_selector(at(version - 1))
                page.keyboard.press("End")
                page.wait_for_selector(at(version))
                assert serious_violations(page) == [], slug
                desktop = ARTIFACTS / f"replay-{slug}-desktop.png"
                page.evaluate("window.scrollTo(0, 0)")  # the sticky controls stay at the top of the shot
                page.screenshot(path=str(desktop), full_page=True)
                page.set_viewport_size({"width": 390, "height": 844})
                page.goto(f"{live_server.url}/play/games/{game_id}/replay#{version // 2}")
                page.wait_for_selector(at(version // 2))
                page.wait_for_selector("[data-verdict='ok']", timeout=60_000)
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 390, f"{slug}: the phone page is {width} px wide"
                phone = ARTIFACTS / f"replay-{slug}-phone.png"
                page.screenshot(path=str(phone), full_page=True)
                shots += [desktop, phone]
                print(f"{slug}: {version} positions stepped in {stepping:.1f} s")
                assert not errors, errors
                assert all(url.startswith(live_server.url) for url in requested), requested
                context.close()
        finally:
            browser.close()
    for shot in shots:
        assert shot.stat().st_size > 10_000
        print(f"screenshot: {shot}")
