"""An optional in-process cache of folded states, so a command does not re-fold a game's whole log.

Correctness rests on the log being append-only: the state after event ``v`` never changes. An entry is keyed
by the game and records the ruleset's ``version`` (the rules code that folded it), the ``version`` (last seq)
and the chain hash of that event. It is used only when the ruleset version matches and the stored chain
continues it exactly (the next event's ``prev_hash`` is the cached head, or the head is the game's head);
then only the newer events are folded. Anything else (another ruleset version, a rolled-back append, a
recreated database) falls back to the full fold. ``tests/store/test_statecache.py`` proves cached loads
equal a full replay at every version. ``STATE_CACHE_SIZE = 0`` turns it off.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings


@dataclass(frozen=True, slots=True)
class Entry:
    ruleset_version: str
    version: int
    head_hash: str
    state: Any
    # what the rules make of ``state`` for each viewer (``games.selectors.viewer_state``), computed at most
    # once per entry: pure functions of the state and the viewer, so they hold as long as the state does
    views: dict[Any, Any] = field(default_factory=dict, compare=False)


_entries: OrderedDict[int, Entry] = OrderedDict()
_lock = threading.Lock()


def size() -> int:
    return int(getattr(settings, "STATE_CACHE_SIZE", 256))


def get(game_id: int) -> Entry | None:
    with _lock:
        entry = _entries.get(game_id)
        if entry is not None:
            _entries.move_to_end(game_id)
        return entry


def put(game_id: int, entry: Entry) -> None:
    limit = size()
    if limit <= 0:
        return
    with _lock:
        current = _entries.get(game_id)
        if current is not None and current.version > entry.version:
            return
        _entries[game_id] = entry
        _entries.move_to_end(game_id)
        while len(_entries) > limit:
            _entries.popitem(last=False)


def views_of(game_id: int, state: Any) -> dict[Any, Any] | None:
    """The per-viewer memo of the cached entry whose state is ``state`` (the very object); ``None`` when
    ``state`` is not the game's cached fold (an older one, or the cache is off)."""
    with _lock:
        entry = _entries.get(game_id)
    return entry.views if entry is not None and entry.state is state else None


def clear() -> None:
    with _lock:
        _entries.clear()
