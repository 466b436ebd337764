"""Every numbered rule of RULES.md (R1.1 ... R8.3) is cited by at least one test of tests/rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RULES = REPO.parent / "shared" / "RULES.md"
RULE = re.compile(r"\bR(\d+)\.(\d+)\b")


def _cited() -> set[str]:
    cited: set[str] = set()
    for path in HERE.glob("test_*.py"):
        text = path.read_text(encoding="utf-8")
        cited |= {f"R{a}.{b}" for a, b in RULE.findall(text)}
        # test names spell R4.2 as r4_2
        cited |= {f"R{a}.{b}" for a, b in re.findall(r"_r(\d+)_(\d+)", text)}
    return cited


def test_every_rule_of_rules_md_is_cited_by_a_test() -> None:
    if not RULES.exists():
        pytest.skip(
            f"RULES.md not found at {RULES} (it lives in the project's shared folder, next to the repo)"
        )
    text = RULES.read_text(encoding="utf-8")
    numbered = {f"R{a}.{b}" for a, b in re.findall(r"^- R(\d+)\.(\d+)", text, flags=re.MULTILINE)}
    assert numbered, "no numbered rules found in RULES.md"
    missing = sorted(numbered - _cited(), key=lambda r: tuple(int(x) for x in r[1:].split(".")))
    assert not missing, f"rules not cited by any test in tests/rules: {', '.join(missing)}"
