"""Every numbered rule of RULES-were-cats.md (WC1.1 ... WC4.3) is cited by a test of this folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
RULES = REPO.parent / "shared" / "RULES-were-cats.md"
RULE = re.compile(r"\bWC(\d+)\.(\d+)\b")


def _cited() -> set[str]:
    cited: set[str] = set()
    for path in HERE.glob("test_*.py"):
        if path.name == Path(__file__).name:
            continue
        text = path.read_text(encoding="utf-8")
        cited |= {f"WC{a}.{b}" for a, b in RULE.findall(text)}
        # test names spell WC2.1 as wc2_1
        cited |= {f"WC{a}.{b}" for a, b in re.findall(r"_wc(\d+)_(\d+)", text)}
    return cited


def test_every_rule_of_rules_were_cats_md_is_cited_by_a_test() -> None:
    if not RULES.exists():
        pytest.skip(f"RULES-were-cats.md not found at {RULES} (it lives in the project's shared folder)")
    text = RULES.read_text(encoding="utf-8")
    numbered = {f"WC{a}.{b}" for a, b in re.findall(r"^- WC(\d+)\.(\d+)", text, flags=re.MULTILINE)}
    assert len(numbered) >= 12, "too few numbered rules found in RULES-were-cats.md"
    missing = sorted(numbered - _cited(), key=lambda r: tuple(int(x) for x in r[2:].split(".")))
    assert not missing, f"rules not cited by any test in tests/rules/were_cats: {', '.join(missing)}"
