"""Issue #28, item 14 ("options without bounds"): every option of every ruleset and of the table has a
smallest and a largest value for a new game, in the spec (``minimum``/``maximum`` of the options a client
sends) and enforced by the lobby: just beyond is a 422 ``invalid_options`` naming the option
(``details.key``), the bound itself is accepted. A game started under the wider bounds a record may hold
still loads and plays (ruling 32)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from games.models import Game, GameStatus
from games.rules import bounds
from tests.conftest import assert_problem, make_api
from tests.spec_tools import Spec

pytestmark = pytest.mark.django_db

RULESETS = {
    "goodcritters": ("GoodCrittersOptionsRequest", 4),
    "loose_triggers": ("LooseTriggersOptionsRequest", 4),
    "were_cats": ("WereCatsOptionsRequest", 3),
}


def _leaves(spec: Spec, node: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every option of a request schema, dotted, with its (resolved) schema."""
    node = spec.resolve(node)
    for key, sub in node.get("properties", {}).items():
        sub = spec.resolve(sub)
        if sub.get("type") == "object" and "properties" in sub:
            yield from _leaves(spec, sub, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", sub


def _nested(dotted: str, value: Any) -> dict[str, Any]:
    out: Any = value
    for part in reversed(dotted.split(".")):
        out = {part: out}
    result: dict[str, Any] = out
    return result


def _seats(ruleset: str) -> int:
    return RULESETS[ruleset][1]


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_item14_every_option_is_bounded_in_the_spec_and_each_bound_holds(spec: Spec, ruleset: str) -> None:
    component = spec.spec["components"]["schemas"][RULESETS[ruleset][0]]
    alice = make_api()
    seen = 0
    for dotted, schema in _leaves(spec, component):
        options = [spec.resolve(o) for o in schema.get("oneOf", [schema])]
        for option in options:
            kind = option.get("type")
            if kind == "boolean" or "enum" in option:
                continue  # bounded by its kind
            if kind == "array":
                option = spec.resolve(option["items"])
                assert {"minimum", "maximum"} <= set(option), (ruleset, dotted, option)
                continue
            assert kind == "integer", (ruleset, dotted, option)
            assert {"minimum", "maximum"} <= set(option), (ruleset, dotted, option)
            low, high = option["minimum"], option["maximum"]
            seen += 1
            url = "/api/v1/games"
            for value in (low - 1, high + 1):
                body = {"ruleset": ruleset, "seats": _seats(ruleset), "options": _nested(dotted, value)}
                problem = assert_problem(alice.post(url, body), 422, "invalid_options")
                assert problem["details"]["key"] == dotted, problem
            for value in (low, high):
                body = {"ruleset": ruleset, "seats": _seats(ruleset), "options": _nested(dotted, value)}
                r = alice.post(url, body)
                assert r.status_code == 201, (dotted, value, r.content)
                got: Any = r.json()["options"]
                for part in dotted.split("."):
                    got = got[part]
                assert got == value
    assert seen >= 6


@pytest.mark.parametrize(
    ("ruleset", "options", "key"),
    [
        ("loose_triggers", {"countdown": 7 * 24 * 3600}, "countdown"),  # a 7-day Countdown (LT3.1)
        ("goodcritters", {"deadlines": {"choose": 30 * 24 * 3600}}, "deadlines.choose"),  # 30-day deadlines
        ("loose_triggers", {"deadlines": {"give": 30 * 24 * 3600}}, "deadlines.give"),
        ("were_cats", {"max_pause": 30 * 24 * 3600}, "max_pause"),  # 30-day pauses (R7.6)
        ("goodcritters", {"max_pause": 30 * 24 * 3600}, "max_pause"),
        ("were_cats", {"max_rounds": 100}, "max_rounds"),  # 100 Were-cats rounds (WC3.1)
        ("goodcritters", {"absence": {"extensions": 10}}, "absence.extensions"),
        ("goodcritters", {"boss_term_limit": 50}, "boss_term_limit"),
    ],
)
def test_item14_the_issues_examples_are_refused_naming_the_option(
    ruleset: str, options: dict[str, Any], key: str
) -> None:
    alice = make_api()
    before = Game.objects.count()
    body = {"ruleset": ruleset, "seats": _seats(ruleset), "options": options}
    problem = assert_problem(alice.post("/api/v1/games", body), 422, "invalid_options")
    assert problem["details"]["key"] == key
    assert Game.objects.count() == before


def test_item14_the_bounds_a_player_expects() -> None:
    assert bounds.DEADLINE_MAX == 7 * 24 * 3600
    assert bounds.MAX_PAUSE_MAX == 14 * 24 * 3600
    assert bounds.LT_COUNTDOWN_MAX == 24 * 3600
    assert bounds.WC_MAX_ROUNDS_MAX == 40


def test_item14_a_game_opened_under_wider_bounds_still_starts_and_plays() -> None:
    """Ruling 32: the new bounds are a new game's; a game whose options were stored under the wider ones (a
    30-day deadline) starts, loads and serves its state."""
    alice = make_api()
    gid = alice.post("/api/v1/games", {"seats": 4}).json()["id"]
    game = Game.objects.get(pk=gid)
    game.options = {**game.options, "deadlines": {"distribute": 30 * 24 * 3600, "choose": None}}
    game.save(update_fields=["options"])
    for _ in range(3):
        assert make_api().post(f"/api/v1/games/{gid}/join").status_code == 200
    assert Game.objects.get(pk=gid).status == GameStatus.RUNNING
    r = alice.get(f"/api/v1/games/{gid}/state")
    assert r.status_code == 200, r.content
    assert r.json()["game"]["options"]["deadlines"]["distribute"] == 30 * 24 * 3600
