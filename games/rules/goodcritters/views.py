"""What each viewer may see (RULES.md R8.3): ``view_for`` (the state) and ``redact_event`` (the feed).

A seat sees its own Stash, Payoff cards and chosen action, what was dealt to whom in Step 2, and the public
facts (who has chosen, who is ready, Threat markers, Payoff tokens with sides and bundle counts, open bundle
cards, peek bundle cards when it is the target, Stash sizes, Payoff card counts, the Boss, the face-up cards,
the pile's size). A spectator (``None``) sees only the public facts. Once the game is over, everything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.rules.core import JSON, Viewer
from games.rules.rng import seed_commitment

from . import events as ev
from .cards import VALUES, card_json
from .serde import event_to_json
from .state import OVER, SETUP, Bundle, State, Trade

# --------------------------------------------------------------------------------------------------
# events
# --------------------------------------------------------------------------------------------------
Redactor = Callable[[Any, JSON, Viewer], None]


def _game_started(e: ev.GameStarted, out: JSON, viewer: Viewer) -> None:
    out["seed"] = None
    out["pile"] = None
    out["types"] = None
    out["stashes"] = [list(cards) if seat == viewer else None for seat, cards in enumerate(e.stashes)]


def _action_chosen(e: ev.ActionChosen, out: JSON, viewer: Viewer) -> None:
    if viewer != e.seat:
        out["action"] = None


def _bundle_visible(giver: int, target: int, visibility: str, viewer: Viewer, *, taken: bool = False) -> bool:
    if visibility == "open" or viewer == giver:
        return True
    return viewer == target and (visibility == "peek" or taken)


def _payoff_offered(e: ev.PayoffOffered, out: JSON, viewer: Viewer) -> None:
    if not _bundle_visible(e.seat, e.target, e.visibility, viewer):
        out["loot"] = None


def _payoff_resolved(e: ev.PayoffResolved, out: JSON, viewer: Viewer) -> None:
    if not _bundle_visible(e.seat, e.target, e.visibility, viewer, taken=e.taken):
        out["loot"] = None
        out["salt"] = None


def _between(a: int, b: int, viewer: Viewer) -> bool:
    return viewer in (a, b)


def _gift_given(e: ev.GiftGiven, out: JSON, viewer: Viewer) -> None:
    if not _between(e.seat, e.to, viewer):
        out["loot"] = None


def _trade_offered(e: ev.TradeOffered, out: JSON, viewer: Viewer) -> None:
    if not _between(e.seat, e.to, viewer):
        out["give_loot"] = None
        out["want_values"] = None


def _trade_accepted(e: ev.TradeAccepted, out: JSON, viewer: Viewer) -> None:
    if not _between(e.seat, e.offerer, viewer):
        out["give_loot"] = None
        out["take_loot"] = None


def _own_card(seat_field: str) -> Redactor:
    def redact(e: Any, out: JSON, viewer: Viewer) -> None:
        if viewer != getattr(e, seat_field):
            out["card"] = None

    return redact


def _rob(e: ev.RobSucceeded, out: JSON, viewer: Viewer) -> None:
    if not _between(e.robber, e.victim, viewer):
        out["card"] = None


def _rob_guarded(e: ev.RobGuarded, out: JSON, viewer: Viewer) -> None:
    if not _between(e.robber, e.guard, viewer):
        out["card"] = None


def _game_ended(e: ev.GameEnded, out: JSON, viewer: Viewer) -> None:
    out["seed"] = None


_REDACTORS: dict[type[Any], Redactor] = {
    ev.GameStarted: _game_started,
    ev.ActionChosen: _action_chosen,
    ev.PayoffOffered: _payoff_offered,
    ev.PayoffResolved: _payoff_resolved,
    ev.GiftGiven: _gift_given,
    ev.TradeOffered: _trade_offered,
    ev.TradeAccepted: _trade_accepted,
    ev.LootSkimmed: _own_card("seat"),
    ev.BossBonus: _own_card("seat"),
    ev.RobSucceeded: _rob,
    ev.RobGuarded: _rob_guarded,
    ev.GameEnded: _game_ended,
}


def redact_event(event: ev.Event, viewer: Viewer, *, terminal: bool) -> JSON:
    """The event's JSON as ``viewer`` may see it: never omitted, secret fields set to null."""
    out = event_to_json(event)
    if not terminal:
        redactor = _REDACTORS.get(type(event))
        if redactor is not None:
            redactor(event, out, viewer)
    return out


