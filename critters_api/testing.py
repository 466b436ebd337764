"""Test-only helpers wired by ``critters_api.settings_test`` (never in the production middleware)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

SERVER_ERRORS: list[str] = []
OBSERVED: list[tuple[str, str, int, str | None, tuple[str, ...]]] = []
"""Every response the service gave in this process: (method, path, status, problem code, header names);
``tests/spec_recorder.py`` checks them against the served spec at the end of the test session."""
_lock = threading.Lock()


def _problem_code(response: HttpResponse) -> str | None:
    if not response.get("Content-Type", "").startswith("application/problem+json"):
        return None
    if getattr(response, "streaming", False):
        return None
    try:
        code = json.loads(response.content).get("code")
    except (ValueError, AttributeError):
        return "<not a problem body>"
    return code if isinstance(code, str) else "<no code>"


class Record500Middleware:
    """Records every response with status 500 (a 500 is a bug); the suite fails a test that produced one."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        observed = (
            request.method or "",
            request.path,
            response.status_code,
            _problem_code(response),
            tuple(name.lower() for name in response.headers),
        )
        with _lock:
            if response.status_code == 500:
                SERVER_ERRORS.append(f"{request.method} {request.path!r}")
            OBSERVED.append(observed)
        return response
