"""The record of a game from the database (docs/AUDIT.md), and the state at any event number. Django side: the
pure parts are ``games.audit.record`` (assembly) and ``games.audit.verify`` (the check)."""

from __future__ import annotations

import functools
import re
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings

from games import store
from games.errors import Refusal, Refused
from games.loading import ruleset_for
from games.models import Event, Game, GameStatus, Seat
from games.rules.core import Viewer
from players.models import Player

from . import signature
from .record import assemble, holders_from_log, seat_entries
from .verify import played_under

_PLAYER_UID = re.compile(r"p([0-9]+)")


@functools.cache
def _signing_key(configured: str, secret: str) -> Ed25519PrivateKey:
    if configured:
        return signature.private_key_from_hex(configured)
    return signature.derive_private_key(secret)


def signing_key() -> Ed25519PrivateKey:
    """The server's record-signing key: ``RECORD_SIGNING_KEY`` (64 hex digits) when set, else derived from
    ``SECRET_KEY`` with HKDF-SHA256 (docs/AUDIT.md, "The signature")."""
    return _signing_key(settings.RECORD_SIGNING_KEY, settings.SECRET_KEY)


def require_over(game: Game) -> None:
    """The record, its verification and the replay exist once the game is over (409 before)."""
    if game.status != GameStatus.OVER:
        raise Refused(
            Refusal.CONFLICT,
            "game_not_over",
            f"The game is {game.status}: its record is public once it is over (nothing of it before).",
        )


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def game_record(game: Game) -> dict[str, Any]:
    """The whole unredacted log of a finished game with its seed, options and seats (409 while it runs)."""
    require_over(game)
    rs = ruleset_for(game)
    events = [
        {
            "seq": row.seq,
            "type": row.type,
            "schema_version": row.schema_version,
            "data": row.data,
            "created_at": row.created_at.isoformat(),
            "command_id": row.command_id,
            "actor": row.actor_id,
            "command": row.command,
            "prev_hash": row.prev_hash,
            "hash": row.hash,
            "public_hash": row.public_hash,
            # public chain 2: the seal's salt, revealed now the game is over (format version 3)
            **({"salt": row.salt} if game.public_chain >= 2 else {}),
        }
        for row in store.load_stream(game.pk)
    ]
    seats = seat_entries(events, _who(game, events))
    meta = {
        "id": game.pk,
        "name": game.name,
        "ruleset": game.ruleset,
        "ruleset_version": played_under(rs, events[0]["data"]),  # the rules it was played under
        "options": game.options,
        "fair": game.fair,
        "status": game.status,
        "created_at": _iso(game.created_at),
        "started_at": _iso(game.started_at),
        "ended_at": _iso(game.ended_at),
    }
    return signature.sign(assemble(meta, seats, events), signing_key())


def _who(game: Game, events: list[dict[str, Any]]) -> Any:
    """Who a uid of the log is: the seats as they are now for the last holders, and for a seat's earlier
    holders (before a hand-over) the player the server's uid names (``p{player id}``)."""
    known: dict[str, dict[str, Any]] = {
        s.uid: {
            "player_id": s.player_id,
            "player": s.player.username if s.player else None,
            "display_name": s.player.public_name if s.player else f"Bot {s.index} ({s.bot_strategy})",
            "bot": s.bot_strategy or None,
        }
        for s in Seat.objects.filter(game=game).select_related("player")
    }
    earlier = {
        int(m.group(1))
        for held in holders_from_log(events)
        for _since, uid in held
        if uid not in known and (m := _PLAYER_UID.fullmatch(uid))
    }
    for player in Player.objects.filter(pk__in=earlier):
        known[f"p{player.pk}"] = {
            "player_id": player.pk,
            "player": player.username,
            "display_name": player.public_name,
            "bot": None,
        }

    def who(uid: str) -> dict[str, Any]:
        return known.get(uid) or {"player_id": None, "player": None, "display_name": uid, "bot": None}

    return who


def full_view(game: Game, state: Any) -> dict[str, Any]:
    """Everything about a past state of a finished game (the ruleset's ``full_view``)."""
    rs = ruleset_for(game)
    full = getattr(rs, "full_view", None)
    view: dict[str, Any] = full(state) if full is not None else rs.view_for(state, None)
    return view


def state_at(game: Game, seq: int, viewer: Viewer) -> dict[str, Any]:
    """The game just after event ``seq``: while it runs, only as ``viewer`` may see it (the ruleset's
    ``view_for``); once it is over, everything. 404 ``no_such_event`` outside ``1..version``."""
    if game.status not in (GameStatus.RUNNING, GameStatus.OVER) or not 1 <= seq <= game.version:
        raise Refused(
            Refusal.NOT_FOUND,
            "no_such_event",
            f"The game has no event {seq} (its events are 1 to {game.version}).",
        )
    rs = ruleset_for(game)
    rows = list(
        Event.objects.filter(game_id=game.pk, seq__lte=seq).order_by("seq").values_list("data", flat=True)
    )
    parsed = [rs.event_from_json(data) for data in rows]
    state = rs.fold(parsed)
    over = game.status == GameStatus.OVER
    return {
        "ruleset": game.ruleset,  # the game of ``event`` and ``state``: a typed client narrows them by it
        "game": game.pk,
        "seq": seq,
        "version": game.version,
        "game_over": over,
        "full": over,
        "viewer": None if over else viewer,
        "event": rs.redact_event(parsed[-1], viewer, terminal=over),
        "state": full_view(game, state) if over else rs.view_for(state, viewer),
    }


def states_after(game: Game, after: int, limit: int, viewer: Viewer) -> dict[str, Any]:
    """The states just after events ``after + 1`` to ``after + limit`` (each with its event), as
    :func:`state_at` gives them one by one (the viewer's view while the game runs; everything once it is
    over), folded once: a client steps through a game with a page of positions per request."""
    over = game.status == GameStatus.OVER
    started = game.status in (GameStatus.RUNNING, GameStatus.OVER)
    last = min(game.version, after + limit) if started else after
    rs = ruleset_for(game)
    items: list[dict[str, Any]] = []
    if last > after:
        rows = list(
            Event.objects.filter(game_id=game.pk, seq__lte=last).order_by("seq").values_list("seq", "data")
        )
        state = rs.fold([rs.event_from_json(data) for seq, data in rows if seq <= after])
        for seq, data in rows:
            if seq <= after:
                continue
            event = rs.event_from_json(data)
            state = rs.evolve(state, event)
            items.append(
                {
                    "seq": seq,
                    "event": rs.redact_event(event, viewer, terminal=over),
                    "state": full_view(game, state) if over else rs.view_for(state, viewer),
                }
            )
    return {
        "ruleset": game.ruleset,
        "game": game.pk,
        "version": game.version,
        "game_over": over,
        "full": over,
        "viewer": None if over else viewer,
        "states": items,
        "next_after": last if started and last < game.version else None,
    }
