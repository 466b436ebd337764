"""The fold of the table's own events (the game's go to the game): ``HANDLERS`` by event class."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from . import events as ev
from .state import TableState, setitem


def opened(s: TableState, e: ev.TableOpened) -> TableState:
    n = len(e.players)
    return s._replace(
        opened=True,
        n=n,
        players=e.players,
        settings=e.settings,
        resigned=(False,) * n,
        autopilot=(False,) * n,
        misses=(0,) * n,
        extensions_left=(e.settings.extensions,) * n,
        ready=(False,) * n,
    )


_new: Final = tuple.__new__
_READY, _STEP_NO, _STEP, _DUE_AT, _WARNED = (
    TableState._fields.index(name) for name in ("ready", "step_no", "step", "due_at", "warned")
)


def with_game(s: TableState, game: Any) -> TableState:
    """``s._replace(game=game)``, without ``_replace``'s keyword arguments (once per game command)."""
    new: TableState = _new(TableState, (game, *s[1:]))
    return new


def deadline_set(s: TableState, e: ev.DeadlineSet) -> TableState:
    v = list(s)
    v[_STEP_NO] = e.step_no
    v[_STEP] = e.step
    v[_DUE_AT] = e.due_at
    v[_WARNED] = None
    v[_READY] = (False,) * s.n
    new: TableState = _new(TableState, v)
    return new


def _missed(s: TableState, e: ev.DeadlineMissed) -> TableState:
    misses = list(s.misses)
    for seat in e.seats:
        misses[seat] += 1
    return s._replace(misses=tuple(misses))


def _extended(s: TableState, e: ev.DeadlineExtended) -> TableState:
    left = list(s.extensions_left)
    if e.reason == "absence":
        for seat in e.seats:
            left[seat] -= 1
    ready = tuple(False if i in e.unready else r for i, r in enumerate(s.ready))
    return s._replace(due_at=e.due_at, extensions_left=tuple(left), ready=ready)


def _same(s: TableState, e: Any) -> TableState:
    return s


def _near(s: TableState, e: ev.DeadlineNear) -> TableState:
    return s._replace(warned=e.due_at)


def _ready(s: TableState, e: ev.ReadySet) -> TableState:
    return s._replace(ready=setitem(s.ready, e.seat, e.ready))


def _returned(s: TableState, e: ev.PlayerReturned) -> TableState:
    return s._replace(misses=setitem(s.misses, e.seat, 0))


def _engaged(s: TableState, e: ev.AutopilotEngaged) -> TableState:
    return s._replace(autopilot=setitem(s.autopilot, e.seat, True))


def _released(s: TableState, e: ev.AutopilotReleased) -> TableState:
    return s._replace(autopilot=setitem(s.autopilot, e.seat, False), misses=setitem(s.misses, e.seat, 0))


def _handed_over(s: TableState, e: ev.SeatHandedOver) -> TableState:
    assert s.settings is not None
    return s._replace(
        players=setitem(s.players, e.seat, e.player),
        misses=setitem(s.misses, e.seat, 0),
        extensions_left=setitem(s.extensions_left, e.seat, s.settings.extensions),
    )


def _resigned(s: TableState, e: ev.PlayerResigned) -> TableState:
    return s._replace(
        resigned=setitem(s.resigned, e.seat, True), autopilot=setitem(s.autopilot, e.seat, False)
    )


def _voted(s: TableState, e: ev.PauseVoted) -> TableState:
    return s._replace(pause_votes=s.pause_votes | {e.seat})


def _paused(s: TableState, e: ev.GamePaused) -> TableState:
    return s._replace(paused_at=e.at, pause_votes=frozenset())


def _resumed(s: TableState, e: ev.GameResumed) -> TableState:
    return s._replace(paused_at=None, due_at=e.due_at, pause_votes=frozenset())


def _passed(s: TableState, e: ev.DeadlinePassed) -> TableState:
    """The deadline passed: none runs until the next step opens (it gets its own, DeadlineSet)."""
    return s._replace(due_at=None)


HANDLERS: Final[dict[type[Any], Callable[[TableState, Any], TableState]]] = {
    ev.TableOpened: opened,
    ev.DeadlineSet: deadline_set,
    ev.DeadlineMissed: _missed,
    ev.DeadlineExtended: _extended,
    ev.DeadlinePassed: _passed,
    ev.DeadlineNear: _near,
    ev.ReadySet: _ready,
    ev.PlayerReturned: _returned,
    ev.AutopilotEngaged: _engaged,
    ev.AutopilotReleased: _released,
    ev.SeatHandedOver: _handed_over,
    ev.PlayerResigned: _resigned,
    ev.MessageSent: _same,
    ev.PauseVoted: _voted,
    ev.GamePaused: _paused,
    ev.GameResumed: _resumed,
}
