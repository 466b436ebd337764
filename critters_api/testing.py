"""Test-only helpers wired by ``critters_api.settings_test`` (never in the production middleware)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

SERVER_ERRORS: list[str] = []
_lock = threading.Lock()


class Record500Middleware:
    """Records every response with status 500 (a 500 is a bug); the suite fails a test that produced one."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 500:
            with _lock:
                SERVER_ERRORS.append(f"{request.method} {request.path!r}")
        return response
