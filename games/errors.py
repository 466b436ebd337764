"""What the hosting code refuses, said in the game's terms: a :class:`Refused` error with its kind of refusal
(:class:`Refusal`), a stable machine ``code``, a message and optional extra members.

Services, the roster and the audit export raise these; they never speak HTTP. The API turns them into
problems in one place (``critters_api.problems``: each :class:`Refusal` has its status in
``critters_api.error_codes.REFUSAL_STATUS``), as it does for a ruleset's :class:`games.rules.core.RuleError`.
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class Refusal(str, Enum):  # noqa: UP042 (the members are compared and printed as strings)
    NOT_FOUND = "not_found"  # no such thing, or one the caller may not know of
    FORBIDDEN = "forbidden"  # the caller may never do this
    CONFLICT = "conflict"  # not in the thing's current state (over, taken, not started...)
    PRECONDITION_FAILED = "precondition_failed"  # the caller's precondition (If-Match) does not hold
    INVALID = "invalid"  # well-formed, but not valid as given


class Refused(Exception):
    """A refusal: nothing was applied."""

    def __init__(self, refusal: Refusal, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.refusal = refusal
        self.code = code
        self.detail = detail
        self.extra = extra
