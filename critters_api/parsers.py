"""The only request parser: strict JSON (no NaN/Infinity, no NUL characters anywhere: PostgreSQL's jsonb
refuses ``\\u0000``, so it is a client error here rather than a 500 later)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


def _has_nul(value: Any, depth: int = 0) -> bool:
    if depth > 64:
        raise ParseError("JSON nested too deeply.")
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, Mapping):
        return any(_has_nul(k, depth + 1) or _has_nul(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v, depth + 1) for v in value)
    return False


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON nested too deeply.") from exc
        if _has_nul(data):
            raise ParseError("NUL characters are not allowed in JSON strings.")
        return data
