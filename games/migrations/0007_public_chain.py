"""The public hash chain (docs/AUDIT.md, "The public chain"): ``Event.public_hash`` and the game's
``public_head_hash``, filled for the events already stored.

The backfill is the one UPDATE the event log ever sees: it fills a column derived from each event's own
immutable fields (nothing of the event changes), with the append-only trigger disabled for that statement only,
inside this migration's transaction.
"""

from typing import Any

from django.db import migrations, models

from games.audit import public

GENESIS = "0" * 64


def backfill(apps: Any, schema_editor: Any) -> None:
    Game = apps.get_model("games", "Game")
    Event = apps.get_model("games", "Event")
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # ALTER TABLE refuses pending trigger events
        cursor.execute("ALTER TABLE games_event DISABLE TRIGGER games_event_no_update_delete")
        for game in Game.objects.filter(version__gt=0).only("id", "ruleset").iterator():
            prev = GENESIS
            hashes: list[tuple[str, int]] = []
            for row in (
                Event.objects.filter(game_id=game.id)
                .order_by("seq")
                .only("id", "seq", "type", "schema_version", "data", "created_at")
                .iterator()
            ):
                prev = public.public_hash(
                    game_id=game.id,
                    seq=row.seq,
                    type=row.type,
                    schema_version=row.schema_version,
                    public_data=public.spectator_data(game.ruleset, row.data),
                    created_at=row.created_at.isoformat(),
                    prev_public_hash=prev,
                )
                hashes.append((prev, row.id))
            # one round trip per game, not per event (psycopg pipelines executemany)
            cursor.executemany("UPDATE games_event SET public_hash = %s WHERE id = %s", hashes)
            cursor.execute("UPDATE games_game SET public_head_hash = %s WHERE id = %s", [prev, game.id])
        cursor.execute("ALTER TABLE games_event ENABLE TRIGGER games_event_no_update_delete")


class Migration(migrations.Migration):
    dependencies = [("games", "0006_command_key_per_game")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="public_head_hash",
            field=models.CharField(
                blank=True,
                default="",
                help_text="The last event's public hash (the chain over what a spectator sees, docs/AUDIT.md).",
                max_length=64,
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="public_hash",
            field=models.CharField(
                default="",
                help_text="The public chain's hash: over the event as a spectator sees it while the game runs, and the previous event's public hash (games.audit.public). Served at any time.",
                max_length=64,
            ),
            preserve_default=False,
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
