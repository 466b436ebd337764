"""The pages a mailed link opens (verification, unsubscribe): plain HTML a person reads on a phone, under a
strict Content-Security-Policy (no script, the one style by its hash, forms that post back here only, never
framed), with what came in the link escaped; a link cut by a mail client gets a 400 page in words."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

HOSTILE = '"><script>alert(1)</script>'


@pytest.mark.parametrize("path", ["/api/v1/email/verify", "/api/v1/email/unsubscribe"])
def test_a_link_page_is_escaped_and_under_a_strict_policy(path: str) -> None:
    r = Client().get(path, {"token": HOSTILE})
    assert r.status_code == 200
    assert r["Content-Type"].startswith("text/html")
    page = r.content.decode()
    assert "<script>" not in page
    assert "&lt;script&gt;" in page or "%3Cscript%3E" in page  # the token is shown back escaped
    assert " style=" not in page  # no inline style attribute: the policy would refuse it
    csp = r["Content-Security-Policy"]
    strict = ("default-src 'none'", "script-src 'none'", "form-action 'self'", "frame-ancestors 'none'")
    for directive in strict:
        assert directive in csp
    assert "unsafe-inline" not in csp
    (style,) = re.findall(r"<style>(.*?)</style>", page, re.S)
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp  # the page's one style is the one the policy allows
    assert r["X-Content-Type-Options"] == "nosniff"
    assert r["Cache-Control"] == "no-store"
    assert 'name="viewport"' in page  # readable on a phone
    (action,) = re.findall(r'<form method="post" action="([^"]*)"', page)
    assert action.startswith(path)  # it posts back here (form-action 'self')


@pytest.mark.parametrize("path", ["/api/v1/email/verify", "/api/v1/email/unsubscribe"])
def test_a_cut_link_is_a_page_in_words_under_the_same_policy(path: str) -> None:
    r = Client().get(path)
    assert r.status_code == 400
    assert "incomplete" in r.content.decode()
    assert "default-src 'none'" in r["Content-Security-Policy"]
