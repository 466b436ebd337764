"""``/healthz``: 200 when the database answers, else a 503 problem (for docker healthchecks)."""

from __future__ import annotations

import json

from django.db import connection
from django.http import HttpRequest, HttpResponse

from critters_api.problems import problem_http_response


def healthz(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        return problem_http_response(405, "method_not_allowed", "Use GET.", request)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:
        return problem_http_response(503, "database_unavailable", "The database does not answer.", request)
    return HttpResponse(json.dumps({"status": "ok"}), content_type="application/json")
