"""The browser client's HTML shell (issue #22), in process: every /play/ address answers with the same page
under a strict Content-Security-Policy, `/` leads there, and the shell holds no inline script or style."""

from __future__ import annotations

import pytest
from django.test import Client

from critters_api.play import CONTENT_SECURITY_POLICY


@pytest.mark.parametrize(
    "path", ["/play/", "/play/login", "/play/games/12", "/play/games/12/replay", "/play/x/y"]
)
def test_every_play_address_is_the_shell_under_a_strict_csp(path: str) -> None:
    response = Client().get(path, HTTP_HOST="127.0.0.1")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    csp = response["Content-Security-Policy"]
    assert csp == CONTENT_SECURITY_POLICY
    assert "default-src 'none'" in csp
    assert "script-src 'self'" in csp
    assert "connect-src 'self'" in csp
    assert "unsafe" not in csp
    body = response.content.decode()
    assert '<script type="module" src="/static/web/app.js?v=' in body
    assert "<script>" not in body
    assert "style=" not in body
    assert "<style" not in body
    assert response["X-Content-Type-Options"] == "nosniff"


def test_the_root_leads_to_the_lobby_and_the_shell_takes_only_reads() -> None:
    client = Client()
    root = client.get("/", HTTP_HOST="127.0.0.1")
    assert root.status_code == 302
    assert root["Location"] == "/play/"
    assert client.post("/play/", HTTP_HOST="127.0.0.1").status_code == 405
