"""Reads: the viewer's state and the event feed, always through the ruleset's redaction functions."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import DateTimeField, ExpressionWrapper, F, QuerySet, Value

from critters_api.db.base import release_idle_connection
from games.rules.moves import moves_to_json
from players.models import Player

from . import statecache, store
from .audit import public
from .loading import load_state, ruleset_for
from .models import Event, Game, GameStatus, Seat
from .roster import get_game, roster

Viewer = int | None


def seats_public(game: Game) -> list[dict[str, Any]]:
    """The seat → player mapping (lobby seats before the start; game seats after it)."""
    seats = roster(game).seats
    started = game.status != GameStatus.OPEN and all(s.position is not None for s in seats)
    out = []
    for s in sorted(seats, key=lambda s: s.position if started and s.position is not None else s.index):
        out.append(
            {
                "seat": s.position if started else s.index,
                "player": s.username,
                "display_name": s.display_name,
                "bot": s.bot_strategy or None,
            }
        )
    return out


def game_public(game: Game, *, player: Player | None = None) -> dict[str, Any]:
    seats = seats_public(game)
    you = None
    if player is not None and player.is_authenticated:
        mine = next((s for s in seats if s["player"] == player.username), None)
        you = mine["seat"] if mine else None
    return {
        "id": game.pk,
        "name": game.name,
        "ruleset": game.ruleset,
        "status": game.status,
        "creator": roster(game).creator,
        "seats": game.seat_count,
        "taken": len(seats),
        "players": seats,
        "your_seat": you,
        "options": game.options,
        "allow_spectators": game.allow_spectators,
        "fair": game.fair,
        "version": game.version,
        "waiting_step": game.waiting_step or None,
        "deadline_at": game.deadline_at,
        "created_at": game.created_at,
        "started_at": game.started_at,
        "ended_at": game.ended_at,
    }


def viewer_state(game: Game, state: Any, viewer: Viewer) -> dict[str, Any]:
    """What ``viewer`` sees of the game now (the body of state reads and command responses)."""
    rs = ruleset_for(game)
    started = game.version > 0
    public = game_public(game)
    public["your_seat"] = viewer
    ruled = _ruled_view(game, rs, state, viewer, started=started)
    return {
        "game": public,
        "version": game.version,
        "public_head": public_head(game),
        "viewer": viewer,
        "state": ruled["state"],
        "legal_commands": ruled["legal_commands"],
        "acting": _with_names(ruled["acting"], viewer, public["players"]),
        "moves": ruled["moves"],
        "waiting": ruled["waiting"],
        "over": ruled["over"],
        "scores": ruled["scores"],
    }


def _ruled_view(game: Game, rs: Any, state: Any, viewer: Viewer, *, started: bool) -> dict[str, Any]:
    """The parts of the viewer's state the rules compute from ``state`` alone (the view, the legal commands
    and moves, who acts, what the game waits on, the scores): the same for every read of one version by one
    viewer, so they are kept with the process's cached fold (:func:`games.statecache.views_of`) and
    computed once per version and viewer. Shared between responses: never changed after it is made."""
    memo = statecache.views_of(game.pk, state)
    key = (viewer, started)
    if memo is not None and key in memo:
        cached: dict[str, Any] = memo[key]
        return cached
    waiting = rs.waiting(state) if started else None
    terminal = started and rs.is_terminal(state)
    acting_of = getattr(rs, "acting", None)
    acting = acting_of(state) if started and acting_of is not None else None
    moves_of = getattr(rs, "moves", None)
    ruled = {
        "state": rs.view_for(state, viewer),
        "legal_commands": rs.legal_commands(state, viewer) if viewer is not None and started else [],
        "acting": acting,
        "moves": (
            moves_to_json(moves_of(state, viewer))
            if started and viewer is not None and moves_of is not None and acting is not None
            else []
        ),
        "waiting": (
            {
                "step_no": waiting.step_no,
                "step": waiting.step,
                "seats": sorted(waiting.seats),
                "due_at": waiting.due_at,
                "you": viewer is not None and viewer in waiting.seats,
            }
            if waiting is not None
            else None
        ),
        "over": terminal,
        "scores": list(rs.scores(state) or []) if terminal else None,
    }
    if memo is not None:
        memo[key] = ruled
    return ruled


def _with_names(acting: dict[str, Any] | None, viewer: Viewer, players: list[dict[str, Any]]) -> Any:
    """``acting`` (as the rules give it, not changed) with each acting seat's player, from the seats as
    read now (a seat can change hands without a new event in the log), and whether the viewer acts."""
    if acting is None:
        return None
    names = {p["seat"]: p["player"] for p in players}
    seats = [{**seat, "player": names.get(seat["seat"])} for seat in acting["seats"]]
    return {**acting, "seats": seats, "you": viewer is not None and any(s["seat"] == viewer for s in seats)}


def acting_and_moves(
    rs: Any, state: Any, viewer: Viewer, players: list[dict[str, Any]], *, started: bool
) -> dict[str, Any]:
    """Who acts now (``acting``) and the viewer's legal moves with their arguments (``moves``), computed by
    the rules (issue #24); the moves only for the viewer (the cost of a read stays one seat's)."""
    acting_of = getattr(rs, "acting", None)
    acting = acting_of(state) if started and acting_of is not None else None
    moves_of = getattr(rs, "moves", None)
    moves = (
        moves_to_json(moves_of(state, viewer))
        if started and viewer is not None and moves_of is not None and acting is not None
        else []
    )
    return {"acting": _with_names(acting, viewer, players), "moves": moves}


def public_head(game: Game) -> dict[str, Any]:
    """The public chain's head (docs/AUDIT.md): what a spectator saw up to ``version``, hashed; safe to serve
    while the game runs (no secret goes into it)."""
    return {"seq": game.version, "hash": game.public_head_hash or "0" * 64}


def game_state(game: Game, viewer: Viewer) -> dict[str, Any]:
    return viewer_state(game, load_state(game), viewer)


def wait_for_events(game: Game, *, after: int, wait: float) -> Game | None:
    """The long-poll's wait: while the game has no event after ``after``, poll its version every
    FEED_POLL_INTERVAL, up to ``wait`` seconds (at most FEED_MAX_WAIT_SECONDS). ``None`` when it did not
    wait at all; else the game read again with its roster after the wait (one statement), so that the
    caller resolves who the answer is for as of now, not as of the request's start (R8.3: a seat handed
    over or a token revoked meanwhile)."""
    deadline = time.monotonic() + min(wait, settings.FEED_MAX_WAIT_SECONDS)
    if game.version > after or time.monotonic() >= deadline:
        return None
    version = game.version
    while version <= after and time.monotonic() < deadline:
        release_idle_connection(connection)  # a pooled connection goes back to the pool while we sleep
        time.sleep(settings.FEED_POLL_INTERVAL)
        version = Game.objects.filter(pk=game.pk).values_list("version", flat=True).first() or 0
    return get_game(game.pk)


def feed(game: Game, viewer: Viewer, *, after: int, limit: int) -> dict[str, Any]:
    """Events with ``seq > after`` (up to the game's version as read) as ``viewer`` may see them: ``viewer``
    must be who the caller is in ``game`` as read (an event past it, a hand-over say, is left for the next
    read)."""
    rows = [row for row in store.load_stream(game.pk, after=after, limit=limit) if row.seq <= game.version]
    return feed_page(game, rows, viewer, after=after)


def feed_page(game: Game, rows: Sequence[Event], viewer: Viewer, *, after: int) -> dict[str, Any]:
    """The feed's body for ``rows`` (the game's events right after ``after``, in order) as ``viewer`` may
    see them; ``game`` as read with or after the rows. No database access (the live stream shares one read
    of the log between its viewers)."""
    rs = ruleset_for(game)
    terminal = game.status == GameStatus.OVER
    events = []
    for row in rows:
        event = rs.event_from_json(row.data)
        events.append(
            {
                "ruleset": game.ruleset,  # the game of the event: a typed client narrows ``event`` by it
                "seq": row.seq,
                "created_at": row.created_at,
                "event": rs.redact_event(event, viewer, terminal=terminal),
                "hash": row.hash if terminal else None,
                "public_hash": row.public_hash,
                # public chain 2: the event's seal (a salted hash of its other facts), which the public hash
                # covers: with it a watcher recomputes the chain from what it is shown
                "seal": public.seal(
                    row.salt,
                    data=row.data,
                    command=row.command,
                    command_id=row.command_id,
                    actor=row.actor_id,
                )
                if game.public_chain >= 2
                else None,
            }
        )
    last = rows[-1].seq if rows else after
    return {
        "events": events,
        "next_after": last,
        "version": game.version,
        "more": last < game.version,
        "over": terminal,
        # the hash chain is public once the game is over (a hash over low-entropy secrets could be
        # brute-forced while it runs)
        "head_hash": game.head_hash if terminal else None,
        "public_head": public_head(game),
    }


def seated_game_ids(player: Player) -> list[int]:
    """The ids of the games the player has a seat in (a seat per game at most), from the seats' player index.

    Read first, as a list, so that the games are then fetched by primary key: a join (or a semi-join) lets the
    planner walk every game newest first until it has found a page of this player's, or hash the whole table
    of running games, whose cost grows with the database rather than with the player's games (bench/bigdb.py,
    docs/SCALING.md)."""
    return list(Seat.objects.filter(player=player).order_by().values_list("game_id", flat=True))


def my_games(player: Player) -> QuerySet[Game]:
    """The player's games, newest first, ordered by ``listed_at`` (``created_at`` plus nothing): an expression
    no index serves, so the planner fetches the player's games by primary key and sorts them (cost: the
    player's games) instead of walking the whole game table newest first until it has met a page of them
    (cost: every game created since, which grows with the database; EXPLAIN in bench/bigdb.py's database)."""
    listed_at = ExpressionWrapper(F("created_at") + Value(timedelta(0)), output_field=DateTimeField())
    return Game.objects.filter(pk__in=seated_game_ids(player)).annotate(listed_at=listed_at)
