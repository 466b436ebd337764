"""The hot statements are router-planned on a real Citus cluster (issue #27; docs/SCALING.md, §3): each
statement of a command, a state read, the feed, a record, a verdict, a sweep and a webhook attempt of one
game runs on one shard, and the statements that fan out are exactly the ones SCALING.md lists.

The paths are driven in process through the API and the services, on the test database, with the service in
its Citus mode (``critters_api.citus.is_citus`` forced on, so the sweeper and the webhook claims issue the
statements they issue on a cluster); every statement is captured (``connection.execute_wrapper``), bound
(psycopg's client-side ``mogrify``) and EXPLAINed on the coordinator of a real cluster, which has the same
schema, distributed. Citus plans without the rows: a statement that names one game's id (``games_game.id``
or ``game_id``, the distribution column) is planned onto that id's shard, whatever the id. A plan's tasks
are counted in its ``Custom Scan (Citus Adaptive)`` nodes: one task (and no subplan) is a router plan.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.test import override_settings

from games import deadlines
from games.models import Game, GameStatus
from games.services import bots, lobby
from notifications import delivery
from notifications.models import Delivery, WebhookEndpoint
from tests.conftest import Table, start_table
from tests.outside.driver import kebab, next_command

from .harness import Receiver

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), pytest.mark.django_db(transaction=True)]

TRANSACTION_CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET|SHOW|DEALLOCATE)\b", re.I)

# The statements that visit every shard, by path (docs/SCALING.md, "What fans out"): anything else of a path
# must be router-planned. Each is named by a pattern of its text.
FAN_OUT: dict[str, dict[str, str]] = {
    "sweep": {
        "the due deadlines, listed without a lock (each then claimed on its shard)": (
            r"SELECT id FROM games_game WHERE status = 'running' AND \"deadline_at\" <= .* ORDER BY"
        ),
        "the due warnings, listed likewise": (
            r"SELECT id FROM games_game WHERE status = 'running' AND \"warn_at\" <="
        ),
        "the overdue bot turns": r'"games_game"\."bots_due_at" <=',
    },
    "webhook": {
        "the endpoint's deliveries held by tasks (its window)": (
            r'SELECT COUNT\(\*\).*FROM "notifications_delivery" '
            r'WHERE \("notifications_delivery"\."endpoint_id" ='
        ),
        "the endpoint's due deliveries, listed without a lock (each then locked on its shard)": (
            r'SELECT "notifications_delivery"\."id" AS "pk", '
            r'"notifications_delivery"\."game_id" AS "game_id" '
            r'FROM "notifications_delivery" WHERE \("notifications_delivery"\."endpoint_id" ='
        ),
        "a task's delivery, found by its id": (
            r'SELECT "notifications_delivery"\."endpoint_id" AS "endpoint_id", '
            r'"notifications_delivery"\."game_id" AS "game_id" '
            r'FROM "notifications_delivery" WHERE "notifications_delivery"\."id" ='
        ),
        "the webhook sweep: endpoints with due deliveries": (
            r'SELECT DISTINCT "notifications_delivery"\."endpoint_id"'
        ),
    },
    "command with a webhook": {
        "the endpoint's deliveries held by tasks (its window)": (
            r'SELECT "notifications_delivery"\."endpoint_id" AS "endpoint_id", '
            r'COUNT\("notifications_delivery"\."id"\)'
        ),
    },
    "lists": {
        "the lobby: every shard's newest page": r'FROM "games_game"',
        "a player's seats, by player": r'FROM "games_seat"',
        "the rosters of a page of games": r"WHERE g\.id = ANY\(",
    },
}


class Captured:
    def __init__(self) -> None:
        self.statements: list[tuple[str, str, Any]] = []
        self.path = ""

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        if self.path:
            self.statements.append((self.path, sql, params))
        return execute(sql, params, many, context)


@pytest.fixture
def captured() -> Iterator[Captured]:
    capture = Captured()
    connection._critters_citus = True  # type: ignore[attr-defined]  # the statements issued on Citus
    try:
        with connection.execute_wrapper(capture):
            yield capture
    finally:
        delattr(connection, "_critters_citus")


@dataclass
class Planned:
    """What Citus made of one statement: the most tasks of any of its jobs (the statement's own and those of
    its subplans, e.g. a CTE run first), how many jobs, and the nodes the tasks run on."""

    tasks: int = 0
    jobs: int = 0
    nodes: set[str] = field(default_factory=set)

    @property
    def routed(self) -> bool:
        """On one shard's node: every job one task (or none: a plan PostgreSQL runs alone), one node."""
        return self.tasks <= 1 and len(self.nodes) <= 1


def planned(plan: dict[str, Any]) -> Planned:
    out = Planned()

    def walk(node: dict[str, Any]) -> None:
        distributed = node.get("Distributed Query")
        if distributed is not None:
            for sub in distributed.get("Subplans", []):
                for stmt in sub.get("PlannedStmt", []):
                    walk(stmt.get("Plan", stmt))
            job = distributed.get("Job", {})
            out.jobs += 1
            out.tasks = max(out.tasks, int(job.get("Task Count", 0)))
            for task in job.get("Tasks", []):
                if "Node" in task:
                    out.nodes.add(str(task["Node"]))
        for child in node.get("Plans", []):
            walk(child)

    walk(plan)
    return out


def explain_on(url: str, statements: list[tuple[str, str, Any]]) -> list[tuple[str, str, Planned]]:
    """(path, bound sql, its plan) of each statement, EXPLAINed on the coordinator at ``url``."""
    out = []
    with psycopg.connect(url, autocommit=True) as conn:
        bind = psycopg.ClientCursor(conn)
        for path, sql, params in statements:
            if TRANSACTION_CONTROL.match(sql):
                continue
            bound = bind.mogrify(sql, params)
            row = conn.execute("EXPLAIN (FORMAT JSON) " + bound).fetchone()
            assert row is not None
            doc = row[0] if not isinstance(row[0], str) else json.loads(row[0])
            out.append((path, bound, planned(doc[0]["Plan"])))
    return out


