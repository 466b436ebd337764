"""Import contracts over every registered game (import-linter contract types, ``[tool.importlinter]`` in
pyproject.toml): a game is one folder and one registry line, so no contract lists the games.

In ``games_forbidden`` and ``games_independence`` contracts (the ``forbidden`` and ``independence`` types of
import-linter), the module expression ``<games>`` stands for the package of every game in
``games.rules.registry`` (built in, and named by ``CRITTERS_EXTRA_GAMES``). A registered game whose package
is outside the graph (``root_packages``) breaks the contract: it would not be checked.
"""

from __future__ import annotations

from typing import Any

from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.independence import IndependenceContract
from importlinter.domain.contract import ContractCheck
from importlinter.domain.imports import ModuleExpression

GAMES = "<games>"


def game_packages() -> list[str]:
    """The package (folder) of each registered game, e.g. ``games.rules.were_cats``."""
    from games.rules.registry import HOSTED

    return [type(game).__module__.rpartition(".")[0] for game in HOSTED.values()]


def _expand(expressions: Any) -> set[ModuleExpression]:
    out: set[ModuleExpression] = set()
    for expression in expressions:
        if expression.expression == GAMES:
            out |= {ModuleExpression(name) for name in game_packages()}
        else:
            out.add(expression)
    return out


def _outside(graph: Any) -> list[str]:
    return [name for name in game_packages() if name not in graph.modules]


def _outside_check(names: list[str]) -> ContractCheck:
    return ContractCheck(kept=False, warnings=[], metadata={"outside": names})


class GamesForbiddenContract(ForbiddenContract):
    """``forbidden``, with ``<games>`` for every registered game's package."""

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        if outside := _outside(graph):
            return _outside_check(outside)
        self.source_modules = _expand(self.source_modules)  # type: ignore[assignment]
        self.forbidden_modules = _expand(self.forbidden_modules)  # type: ignore[assignment]
        return super().check(graph, verbose)

    def render_broken_contract(self, check: ContractCheck) -> None:
        if "outside" in check.metadata:
            _render_outside(check)
        else:
            super().render_broken_contract(check)


class GamesIndependenceContract(IndependenceContract):
    """``independence``, with ``<games>`` for every registered game's package."""

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        if outside := _outside(graph):
            return _outside_check(outside)
        self.modules = _expand(self.modules)  # type: ignore[assignment]
        return super().check(graph, verbose)

    def render_broken_contract(self, check: ContractCheck) -> None:
        if "outside" in check.metadata:
            _render_outside(check)
        else:
            super().render_broken_contract(check)


def _render_outside(check: ContractCheck) -> None:
    from importlinter.application import output

    for name in check.metadata["outside"]:
        output.print_error(
            f"The registered game {name} is outside the root packages: it would not be checked."
        )
