"""What each viewer may see (LT7.2): ``view_for`` and ``redact_event``.

Hidden until the end: every Pal but the viewer's own, every hand but the viewer's, every face-down displayed
card (except to the Bagman), every Loot stack but the viewer's (a Gunner picking from a Sitting Duck sees that
stack, LT4.1), chosen cards before the reveal, the deck orders and the seed. Sizes are public. The Action
discard pile is face up (public). Once the game is over everything is shown.
"""

from __future__ import annotations

from typing import Any

from games.rules.core import JSON, Viewer
from games.rules.rng import seed_commitment

from .cards import action_json, loot_json, loot_value
from .events import Event
from .serde import event_to_json
from .state import NO_CARD, OVER, PICK, SETUP, State


def _loot(cards: tuple[int, ...]) -> list[dict[str, object]]:
    return [loot_json(c) for c in cards]


def _seat_json(state: State, seat: int, viewer: Viewer, full: bool) -> JSON:
    mine = full or viewer == seat
    picker = state.step == PICK and viewer == state.pending_seat and seat == state.pending_target
    stack = state.stacks[seat]
    chosen = state.chosen[seat]
    played = state.played[seat]
    return {
        "seat": seat,
        "player": state.players[seat],
        "alias": state.aliases[seat],
        "alive": state.alive[seat],
        "wounds": state.wounds[seat],
        "resigned": state.resigned[seat],
        "bagman": seat == state.bagman,
        "opened": state.opened[seat],
        "target": state.aims[seat],
        "retargets": state.retargets[seat],
        "chose": chosen is not None,
        "chosen": (None if chosen == NO_CARD else chosen) if mine and chosen is not None else None,
        "chosen_card": (None if chosen == NO_CARD else chosen) if mine and chosen is not None else None,
        "played": played,
        "in_play": state.in_play[seat],
        "vote": state.votes[seat],
        "hand_size": len(state.hands[seat]),
        "hand": [action_json(c) for c in state.hands[seat]] if mine else None,
        "stack_size": len(stack),
        "stack": _loot(stack) if mine or picker else None,
        "stack_value": loot_value(stack) if mine else None,
        "pal": state.pals[seat] if mine else None,
    }


def view_for(state: State, viewer: Viewer, *, full: bool = False) -> JSON:
    """The game as ``viewer`` (a seat, or None for a spectator) may see it; everything once over."""
    if state.phase == SETUP:
        return {"ruleset": "loose_triggers", "started": False, "over": False}
    over = state.phase == OVER
    full = full or over
    sees_down = full or (viewer is not None and viewer == state.bagman)
    return {
        "ruleset": "loose_triggers",
        "started": True,
        "over": over,
        "fair": state.fair,
        "seed_commitment": seed_commitment(state.seed),
        "viewer": viewer,
        "seats": [_seat_json(state, s, viewer, full) for s in range(state.n)],
        "bagman": state.bagman,
        "step": state.step,
        "step_no": state.step_no,
        "discussion": state.discussion,
        "counter": state.counter,
        "pending_seat": state.pending_seat,
        "pending_target": state.pending_target,
        "display": [
            {"slot": i, "face_down": down, "loot": loot_json(c) if sees_down or not down else None}
            for i, (c, down) in enumerate(zip(state.display, state.display_down, strict=True))
        ],
        "loot_deck_size": len(state.loot_deck),
        "loot_discard_size": len(state.loot_discard),
        "action_deck_size": len(state.action_deck),
        "action_discard": list(state.action_discard),
        "deaths": list(state.deaths),
        "end_reason": state.end_reason,
        "values": list(state.values) if state.values is not None else None,
        "ranks": list(state.ranks) if state.ranks is not None else None,
        "scores": list(state.scores) if state.scores is not None else None,
        "winners": list(state.winners) if over else None,
        "seed": state.seed.hex() if full else None,
        "loot_deck": list(state.loot_deck) if full else None,
        "action_deck": list(state.action_deck) if full else None,
        "loot_discard": list(state.loot_discard) if full else None,
    }


def _hide(data: JSON, *fields: str) -> JSON:
    for name in fields:
        data[name] = None
    return data


def redact_event(event: Event, viewer: Viewer, *, terminal: bool) -> JSON:
    """The event as ``viewer`` may see it: never omitted; secret fields set to null (LT7.2)."""
    data: JSON = event_to_json(event)
    if terminal:
        return data
    t = event.TYPE
    e: Any = event
    if t == "GameStarted":
        data["pals"] = [p if seat == viewer else None for seat, p in enumerate(e.pals)]
        data["hands"] = [list(h) if seat == viewer else None for seat, h in enumerate(e.hands)]
        data["loot_deck_size"] = len(e.loot_deck)
        data["action_deck_size"] = len(e.action_deck)
        return _hide(data, "seed", "loot_deck", "action_deck")
    if t == "LootDisplayed":
        if viewer != e.bagman:
            data["cards"] = [None if down else c for c, down in zip(e.cards, e.face_down, strict=True)]
        return data
    if t == "LootGiven":
        return _hide(data, "card") if e.face_down and viewer not in (e.bagman, e.to) else data
    if t == "ActionChosen":
        return data if viewer == e.seat else _hide(data, "card")
    if t == "Died":
        seen = (e.seat, e.killer) if e.loot_to == "killer" else (e.seat,)
        data["loot_size"] = len(e.loot)
        return data if viewer in seen else _hide(data, "loot")
    if t == "LootTaken":
        return data if viewer in (e.seat, e.victim) else _hide(data, "card")
    if t == "SpoilsClaimed":
        return _hide(data, "card") if e.face_down and viewer not in (e.seat, e.from_bagman) else data
    if t == "ActionDeckRemade":
        data["deck_size"] = len(e.deck)
        return _hide(data, "deck")
    if t == "CardsDrawn":
        data["count"] = len(e.cards)
        return data if viewer == e.seat else _hide(data, "cards")
    if t == "CardGrabbed":
        public = e.source == "discard" or (e.source == "display" and not e.face_down)
        seen = (e.seat, e.bagman) if e.source == "display" else (e.seat,)
        return data if public or viewer in seen else _hide(data, "card")
    if t == "LootBurned":
        return data if viewer == e.seat else _hide(data, "loot")
    if t == "GameEnded":  # the game is over once it is folded in; the public chain hashes it as it ran
        return _hide(data, "seed")
    return data


def chart(state: State) -> tuple[str, tuple[int, ...]] | None:
    """What the replay page plots (``games.rules.core.AuditHooks``): the value of each seat's Loot stack
    (cash plus relic sets, LT1.5) at this state; ``None`` before the start."""
    if state.phase == SETUP:
        return None
    return "Loot value", tuple(loot_value(state.stacks[seat]) for seat in range(state.n))
