"""Django's PostgreSQL backend, with a cheaper check of a reused connection.

With ``CONN_HEALTH_CHECKS`` Django asks a persistent connection ``SELECT 1`` at the start of every request:
a round trip on every request, more than a state read's own queries cost. An idle connection has nothing
to say, though: when the server ends it (a restart, a crash, an administrator) the socket becomes readable
(an error message, then end of file). So a connection that is idle with nothing to read is taken as usable
without asking; one with anything waiting, or not idle, is asked ``SELECT 1`` as before. A connection
that dies unseen (a silent network partition) fails its first query instead: that request gets the 503 of
:class:`critters_api.problems.DatabaseUnavailableMiddleware`, and Django closes the connection so the next
request reconnects.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg.pq import TransactionStatus


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        conn = self.connection
        if conn is None or conn.closed or conn.broken:
            return False
        if conn.info.transaction_status == TransactionStatus.IDLE:
            try:
                readable, _, _ = select.select([conn.fileno()], [], [], 0)
            except (OSError, ValueError):
                return False
            if not readable:
                return True
        return bool(super().is_usable())
