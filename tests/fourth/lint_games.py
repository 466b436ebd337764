"""Run by ``test_fourth_game.py`` in a process where extra games are registered (``CRITTERS_EXTRA_GAMES``):
the project's import contracts (pyproject.toml, unchanged) checked over a graph that also holds the extra
games' top-level packages (``python -m tests.fourth.lint_games <package>...``; a game in ``games/rules/`` is
in the graph already). Prints ``{contract name: kept}`` as JSON, or the error."""

from __future__ import annotations

import json
import sys

from importlinter import configuration
from importlinter.application import use_cases


def main(packages: list[str]) -> dict[str, bool]:
    configuration.configure()
    options = use_cases.read_user_options()
    options.session_options["root_packages"] = [*options.session_options["root_packages"], *packages]
    use_cases._register_contract_types(options)
    report = use_cases.create_report(options, cache_dir=None)
    return {contract.name: check.kept for contract, check in report.get_contracts_and_checks()}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
