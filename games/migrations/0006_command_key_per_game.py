"""An Idempotency-Key is scoped to its game: unique per (game, player, key), looked up with the game (issue 17:
every statement of a command stays inside one game, so a database distributed by game answers it from one
shard, docs/SCALING.md)."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_scale_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="commandresult",
            name="command_result_unique_key",
        ),
        migrations.AddConstraint(
            model_name="commandresult",
            constraint=models.UniqueConstraint(
                fields=("game", "player", "key"), name="command_result_unique_game_key"
            ),
        ),
    ]
