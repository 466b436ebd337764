"""The error catalogue (critters_api.error_codes) is complete: the code is walked (AST) for every error
it can raise (``Problem(status, code, ...)``, ``problem_http_response(status, code, ...)``,
``Refused(Refusal.KIND, code, ...)``,
``RuleError(code, ..., kind=...)`` in the service; ``fail(code, ...)``/``rule_error(code, ...)`` in each
ruleset), and each must be in the catalogue with that status. docs/ERRORS.md (the service's codes) and each
registered game's ERRORS.md in its folder (its rule errors) are the catalogue, generated."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from critters_api import error_codes
from critters_api.problems import _DRF_CODES
from games.api.bindings import ruleset_types
from games.errors import Refusal
from games.rules.core import ErrorKind
from games.rules.registry import RULESETS, game_folder, game_of

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ("critters_api", "games", "players", "notifications")


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _codes_of(arg: ast.expr, scope: ast.AST) -> list[str]:
    """A code argument: a string, or a name assigned strings in the same function (``code = "a" if … else
    "b"``)."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if isinstance(arg, ast.Name):
        found = []
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == arg.id for t in node.targets
            ):
                found += _strings(node.value)
        return found
    return []


def _name(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def raised(source: str) -> Iterator[tuple[str, int | None, int]]:
    """(code, status or None for a forwarded status, line) of every error raised in ``source``."""
    tree = ast.parse(source)
    scopes: list[ast.AST] = [
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    scopes.append(tree)  # module-level raises last (calls met in a function are not counted twice)
    seen: set[int] = set()
    for scope in scopes:
        for node in ast.walk(scope):
            if not isinstance(node, ast.Call) or id(node) in seen:
                continue
            seen.add(id(node))
            name = _name(node.func)
            if name in ("Problem", "problem_http_response") and len(node.args) >= 2:
                status = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
                for code in _codes_of(node.args[1], scope):
                    yield code, status if isinstance(status, int) else None, node.lineno
            elif name == "Refused" and len(node.args) >= 2:  # games.errors: a refusal, its status by kind
                kind_arg = node.args[0]
                status = None
                if isinstance(kind_arg, ast.Attribute) and kind_arg.attr in Refusal.__members__:
                    status = error_codes.REFUSAL_STATUS[Refusal[kind_arg.attr]]
                for code in _codes_of(node.args[1], scope):
                    yield code, status, node.lineno
            elif name == "RuleError" and node.args:
                kind = next((k.value for k in node.keywords if k.arg == "kind"), None)
                status = None
                if isinstance(kind, ast.Attribute) and kind.attr in ErrorKind.__members__:
                    status = error_codes.RULE_ERROR_STATUS[ErrorKind[kind.attr]]
                for code in _codes_of(node.args[0], scope):
                    yield code, status, node.lineno
            elif isinstance(node.func, ast.Name) and name in ("fail", "rule_error") and node.args:
                for code in _codes_of(node.args[0], scope):
                    yield code, None, node.lineno


def _service_files() -> Iterator[Path]:
    for package in SERVICE:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative or relative.startswith("games/rules/"):
                continue
            yield path


def missing_service_codes(files: list[tuple[str, str]]) -> list[str]:
    catalogue = {(e.code, e.status) for e in error_codes.catalogue()}
    codes = {e.code for e in error_codes.catalogue()}
    out = []
    for name, source in files:
        for code, status, line in raised(source):
            if (status is None and code not in codes) or (
                status is not None and (code, status) not in catalogue
            ):
                out.append(f"{name}:{line}: {code} ({status})")
    return out


def test_every_error_the_service_raises_is_in_the_catalogue() -> None:
    files = [(p.relative_to(ROOT).as_posix(), p.read_text()) for p in _service_files()]
    found = sum(1 for _name, source in files for _ in raised(source))
    assert found > 50  # the walker sees the code
    assert missing_service_codes(files) == []
    catalogue = {(e.code, e.status) for e in error_codes.catalogue()}
    for exc, code in _DRF_CODES.items():
        assert (code, exc.status_code) in catalogue, code


def test_the_walker_is_not_blind() -> None:
    source = (
        "def f(x):\n"
        "    code = 'made_up_a' if x else 'game_over'\n"
        "    raise Problem(409, code, 'no')\n"
        "def g():\n"
        "    raise Problem(418, 'throttled', 'teapot')\n"
        "def h():\n"
        "    raise RuleError('made_up_b', 'no', kind=ErrorKind.CONFLICT)\n"
    )
    assert [m.split(": ", 1)[1] for m in missing_service_codes([("x.py", source)])] == [
        "made_up_a (409)",
        "throttled (418)",
        "made_up_b (409)",
    ]


def test_every_rule_error_a_ruleset_raises_is_in_its_catalogue() -> None:
    for slug in RULESETS:
        rt = ruleset_types(slug)
        assert rt is not None, f"{slug} declares no RulesetTypes (its game's ``types``)"
        raised_codes = set()
        folder = game_folder(slug)
        for path in sorted(folder.rglob("*.py")):
            if path.name.startswith("test_"):
                continue
            for code, _status, line in raised(path.read_text()):
                raised_codes.add(code)
                assert code in rt.errors, f"{path}:{line}: {code} is not in the catalogue"
        # the walker sees the game's code: most of its catalogue is raised where it can see it
        own = game_of(slug).types.errors  # the game's own (the table adds its own)
        assert len(raised_codes) * 2 > len(own), (slug, sorted(raised_codes))
        # InvalidOptions (games.rules.core) is the service's `invalid_options`
        assert "invalid_options" in {e.code for e in error_codes.SERVICE_ERRORS}


def test_the_docs_pages_are_the_catalogue() -> None:
    pages = error_codes.pages()
    assert ROOT / "docs" / "ERRORS.md" in pages
    for slug in RULESETS:  # one page per registered game, in its folder
        assert game_folder(slug) / "ERRORS.md" in pages
    for path, text in pages.items():
        page = path.read_text() if path.exists() else ""
        assert page == text, f"{path}: regenerate: python -m critters_api.error_codes --write"
    every = "".join(pages.values())
    for entry in error_codes.catalogue():
        assert f"| `{entry.code}` | {entry.status} |" in every, entry
