"""What a viewer sees (WC4.2): the table is open, so every seat and a spectator see the same; the only
secret is the seed, in ``GameStarted``, until the game is over."""

from __future__ import annotations

from typing import Any, cast

from games.rules import rng
from games.rules.core import JSON, Viewer

from . import events as ev
from .decide import points
from .serde import coins_to_json, event_to_json
from .state import NEW, OVER, PLACE, State
from .types import GameView, SeatView
from .waiting import waiting


def redact_event(event: ev.Event, viewer: Viewer, *, terminal: bool) -> JSON:
    """The event as ``viewer`` may see it: everything but the seed until the game is over."""
    out = event_to_json(event)
    if isinstance(event, ev.GameStarted) and not terminal:
        out["seed"] = None
    return out


def _seat(state: State, seat: int) -> SeatView:
    return {
        "seat": seat,
        "player": state.players[seat],
        "starting_kind": cast(Any, state.starting[seat]),
        "done": state.done[seat],
        "resigned": state.resigned[seat] if state.resigned else False,
        "quarter": state.quarter == seat,
        "hand": cast(Any, coins_to_json(state.hands[seat])),
        "eat": cast(Any, coins_to_json(state.eats[seat])),
        "scare": cast(Any, coins_to_json(state.scares[seat])),
        "cats": [
            {"slot": i + 1, "kind": cast(Any, cat.kind), "heads": cat.heads}
            for i, cat in enumerate(state.cats[seat])
            if cat is not None
        ],
        "points": points(state, seat),
    }


def typed_view(state: State, viewer: Viewer) -> GameView:
    started = state.phase != NEW
    over = state.phase == OVER
    w = waiting(state)
    return {
        "ruleset": "were_cats",
        "started": started,
        "over": over,
        "fair": state.fair,
        "seed_commitment": rng.seed_commitment(state.seed) if started else None,
        "viewer": viewer,
        "players": list(state.players),
        "max_rounds": state.options.max_rounds,
        "round": state.round,
        "phase": cast(Any, state.phase),
        "step_no": state.step_no,
        "first_seat": state.first_seat if started else None,
        "quarter": state.quarter,
        "turn": None if state.turn is None else {"seat": state.turn, "slot": state.slot},
        "waiting": None
        if w is None
        else {
            "step": cast(Any, w.step),
            "step_no": w.step_no,
            "seats": sorted(w.seats),
            "simultaneous": state.phase == PLACE,  # all at once, or one after another
        },
        "supply": cast(Any, coins_to_json(state.supply)),
        "city": cast(Any, coins_to_json(state.city)),
        "seats": [_seat(state, seat) for seat in range(state.n)],
        "scores": None if state.scores is None else list(state.scores),
        "winners": list(state.winners) if over else None,
        "end_reason": cast(Any, state.end_reason),
        "seed": state.seed.hex() if over else None,
    }


def view_for(state: State, viewer: Viewer) -> JSON:
    """The state as ``viewer`` sees it (the same for everybody; the seed once over)."""
    return cast(JSON, typed_view(state, viewer))


def chart(state: State) -> tuple[str, tuple[int, ...]] | None:
    """What the replay page plots (``games.rules.core.AuditHooks``): each seat's points as WC3.2 counts them
    at this state (cats by kind and victims); ``None`` before the start."""
    if state.phase == NEW:
        return None
    return "Points", tuple(points(state, seat) for seat in range(state.n))
