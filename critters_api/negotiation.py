"""DRF's content negotiation, with a short cut for what almost every client sends.

A request without ``Accept``, or with ``Accept: */*`` or exactly the one renderer's media type
(``application/json``), gets what DRF's ``DefaultContentNegotiation`` would choose: that renderer and its
media type (``tests/api/test_negotiation.py`` compares the two). Anything else (several renderers, a format
suffix, parameters such as ``indent``, other media types, a 406) goes through DRF's own negotiation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class ContentNegotiation(DefaultContentNegotiation):
    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> Any:
        renderers = list(renderers)
        if len(renderers) == 1 and format_suffix is None and self.settings.URL_FORMAT_OVERRIDE is None:
            renderer = renderers[0]
            accept = request.META.get("HTTP_ACCEPT")
            if accept is None or accept == "*/*" or accept == renderer.media_type:
                return renderer, renderer.media_type
        return super().select_renderer(request, renderers, format_suffix)
