"""The hosting code is generic: it knows a game only through the ``Ruleset`` protocol and the registry.

Import rules are import-linter's (``[tool.importlinter]`` in pyproject.toml, run by ``lint-imports``); what it
cannot see is checked here: a branch on a ruleset's slug (``if slug == "goodcritters"``), which would put a
game's knowledge in the hosting code. And the timer and bot tasks, published by name, are the tasks
``games.tasks`` registers.
"""

from __future__ import annotations

import ast
import inspect
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from games.rules.registry import RULESETS

ROOT = Path(__file__).resolve().parent.parent
# every registered ruleset's slug, and those of the game packages not hosted yet
SLUGS = frozenset(RULESETS) | {"goodcritters", "loose_triggers", "were_cats"}
HOSTING = ("games", "notifications", "critters_api", "players")

# Branches on a slug that are known and on their way out: path -> (how many, why).
KNOWN: dict[str, tuple[int, str]] = {}


def hosting_files() -> Iterator[Path]:
    """Every Python file of the hosting code: games/ except the rules engines (games/rules/), notifications/,
    critters_api/, players/ (the spec's examples included: each game's sample is its own, ``core.Sample``)."""
    for package in HOSTING:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative.parts[:2] != ("games", "rules"):
                yield path


def _slugs_in(node: ast.AST | None, names: dict[str, str]) -> list[str]:
    """The slugs ``node`` stands for: a slug literal, a name bound to one in the module, or a tuple, list or
    set of those (``slug in ("goodcritters", ...)``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in SLUGS:
        return [node.value]
    if isinstance(node, ast.Name) and node.id in names:
        return [names[node.id]]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [slug for element in node.elts for slug in _slugs_in(element, names)]
    return []


def slug_branches(source: str) -> list[tuple[int, str]]:
    """(line, slug) of every branch on a ruleset's slug in ``source``: a comparison with a slug (``==``,
    ``!=``, ``in``..., in an ``if`` or anywhere else), a ``case "<slug>":``, a dict keyed by slugs (a
    dispatch table). A slug as a value (a serializer's default ruleset, a spec example) is not a branch."""
    tree = ast.parse(source)
    names: dict[str, str] = {}  # module names bound to a slug (``GC = "goodcritters"``)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for slug in _slugs_in(node.value, {}):
                names.update((t.id, slug) for t in node.targets if isinstance(t, ast.Name))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += [(node.lineno, slug) for slug in _slugs_in(operand, names)]
        elif isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
            found += [(node.pattern.lineno, slug) for slug in _slugs_in(node.pattern.value, names)]
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                found += [(node.lineno, slug) for slug in _slugs_in(key, names)]
    return sorted(found)


def test_no_hosting_module_branches_on_a_ruleset_slug() -> None:
    """A game's knowledge lives in its package (games/rules/<game>/), published through the registry, the
    ``Ruleset`` protocol and what its ``Game`` declares (``field_choices``, ``rule_prefix``...)."""
    files = list(hosting_files())
    assert len(files) > 50  # the walk found the hosting code
    problems = []
    for path in files:
        relative = path.relative_to(ROOT).as_posix()
        branches = slug_branches(path.read_text())
        allowed, why = KNOWN.get(relative, (0, ""))
        if len(branches) > allowed:
            problems += [f"{relative}:{line}: branches on the ruleset {slug!r}" for line, slug in branches]
        elif len(branches) < allowed:
            warnings.warn(f"{relative}: KNOWN allows {allowed} ({why}), found {len(branches)}", stacklevel=1)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('if slug == "goodcritters":  # bindings.py had this\n    pass\n', [(1, "goodcritters")]),
        ('x = a if "were_cats" != rs.slug else b\n', [(1, "were_cats")]),
        ('ok = slug in ("loose_triggers", "x")\n', [(1, "loose_triggers")]),
        ('GC = "goodcritters"\nif game.ruleset == GC:\n    pass\n', [(2, "goodcritters")]),
        ('match slug:\n    case "goodcritters":\n        pass\n', [(2, "goodcritters")]),
        ('TABLE = {"goodcritters": 1}\nTABLE[slug]\n', [(1, "goodcritters")]),
        ('def create(ruleset: str = "goodcritters") -> None: ...\n', []),
        ('EXAMPLE = {"ruleset": "goodcritters"}\n', []),
        ('if slug == "chess":\n    pass\n', []),
    ],
)
def test_the_check_sees_a_branch_and_only_a_branch(source: str, expected: list[tuple[int, str]]) -> None:
    assert slug_branches(source) == expected


def module_paths_made(source: str) -> list[int]:
    """Lines that make a module path of the rules from a value (``f"games.rules.{slug}.commands"``,
    ``"games.rules." + slug``): a game found by where it lives rather than by what it declares."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr) and any(isinstance(v, ast.FormattedValue) for v in node.values):
            text = "".join(
                v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
            if "games.rules." in text or "games/rules/" in text:
                found.append(node.lineno)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            parts = [n.value for n in (node.left, node.right) if isinstance(n, ast.Constant)]
            if any(isinstance(p, str) and "games.rules." in p for p in parts):
                found.append(node.lineno)
    return found


def test_no_hosting_module_finds_a_game_by_its_module_path() -> None:
    """A new game is told by the type checker what to provide (its ``Game``), not by a convention of module
    names the hosting code imports (as ``FIELD_CHOICES`` was found: ``games.rules.<slug>.commands``)."""
    problems = [
        f"{path.relative_to(ROOT).as_posix()}:{line}: a module path of the rules made from a value"
        for path in hosting_files()
        for line in module_paths_made(path.read_text())
    ]
    assert not problems, "\n".join(problems)
    assert module_paths_made('importlib.import_module(f"games.rules.{slug}.commands")\n') == [1]
    assert module_paths_made('x = "games.rules." + slug\n') == [1]
    assert module_paths_made('x = f"/rules/{slug}"\n') == []


def test_the_published_task_names_are_the_registered_tasks() -> None:
    """The timer and bot tasks are published by name (games.services.followups): each name is a task
    games.tasks registers, taking the arguments the publisher sends."""
    from critters_api.celery import app
    from games import tasks
    from games.services import followups

    sent = {
        followups.PLAY_BOTS: ("game_id",),
        followups.EXPIRE_DEADLINE: ("game_id", "step_no", "due_at"),
        followups.WARN_DEADLINE: ("game_id", "step_no", "warn_at"),
    }
    for name, arguments in sent.items():
        task = app.tasks[name]
        assert task.name == name
        assert task.ignore_result  # the publisher sends ignore_result=True, as apply_async would
        assert tuple(inspect.signature(task.run).parameters) == arguments
    assert {tasks.play_bots.name, tasks.expire_deadline.name, tasks.warn_deadline.name} == set(sent)
