"""Every class of bad input gets a 4xx problem+json and leaves the event log exactly as it was."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.test import Client

from games.models import Game
from tests.conftest import Api, Table, assert_problem, event_rows, make_api, start_table

pytestmark = pytest.mark.django_db


def _face_up(table: Table) -> list[int]:
    return [card["id"] for card in table.state(0)["state"]["table"]]


def _unchanged(
    table: Table, attempt: Callable[[], Any], status: int, code: str | None = None
) -> dict[str, Any]:
    before = event_rows(table.game_id)
    version = Game.objects.get(pk=table.game_id).version
    body = assert_problem(attempt(), status, code)
    assert event_rows(table.game_id) == before
    assert Game.objects.get(pk=table.game_id).version == version
    return body


def test_malformed_json(table: Table) -> None:
    boss = table.apis[0]
    _unchanged(
        table,
        lambda: boss.post(
            f"/api/v1/games/{table.game_id}/commands/distribute-loot", raw=b'{"shares": [[1, 2'
        ),
        400,
        "malformed_request",
    )


def test_json_with_nan_or_nul_characters(table: Table) -> None:
    boss = table.apis[0]
    url = f"/api/v1/games/{table.game_id}/commands/send-message"
    _unchanged(table, lambda: boss.post(url, raw=b'{"text": NaN}'), 400, "malformed_request")
    _unchanged(table, lambda: boss.post(url, raw=b'{"text": "a\\u0000b"}'), 400, "malformed_request")


def test_wrong_types(table: Table) -> None:
    boss = table.apis[0]
    cards = _face_up(table)
    body: Any
    for body in (
        {"shares": "all to me"},
        {"shares": [[str(c) for c in cards], [], [], []]},
        {"shares": [[True], [], [], []]},
        {"shares": [[1.5], [], [], []]},
        {"shares": None},
        [],
        "shares",
    ):
        problem = _unchanged(
            table, partial(boss.command, table.game_id, "distribute-loot", body), 422, "validation_error"
        )
        assert problem["errors"]


def test_missing_and_unknown_fields(table: Table) -> None:
    boss = table.apis[0]
    cards = _face_up(table)
    problem = _unchanged(
        table, lambda: boss.command(table.game_id, "distribute-loot", {}), 422, "validation_error"
    )
    assert "shares" in problem["errors"]
    problem = _unchanged(
        table,
        lambda: boss.command(table.game_id, "distribute-loot", {"shares": [cards, [], [], []], "bonus": 1}),
        422,
        "validation_error",
    )
    assert problem["errors"] == {"bonus": ["Unknown field."]}


def test_there_is_no_way_to_name_a_seat(table: Table) -> None:
    """``seat`` is not a field of any command: the acting seat comes from the token."""
    boss = table.apis[0]
    cards = _face_up(table)
    problem = _unchanged(
        table,
        lambda: boss.command(table.game_id, "distribute-loot", {"seat": 1, "shares": [cards, [], [], []]}),
        422,
        "validation_error",
    )
    assert "seat" in problem["errors"]


def test_out_of_range_values(table: Table) -> None:
    boss = table.apis[0]
    cards = _face_up(table)
    for body in ({"shares": [[-1], [], [], []]}, {"shares": [[2**40], [], [], []]}):
        _unchanged(
            table, partial(boss.command, table.game_id, "distribute-loot", body), 422, "validation_error"
        )
    # well-formed but not a valid split for the rules: the rule's own code
    _unchanged(
        table,
        lambda: boss.command(table.game_id, "distribute-loot", {"shares": [cards[:-1], [], [], []]}),
        422,
        "invalid_distribution",
    )
    _unchanged(
        table, lambda: boss.command(table.game_id, "distribute-loot", {"shares": [[999], [], [], []]}), 422
    )
    _unchanged(
        table,
        lambda: boss.command(table.game_id, "choose-action", {"action": "dance"}),
        422,
        "validation_error",
    )


def test_acting_out_of_turn(table: Table) -> None:
    # Step 2 waits on the Boss (seat 0): another seat may not distribute, nobody may choose an action yet
    cards = _face_up(table)
    problem = _unchanged(
        table,
        lambda: table.apis[1].command(table.game_id, "distribute-loot", {"shares": [[], cards, [], []]}),
        403,
        "not_boss",
    )
    assert problem["kind"] == "forbidden"
    problem = _unchanged(
        table,
        lambda: table.apis[0].command(table.game_id, "choose-action", {"action": "rob"}),
        409,
        "wrong_step",
    )
    assert problem["kind"] == "conflict"


def test_acting_in_someone_elses_game(table: Table) -> None:
    outsider = make_api()
    cards = _face_up(table)
    _unchanged(
        table,
        lambda: outsider.command(table.game_id, "distribute-loot", {"shares": [cards, [], [], []]}),
        403,
        "not_seated",
    )
    _unchanged(
        table, lambda: outsider.command(table.game_id, "send-message", {"text": "hi"}), 403, "not_seated"
    )


def test_a_private_game_is_invisible_to_outsiders() -> None:
    apis = [make_api() for _ in range(4)]
    r = apis[0].post("/api/v1/games", {"seats": 4, "allow_spectators": False})
    game_id = r.json()["id"]
    for api in apis[1:]:
        api.post(f"/api/v1/games/{game_id}/join")
    table = Table(game_id, apis)
    outsider = make_api()
    _unchanged(
        table, lambda: outsider.command(game_id, "send-message", {"text": "hi"}), 404, "game_not_found"
    )
    assert_problem(outsider.get(f"/api/v1/games/{game_id}/state"), 404, "game_not_found")
    assert_problem(outsider.get(f"/api/v1/games/{game_id}/events"), 404, "game_not_found")


def test_stale_if_match(table: Table) -> None:
    boss = table.apis[0]
    etag = boss.get(f"/api/v1/games/{table.game_id}/state")["ETag"]
    assert table.apis[1].command(table.game_id, "send-message", {"text": "hello"}).status_code == 200
    cards = _face_up(table)
    problem = _unchanged(
        table,
        lambda: boss.command(
            table.game_id, "distribute-loot", {"shares": [cards, [], [], []]}, {"If-Match": etag}
        ),
        412,
        "precondition_failed",
    )
    assert problem["etag"] != etag


def test_idempotency_key_reused_with_another_body(table: Table) -> None:
    api = table.apis[1]
    headers = {"Idempotency-Key": "msg-1"}
    assert api.command(table.game_id, "send-message", {"text": "one"}, headers).status_code == 200
    _unchanged(
        table,
        lambda: api.command(table.game_id, "send-message", {"text": "two"}, headers),
        422,
        "idempotency_key_reused",
    )
    _unchanged(
        table,
        lambda: api.command(table.game_id, "send-message", {"text": "x"}, {"Idempotency-Key": "a b"}),
        400,
        "invalid_idempotency_key",
    )


def test_unknown_game(alice: Api) -> None:
    assert_problem(alice.get("/api/v1/games/987654/state"), 404, "game_not_found")
    assert_problem(alice.command(987654, "send-message", {"text": "hi"}), 404, "game_not_found")
    assert_problem(alice.post("/api/v1/games/987654/join"), 404, "game_not_found")
    assert_problem(alice.get("/api/v1/games/not-a-number/state"), 404, "not_found")
    assert_problem(alice.get("/api/v1/nothing-here"), 404, "not_found")


def test_bad_cursor_and_bad_query(table: Table) -> None:
    api = table.apis[0]
    assert_problem(api.get("/api/v1/games", cursor="garbage"), 400, "invalid_cursor")
    assert_problem(api.get("/api/v1/me/games", cursor="bz1hYmMmcj0x"), 400, "invalid_cursor")
    assert_problem(api.get(f"/api/v1/games/{table.game_id}/events", after="x"), 400, "invalid_query")
    assert_problem(api.get(f"/api/v1/games/{table.game_id}/events", after="-1"), 400, "invalid_query")
    assert_problem(api.get(f"/api/v1/games/{table.game_id}/events", wait="31"), 400, "invalid_query")
    assert_problem(api.get("/api/v1/games", status="bogus"), 400, "invalid_query")


def test_nul_bytes_in_path_and_query(table: Table) -> None:
    api = table.apis[0]
    before = event_rows(table.game_id)
    assert_problem(api.get(f"/api/v1/games/{table.game_id}/events", after="1\x00"), 400, "nul_byte")
    assert_problem(api.get("/api/v1/games", cursor="\x00"), 400, "nul_byte")
    assert_problem(
        api.client.get("/api/v1/games/1\x00/state", headers={"Authorization": f"Bearer {api.token}"}),
        400,
        "nul_byte",
    )
    assert_problem(api.post(f"/api/v1/games/{table.game_id}/commands/send-message%00", {"text": "hi"}), 400)
    assert event_rows(table.game_id) == before


def test_wrong_method_media_type_and_size(table: Table) -> None:
    api = table.apis[0]
    url = f"/api/v1/games/{table.game_id}/commands/send-message"
    _unchanged(table, lambda: api.get(url), 405, "method_not_allowed")
    _unchanged(
        table,
        lambda: api.post(url, raw=b"text=hi", content_type="application/x-www-form-urlencoded"),
        415,
        "unsupported_media_type",
    )
    _unchanged(table, lambda: api.post(url, {"text": "x" * 100_000}), 413, "request_too_large")
    _unchanged(table, lambda: api.post(url, {"text": "x" * 3000}), 422, "validation_error")


def test_no_or_bad_credentials(table: Table) -> None:
    url = f"/api/v1/games/{table.game_id}/commands/send-message"
    anonymous = Client()
    response = anonymous.post(url, {"text": "hi"}, content_type="application/json")
    _unchanged(table, lambda: response, 401, "not_authenticated")
    assert response["WWW-Authenticate"].startswith("Bearer")
    for header in ("Bearer gct_nope_nope", "Bearer", "Bearer a b", "Basic Zm9vOmJhcg=="):
        r = anonymous.post(
            url, {"text": "hi"}, content_type="application/json", headers={"Authorization": header}
        )
        assert r.status_code == 401, (header, r.status_code)
        assert_problem(r, 401)
    assert event_rows(table.game_id) == event_rows(table.game_id)


def test_lobby_refusals_do_not_start_anything(alice: Api) -> None:
    assert_problem(alice.post("/api/v1/games", {"seats": 3}), 422, "invalid_seats")
    assert_problem(alice.post("/api/v1/games", {"seats": 9}), 422, "invalid_seats")
    problem = assert_problem(
        alice.post("/api/v1/games", {"seats": 4, "options": {"jokers": True}}), 422, "invalid_options"
    )
    assert "jokers" in problem["detail"]
    assert_problem(
        alice.post("/api/v1/games", {"seats": 4, "options": {"payoffs": "yes"}}), 422, "invalid_options"
    )
    assert_problem(
        alice.post("/api/v1/games", {"seats": 4, "options": {"deadlines": {"choose": -5}}}),
        422,
        "invalid_options",
    )
    assert_problem(alice.post("/api/v1/games", {"seats": 4, "options": []}), 422, "validation_error")
    assert_problem(alice.post("/api/v1/games", {"seats": "4"}), 422, "validation_error")
    assert_problem(alice.post("/api/v1/games", {"seats": 4, "bots": ["genius"]}), 422, "validation_error")
    assert_problem(
        alice.post("/api/v1/games", {"seats": 4, "setup": {"seed": "00" * 32}}), 403, "operators_only"
    )
    assert not Game.objects.exists()


def test_a_bad_operator_setup_is_refused_before_anything_is_made() -> None:
    """The table's ruling 8, GoodCritters included since it is on the table: an operator's deck is checked in
    full when the game is created (here: a pile without the starting Stashes, R1.3), not at its start."""
    op = make_api(staff=True)
    r = op.post("/api/v1/games", {"seats": 4, "bots": ["sensible"] * 2, "setup": {"pile": [1, 2, 3]}})
    assert_problem(r, 422, "invalid_setup")
    assert not Game.objects.exists()


def test_table_for_five_rejects_cross_game_commands() -> None:
    first = start_table(4)
    second = start_table(4)
    # a player of the first game cannot act in the second one
    cards = _face_up(second)
    _unchanged(
        second,
        lambda: first.apis[0].command(second.game_id, "distribute-loot", {"shares": [cards, [], [], []]}),
        403,
        "not_seated",
    )
