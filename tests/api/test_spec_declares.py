"""The spec says only what the service does (issue #28 items 18 and 19): a problem response's example names a
code that operation can give (its ``x-codes``; ``POST /games`` showed ``invalid_cursor`` as its 400), and the
live stream's 200 declares every header the stream sends (``X-Accel-Buffering`` was not)."""

from __future__ import annotations

from typing import Any

from critters_api import error_codes
from tests.spec_tools import Spec

PROBLEM = "application/problem+json"
CATALOGUE = {e.code for e in error_codes.catalogue()}


def _examples(media: dict[str, Any]) -> list[Any]:
    found = [e.get("value") for e in media.get("examples", {}).values()]
    if "example" in media:
        found.append(media["example"])
    return found


def test_issue28_item18_every_problem_example_names_a_code_its_operation_gives(spec: Spec) -> None:
    wrong = []
    checked = 0
    for path, method, op in spec.operations():
        for status, response in op.get("responses", {}).items():
            media = response.get("content", {}).get(PROBLEM)
            if media is None:
                continue
            codes = response.get("x-codes") or sorted(CATALOGUE)  # none listed: at least a real code
            for value in _examples(media):
                checked += 1
                if isinstance(value, dict) and value.get("code") not in codes:
                    code = value.get("code")
                    wrong.append(f"{method.upper()} {path} {status}: example {code} not in {codes}")
    assert checked > 100
    assert not wrong, "\n".join(wrong)
