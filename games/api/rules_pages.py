"""The rulings, served (issue #24): ``/rules/`` and ``/rules/{game}``, human-readable pages made from
the notes the repository holds (``games/rules/README.md`` for GoodCritters, each game's ``README.md``,
and the table's, ``games/rules/table/README.md``, for every game): the engine's summary and every ruling
where the rulebooks are silent.

Each page opens with an index of rule numbers (``R2.4``, ``LT3.1``, ``WC2.3``...), one anchor per number
(``/rules/loose_triggers#LT3.1``): what the notes say of it (links to the passages) and where the API's
spec cites it. The spec's descriptions link their rule numbers here (``games.api.contract``), and a test
checks that every such anchor exists. The rulebooks themselves are not in the repository: an entry says
so when the notes do not rule on a number.

Everything is escaped; no script, no asset from elsewhere; the one inline style is allowed by its hash in
a strict Content-Security-Policy (no ``unsafe-inline``).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from django.http import HttpRequest, HttpResponse

from critters_api import throttling
from critters_api.problems import problem_http_response
from critters_api.schema_view import _lock as generator_lock  # drf-spectacular's generator is not thread-safe
from games.rules.registry import RULESETS, game_folder, game_of

from .contract import RULE_NUMBER, RULE_PAGES, rule_link

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"


def _notes(slug: str) -> tuple[Path, ...]:
    """A game's notes: the README of its folder (the registered game's package; the engine's own README
    holds the first game's rulings), then the table's, which rules for every game."""
    own = game_folder(slug) / "README.md"
    return (own if own.is_file() else RULES_DIR / "README.md", RULES_DIR / "table" / "README.md")


def _title(slug: str) -> str:
    """The game's name for people (the hosted game's ``name``), from the registry."""
    return game_of(slug).name


GAMES: dict[str, tuple[str, tuple[Path, ...]]] = {slug: (_title(slug), _notes(slug)) for slug in RULESETS}
"""slug → (title, the notes its page is made of)."""

PREFIX_OF = {slug: prefix for prefix, slug in RULE_PAGES.items()}  # each game declares it (rule_prefix)
"""slug → the prefix of its rule numbers (``R``: RULES.md, GoodCritters and the table's R7)."""

STYLE = (
    "body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1rem;color:#222}"
    "code,pre{font-size:.85rem}pre{background:#f4f4f4;padding:.5rem;overflow-x:auto}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .4rem;vertical-align:top}"
    ":target{background:#fff6cc}.muted{color:#666}"
)
CSP = (
    "default-src 'none'; style-src 'sha256-"
    + base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
    + "'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def sort_key(number: str) -> tuple[Any, ...]:
    prefix = re.match(r"[A-Z]+", number)
    head = prefix.group(0) if prefix else ""
    return (head, *(int(p) for p in number[len(head) :].split(".")))


# --------------------------------------------------------------------------------------------------
# a small Markdown reader: headings, paragraphs, lists, tables, fenced code; inline code, emphasis, links
# --------------------------------------------------------------------------------------------------
@dataclass
class Passage:
    """A block of the notes with an anchor (``p-N``): its HTML and the rule numbers it cites."""

    anchor: str
    html: str
    numbers: set[str] = field(default_factory=set)
    heading: str = ""


_INLINE = re.compile(r"(`[^`]+`)|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*")


def inline(text: str, cited: set[str]) -> str:
    """One line of Markdown as escaped HTML: code spans, bold, links (only ``http(s)`` and in-page ones are
    links; a path in the repository shows as code), rule numbers linked to their index entries."""
    out: list[str] = []
    last = 0
    for m in _INLINE.finditer(text):
        out.append(_numbers(text[last : m.start()], cited))
        if m.group(1):
            code = m.group(1)[1:-1]
            out.append(f"<code>{escape(code)}</code>")
        elif m.group(2):
            label, target = m.group(2), m.group(3)
            if target.startswith(("https://", "http://", "#")):
                out.append(f'<a href="{escape(target)}">{_numbers(label, cited)}</a>')
            else:
                out.append(f"{_numbers(label, cited)} (<code>{escape(target)}</code>)")
        else:
            out.append(f"<strong>{_numbers(m.group(4), cited)}</strong>")
        last = m.end()
    out.append(_numbers(text[last:], cited))
    return "".join(out)


def _numbers(text: str, cited: set[str]) -> str:
    out: list[str] = []
    last = 0
    for m in RULE_NUMBER.finditer(text):
        out.append(escape(text[last : m.start()]))
        number = m.group(0)
        cited.add(number)
        out.append(f'<a href="{escape(rule_link(m.group(1), m.group(2)))}">{escape(number)}</a>')
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def render(markdown: str, start: int) -> list[Passage]:
    """The notes' blocks, numbered from ``start``."""
    passages: list[Passage] = []
    lines = markdown.splitlines()
    heading = ""
    i = 0

    def add(html: str, cited: set[str], *, anchor: str | None = None) -> None:
        passages.append(
            Passage(anchor or f"p-{start + len(passages)}", html, cited, heading=heading),
        )

    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            add(f"<pre><code>{escape(chr(10).join(lines[i + 1 : j]))}</code></pre>", set())
            i = j + 1
            continue
        m = re.match(r"(#{1,6})\s+(.*)", line)
        if m:
            cited: set[str] = set()
            level = min(len(m.group(1)) + 1, 6)
            heading = m.group(2)
            anchor = f"s-{start + len(passages)}-{_slug(heading)}"
            add(f"<h{level}>{inline(heading, cited)}</h{level}>", cited, anchor=anchor)
            i += 1
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                    rows.append(cells)
                i += 1
            cited = set()
            body = "".join(
                "<tr>"
                + "".join(
                    f"<{'th' if r == 0 else 'td'}>{inline(c, cited)}</{'th' if r == 0 else 'td'}>"
                    for c in row
                )
                + "</tr>"
                for r, row in enumerate(rows)
            )
            add(f"<table>{body}</table>", cited)
            continue
        if re.match(r"\s*([-*]|\d+\.)\s+", line):
            ordered = bool(re.match(r"\s*\d+\.", line))
            items: list[str] = []
            while i < len(lines) and lines[i].strip():
                item = re.match(r"\s*([-*]|\d+\.)\s+(.*)", lines[i])
                if item and (not lines[i].startswith("    ") or not items):
                    items.append(item.group(2))
                elif items:
                    items[-1] += " " + lines[i].strip()
                i += 1
            for text in items:  # each item its own anchor: a ruling is often one item
                cited = set()
                tag = "ol" if ordered else "ul"
                add(f"<{tag}><li>{inline(text, cited)}</li></{tag}>", cited)
            continue
        para = [line.strip()]
        i += 1
        while (
            i < len(lines)
            and lines[i].strip()
            and not re.match(r"(#{1,6}\s|```|\||\s*([-*]|\d+\.)\s)", lines[i])
        ):
            para.append(lines[i].strip())
            i += 1
        cited = set()
        add(f"<p>{inline(' '.join(para), cited)}</p>", cited)
    return passages


# --------------------------------------------------------------------------------------------------
# where the spec cites each rule number
# --------------------------------------------------------------------------------------------------
CITED = re.compile(rf"\[((?:{'|'.join(map(re.escape, RULE_PAGES))})\d+(?:\.\d+)*)\]\(/rules/")
"""A rule number the spec links (``[WC2.3](/rules/...)``), of any registered game's prefix."""


@functools.cache
def spec_citations() -> dict[str, list[str]]:
    """Rule number → the spec's components and operations whose descriptions cite it (the spec generated
    once per process)."""
    from drf_spectacular.generators import SchemaGenerator

    with generator_lock:
        spec = SchemaGenerator().get_schema(request=None, public=True)
    out: dict[str, set[str]] = {}

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("description", "summary") and isinstance(value, str):
                    for m in CITED.finditer(value):
                        out.setdefault(m.group(1), set()).add(where)
                elif key not in ("example", "examples"):
                    walk(value, where)
        elif isinstance(node, list):
            for value in node:
                walk(value, where)

    for name, schema in spec.get("components", {}).get("schemas", {}).items():
        walk(schema, f"schema {name}")
    for path, item in spec.get("paths", {}).items():
        for method, op in item.items():
            if isinstance(op, dict):
                walk(op, f"operation {op.get('operationId', method.upper() + ' ' + path)}")
    return {number: sorted(places) for number, places in out.items()}


# --------------------------------------------------------------------------------------------------
# the pages
# --------------------------------------------------------------------------------------------------
def _page(title: str, body: str) -> str:
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


@functools.cache
def game_page(slug: str) -> str:
    title, sources = GAMES[slug]
    prefix = PREFIX_OF[slug]
    passages: list[Passage] = []
    parts: list[str] = []
    for source in sources:
        try:
            text = source.read_text(encoding="utf-8")
        except OSError:
            continue
        made = render(text, len(passages))
        passages += made
        root = RULES_DIR.parent.parent
        where = source.relative_to(root) if source.is_relative_to(root) else Path(slug) / source.name
        parts.append(
            f'<section><p class="muted">From <code>{escape(str(where))}</code>:</p>'
            + "".join(f'<div id="{escape(p.anchor)}">{p.html}</div>' for p in made)
            + "</section>"
        )
    cited_in_notes: dict[str, list[Passage]] = {}
    for p in passages:
        for number in p.numbers:
            cited_in_notes.setdefault(number, []).append(p)
    in_spec = spec_citations()
    numbers = sorted(
        {n for n in (*cited_in_notes, *in_spec) if re.match(rf"{prefix}\d", n)},
        key=sort_key,
    )
    index = []
    for number in numbers:
        notes = cited_in_notes.get(number, [])
        what = (
            "The notes below rule on it: "
            + ", ".join(
                f'<a href="#{escape(p.anchor)}">{escape(p.heading.replace("`", "") or "introduction")}</a>'
                for p in notes
            )
            + "."
            if notes
            else "The rulebook's rule (not in the repository); the notes below add no ruling of their own."
        )
        api = in_spec.get(number, [])
        cites = (
            " The API cites it in: " + ", ".join(f"<code>{escape(place)}</code>" for place in api) + "."
            if api
            else ""
        )
        index.append(f'<li id="{escape(number)}"><strong>{escape(number)}</strong>: {what}{cites}</li>')
    others = " · ".join(f'<a href="/rules/{s}">{escape(t)}</a>' for s, (t, _) in GAMES.items() if s != slug)
    body = (
        f"<header><h1>{escape(title)}: rules summary and rulings</h1>"
        f'<p class="muted">The service\'s notes on the rules of <code>{escape(slug)}</code> games '
        f"(the rulebook numbers them <code>{escape(prefix)}1.1</code>, ...). Other games: {others}. "
        'The API: <a href="/api/docs/">/api/docs/</a>.</p></header>'
        f"<nav><h2>Rule numbers</h2><ul>{''.join(index)}</ul></nav>" + "".join(parts)
    )
    return _page(f"{title}: rules and rulings", body)


@functools.cache
def index_page() -> str:
    items = "".join(
        f'<li><a href="/rules/{escape(slug)}">{escape(title)}</a> (<code>{escape(slug)}</code>; rule numbers '
        f"<code>{escape(PREFIX_OF[slug])}…</code>)</li>"
        for slug, (title, _) in GAMES.items()
    )
    body = (
        "<h1>Rules and rulings</h1><p>Each game's rules summary and every ruling where its rulebook is "
        "silent, with an anchor per rule number (the API's spec links its rule numbers there).</p>"
        f"<ul>{items}</ul>"
    )
    return _page("Rules and rulings", body)


def _serve(request: HttpRequest, html: str) -> HttpResponse:
    response = HttpResponse(html, content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = CSP
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "public, max-age=300"
    return response


def _refused(request: HttpRequest) -> HttpResponse | None:
    if request.method not in ("GET", "HEAD"):
        return problem_http_response(405, "method_not_allowed", "Only GET is allowed here.", request)
    return throttling.throttle_page(request)


def rules_index(request: HttpRequest) -> HttpResponse:
    """``/rules/``: the games whose rules are served."""
    return _refused(request) or _serve(request, index_page())


def rules_page(request: HttpRequest, game: str) -> HttpResponse:
    """``/rules/{game}``: a game's rules summary and rulings, an anchor per rule number."""
    refused = _refused(request)
    if refused is not None:
        return refused
    if game not in GAMES:
        return problem_http_response(404, "not_found", "There is nothing at this address.", request)
    return _serve(request, game_page(game))