# --------------------------------------------------------------------------------------------------
# the state
# --------------------------------------------------------------------------------------------------
def _cards(cards: Any, types: tuple[str, ...]) -> list[dict[str, object]]:
    return [card_json(c, types) for c in sorted(cards)]


def _bundle_json(b: Bundle, state: State, viewer: Viewer, full: bool) -> JSON:
    visible = full or _bundle_visible(b.giver, b.target, b.visibility, viewer)
    return {
        "seat": b.giver,
        "token": b.token,
        "side": b.side,
        "target": b.target,
        "visibility": b.visibility,
        "loot_count": len(b.loot),
        "payoff_cards": b.payoff_cards,
        "loot": _cards(b.loot, state.types) if visible else None,
    }


def _trade_json(t: Trade, state: State, viewer: Viewer, full: bool) -> JSON:
    visible = full or viewer in (t.seat, t.to)
    return {
        "trade_id": t.trade_id,
        "seat": t.seat,
        "to": t.to,
        "give_loot_count": len(t.give_loot),
        "give_payoff": t.give_payoff,
        "want_loot_count": len(t.want_values),
        "want_payoff": t.want_payoff,
        "give_loot": _cards(t.give_loot, state.types) if visible else None,
        "want_values": list(t.want_values) if visible else None,
    }


def _seat_json(state: State, seat: int, viewer: Viewer, full: bool) -> JSON:
    mine = full or viewer == seat
    stash = state.stashes[seat]
    return {
        "seat": seat,
        "player": state.players[seat],
        "boss": seat == state.boss,
        "resigned": state.resigned[seat],
        "chosen": state.actions[seat] is not None,
        "ready": state.ready[seat],
        "threat": state.threats[seat],
        "stash_size": len(stash),
        "payoff_cards": state.payoff_cards[seat],
        "action": state.actions[seat] if mine else None,
        "stash": _cards(stash, state.types) if mine else None,
        "stash_value": sum(VALUES[c] for c in stash) if mine else None,
        "changes": state.changes[seat],
        # the table's facts: it writes them in (games.rules.table)
        "autopilot": None,
        "extensions_left": None,
        "misses": None,
    }


def view_for(state: State, viewer: Viewer, *, full: bool = False) -> JSON:
    """The game as ``viewer`` (a seat, or ``None`` for a spectator) may see it; everything once over, or with
    ``full`` (only for a past state of a game that is over: the audit's step-through, docs/AUDIT.md)."""
    if state.phase == SETUP:
        return {"ruleset": "goodcritters", "started": False, "over": False}
    over = state.phase == OVER
    full = full or over
    shares = state.shares
    view: JSON = {
        "ruleset": "goodcritters",
        "started": True,
        "over": over,
        "fair": state.fair,
        "seed_commitment": seed_commitment(state.seed),
        "viewer": viewer,
        "players": list(state.players),
        "seats": [_seat_json(state, s, viewer, full) for s in range(state.n)],
        "boss": state.boss,
        "boss_rounds": state.boss_rounds,
        "round": state.round,
        "step": state.phase,
        "step_no": state.step_no,
        # the table's facts: it writes them in (games.rules.table)
        "due_at": None,
        "paused_at": None,
        "pause_until": None,
        "pause_votes": None,
        "table": [card_json(c, state.types) for c in state.table],
        "shares": [_cards(s, state.types) for s in shares] if shares is not None else None,
        "pile_size": state.pile_size,
        "payoffs": [_bundle_json(b, state, viewer, full) for b in state.bundles if b is not None],
        "trades": [_trade_json(t, state, viewer, full) for t in state.trades],
        "last_vote": (
            {"yes": state.last_vote[0], "no": state.last_vote[1], "outcome": state.last_vote[2]}
            if state.last_vote is not None
            else None
        ),
        "confiscated": _cards(state.confiscated, state.types),
        "scores": list(state.scores) if full and state.scores is not None else None,
        "winners": list(state.winners) if full else None,
        "end_reason": state.end_reason,
        "seed": state.seed.hex() if full else None,
        "pile": list(state.pile_cards()) if full else None,
    }
    return view
