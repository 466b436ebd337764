"""Every statement of the hot paths stays inside one game, so that a database distributed by game (Citus, see
docs/SCALING.md) answers each from one shard.

The paths are driven through the API (a command with an Idempotency-Key, a state read, the event feed, the
record and the verdict of a finished game) and the sweeper (claim and apply a due deadline); every statement
they execute is captured with ``connection.execute_wrapper`` and EXPLAINed (``enable_seqscan`` off, so that
the plan shows which index can serve it, not what is cheapest on a nearly empty test database). Each scan of a
table distributed by game must carry a condition that pins the game: ``game_id`` (``id`` for the game table)
equal to a constant, or to the game of the row it is joined with (a co-located join); the sweeper's claim
instead reads an index meant for the sweep (the partial index of the running games' timers), the one statement
that visits every shard. Reference tables (players, tokens, webhook endpoints: small, copied to every node)
and the coordinator's own tables may be read by any index.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from critters_api.citus import DISTRIBUTED as CITUS_DISTRIBUTED
from critters_api.citus import LOCAL as CITUS_LOCAL
from critters_api.citus import REFERENCE as CITUS_REFERENCE
from games import deadlines
from games.models import Game, GameStatus
from games.services import bots, lobby
from tests.conftest import Table, start_table
from tests.outside.driver import kebab, next_command

pytestmark = pytest.mark.django_db(transaction=True)

# table -> its distribution column (docs/SCALING.md, "Distribution key of every table"): the map the Citus
# command distributes by (critters_api.citus), so a new table is placed once
DISTRIBUTED = CITUS_DISTRIBUTED
REFERENCE = set(CITUS_REFERENCE)
# and the catalog that tells a Citus coordinator (read once per connection, critters_api.citus.is_citus)
LOCAL = {*CITUS_LOCAL, "pg_extension"}
SWEEP_INDEXES = {"game_running_deadline_at", "game_running_warn_at", "game_running_bots_due_at"}
TRANSACTION_CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET|SHOW)\b", re.I)


class Captured:
    def __init__(self) -> None:
        self.statements: list[tuple[str, str, Any]] = []  # (path, sql, params)
        self.path = ""

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        self.statements.append((self.path, sql, params))
        return execute(sql, params, many, context)


@pytest.fixture
def captured() -> Iterator[Captured]:
    capture = Captured()
    with connection.execute_wrapper(capture):
        yield capture


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def _explain(sql: str, params: Any) -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        try:
            cursor.execute("EXPLAIN (FORMAT JSON, VERBOSE) " + sql, params)
            row = cursor.fetchone()
        finally:
            cursor.execute("RESET enable_seqscan")
    assert row is not None
    doc = row[0] if not isinstance(row[0], str) else json.loads(row[0])
    plan: dict[str, Any] = doc[0]["Plan"]
    return plan


def _pins_game(node: dict[str, Any], column: str) -> bool:
    """Whether a scan node's conditions pin one game: ``column = <constant or parameter>`` or ``column =
    <the game of the joined row>`` (``x.id`` / ``x.game_id``)."""
    conditions = " ".join(
        str(node.get(k, "")) for k in ("Index Cond", "Recheck Cond", "Filter", "Join Filter", "TID Cond")
    )
    alias = re.escape(node.get("Alias", ""))
    key = rf"(?:{alias}\.)?{column}"
    value = r"(?:'[^']*'::\w+|\d+|\$\d+|\(?\w+\.(?:id|game_id)\)?)"
    return bool(re.search(rf"\({key} = {value}\)|\({value} = {key}\)", conditions))


def _sweep_claim(node: dict[str, Any]) -> bool:
    """Whether the scan reads a sweep index by its timer (``<timer> <= ...``): the due rows of running games
    (a bitmap heap scan's index is its child's)."""
    for n in _nodes(node):
        name = n.get("Index Name")
        if name in SWEEP_INDEXES:
            timer = re.escape(name.removeprefix("game_running_"))
            if re.search(rf"\((?:\w+\.)?{timer} <= ", n.get("Index Cond", "")):
                return True
    return False


def check(path: str, sql: str, params: Any) -> list[str]:
    """What is wrong with one statement (empty: it stays inside one game or is the sweep's claim)."""
    insert = re.match(r'^\s*(?:WITH \w+ AS \()?\s*INSERT INTO "?(\w+)"? \(([^)]*)\)', sql, re.I)
    problems = []
    plan = _explain(sql, params)
    for node in _nodes(plan):
        table = node.get("Relation Name")
        if table is None:
            continue
        if node.get("Node Type") == "ModifyTable" and node.get("Operation") != "Insert":
            continue  # the rows an UPDATE or DELETE changes are those its scan below found (checked there)
        if node.get("Node Type") == "ModifyTable":
            column = DISTRIBUTED.get(table)
            if column is not None and not (insert and f'"{column}"' in insert.group(2).replace(" ", "")):
                problems.append(f"{path}: INSERT INTO {table} does not name its game ({column}): {sql[:200]}")
            continue
        if table in REFERENCE or table in LOCAL:
            continue
        column = DISTRIBUTED.get(table)
        if column is None:
            problems.append(f"{path}: {table} is in no distribution class: {sql[:200]}")
            continue
        if _sweep_claim(node):
            continue
        if not _pins_game(node, column):
            problems.append(
                f"{path}: {node.get('Node Type')} on {table} ({node.get('Index Name')}) does not pin one "
                f"game ({column}): {node.get('Index Cond') or node.get('Filter')}; {sql[:300]}"
            )
    return problems


def _play_one(table: Table, rnd: random.Random) -> None:
    for seat, api in enumerate(table.apis):
        view = table.state(seat)
        step = next_command(view, rnd)
        if step is not None:
            kind, body = step
            key = {"Idempotency-Key": f"k-{seat}-{view['version']}"}
            r = api.command(table.game_id, kebab(kind), body, key)
            assert r.status_code == 200, r.content
            return
    raise AssertionError("no seat had a command to send")


def test_every_statement_of_the_hot_paths_stays_inside_one_game(captured: Captured) -> None:
    table = start_table(4, {"deadlines": {"distribute": 3600, "choose": 3600}})
    gid = table.game_id
    rnd = random.Random(17)
    api = table.apis[0]

    captured.path = "command"
    _play_one(table, rnd)
    key = {"Idempotency-Key": "hello-1"}
    assert api.command(gid, "send-message", {"text": "hello", "to": None}, key).status_code == 200
    assert api.command(gid, "send-message", {"text": "hello", "to": None}, key).status_code == 200  # a retry
    captured.path = "state read"
    assert api.get(f"/api/v1/games/{gid}/state").status_code == 200
    captured.path = "events feed"
    assert api.get(f"/api/v1/games/{gid}/events", after=0).status_code == 200
    assert api.get(f"/api/v1/games/{gid}/events", after=2, limit=5).status_code == 200
    captured.path = "sweep"
    due = Game.objects.get(pk=gid).deadline_at
    assert due is not None
    report = deadlines.sweep(now=due + timedelta(seconds=1), timers=("deadline_at", "warn_at"))
    assert report.expired == [gid]
    captured.path = ""
    # a finished game (every seat a bot, played to the end by the bots' own code): its record and verdict
    over = lobby.game_create(creator=api.player, seats=4, join=False, bots=["sensible"] * 4)
    bots.bots_play(over.pk, max_steps=10_000)
    assert Game.objects.get(pk=over.pk).status == GameStatus.OVER
    captured.path = "record"
    assert api.get(f"/api/v1/games/{over.pk}/record").status_code == 200
    captured.path = "verify"
    assert api.get(f"/api/v1/games/{over.pk}/verify").json()["ok"] is True
    captured.path = ""

    statements = [(p, sql, params) for p, sql, params in captured.statements if p and sql]
    seen = {p for p, _, _ in statements}
    assert seen == {"command", "state read", "events feed", "sweep", "record", "verify"}
    problems: list[str] = []
    checked = 0
    for path, sql, params in statements:
        if TRANSACTION_CONTROL.match(sql):
            continue
        problems += check(path, sql, params)
        checked += 1
    assert checked >= 15
    assert not problems, "\n".join(problems)
    assert timezone.now()  # the clock was not frozen by the sweep's fixed now


def test_the_check_catches_a_statement_that_reads_every_game() -> None:
    """The check is not vacuous: a read of the event log by type (every game) and the lobby's listing (every
    running game, newest first) are flagged; the same with the game pinned is not."""
    start_table(4)
    assert check("t", "SELECT id FROM games_event WHERE type = %s", ["GameStarted"])
    lobby = "SELECT id FROM games_game WHERE status = 'running' ORDER BY created_at DESC LIMIT 20"
    assert check("t", lobby, [])
    assert not check("t", "SELECT id FROM games_event WHERE game_id = %s AND seq > %s", [1, 0])


def test_an_idempotency_key_is_scoped_to_its_game() -> None:
    """The key's lookup stays inside the game (above): the same key on another game is another request,
    applied there; on the same game it is a retry (the first response), with another body a 422."""
    shared = start_table(4)
    player = shared.apis[1]
    other = start_table(4)
    # the same player in a second game, with three others
    game = player.post("/api/v1/games", {"seats": 4}).json()["id"]
    for api in other.apis[:3]:
        assert api.post(f"/api/v1/games/{game}/join").status_code == 200
    key = {"Idempotency-Key": "same-key"}
    body = {"text": "hello", "to": None}
    first = player.command(shared.game_id, "send-message", body, key)
    assert first.status_code == 200, first.content
    again = player.command(shared.game_id, "send-message", body, key)
    assert again.json()["version"] == first.json()["version"]  # a retry: the first response
    elsewhere = player.command(game, "send-message", body, key)
    assert elsewhere.status_code == 200, elsewhere.content
    assert elsewhere.json()["game"]["id"] == game
    assert Game.objects.get(pk=game).version == elsewhere.json()["version"]


def test_listings_read_the_players_games_by_key_not_the_whole_table(captured: Captured) -> None:
    """What grew with the database (bench/bigdb.py): the lobby of running games, a player's list and the inbox
    joined the seats and took DISTINCT over every column (a sort or a hash of every running game, of the whole
    game table). Now no statement of theirs does: the lobby is a semi-join read down its index, the player's
    games are fetched by primary key (ids from the seats' player index) and /me/games is sorted by an
    expression (``listed_at``) that keeps the planner from walking the game table newest first."""
    table = start_table(4)
    api = table.apis[0]
    captured.path = "lists"
    assert api.get("/api/v1/games", status="running").status_code == 200
    assert api.get("/api/v1/me/games").status_code == 200
    assert api.get("/api/v1/me/inbox").status_code == 200
    captured.path = ""
    games = [sql for p, sql, _ in captured.statements if p and sql and "games_game" in sql]
    assert len(games) >= 4
    for sql in games:
        assert "DISTINCT" not in sql, sql
        assert not re.search(r'JOIN "games_seat"', sql), sql
    listed = [sql for sql in games if '"listed_at"' in sql]
    assert listed, "the player's list is ordered by listed_at"
    # Django orders by the select list's position of ``listed_at`` (a number that moves with the columns)
    order = re.compile(r'ORDER BY (\d+|"listed_at") DESC, "games_game"."id" DESC')
    assert all(order.search(sql) for sql in listed), listed
