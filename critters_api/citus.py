"""Citus, the path past one PostgreSQL (docs/SCALING.md): which table is distributed how, and whether the
database the service runs on is a Citus coordinator.

On a plain PostgreSQL nothing here changes anything: :func:`is_citus` is False and ``manage.py
citus_distribute`` says so and stops. On Citus the game is the distribution key: every game table is
co-located with ``games_game`` (a game's rows are on one shard, so its commands, reads and timers run on
one node), the tables read on every request and written rarely are reference tables (a copy on every
node), and the framework's own tables stay local to the coordinator.
"""

from __future__ import annotations

from django.db.backends.base.base import BaseDatabaseWrapper

# The distributed tables and their distribution column, games_game first (the others are co-located with it).
DISTRIBUTED: dict[str, str] = {
    "games_game": "id",
    "games_seat": "game_id",
    "games_event": "game_id",
    "games_commandresult": "game_id",
    "games_seatoffer": "game_id",
    "notifications_delivery": "game_id",
    "notifications_deliveryattempt": "game_id",
    "notifications_mailnotice": "game_id",
}
# Reference tables: read on every request (authentication, names) or in every command's transaction (the
# webhook endpoints' EXISTS), written rarely; Citus keeps a copy on every node.
# The mail settings and the composed mails are per player, written by the mail worker (not by a command's
# transaction, which only reads the settings): reference tables too.
REFERENCE: tuple[str, ...] = (
    "players_player",
    "players_apitoken",
    "notifications_webhookendpoint",
    "notifications_mailsettings",
    "notifications_outgoingmail",
)
# Local to the coordinator: the sweeper's heartbeat, the admin's and framework's tables (off the hot paths).
LOCAL: tuple[str, ...] = (
    "games_timerheartbeat",
    "players_player_groups",
    "players_player_user_permissions",
    "auth_group",
    "auth_group_permissions",
    "auth_permission",
    "django_admin_log",
    "django_content_type",
    "django_migrations",
    "django_session",
)

_FLAG = "_critters_citus"


def is_citus(connection: BaseDatabaseWrapper) -> bool:
    """Whether ``connection``'s database has the citus extension (read once per connection object: a
    database does not become a coordinator under a running process)."""
    known: bool | None = getattr(connection, _FLAG, None)
    if known is None:
        if connection.vendor != "postgresql":
            known = False
        else:
            with connection.cursor() as cursor:
                cursor.execute("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')")
                row = cursor.fetchone()
            known = bool(row and row[0])
        setattr(connection, _FLAG, known)
    return known


def one_connection_per_node(connection: BaseDatabaseWrapper) -> None:
    """On Citus, for the rest of the current transaction: run statements over several shards on one
    connection per node (``citus.multi_shard_modify_mode = sequential``). A transaction that writes a
    reference table (a webhook endpoint, a player) after such a statement needs it: Citus refuses to modify a
    reference table once a statement ran over several shards in parallel ("cannot modify table ... because
    there was a parallel operation on a distributed table"). Call it first in the transaction; nothing on a
    plain PostgreSQL."""
    if connection.in_atomic_block and is_citus(connection):
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'")