def _play_one(table: Table, rnd: random.Random) -> None:
    for seat, api in enumerate(table.apis):
        view = table.state(seat)
        step = next_command(view, rnd)
        if step is not None:
            kind, body = step
            r = api.command(
                table.game_id, kebab(kind), body, {"Idempotency-Key": f"k-{seat}-{view['version']}"}
            )
            assert r.status_code == 200, r.content
            return
    raise AssertionError("no seat had a command to send")


def test_every_hot_statement_runs_on_one_shard_and_only_the_listed_ones_fan_out(
    citus_url: str, captured: Captured
) -> None:
    table = start_table(4, {"deadlines": {"distribute": 3600, "choose": 3600}, "warn_before": 60})
    gid = table.game_id
    api = table.apis[0]
    rnd = random.Random(7)

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
    report = deadlines.sweep(now=due + timedelta(seconds=1))
    assert report.expired == [gid]
    captured.path = ""
    over = lobby.game_create(creator=api.player, seats=4, join=False, bots=["sensible"] * 4)
    bots.bots_play(over.pk, max_steps=10_000)
    assert Game.objects.get(pk=over.pk).status == GameStatus.OVER
    captured.path = "record"
    assert api.get(f"/api/v1/games/{over.pk}/record").status_code == 200
    captured.path = "verify"
    assert api.get(f"/api/v1/games/{over.pk}/verify").json()["ok"] is True

    # a webhook: the command that writes its delivery, then the attempt (to a receiver on loopback)
    with Receiver() as receiver, override_settings(WEBHOOK_ALLOWED_NETWORKS=["127.0.0.0/8"]):
        captured.path = ""
        r = api.post("/api/v1/me/webhooks", {"url": receiver.url, "events": ["game.event"]})
        assert r.status_code == 201, r.content
        captured.path = "command with a webhook"
        assert api.command(gid, "send-message", {"text": "hooked", "to": None}).status_code == 200
        captured.path = ""
        sent = Delivery.objects.filter(endpoint=WebhookEndpoint.objects.get(pk=r.json()["id"]))
        pending = list(sent.values_list("pk", flat=True))
        assert pending
        captured.path = "webhook"
        for delivery_id in pending:
            delivery.attempt_delivery(delivery_id)
        delivery.enqueue_due()
        captured.path = ""
        assert receiver.received, "the receiver got the webhook"
    captured.path = "lists"
    assert api.get("/api/v1/games", status="running").status_code == 200
    assert api.get("/api/v1/me/games").status_code == 200
    assert api.get("/api/v1/me/inbox").status_code == 200
    captured.path = ""

    plans = explain_on(citus_url, captured.statements)
    by_path: dict[str, list[tuple[str, Planned]]] = defaultdict(list)
    for path, sql, plan in plans:
        by_path[path].append((sql, plan))
    assert set(by_path) == {
        "command",
        "state read",
        "events feed",
        "sweep",
        "record",
        "verify",
        "command with a webhook",
        "webhook",
        "lists",
    }
    unexpected: list[str] = []
    fanned: dict[str, set[str]] = defaultdict(set)
    routed = steps = 0
    for path, rows in by_path.items():
        for sql, plan in rows:
            if plan.routed:
                routed += 1
                steps += plan.jobs > 1
                continue
            names = [name for name, pattern in FAN_OUT.get(path, {}).items() if re.search(pattern, sql, re.S)]
            if names:
                fanned[path].update(names)
            else:
                unexpected.append(f"{path}: {plan.tasks} tasks on {len(plan.nodes)} nodes: {sql[:400]}")
    summary = {
        p: f"{len(rows)} statements, fan-out {sorted(fanned.get(p, set()))}" for p, rows in by_path.items()
    }
    print(
        "\nrouter check on Citus:",
        json.dumps(summary, indent=1),
        f"\n{routed} statements on one shard ({steps} of them in two steps there: an append's CTE, then "
        "the game)",
    )
    assert not unexpected, "statements that fan out and SCALING.md does not list:\n" + "\n".join(unexpected)
    # the single-game paths fan out nowhere; the sweep's and the webhooks' fan-outs are the listed ones
    for path in ("command", "state read", "events feed", "record", "verify"):
        assert not fanned.get(path), (path, fanned.get(path))
    assert fanned["sweep"] == set(FAN_OUT["sweep"]), fanned["sweep"]
    assert routed >= 30


def test_the_count_of_tasks_tells_a_fan_out_from_a_routed_statement(citus_url: str) -> None:
    """The check is not vacuous: a read of the log by type and the sweep's claim as one statement (what
    the sweeper issues on plain PostgreSQL) are planned over every shard (the claim is refused: ``FOR
    UPDATE`` over several shards); the same read of one game runs on one shard."""
    url = citus_url
    ((_p, _q, plan),) = explain_on(url, [("t", "SELECT id FROM games_event WHERE type = %s", ["x"])])
    assert plan.tasks > 1
    assert not plan.routed
    one = [("t", "SELECT id FROM games_event WHERE game_id = %s AND seq > %s", [5, 0])]
    ((_p, _q, plan),) = explain_on(url, one)
    assert plan.routed
    assert plan.tasks == 1
    with pytest.raises(psycopg.errors.FeatureNotSupported):
        explain_on(url, [("t", deadlines._CLAIM_SQL["deadline_at"], ["2026-01-01T00:00:00Z", 25])])
