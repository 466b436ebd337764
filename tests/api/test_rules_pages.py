"""The rulings, served (issue #24): ``/rules/`` and ``/rules/{game}``, plain HTML made from the repository's
notes, an anchor per rule number, everything escaped, no script, a strict Content-Security-Policy."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

import pytest
from django.test import Client

from games.api import rules_pages
from games.rules.registry import RULESETS

pytestmark = pytest.mark.django_db


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of ``<style>``."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style += data


def page(path: str) -> tuple[str, Tags, dict[str, str]]:
    response = Client(HTTP_HOST="localhost").get(path)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "text/html; charset=utf-8"
    html = response.content.decode()
    tags = Tags()
    tags.feed(html)
    return html, tags, dict(response.headers)


def test_the_index_links_every_game() -> None:
    _html, tags, _headers = page("/rules/")
    hrefs = {a.get("href") for tag, a in tags.tags if tag == "a"}
    assert {f"/rules/{slug}" for slug in RULESETS} <= hrefs


@pytest.mark.parametrize("slug", sorted(RULESETS))
def test_a_game_page_has_an_anchor_per_rule_number_of_its_notes(slug: str) -> None:
    html, tags, _headers = page(f"/rules/{slug}")
    ids = {a["id"] for _tag, a in tags.tags if a.get("id")}
    prefix = rules_pages.PREFIX_OF[slug]
    notes = "".join(path.read_text(encoding="utf-8") for path in rules_pages.GAMES[slug][1])
    cited = {m.group(0) for m in rules_pages.RULE_NUMBER.finditer(notes) if m.group(1) == prefix}
    assert cited, "the notes cite no rule number"
    assert cited <= ids, sorted(cited - ids)
    # every in-page link lands on an anchor of the page; every rule link on its game's page
    for tag, attrs in tags.tags:
        href = attrs.get("href") or ""
        if tag == "a" and href.startswith("#"):
            assert href[1:] in ids, href
        if tag == "a" and href.startswith(f"/rules/{slug}#"):
            assert href.split("#", 1)[1] in ids, href
    # the notes are all there, as text: a ruling of the page's game, word for word
    assert "Rulings where" in html


@pytest.mark.parametrize("slug", sorted(RULESETS))
def test_a_page_escapes_everything_and_runs_nothing(slug: str) -> None:
    html, tags, headers = page(f"/rules/{slug}")
    assert not [
        t for t, _a in tags.tags if t in ("script", "iframe", "img", "link", "object", "embed", "form")
    ]
    assert not [a for _t, a in tags.tags for name in a if name.startswith("on")]  # no event handler
    for _tag, attrs in tags.tags:
        for name in ("href", "src"):
            value = attrs.get(name) or ""
            assert not value.lower().startswith(("javascript:", "data:")), value
    # angle brackets of the notes (`display:<slot>`, `p<number>`...) are text, never markup
    assert "&lt;" in html
    csp = headers["Content-Security-Policy"]
    assert "unsafe-inline" not in csp
    assert "default-src 'none'" in csp
    assert "script-src 'none'" in csp
    digest = base64.b64encode(hashlib.sha256(tags.style.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in csp  # the one inline style, allowed by its hash
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_markup_in_the_notes_is_escaped() -> None:
    out = rules_pages.render("A <script>alert(1)</script> and [x](javascript:alert(1)) and `<b>` R2.4.", 0)
    html = "".join(p.html for p in out)
    assert "<script" not in html
    assert "&lt;script&gt;" in html
    assert 'href="javascript' not in html
    assert "<code>&lt;b&gt;</code>" in html
    assert '<a href="/rules/goodcritters#R2.4">R2.4</a>' in html
    assert out[0].numbers == {"R2.4"}


def test_unknown_games_and_other_methods_are_problems() -> None:
    client = Client(HTTP_HOST="localhost")
    missing = client.get("/rules/chess")
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"
    posted = client.post("/rules/goodcritters")
    assert posted.status_code == 405
    assert posted.json()["code"] == "method_not_allowed"


def test_numbers_only_the_api_cites_have_an_anchor_too() -> None:
    _html, tags, _headers = page("/rules/goodcritters")
    in_spec = {n for n in rules_pages.spec_citations() if re.match(r"R\d", n)}
    ids = {a["id"] for _tag, a in tags.tags if a.get("id")}
    assert in_spec
    assert in_spec <= ids, sorted(in_spec - ids)
