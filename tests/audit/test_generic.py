"""The audit names no game: its modules import no game package (``games.rules.<game>``, the table) and compare
nothing with a ruleset's slug; every game's part comes through the ruleset from the registry (its audit hooks,
``games.rules.core.AuditHooks``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from games.rules.registry import RULESETS

ROOT = Path(__file__).resolve().parents[2]
MODULES = [*sorted((ROOT / "games" / "audit").glob("*.py")), ROOT / "games" / "api" / "audit_views.py"]
GAME_PACKAGES = sorted(p.name for p in (ROOT / "games" / "rules").iterdir() if (p / "__init__.py").exists())


def test_there_are_game_packages_to_keep_out() -> None:
    assert {"goodcritters", "loose_triggers", "were_cats", "table"} <= set(GAME_PACKAGES)


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_the_module_imports_no_game_and_compares_no_slug(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            assert not (parts[:2] == ["games", "rules"] and len(parts) > 2 and parts[2] in GAME_PACKAGES), (
                f"{path.name}: imports {name}"
            )
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                assert not (isinstance(operand, ast.Constant) and operand.value in RULESETS), (
                    f"{path.name}:{node.lineno}: compares with the slug {operand.value!r}"
                )
