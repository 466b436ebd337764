"""Indexes for a large database (issue 17, bench/bigdb.py, docs/SCALING.md).

- The sweeper's timers are indexed among running games only (partial indexes): the claims read the due rows of
  running games, never the year of finished ones; the plain indexes on the three columns go.
- ``games_event.game_id`` loses its own index: the unique ``(game_id, seq)`` index serves every lookup by game
  (one index less to write on every append, and ~10% of the event table's indexes).
- ``games_game.status`` loses its two indexes (btree and ``LIKE``): the ``(status, created_at)`` index serves
  every equality on status.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_deadlines"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="event",
            name="game",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="games.game",
            ),
        ),
        migrations.AlterField(
            model_name="game",
            name="bots_due_at",
            field=models.DateTimeField(
                blank=True,
                help_text="Since when a bot or autopilot seat has something to do (the sweeper's safety net).",
                null=True,
            ),
        ),
        migrations.AlterField(
            model_name="game",
            name="deadline_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="game",
            name="status",
            field=models.CharField(
                choices=[
                    ("open", "Open (waiting for players)"),
                    ("running", "Running"),
                    ("over", "Over"),
                    ("cancelled", "Cancelled"),
                ],
                default="open",
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="game",
            name="warn_at",
            field=models.DateTimeField(
                blank=True, help_text="When the deadline warning is due (timers).", null=True
            ),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("status", "running")),
                fields=["deadline_at"],
                name="game_running_deadline_at",
            ),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("status", "running")), fields=["warn_at"], name="game_running_warn_at"
            ),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("status", "running")),
                fields=["bots_due_at"],
                name="game_running_bots_due_at",
            ),
        ),
    ]
