"""Reads: ETag / If-None-Match, idempotent retries, the redacted feed with long-poll, spectators, schema."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from django.test import Client

from critters_api import schema_view
from games.models import CommandResult, Event
from tests.conftest import Api, Table, assert_problem, event_rows, make_api, start_table

pytestmark = pytest.mark.django_db


def test_etag_and_if_none_match(table: Table) -> None:
    api = table.apis[1]
    url = f"/api/v1/games/{table.game_id}/state"
    first = api.get(url)
    etag = first["ETag"]
    assert first.status_code == 200
    assert etag
    not_modified = api.get(url, headers={"If-None-Match": etag})
    assert not_modified.status_code == 304
    assert not_modified.content == b""
    r = table.apis[2].command(table.game_id, "send-message", {"text": "hi"})
    assert r["ETag"] != etag
    assert api.get(url, headers={"If-None-Match": etag}).status_code == 200
    assert api.get(url, headers={"If-None-Match": r["ETag"]}).status_code == 304


def test_if_match_current_applies(table: Table) -> None:
    etag = table.apis[0].get(f"/api/v1/games/{table.game_id}/state")["ETag"]
    r = table.apis[0].command(table.game_id, "send-message", {"text": "ok"}, {"If-Match": etag})
    assert r.status_code == 200
    assert r["ETag"] != etag
    assert r.json()["version"] == event_rows(table.game_id)[-1][0]


def test_idempotent_retry_returns_the_first_response(table: Table) -> None:
    boss = table.apis[0]
    cards = [c["id"] for c in table.state(0)["state"]["table"]]
    headers = {"Idempotency-Key": "deal-round-1"}
    body = {"shares": [cards, [], [], []]}
    first = boss.command(table.game_id, "distribute-loot", body, headers)
    assert first.status_code == 200
    log = event_rows(table.game_id)
    table.apis[1].command(table.game_id, "send-message", {"text": "in between"})
    again = boss.command(table.game_id, "distribute-loot", body, headers)
    assert again.status_code == 200
    assert again.json() == first.json()
    assert again["ETag"] == first["ETag"]
    assert again["Idempotent-Replayed"] == "true"
    assert event_rows(table.game_id)[: len(log)] == log
    assert len(event_rows(table.game_id)) == len(log) + 1
    # the key is stored with the command's events (the events carry it as their command id)
    assert Event.objects.filter(game_id=table.game_id, command_id="deal-round-1").exists()
    assert CommandResult.objects.filter(key="deal-round-1").count() == 1


def test_a_rule_error_is_replayed_too(table: Table) -> None:
    api = table.apis[1]
    headers = {"Idempotency-Key": "try-1"}
    first = api.command(table.game_id, "choose-action", {"action": "rob"}, headers)
    assert_problem(first, 409, "wrong_step")
    again = api.command(table.game_id, "choose-action", {"action": "rob"}, headers)
    assert_problem(again, 409, "wrong_step")
    assert again.json() == first.json()


def test_keys_are_per_player(table: Table) -> None:
    headers = {"Idempotency-Key": "same"}
    assert table.apis[1].command(table.game_id, "send-message", {"text": "a"}, headers).status_code == 200
    assert table.apis[2].command(table.game_id, "send-message", {"text": "b"}, headers).status_code == 200
    assert [e for e in event_rows(table.game_id) if e[1] == "MessageSent"].__len__() == 2


def test_feed_is_redacted_per_viewer_and_has_no_gaps(table: Table) -> None:
    boss = table.apis[0]
    cards = [c["id"] for c in table.state(0)["state"]["table"]]
    boss.command(table.game_id, "distribute-loot", {"shares": [cards, [], [], []]})
    table.apis[1].command(table.game_id, "choose-action", {"action": "skim"})
    table.apis[1].command(table.game_id, "send-message", {"text": "psst", "to": [2]})
    feeds = {seat: table.apis[seat].get(f"/api/v1/games/{table.game_id}/events").json() for seat in range(4)}
    spectator = make_api().get(f"/api/v1/games/{table.game_id}/events").json()
    for feed in [*feeds.values(), spectator]:
        assert [e["seq"] for e in feed["events"]] == list(range(1, feed["version"] + 1))
        assert feed["head_hash"] is None

    def chosen(feed: dict[str, Any]) -> Any:
        return next(e["event"]["action"] for e in feed["events"] if e["event"]["type"] == "ActionChosen")

    def message(feed: dict[str, Any]) -> Any:
        return next(e["event"]["text"] for e in feed["events"] if e["event"]["type"] == "MessageSent")

    assert chosen(feeds[1]) == "skim"
    assert chosen(feeds[0]) is None
    assert chosen(spectator) is None
    assert message(feeds[1]) == message(feeds[2]) == "psst"
    assert message(feeds[3]) is None
    assert message(spectator) is None
    started = spectator["events"][0]["event"]
    assert started["seed"] is None
    assert started["pile"] is None
    assert all(stash is None for stash in started["stashes"])
    mine = feeds[2]["events"][0]["event"]["stashes"]
    assert mine[2] is not None
    assert mine[0] is None
    # paging with after/limit
    page = table.apis[0].get(f"/api/v1/games/{table.game_id}/events", after="2", limit="3").json()
    assert [e["seq"] for e in page["events"]] == [3, 4, 5]
    assert page["next_after"] == 5
    assert page["more"]


def test_spectators_see_no_secrets_and_cannot_act(table: Table) -> None:
    watcher = make_api()
    state = watcher.get(f"/api/v1/games/{table.game_id}/state").json()
    assert state["viewer"] is None
    assert state["legal_commands"] == []
    assert all(seat["stash"] is None for seat in state["state"]["seats"])
    seated = table.state(1)
    assert seated["viewer"] == 1
    assert seated["state"]["seats"][1]["stash"] is not None
    assert seated["waiting"]["seats"] == [0]
    assert seated["waiting"]["you"] is False
    assert table.state(0)["legal_commands"][0] == "DistributeLoot"


@pytest.mark.django_db(transaction=True)
def test_long_poll_waits_for_the_next_event(transactional_db: None) -> None:
    from django.db import connection

    table = start_table(4)
    api = table.apis[3]
    version = api.get(f"/api/v1/games/{table.game_id}/state").json()["version"]
    started = time.monotonic()
    empty = api.get(f"/api/v1/games/{table.game_id}/events", after=str(version), wait="0.3").json()
    assert empty["events"] == []
    assert time.monotonic() - started >= 0.3

    # a command arriving while a reader waits wakes it before its wait is over
    def send() -> None:
        try:
            table.apis[1].command(table.game_id, "send-message", {"text": "wake"})
        finally:
            connection.close()

    timer = threading.Timer(0.3, send)
    timer.start()
    started = time.monotonic()
    woke = api.get(f"/api/v1/games/{table.game_id}/events", after=str(version), wait="10").json()
    timer.join()
    assert time.monotonic() - started < 5
    assert [e["event"]["type"] for e in woke["events"]] == ["MessageSent"]


def test_my_games_lists_where_i_sit(table: Table) -> None:
    mine = table.apis[2].get("/api/v1/me/games").json()
    assert [g["id"] for g in mine["results"]] == [table.game_id]
    assert mine["results"][0]["your_seat"] == 2


def test_the_schema_validates_without_warnings(tmp_path: Any) -> None:
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    schema = yaml.safe_load(out.read_text())
    ops = {
        op["operationId"]: (path, method, op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
    }
    assert "games_commands_choose_action" in ops
    assert "games_events_list" in ops
    for op_id, (_path, method, op) in ops.items():
        assert op.get("description"), op_id
        assert "429" in op["responses"], op_id
        # a page for people (a mailed link opened in a browser) answers its own errors as pages too
        page = all(
            set(r.get("content", {})) == {"text/html"} for s, r in op["responses"].items() if s[0] == "2"
        )
        for status, response in op["responses"].items():
            if status.startswith(("4", "5")):
                kinds = set(response["content"])
                if page and status == "400":  # a link cut by a mail client: a page in words
                    assert kinds == {"text/html"}, (op_id, status)
                else:
                    assert "application/problem+json" in kinds, (op_id, status)
        if method == "post" and "requestBody" in op:
            ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            body = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
            # an object, or (a command name each ruleset shapes its own way) one of objects
            for one in [
                schema["components"]["schemas"][r["$ref"].rsplit("/", 1)[1]] for r in body.get("oneOf", [])
            ]:
                assert one["type"] == "object", op_id
                assert "seat" not in one.get("properties", {}), op_id
            assert body.get("type") == "object" or body.get("oneOf"), op_id
    # every event type of each ruleset has its own component with a single-value type enum
    for union in ("GoodCrittersEvent", "LooseTriggersEvent", "WereCatsEvent"):
        events = schema["components"]["schemas"][union]["oneOf"]
        assert len(events) > 10, union
        for ref in events:
            component = schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]
            assert len(component["properties"]["type"]["enum"]) == 1
    # commands never take a seat
    choose = schema["components"]["schemas"]["GoodCrittersChooseActionCommandRequest"]
    assert "seat" not in choose["properties"]
    action = choose["properties"]["action"]
    enum = schema["components"]["schemas"][action["$ref"].rsplit("/", 1)[1]] if "$ref" in action else action
    assert "vote_yes" in enum["enum"]


def test_docs_are_served_offline() -> None:
    c = Client()
    assert c.get("/api/schema/").status_code == 200
    for url in ("/api/docs/", "/api/redoc/"):
        page = c.get(url)
        assert page.status_code == 200
        assert b"cdn.jsdelivr" not in page.content
        assert b"unpkg" not in page.content


def test_healthz() -> None:
    r = Client().get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}
    assert_problem(Client().post("/healthz"), 405)


def test_healthz_without_a_database(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.db import connection

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("no database")

    monkeypatch.setattr(connection, "cursor", broken)
    assert_problem(Client().get("/healthz"), 503, "database_unavailable")


def test_unknown_urls_are_problems_too(alice: Api) -> None:
    assert_problem(Client().get("/nope"), 404, "not_found")
    assert_problem(alice.get("/api/v1/games/1/commands/fly"), 404)


def test_the_schema_is_served_to_concurrent_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """drf-spectacular's generator is not thread-safe; the schema view generates once per process under a
    lock, so concurrent first requests in a threaded worker all get the same schema (never a 500)."""
    monkeypatch.setattr(schema_view, "_schemas", {})
    bodies: list[bytes] = []
    statuses: list[int] = []
    barrier = threading.Barrier(6)

    def fetch() -> None:
        client = Client()
        barrier.wait(timeout=30)
        response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
        statuses.append(response.status_code)
        bodies.append(response.content)

    threads = [threading.Thread(target=fetch) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert statuses == [200] * 6
    assert len(set(bodies)) == 1
    assert len(schema_view._schemas) == 1
