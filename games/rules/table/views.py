"""The views: the game's view with the table's facts in it (its slots left empty for them, and the ``play``
block every game's view has, issue #24), and the view with nothing hidden for a finished game's past state."""

from __future__ import annotations

from typing import Any, Final

from games.rules.core import JSON, Viewer

from .base import TableBase
from .pause import pause_end
from .state import TableState


class Views(TableBase):
    _view_keys: tuple[str, ...]  # every key a view has (issue #24)

    def view_for(self, state: TableState, viewer: Viewer) -> JSON:
        out = self.game.view_for(state.game, viewer)
        if not state.opened:  # every key there (the spec requires them all): null until the start
            return {**out, **{key: None for key in self._view_keys if key not in out}}
        w = None if self.game.is_terminal(state.game) else self._waiting(state.game)
        settings = state.settings
        assert settings is not None
        end = pause_end(state)
        # a game whose view has the table's facts in place (GoodCritters, as its clients know it) keeps them
        # there (deprecated in the spec) and has the ``play`` block every game has too (issue #24)
        fill(out, state, terminal=self.game.is_terminal(state.game))
        out["play"] = {
            "step": None if w is None else w.step,
            "step_no": state.step_no,
            "due_at": state.due_at if w is not None else None,
            "waiting_on": [] if w is None else list(self._acting(state, w)),
            "ready_flags": bool(w is not None and w.ready),
            "paused_at": state.paused_at,
            "pause_until": None if end is None else end.isoformat(),
            "pause_by": settings.pause_by,
            "pause_votes": sorted(state.pause_votes),
            "seats": [
                {
                    "seat": s,
                    "player": state.players[s],
                    "resigned": state.resigned[s],
                    "autopilot": state.autopilot[s],
                    "ready": state.ready[s],
                    "misses": state.misses[s],
                    "extensions_left": state.extensions_left[s],
                }
                for s in range(state.n)
            ],
        }
        return out

    def full_view(self, state: TableState) -> JSON:
        """The view with nothing hidden, for a past state of a finished game (the audit's step-through)."""
        full = self.game.full_view(state.game)
        out = self.view_for(state, None)
        if full is None:
            return out
        out.update(full)
        return fill(out, state, terminal=self.game.is_terminal(state.game)) if state.opened else out


_TOP_SLOTS: Final = ("due_at", "paused_at", "pause_until", "pause_votes")
_SEAT_SLOTS: Final = ("player", "resigned", "autopilot", "ready", "misses", "extensions_left")


def fill(out: JSON, state: TableState, *, terminal: bool) -> JSON:
    """The table's facts in the game's view too: ``players`` and each seat's ``player`` (the seats' holders
    now: a hand-over changes them, the game's own state never learns of it), and wherever the game's view
    leaves a slot empty (null) for the table: each seat's ``resigned``, ``autopilot``, ``ready``, ``misses``
    and ``extensions_left``, and the top level's ``due_at`` (null once the game is over), ``paused_at``,
    ``pause_until`` and ``pause_votes``."""
    out["players"] = list(state.players)
    end = pause_end(state)
    top = (
        None if terminal else state.due_at,
        state.paused_at,
        None if end is None else end.isoformat(),
        sorted(state.pause_votes),
    )
    for key, value in zip(_TOP_SLOTS, top, strict=True):
        if key in out and out[key] is None:
            out[key] = value
    seats = out.get("seats")
    if isinstance(seats, list):
        for s, seat in enumerate(seats[: state.n]):
            if not isinstance(seat, dict):
                continue
            facts: tuple[Any, ...] = (
                state.players[s],
                state.resigned[s],
                state.autopilot[s],
                state.ready[s],
                state.misses[s],
                state.extensions_left[s],
            )
            for key, value in zip(_SEAT_SLOTS, facts, strict=True):
                if key in seat and (seat[key] is None or key == "player"):
                    seat[key] = value
    return out
