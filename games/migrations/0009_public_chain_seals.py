"""Public chain 2 (docs/AUDIT.md, "The public chain"; issue 28 item 15): each event's public hash also seals,
with a random salt revealed in the record, every fact a spectator is not shown (the unredacted data, the
command, its id and actor). Games that exist already keep the rule their events were hashed by (1: their
watchers' saved heads must keep matching); games created from now on use 2."""

from django.db import migrations, models

HELP = (
    "The public chain's rule the game's events are hashed by (docs/AUDIT.md, \"The public chain\"): "
    "2 seals every fact of an event; 1, games created before, only what a spectator sees."
)


class Migration(migrations.Migration):
    dependencies = [("games", "0008_seat_offer")]

    operations = [
        migrations.AddField(
            model_name="event",
            name="salt",
            field=models.CharField(
                blank=True,
                default="",
                help_text="Public chain 2: the 16 random bytes (hex) the event's seal is salted with (games.audit.public); secret until the game is over, then in the record. Empty under public chain 1.",
                max_length=32,
            ),
        ),
        # the games there are: rule 1 (the column's default while it is added); then new games: rule 2
        migrations.AddField(
            model_name="game",
            name="public_chain",
            field=models.PositiveSmallIntegerField(default=1, help_text=HELP),
        ),
        migrations.AlterField(
            model_name="game",
            name="public_chain",
            field=models.PositiveSmallIntegerField(default=2, help_text=HELP),
        ),
    ]
