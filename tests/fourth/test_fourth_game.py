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

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from xml.etree import ElementTree

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SPEC = "tests/api/test_spec.py::test_"
CHECKS = (
    "tests/fourth/hosted.py",
    "tests/test_architecture.py",
    "tests/api/test_error_catalogue.py",
    "tests/rules/test_rule_citations.py",
    "tests/api/test_rules_pages.py",
    # the spec's checks that walk the games (the whole files: the slow test below)
    f"{SPEC}every_example_validates_against_its_schema",
    f"{SPEC}no_object_that_carries_data_is_free_form",
    f"{SPEC}a_generated_client_tells_the_rulesets_shapes_apart",
    f"{SPEC}every_registered_games_json_validates_against_the_generated_types",
    f"{SPEC}the_options_bounds_the_spec_declares_are_the_rules",
    "tests/api/test_contract.py::test_feed_state_at_and_record_items_say_their_game",
    "tests/api/test_contract.py::test_rule_numbers_link_to_anchors_the_service_serves",
    "tests/api/test_contract.py::test_a_view_before_the_start_has_every_key_null",
    "tests/api/test_contract.py::test_webhook_payloads_say_their_game",
)
SPEC_FILES = (
    "tests/api/test_spec.py",
    "tests/api/test_spec_conformance.py",
    "tests/api/test_spec_declares.py",
    "tests/api/test_contract.py",
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
    toy_env: dict[str, str], tmp_path: Path
) -> None:
    report = tmp_path / "checks.xml"
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--create-db"]
    done = _run([*args, f"--junitxml={report}", *CHECKS], toy_env, 1800)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    # the checks ran for the toy game, none of them skipped (a skipped check would prove nothing)
    cases = ElementTree.parse(report).getroot().iter("testcase")  # noqa: S314 (our own pytest's report)
    bad = ("skipped", "failure", "error")
    toy = {
        c.get("name", ""): [e.tag for e in c if e.tag in bad] for c in cases if "pebbles" in c.get("name", "")
    }
    assert len(toy) >= 4, toy  # citations, rules page, contract, spec's sample game, bounds...
    assert all(not tags for tags in toy.values()), toy


@pytest.mark.slow
def test_the_spec_tests_pass_whole_with_the_toy_game(toy_env: dict[str, str]) -> None:
    """The spec's and the API contract's test files, whole, with the toy game registered (~12 minutes)."""
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--create-db", *SPEC_FILES]
    done = _run(args, toy_env, 3600)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]


def test_the_engine_benchmark_measures_the_toy_game_through_the_table(
    toy_env: dict[str, str], tmp_path: Path
) -> None:
    """bench/engine.py takes the games from the registry: the toy is played through the table (two games,
    once: a run of the code, not a measurement; its figures are not judged here)."""
    out = tmp_path / "engine.json"
    args = [sys.executable, "bench/engine.py", "--only", "table", "--table-games", "pebbles"]
    done = _run([*args, "--games", "2", "--repeat", "1", "--out", str(out)], toy_env, 600)
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]  # 1: a target missed
    assert "table pebbles" in done.stdout
    figures = json.loads(out.read_text())["table"]["pebbles"]
    assert figures["games"]["4p/sensible"]["median_ms"] > 0


def _contracts(env: dict[str, str], *packages: str) -> dict[str, bool]:
    done = _run([sys.executable, "-m", "tests.fourth.lint_games", *packages], env, 600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    kept: dict[str, bool] = json.loads(done.stdout.strip().splitlines()[-1])
    return kept


GAME_CONTRACTS = (
    "A hosted game holds only its own rules: deadlines, pauses, absences, hand-overs and messages are the "
    "table's",
    "Each game is its own: no game imports another",
    "The table names no game",
    "Hosting code knows games only through the registry and the Ruleset protocol",
)


def test_the_import_contracts_cover_the_toy_game(toy_env: dict[str, str]) -> None:
    kept = _contracts(toy_env, "pebbles")
    assert set(GAME_CONTRACTS) <= set(kept), sorted(kept)
    assert all(kept.values()), kept
    # a registered game outside the graph is not left unchecked: the games' contracts break
    outside = _contracts(toy_env)
    assert [name for name in GAME_CONTRACTS if outside[name]] == []


def test_the_import_contracts_catch_a_toy_game_that_breaks_them(
    toy_env: dict[str, str], tmp_path: Path
) -> None:
    """The same toy, but reaching into another game and into the table's internals: the contracts that list
    no game see it all the same."""
    shutil.copytree(HERE / "pebbles", tmp_path / "badpebbles", ignore=shutil.ignore_patterns("__pycache__"))
    game = tmp_path / "badpebbles" / "game.py"
    source = game.read_text().replace('SLUG: Final = "pebbles"', 'SLUG: Final = "badpebbles"')
    game.write_text(
        source + "\n\nfrom games.rules.table import ruleset  # noqa: E402\n"
        "from games.rules.were_cats import coins  # noqa: E402\n"
    )
    env = {**toy_env, "CRITTERS_EXTRA_GAMES": "badpebbles.game"}
    env["PYTHONPATH"] = os.pathsep.join((str(tmp_path), env["PYTHONPATH"]))
    kept = _contracts(env, "badpebbles")
    assert not kept["Each game is its own: no game imports another"]
    assert not kept[GAME_CONTRACTS[0]]
    assert kept["The rules engine is pure: no Django, no service code"]


def test_no_import_contract_names_a_game_and_every_games_list_is_expanded() -> None:
    """The contracts take the games from the registry (``<games>``), and only contract types that expand it
    use it (a plain ``forbidden`` contract would read ``<games>`` as an unknown outside package, and pass)."""
    from games.rules.registry import RULESETS, game_folder

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    packages = {
        ".".join(game_folder(slug).relative_to(ROOT).parts)
        for slug in RULESETS
        if game_folder(slug).is_relative_to(ROOT)
    }
    assert "games.rules.were_cats" in packages
    uses = 0
    for contract in config["contracts"]:
        names = [
            v for value in contract.values() if isinstance(value, list) for v in value if isinstance(v, str)
        ]
        named = {n for n in names for p in packages if n == p or n.startswith(p + ".")}
        assert not named, (contract["name"], named)
        if "<games>" in names:
            uses += 1
            assert contract["type"].startswith("games_"), contract["name"]
    assert uses == len(GAME_CONTRACTS)
