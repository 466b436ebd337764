"""Every numbered rule of each registered game's rulebook is cited by at least one test of that game: the game
declares its rulebook (``rulebook``, found in its folder or in the shared folder next to the checkout) and the
prefix of its numbers (``rule_prefix``); its tests are ``tests/rules/<slug>/test_*.py`` (the first game's,
GoodCritters', are ``tests/rules/test_*.py``) and any ``test_*.py`` in its own folder. E.g. RULES.md
(R1.1 ...) by ``tests/rules/test_*.py``, RULES-were-cats.md (WC1.1 ...) by ``tests/rules/were_cats``. A test
cites a rule by its number (``R4.2``) or in its name (``test_..._r4_2``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from games.rules.registry import RULESETS, game_folder, game_of

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# the shared folder sits next to the checkout, or next to the worktrees' folder
SHARED = (REPO.parent / "shared", REPO.parent.parent / "shared")


@dataclass(frozen=True)
class Rules:
    document: str
    prefix: str  # R, LT, WC
    folders: tuple[Path, ...]  # the folders whose test_*.py files cite them
    places: tuple[Path, ...]  # where the document is looked for
    at_least: int = 5  # so that a document whose format changed does not pass with nothing to check

    def numbered(self, text: str) -> set[str]:
        found = re.findall(rf"^- {self.prefix}(\d+)\.(\d+)", text, flags=re.MULTILINE)
        return {f"{self.prefix}{a}.{b}" for a, b in found}

    def cited(self) -> set[str]:
        cited: set[str] = set()
        for path in (p for folder in self.folders for p in folder.glob("test_*.py")):
            if path.resolve() == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8")
            cited |= {f"{self.prefix}{a}.{b}" for a, b in re.findall(rf"\b{self.prefix}(\d+)\.(\d+)\b", text)}
            cited |= {
                f"{self.prefix}{a}.{b}"
                for a, b in re.findall(rf"_{self.prefix.lower()}(\d+)_(\d+)", text)  # test names: r4_2
            }
        return cited


def rules_of(slug: str) -> Rules:
    """A registered game's rulebook and its tests, from what it declares."""
    game, folder = game_of(slug), game_folder(slug)
    own_tests = HERE / slug
    return Rules(
        game.rulebook,
        game.rule_prefix,
        (own_tests if own_tests.is_dir() else HERE, folder),
        (folder, *SHARED),
    )


GAMES = {slug: rules_of(slug) for slug in RULESETS}


def test_the_games_are_taken_from_the_registry() -> None:
    assert set(GAMES) == set(RULESETS)
    assert GAMES["were_cats"].folders[0] == HERE / "were_cats"
    assert GAMES["goodcritters"].folders[0] == HERE  # the first game's tests are the folder's own


def _order(rule: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.sub(r"^[A-Z]+", "", rule).split("."))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_numbered_rule_is_cited_by_a_test_of_its_game(game: str) -> None:
    rules = GAMES[game]
    path = next((place / rules.document for place in rules.places if (place / rules.document).exists()), None)
    if path is None:
        pytest.skip(
            f"{rules.document} not found in the game's folder nor the shared folder next to the checkout"
        )
    numbered = rules.numbered(path.read_text(encoding="utf-8"))
    assert len(numbered) >= rules.at_least, f"too few numbered rules found in {rules.document}"
    missing = sorted(numbered - rules.cited(), key=_order)
    where = " or ".join(str(f) for f in rules.folders)
    assert not missing, f"rules not cited by any test in {where}: {', '.join(missing)}"
