"""A game is one folder and one registry line, for real (issue #25).

A toy fourth game (``tests/fourth/pebbles``) is copied into a temporary folder, outside the repository, and
registered by the registry's own extension (``CRITTERS_EXTRA_GAMES=pebbles.game``) and nothing else. In a
process of its own (the registry is read once):

- it is hosted end to end (``tests/fourth/hosted.py``): created over HTTP, played by bots over HTTP to its
  end, its record exported and verified by the offline verifier;
- every check that walks the games passes with it: the architecture test, the error catalogue (its rule
  errors, the page in its folder), the rule citations (its rulebook in its folder, cited by its tests there),
  the rules pages, and the import contracts (the games' contracts take every registered game);

so that none of them needs an edit outside the game's folder for a new game: one that names the games itself
fails here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CHECKS = (
    "tests/fourth/hosted.py",
    "tests/test_architecture.py",
    "tests/api/test_error_catalogue.py",
    "tests/rules/test_rule_citations.py",
    "tests/api/test_rules_pages.py",
)


@pytest.fixture(scope="module")
def toy_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("fourth")
    shutil.copytree(HERE / "pebbles", folder / "pebbles", ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(folder), str(ROOT), env.get("PYTHONPATH", "")) if p)
    env["CRITTERS_EXTRA_GAMES"] = "pebbles.game"
    # a database of its own (pytest-django makes test_<name>), so that it never meets this process's
    base, _, name = env.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/critters").rpartition("/")
    env["DATABASE_URL"] = f"{base}/{name}_pebbles"
    return env


def _run(args: list[str], env: dict[str, str], timeout: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def test_the_toy_game_registered_by_one_entry_is_hosted_and_passes_every_check(
    toy_env: dict[str, str],
) -> None:
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--create-db", *CHECKS]
    done = _run(args, toy_env, 1800)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "pebbles" in done.stdout or " passed" in done.stdout


def test_the_import_contracts_cover_the_toy_game(toy_env: dict[str, str]) -> None:
    done = _run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], toy_env, 600)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
