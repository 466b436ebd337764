"""The API's JSON renderer: DRF's, encoding with orjson.

For every value the API serves, the output is the same JSON, byte for byte, as DRF's ``JSONRenderer`` with
this project's settings: compact, UTF-8, U+2028 and U+2029 escaped, and DRF's encoder for what orjson does
not encode itself the same way (datetimes, lazy strings, decimals…); ``tests/api/test_renderer.py`` compares
the two. Encoding a viewer's state that way takes a fraction of the standard library's time, and every
response is encoded. A client asking for indentation (``Accept: application/json; indent=4``), or a value
orjson refuses (an integer beyond 64 bits), gets DRF's own encoder.

Where the two differ, no response of this API goes: a float between 1e-5 and 1e-4 is written without an
exponent (``0.000015``, DRF ``1.5e-05``); NaN and infinities become ``null`` and a plain ``Enum`` or a
``date`` dict key is encoded, where DRF raises (a 500); an ``OrderedDict`` keeps its insertion order after
``move_to_end``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from rest_framework import renderers
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_DEFAULT = JSONEncoder().default
_LINE_SEPARATOR, _PARAGRAPH_SEPARATOR = "\u2028".encode(), "\u2029".encode()


class JSONRenderer(renderers.JSONRenderer):
    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is not None:
            return bytes(super().render(data, accepted_media_type, renderer_context))
        try:
            out = orjson.dumps(data, default=_DEFAULT, option=_OPTIONS)
        except orjson.JSONEncodeError:
            return bytes(super().render(data, accepted_media_type, renderer_context))
        if _LINE_SEPARATOR in out or _PARAGRAPH_SEPARATOR in out:  # JSON that is also valid JavaScript
            out = out.replace(_LINE_SEPARATOR, b"\\u2028").replace(_PARAGRAPH_SEPARATOR, b"\\u2029")
        return out
