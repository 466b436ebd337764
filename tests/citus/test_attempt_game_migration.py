"""``notifications/migrations/0005``: an attempt made before it gets its delivery's game (the key it is
distributed by on Citus), on a plain PostgreSQL."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("notifications", "0003_delivery_queued_until")]
AFTER = [("notifications", "0005_deliveryattempt_game")]


def test_existing_attempts_get_their_deliverys_game() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    try:
        with connection.cursor() as c:
            c.execute(
                "INSERT INTO players_player (password, is_superuser, username, first_name, last_name, "
                "email, is_staff, is_active, date_joined, display_name) "
                "VALUES ('', false, 'mig', '', '', '', false, true, now(), '') RETURNING id"
            )
            (player,) = c.fetchone()
            c.execute(
                "INSERT INTO games_game (ruleset, name, status, creator_id, seat_count, options, "
                "allow_spectators, fair, version, head_hash, public_head_hash, public_chain, revision, "
                "waiting_step, created_at) "
                "VALUES ('goodcritters', '', 'cancelled', %s, 4, '{}', true, true, 0, '', '', 2, 0, '', "
                "now()) RETURNING id",
                [player],
            )
            (game,) = c.fetchone()
            c.execute(
                "INSERT INTO notifications_webhookendpoint (player_id, url, description, events, secret, "
                "enabled, consecutive_failures, last_failure, disabled_reason, created_at, updated_at) "
                "VALUES (%s, 'https://example.org/h', '', '[]', 's', true, 0, '', '', now(), now()) "
                "RETURNING id",
                [player],
            )
            (endpoint,) = c.fetchone()
            c.execute(
                "INSERT INTO notifications_delivery (id, endpoint_id, game_id, seq, type, payload, status, "
                "attempts, next_attempt_at, created_at) VALUES ('msg_1', %s, %s, 1, 'game.event', '{}', "
                "'delivered', 1, now(), now())",
                [endpoint, game],
            )
            c.execute(
                "INSERT INTO notifications_deliveryattempt (delivery_id, number, started_at, duration_ms, "
                "status_code, error, response_excerpt) VALUES ('msg_1', 1, now(), 5, 200, '', '')"
            )
        executor = MigrationExecutor(connection)
        executor.migrate(AFTER)
        with connection.cursor() as c:
            c.execute("SELECT game_id FROM notifications_deliveryattempt WHERE delivery_id = 'msg_1'")
            assert c.fetchall() == [(game,)]
            c.execute(
                "SELECT is_nullable FROM information_schema.columns "
                "WHERE table_name = 'notifications_deliveryattempt' AND column_name = 'game_id'"
            )
            assert c.fetchall() == [("NO",)]
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
