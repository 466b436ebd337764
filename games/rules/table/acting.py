"""Who acts now and with what (issue #24): the commands each seat may send (``legal_commands``), with the
values each body field may take (``moves``), the seats a step waits on (``acting``), and what a bot plays."""

from __future__ import annotations

from typing import Any, Final

from games.rules.core import JSON, Seat
from games.rules.moves import Choice, Move, Subset, Text

from . import commands as cmd
from .base import TableBase
from .messages import MAX_MESSAGE_LENGTH
from .pause import pause_end
from .state import TableState

# what a seat may send at any time while the game runs (not a part of the step: left out of ``acting``)
ANYTIME: Final = frozenset(c.TYPE for c in (cmd.SendMessage, cmd.Resign, cmd.TakeBackSeat, cmd.VotePause))


class Acting(TableBase):
    _game_commands: dict[str, type[Any]]  # the game's player commands by TYPE

    def legal_commands(self, state: TableState, seat: Seat) -> list[str]:
        if not state.opened or self.game.is_terminal(state.game) or not 0 <= seat < state.n:
            return []
        if state.resigned[seat]:
            return [cmd.SendMessage.TYPE]
        settings = state.settings
        assert settings is not None
        extra: list[str] = []
        if state.autopilot[seat]:
            extra.append(cmd.TakeBackSeat.TYPE)
        elif settings.pause_by == "vote" and seat not in state.pause_votes:
            extra.append(cmd.VotePause.TYPE)
        if state.paused_at is not None or state.autopilot[seat]:  # a bot plays the seat: no game command
            return [*extra, cmd.Resign.TYPE, cmd.SendMessage.TYPE]
        out = list(self.game.legal_commands(state.game, seat))
        w = self._waiting(state.game)
        if (
            w is not None
            and w.ready
            and seat in w.seats
            and (state.ready[seat] or self.game.default_command(state.game, seat, "timeout") is None)
        ):  # up once the seat's choice is made, and down again
            out.append(cmd.SetReady.TYPE)
        return [*out, *extra, cmd.Resign.TYPE, cmd.SendMessage.TYPE]

    # --- who acts now and with what (issue #24) -------------------------------------------------------
    def moves(self, state: TableState, seat: Seat) -> list[Move]:
        """The commands ``seat`` may send now with the values each body field may take (issue #24): the
        game's own (``game.moves``, computed by the game's rules from the checks its ``decide`` makes) and the
        table's, for exactly the commands :meth:`legal_commands` names (a paused game, a seat on autopilot or
        resigned: only the table's). A command the game names but for which no arguments are accepted now
        (e.g. a trade the seat cannot match) is left out."""
        names = self.legal_commands(state, seat)
        if not names:
            return []
        wanted = set(names)
        out: list[Move] = []
        if any(n in self._game_commands for n in names):
            out.extend(m for m in self.game.moves(state.game, seat) if m.command in wanted)
        for name in names:
            if name in self._game_commands:
                continue
            out.append(self._table_move(state, seat, name))
        return out

    def _table_move(self, state: TableState, seat: int, name: str) -> Move:
        if name == cmd.SetReady.TYPE:
            up = not state.ready[seat]
            return Move(name, (Choice("ready", "ready" if up else "not ready", (up,), required=False),))
        if name == cmd.VotePause.TYPE:
            pause = state.paused_at is None
            label = "pause the game" if pause else "resume the game"
            return Move(name, (Choice("pause", label, (pause,), required=False),))
        if name == cmd.SendMessage.TYPE:
            others = tuple(s for s in range(state.n) if s != seat)
            return Move(
                name,
                (
                    Text("text", "message", 1, MAX_MESSAGE_LENGTH),
                    Subset(
                        "to", "to (null: everyone)", others, 1, len(others), nullable=True, required=False
                    ),
                ),
            )
        return Move(name)  # Resign, TakeBackSeat: no fields

    def acting(self, state: TableState) -> JSON | None:
        """Who acts now (issue #24), the same in every game: the step, its number and deadline, the pause,
        and each seat that may act in the step now with the commands it may send (not those a seat may send
        at any time: ``Resign``, ``SendMessage``, ``VotePause``, ``TakeBackSeat``), ``waited_on`` when the
        step waits on it (it owes a play, or its ready flag is down). A seat the step does not wait on may
        still act (Loose Triggers' Countdown: anyone may ``Aim``, nobody must). ``None`` before the start and
        once the game is over. ``waiting``, the view's ``play.waiting_on`` and the games' own fields
        (Were-cats' ``turn``, Loose Triggers' ``pending_seat``) are views of it."""
        if not state.opened or self.game.is_terminal(state.game):
            return None
        w = self._waiting(state.game)
        waited = set(self._acting(state, w)) if w is not None else set()
        end = pause_end(state)
        paused = state.paused_at is not None
        seats: list[JSON] = []
        for s in range(state.n):
            commands = [c for c in self.legal_commands(state, s) if c not in ANYTIME]
            if commands or s in waited:
                seats.append(
                    {
                        "seat": s,
                        "commands": commands,
                        "waited_on": s in waited,
                        "ready": state.ready[s] if w is not None and w.ready and s in w.seats else None,
                        "autopilot": state.autopilot[s],
                    }
                )
        return {
            "step": None if w is None else w.step,
            "step_no": state.step_no if w is None else w.step_no,
            "due_at": None if w is None or paused else state.due_at,
            "paused": paused,
            "pause_until": None if end is None else end.isoformat(),
            "ready_flags": bool(w is not None and w.ready),
            "seats": seats,
        }

    def bot_command(self, state: TableState, seat: Seat, *, strategy: str, salt: int) -> Any:
        if not state.opened or self.game.is_terminal(state.game) or state.paused_at is not None:
            return None
        if not 0 <= seat < state.n or state.resigned[seat]:
            return None
        command = self.game.bot_command(state.game, seat, strategy=strategy, salt=salt)
        if command is not None:
            return command
        w = self._waiting(state.game)
        if (
            w is not None
            and w.ready
            and seat in w.seats
            and not state.ready[seat]
            and self.game.default_command(state.game, seat, "timeout") is None
        ):
            return cmd.SetReady(seat=seat, ready=True)
        return None
