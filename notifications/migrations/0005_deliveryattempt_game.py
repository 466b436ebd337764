# The attempt carries its delivery's game (docs/SCALING.md): on Citus the table is distributed by game,
# co-located with its delivery. Added nullable, filled from the delivery, then made required. No foreign key
# constraint in the database: the delivery's own keeps the game, and a constraint's check at the worker's
# commit would take a key-share lock on the game row that a command holds while it waits for the endpoint
# row the worker holds (a deadlock).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_public_chain_seals"),
        ("notifications", "0004_mail_and_chat"),
    ]

    operations = [
        migrations.AddField(
            model_name="deliveryattempt",
            name="game",
            field=models.ForeignKey(
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="games.game",
            ),
        ),
        migrations.RunSQL(
            "UPDATE notifications_deliveryattempt AS a SET game_id = d.game_id "
            "FROM notifications_delivery AS d WHERE d.id = a.delivery_id",
            reverse_sql=migrations.RunSQL.noop,
        ),
        migrations.AlterField(
            model_name="deliveryattempt",
            name="game",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="games.game",
            ),
        ),
    ]
