"""Messages: talk is part of the record (R6.5), public or to other seats."""

from __future__ import annotations

from typing import Final

from . import commands as cmd
from . import events as ev
from .base import Run, TableBase
from .errors import fail

MAX_MESSAGE_LENGTH: Final = 2000


def send_message(table: TableBase, run: Run, seat: int, command: cmd.SendMessage) -> None:
    """Talk is part of the record (R6.5): 1 to 2000 characters, public or to other seats, each once."""
    state = run.state
    text = command.text
    if not text.strip() or len(text) > MAX_MESSAGE_LENGTH:
        fail("invalid_message", f"a message has 1 to {MAX_MESSAGE_LENGTH} characters")
    to = command.to
    if to is not None:
        if not to or len(set(to)) != len(to) or seat in to or any(not 0 <= s < state.n for s in to):
            fail("invalid_message", "a private message goes to one or more other seats, each once")
        to = tuple(sorted(to))
    run.emit(ev.MessageSent(seat=seat, text=text, to=to))
