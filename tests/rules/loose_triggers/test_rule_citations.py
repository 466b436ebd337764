"""Every numbered rule of RULES-loose-triggers.md (LT1.1 ... LT7.3) is cited by a test in this folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
# the shared folder sits next to the checkout, or next to the worktrees' folder
CANDIDATES = (REPO.parent / "shared", REPO.parent.parent / "shared")
RULE = re.compile(r"\bLT(\d+)\.(\d+)\b")


def _rules_file() -> Path | None:
    for folder in CANDIDATES:
        path = folder / "RULES-loose-triggers.md"
        if path.exists():
            return path
    return None


def _cited() -> set[str]:
    cited: set[str] = set()
    for path in HERE.glob("test_*.py"):
        if path.name == Path(__file__).name:
            continue
        text = path.read_text(encoding="utf-8")
        cited |= {f"LT{a}.{b}" for a, b in RULE.findall(text)}
        cited |= {f"LT{a}.{b}" for a, b in re.findall(r"_lt(\d+)_(\d+)", text)}  # test names: lt4_2
    return cited


def test_every_rule_of_the_rulings_file_is_cited_by_a_test() -> None:
    path = _rules_file()
    if path is None:
        pytest.skip("RULES-loose-triggers.md not found in the shared folder next to the checkout")
    text = path.read_text(encoding="utf-8")
    numbered = {f"LT{a}.{b}" for a, b in re.findall(r"^- LT(\d+)\.(\d+)", text, flags=re.MULTILINE)}
    assert len(numbered) >= 30, "no numbered rules found"
    missing = sorted(numbered - _cited(), key=lambda r: tuple(int(x) for x in r[2:].split(".")))
    assert not missing, f"rules not cited by any test in {HERE.name}: {', '.join(missing)}"
