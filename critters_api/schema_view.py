"""The served OpenAPI schema, generated once per process.

drf-spectacular's generator is not thread-safe: two requests generating the schema at the same time in
one threaded worker can fail with a 500 (drf-spectacular issues #1123, #1368; seen here when the benchmark's
readiness probe overlapped another schema request). The schema only changes with a deploy, so each process
generates it once per (API version, language) under a lock and serves that dict afterwards, which also
takes a few hundred milliseconds of CPU off every later request.
"""

from __future__ import annotations

import threading
from typing import Any

from django.utils import translation
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiYamlRenderer
from drf_spectacular.views import SpectacularAPIView
from rest_framework.request import Request
from rest_framework.response import Response

_lock = threading.Lock()
_schemas: dict[tuple[str | None, str | None], dict[str, Any]] = {}


class SchemaView(SpectacularAPIView):
    """YAML by default; JSON with ``Accept: application/json`` (or ``application/vnd.oai.openapi+json``) or
    ``?format=json`` (the one query parameter this view reads; ``?format=yaml`` is the default)."""

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        wanted = request.query_params.get("format")
        if wanted in ("json", "yaml"):
            renderer = OpenApiJsonRenderer() if wanted == "json" else OpenApiYamlRenderer()
            return renderer, renderer.media_type
        return super().perform_content_negotiation(request, force)

    def _get_schema_response(self, request: Request) -> Response:
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = (version, translation.get_language())
        with _lock:
            schema = _schemas.get(key)
            if schema is None:
                generator = self.generator_class(
                    urlconf=self.urlconf, api_version=version, patterns=self.patterns
                )
                schema = generator.get_schema(request=request, public=self.serve_public)
                _schemas[key] = schema
        return Response(
            data=schema,
            headers={"Content-Disposition": f'inline; filename="{self._get_filename(request, version)}"'},
        )
