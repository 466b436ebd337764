"""Helpers for the browser client's tests (issue #22): Debian's Chromium through Playwright's sync API (no
browser download), people who sign up and play through the pages alone, and a move picker that fills a move
form the way a person would (a value from each list the page offers)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PASSWORD = "correct-horse-battery-staple"
ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "web-screenshots"


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


class Person:
    """One person in one browser context (own storage, so own login), on one page."""

    def __init__(
        self,
        browser: Any,
        base: str,
        name: str,
        display: str | None = None,
        *,
        bypass_csp: bool = False,
        timezone_id: str | None = None,
    ) -> None:
        self.base = base
        self.username = f"{name}{uuid.uuid4().hex[:6]}"
        self.display = display
        # bypass_csp: only for injecting axe-core (an inline script the page's CSP rightly refuses)
        # timezone_id: the browser's own time zone (what Intl reports), as a person's computer has one
        self.context = browser.new_context(viewport=DESKTOP, bypass_csp=bypass_csp, timezone_id=timezone_id)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("console", self._console)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def sign_up(self) -> None:
        page = self.page
        page.goto(f"{self.base}/play/signup")
        page.fill("#signup-username", self.username)
        if self.display:
            page.fill("#signup-display", self.display)
        page.fill("#signup-password", PASSWORD)
        page.click("button:has-text('Sign up')")
        page.wait_for_selector("h1:has-text('Lobby')")

    def create_game(self, ruleset: str, name: str, seats: int, bots: int, options: dict[str, str]) -> int:
        """Through the lobby's form: ``options`` maps a field's name (``deadlines.choose``) to the value typed
        or selected (JSON of the option for a list)."""
        page = self.page
        page.goto(f"{self.base}/play/")
        page.select_option("#create-ruleset", ruleset)
        page.fill("#create-name", name)
        page.fill("#create-seats", str(seats))
        for _ in range(bots):
            page.click("button:has-text('Add a sensible bot')")
        if options:
            page.click("summary:has-text('Options of')")
            for field, value in options.items():
                control = page.locator(f"[name='{field}']")
                if control.evaluate("e => e.tagName") == "SELECT":
                    control.select_option(value)
                else:
                    control.fill(value)
        page.click("button:has-text('Create the game')")
        page.wait_for_url("**/play/games/*")
        return int(page.url.rstrip("/").split("/")[-1])

    def join(self, game_id: int) -> None:
        page = self.page
        page.goto(f"{self.base}/play/games/{game_id}")
        page.click("button:has-text('Join this game')")
        page.wait_for_selector("text=Seat", timeout=10_000)


# Fills move form ``index`` in the moves panel a person's way (a value from each list offered, the right
# number of boxes ticked), lets the page take the values in, then presses its button. Returns false when there
# is no such form (the page moved on).
FILL_AND_SEND_JS = """
async ({ index, raise }) => {
  const form = [...document.querySelectorAll('.actions form.move')][index];
  if (!form) return false;
  const fire = (el, type) => el.dispatchEvent(new Event(type, { bubbles: true }));
  for (const select of form.querySelectorAll('select')) {
    if (select.value === '') {
      const option = [...select.options].find((o) => o.value !== '');
      if (option) { select.value = option.value; fire(select, 'change'); }
    }
  }
  for (const set of form.querySelectorAll('fieldset[data-kind="subset"], fieldset[data-kind="group"]')) {
    const want = Number(set.dataset.min);
    const boxes = [...set.querySelectorAll(':scope > label input[type=checkbox]')];
    let on = boxes.filter((b) => b.checked).length;
    for (const box of boxes) { if (on >= want) break; if (!box.checked) { box.click(); on++; } }
  }
  for (const set of form.querySelectorAll('fieldset[data-kind="multiset"]')) {
    const input = set.querySelector('input[type=number]');
    if (input && Number(set.dataset.min) > 0) { input.value = set.dataset.min; fire(input, 'input'); }
  }
  let raised = 0;
  for (const input of form.querySelectorAll('fieldset[data-kind="counts"] input[type=number]')) {
    while (raised < raise && Number(input.value) < Number(input.max)) {
      input.value = String(Number(input.value) + 1); fire(input, 'input'); raised++;
    }
  }
  for (const area of form.querySelectorAll('textarea')) {
    if (!area.value) { area.value = 'hello'; fire(area, 'input'); }
  }
  await new Promise((resolve) => setTimeout(resolve, 60));
  const button = form.isConnected && form.querySelector('button[type=submit]');
  if (!button || button.disabled) return false;
  button.click();
  return true;
}
"""
STATUS_JS = """
(index) => {
  const table = document.querySelector('[data-version]');
  const form = [...document.querySelectorAll('.actions form.move')][index];
  return { version: table ? table.dataset.version : null, refused: !!(form && form.querySelector('.error')) };
}
"""
READY_JS = """
() => {
  const button = [...document.querySelectorAll('.actions button')].find((b) => b.textContent === "I'm ready");
  if (!button || button.disabled) return false;
  button.click();
  return true;
}
"""


# Moves a person may make any number of times in a step (offers, gifts, re-placing): the test player makes
# the moves that take the game on, each once per step, and raises its ready flag.
OPTIONAL = {
    "OfferTrade",
    "WithdrawTrade",
    "AcceptTrade",
    "DeclineTrade",
    "OfferPayoff",
    "WithdrawPayoff",
    "GiveGift",
    "RemoveThreat",
}


def play_one_move(page: Any, sent: set[tuple[str, str]]) -> bool:
    """Sends one legal move through the page's move forms (the first that the server accepts), at most one
    of each command per step (``sent`` remembers them), else raises the ready flag. Returns False when it did
    nothing."""
    table = page.locator("[data-version]")
    if table.count() == 0:
        return False
    step = table.get_attribute("data-step") or ""
    commands: list[str] = page.evaluate(
        "() => [...document.querySelectorAll('.actions form.move')].map((f) => f.dataset.command || '')"
    )
    order = [
        i for i in range(len(commands)) if commands[i] not in OPTIONAL and (step, commands[i]) not in sent
    ]
    for index in order[:6]:
        if _send(page, index):
            sent.add((step, commands[index]))
            return True
    # the ready flag, whenever the page offers it (a change lowers it again)
    return bool(page.evaluate(READY_JS))


def _send(page: Any, index: int) -> bool:
    """Fills form ``index`` and sends it; True once the server took it (the table's version moved)."""
    for attempt in range(6):
        before = page.evaluate(STATUS_JS, index)["version"]
        if not page.evaluate(FILL_AND_SEND_JS, {"index": index, "raise": attempt * 2}):
            return False
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            status = page.evaluate(STATUS_JS, index)
            if status["version"] != before:
                return True
            if status["refused"]:
                break
            time.sleep(0.05)
        else:
            return False
    return False
