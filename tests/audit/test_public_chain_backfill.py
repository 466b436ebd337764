"""The migration that adds the public chain fills it in for the events already stored (games played before
it): the same hashes the store computes at append time."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import connection, transaction

from games import store
from games.models import Event, Game
from tests.audit.play import play_to_end
from tests.conftest import start_table

pytestmark = pytest.mark.django_db

migration = importlib.import_module("games.migrations.0007_public_chain")


def test_the_backfill_computes_the_public_chain_of_stored_events(monkeypatch: pytest.MonkeyPatch) -> None:
    # games of that day: public chain 1 (migration 0009 keeps them on it; games created since use 2)
    monkeypatch.setattr(Game._meta.get_field("public_chain"), "_get_default", lambda: 1)
    table = start_table(4)
    play_to_end(table.game_id, {a.player.pk: a for a in table.apis})
    running = start_table(5)  # and a game still running
    stored = {
        gid: list(Event.objects.filter(game_id=gid).order_by("seq").values_list("public_hash", flat=True))
        for gid in (table.game_id, running.game_id)
    }
    heads = dict(Game.objects.filter(pk__in=stored).values_list("pk", "public_head_hash"))
    with connection.cursor() as cursor:  # as the events were before the migration
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending trigger events before ALTER TABLE
        cursor.execute("ALTER TABLE games_event DISABLE TRIGGER games_event_no_update_delete")
        cursor.execute("UPDATE games_event SET public_hash = ''")
        cursor.execute("ALTER TABLE games_event ENABLE TRIGGER games_event_no_update_delete")
        cursor.execute("UPDATE games_game SET public_head_hash = ''")
    assert not store.verify_chain(table.game_id)
    with connection.schema_editor() as editor:
        migration.backfill(apps, editor)
    for gid, hashes in stored.items():
        assert (
            list(Event.objects.filter(game_id=gid).order_by("seq").values_list("public_hash", flat=True))
            == hashes
        )
        assert Game.objects.get(pk=gid).public_head_hash == heads[gid] == hashes[-1]
        assert store.verify_chain(gid)
    # the append-only trigger is back
    with pytest.raises(Exception, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE games_event SET public_hash = '' WHERE game_id = %s", [table.game_id])
