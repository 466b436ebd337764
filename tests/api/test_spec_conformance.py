"""What the spec declares, the service enforces (and the other way round): the refusals schemathesis found
when the spec grew its constraints, rule errors carrying their request path, input errors by dotted path."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Api, Table, assert_problem, event_rows

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
