"""What the spec declares, the service enforces (and the other way round): the refusals schemathesis found
when the spec grew its constraints, rule errors carrying their request path, input errors by dotted path."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from games import deadlines, loading, roster
from games.api.commands import kebab
from games.models import Game, GameStatus
from games.rules.registry import get_ruleset
from games.services.bots import bots_play
from tests.conftest import Api, Table, assert_problem, event_rows, make_api
from tests.spec_tools import Spec

pytestmark = pytest.mark.django_db


def test_an_empty_query_value_is_refused_not_read_as_absent(table: Table) -> None:
    api = table.apis[0]
    problem = assert_problem(api.get("/api/v1/games", status=""), 400, "invalid_query")
    assert problem["errors"] == {"status": ["May not be empty."]}
    assert_problem(api.get(f"/api/v1/games/{table.game_id}/events", after=""), 400, "invalid_query")
    assert api.get("/api/v1/games", status="running").status_code == 200


@pytest.mark.parametrize("page_size", ["null", "0", "101", "1.5", "", "٣"])
def test_a_page_size_out_of_its_declared_range_is_refused(alice: Api, page_size: str) -> None:
    for path in ("/api/v1/games", "/api/v1/me/games"):
        problem = assert_problem(alice.get(path, page_size=page_size), 400, "invalid_query")
        assert list(problem["errors"]) == ["page_size"]
    assert alice.get("/api/v1/me/games", page_size="100").status_code == 200


@pytest.mark.parametrize(
    "path",
    ["commands/resign", "commands/remove-threat", "pause", "resume", "leave", "start", "cancel"],
)
def test_a_null_body_is_not_an_empty_object(table: Table, path: str) -> None:
    before = event_rows(table.game_id)
    r = table.apis[0].post(f"/api/v1/games/{table.game_id}/{path}", raw=b"null")
    assert_problem(r, 422, "validation_error")
    assert event_rows(table.game_id) == before


def test_a_rule_error_names_its_request_path(table: Table) -> None:
    me = table.state(0)["viewer"]
    path = f"/api/v1/games/{table.game_id}/commands/place-threat"
    r = table.apis[0].post(path, {"target": me})
    problem: dict[str, Any] = assert_problem(r, r.status_code)
    assert problem["status"] in (409, 422)
    assert problem["kind"] in ("conflict", "invalid")
    assert problem["instance"] == path
    # and so does its replay under the same Idempotency-Key
    key = {"Idempotency-Key": "rule-error-instance"}
    first = table.apis[0].post(path, {"target": me}, headers=key)
    again = table.apis[0].post(path, {"target": me}, headers=key)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert again.json()["instance"] == path


def test_input_errors_are_listed_by_dotted_path(alice: Api) -> None:
    r = alice.post("/api/v1/games", {"seats": 4, "bots": ["sensible", 7], "setup": {"seat_order": [0, "x"]}})
    problem = assert_problem(r, 422, "validation_error")
    assert set(problem["errors"]) == {"bots.1", "setup.seat_order.1"}
    assert all(isinstance(m, list) and all(isinstance(x, str) for x in m) for m in problem["errors"].values())


def _valid(spec: Spec, method: str, path: str, response: Any, status: int = 200) -> list[str]:
    """The errors of ``response``'s JSON body against what the spec documents for ``method path``."""
    assert response.status_code == status, (path, response.status_code, response.content[:300])
    found = spec.operation_for(method, path)
    assert found is not None, path
    content = found[1]["responses"][str(status)]["content"]
    schema = next(iter(content.values()))["schema"]
    return [f"{method} {path}: {e}" for e in spec.errors(schema, response.json())]


@pytest.mark.parametrize(("ruleset", "humans", "bots"), [("loose_triggers", 2, 3), ("were_cats", 2, 1)])
def test_a_table_game_is_served_as_the_spec_says(spec: Spec, ruleset: str, humans: int, bots: int) -> None:
    """A Loose Triggers or Were-cats game over HTTP, created with the spec's own example: the game, every
    seat's state after every command it sends, a spectator's, the command responses, the feed as each seat
    sees it, the record: each validates against the schema the spec documents for its operation."""
    from games.api.examples import GAME_CREATE_TABLE

    example = next(e.value for e in GAME_CREATE_TABLE if e.value["ruleset"] == ruleset)
    apis = [make_api() for _ in range(humans)]
    watcher = make_api()
    body = {**example, "seats": humans + bots, "bots": ["sensible"] * bots}
    created = apis[0].post("/api/v1/games", body)
    failures = _valid(spec, "POST", "/api/v1/games", created, 201)
    game_id = created.json()["id"]
    assert created.json()["options"] == get_ruleset(ruleset).options_to_json(
        get_ruleset(ruleset).parse_options(example["options"])
    )
    for api in apis[1:]:
        failures += _valid(
            spec, "POST", f"/api/v1/games/{game_id}/join", api.post(f"/api/v1/games/{game_id}/join")
        )
    state_path = f"/api/v1/games/{game_id}/state"
    sent = 0
    for _ in range(5_000):
        game = Game.objects.get(pk=game_id)
        if game.status == GameStatus.OVER:
            break
        rs = loading.ruleset_for(game)
        state = loading.load_state(game, rs)
        moved = False
        for api in apis:
            served = api.get(state_path)
            failures += _valid(spec, "GET", state_path, served)
            seat = served.json()["viewer"]
            command = rs.bot_command(state, seat, strategy="random", salt=sent)
            if command is None or seat in roster.machine_seats(game, rs, state):
                continue
            request = {k: v for k, v in rs.command_to_json(command).items() if k not in ("type", "reason")}
            path = f"/api/v1/games/{game_id}/commands/{kebab(command.TYPE)}"
            failures += _valid(spec, "POST", path, api.post(path, request))
            sent += 1
            moved = True
            break
        if sent % 10 == 0:
            failures += _valid(spec, "GET", state_path, watcher.get(state_path))
        if not moved and not bots_play(game_id, max_steps=1):  # one bot move: humans may answer
            assert game.deadline_at is not None, "nobody can move and no deadline runs"
            deadlines.sweep(now=game.deadline_at + timedelta(seconds=1))
        assert not failures, failures[:5]
    assert Game.objects.get(pk=game_id).status == GameStatus.OVER
    assert sent > 5
    feed_path = f"/api/v1/games/{game_id}/events"
    for api in [*apis, watcher]:
        failures += _valid(spec, "GET", state_path, api.get(state_path))
        failures += _valid(spec, "GET", feed_path, api.get(feed_path, limit=500))
    record_path = f"/api/v1/games/{game_id}/record"
    failures += _valid(spec, "GET", record_path, apis[0].get(record_path))
    assert not failures, failures[:5]
