"""Signals of the games app.

``events_appended`` is sent by :func:`games.store.append` inside the appending transaction, after the rows
are written and the game's head moved, with ``game`` (the locked :class:`games.models.Game`) and ``events``
(the new :class:`games.models.Event` rows, in order). Receivers that write (an outbox) write in the same
transaction, so a notification exists exactly when its events do; receivers that talk to the outside world
(a wake-up hint) must defer that to ``transaction.on_commit``.
"""

from __future__ import annotations

from django.dispatch import Signal

events_appended = Signal()
