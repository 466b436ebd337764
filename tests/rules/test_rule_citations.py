"""Every numbered rule of each game's rules document is cited by at least one test of that game's folder:
GoodCritters' RULES.md (R1.1 ...) by ``tests/rules/test_*.py``, RULES-loose-triggers.md (LT1.1 ...) by
``tests/rules/loose_triggers``, RULES-were-cats.md (WC1.1 ...) by ``tests/rules/were_cats``. A test cites a
rule by its number (``R4.2``) or in its name (``test_..._r4_2``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# the shared folder sits next to the checkout, or next to the worktrees' folder
SHARED = (REPO.parent / "shared", REPO.parent.parent / "shared")


@dataclass(frozen=True)
class Rules:
    document: str
    prefix: str  # R, LT, WC
    tests: Path  # the folder whose test_*.py files cite them
    at_least: int  # so that a document whose format changed does not pass with nothing to check

    def numbered(self, text: str) -> set[str]:
        found = re.findall(rf"^- {self.prefix}(\d+)\.(\d+)", text, flags=re.MULTILINE)
        return {f"{self.prefix}{a}.{b}" for a, b in found}

    def cited(self) -> set[str]:
        cited: set[str] = set()
        for path in self.tests.glob("test_*.py"):
            if path.resolve() == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8")
            cited |= {f"{self.prefix}{a}.{b}" for a, b in re.findall(rf"\b{self.prefix}(\d+)\.(\d+)\b", text)}
            cited |= {
                f"{self.prefix}{a}.{b}"
                for a, b in re.findall(rf"_{self.prefix.lower()}(\d+)_(\d+)", text)  # test names: r4_2
            }
        return cited


GAMES = {
    "goodcritters": Rules("RULES.md", "R", HERE, 30),
    "loose_triggers": Rules("RULES-loose-triggers.md", "LT", HERE / "loose_triggers", 30),
    "were_cats": Rules("RULES-were-cats.md", "WC", HERE / "were_cats", 12),
}


def _order(rule: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.sub(r"^[A-Z]+", "", rule).split("."))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_numbered_rule_is_cited_by_a_test_of_its_game(game: str) -> None:
    rules = GAMES[game]
    path = next((folder / rules.document for folder in SHARED if (folder / rules.document).exists()), None)
    if path is None:
        pytest.skip(f"{rules.document} not found in the shared folder next to the checkout")
    numbered = rules.numbered(path.read_text(encoding="utf-8"))
    assert len(numbered) >= rules.at_least, f"too few numbered rules found in {rules.document}"
    missing = sorted(numbered - rules.cited(), key=_order)
    assert not missing, f"rules not cited by any test in {rules.tests}: {', '.join(missing)}"
