"""The browser client's pages (``/play/...``, issue #22): one HTML shell that loads the bundle built from
``web/`` (scripts/web -> web/dist, served as static files under ``/static/web/``). Everything the page shows
it fetches from the public API (``/api/v1/...``) like any other client; this module only serves the shell.

The shell carries a strict Content-Security-Policy: scripts, styles, images and connections from this origin
only, no inline script or style (none is needed: the bundle is a file and styles are a stylesheet), no
framing, no plugins. The client renders everything as text (Preact escapes every string), so a name or a
message with markup stays text; the CSP is the second fence if that ever failed.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.templatetags.static import static
from django.utils.html import escape
from django.views.decorators.http import require_safe

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "manifest-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
    ]
)
WEB_DIST = Path(settings.BASE_DIR) / "web" / "dist"


@cache
def _version(name: str) -> str:
    """A short hash of a built file, so a new build is never served from a stale cache."""
    try:
        return hashlib.sha256((WEB_DIST / name).read_bytes()).hexdigest()[:12]
    except OSError:
        return "missing"


def _shell() -> str:
    js = f"{static('web/app.js')}?v={_version('app.js')}"
    css = f"{static('web/app.css')}?v={_version('app.css')}"
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>GoodCritters: play</title>"
        '<link rel="icon" href="data:,">'
        f'<link rel="stylesheet" href="{escape(css)}">'
        f'<script type="module" src="{escape(js)}"></script>'
        '</head><body><div id="app"><noscript><p>This page needs JavaScript. Everything it does is also '
        'in the API: <a href="/api/docs/">/api/docs/</a>.</p></noscript></div></body></html>\n'
    )


@require_safe
def shell(request: HttpRequest, path: str = "") -> HttpResponse:
    """Every ``/play/...`` address answers with the same shell; the client routes by the address."""
    response = HttpResponse(_shell(), content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response["Referrer-Policy"] = "same-origin"
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def root(request: HttpRequest) -> HttpResponse:
    return HttpResponseRedirect("/play/")
