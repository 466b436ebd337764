"""A game row with its roster: who sits where, who may see or act, which seats a machine plays.

Reads (and the row lock a write starts with): :func:`get_game`, :func:`lock_game` and :func:`lock_running`
read the game and its seats in one statement; :func:`roster` reads the seats again after a seat write.
Nothing here writes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection

from critters_api.db.base import prepared_cursor
from games.rules.core import Ruleset, Viewer
from players.models import Player

from .errors import Refusal, Refused
from .models import Game, GameStatus

# The hot path reads a game with its roster (seats, their players' names, the creator's name) in one or two
# statements of plain SQL: the ORM would compile four queries per request for the same rows.
_GAME_FIELDS = tuple(Game._meta.concrete_fields)
_GAME_COLUMNS = ", ".join(f'g."{f.column}"' for f in _GAME_FIELDS)
_GAME_ATTNAMES = [f.attname for f in _GAME_FIELDS]
_JSON_AT = tuple(i for i, f in enumerate(_GAME_FIELDS) if f.get_internal_type() == "JSONField")


def _roster_subquery(game: str) -> str:
    """The seats of the game ``game`` names, with their players' names, as one JSON array."""
    return f"""(SELECT json_agg(json_build_array(s."index", s."position", s.player_id, p.username,
        p.display_name, s.bot_strategy, s.uid) ORDER BY s."index")
    FROM games_seat s LEFT JOIN players_player p ON p.id = s.player_id WHERE s.game_id = {game})"""  # noqa: S608 (fixed text)


# Who the caller is, as of the statement: the API token ``%(credential)s`` names (NULL: none asked for),
# its player's username and whether staff, if the token is live (not revoked, its player active); else NULL.
# A view that authenticates from a per-process cache of tokens (players.auth) checks the token here, in the
# statement that reads the game anyway, so that a revoked token is refused at once by every process.
_CREDENTIAL_SUBQUERY = """(SELECT json_build_array(p.username, p.is_staff) FROM players_apitoken t
    JOIN players_player p ON p.id = t.player_id
    WHERE t.id = %(credential)s AND t.revoked_at IS NULL AND p.is_active)"""
# One game's statements name the game by its parameter in every subquery too (``s.game_id = %(game)s``, not
# ``= g.id``): the same rows, and on Citus (docs/SCALING.md) each statement is router-planned onto the
# game's shard, which a locking statement must be (a correlated ``= g.id`` would be planned over every shard).
_READ_SQL = f"""SELECT {_GAME_COLUMNS}, c.username, {_roster_subquery("%(game)s")}, {_CREDENTIAL_SUBQUERY}
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = %(game)s"""  # noqa: S608 (model columns)
# Locking reads the roster in the same statement, and also the game's revision as of the statement's
# snapshot: under READ COMMITTED a statement that waited for the lock gets the newest game row but reads
# the seats as they were when it started. Every seat write bumps the revision under this lock, so when the
# two revisions differ the roster may be stale and is read again (a second statement, a new snapshot).
_LOCK_SQL = f"""SELECT {_GAME_COLUMNS}, c.username, {_roster_subquery("%(game)s")}, {_CREDENTIAL_SUBQUERY},
        (SELECT r.revision FROM games_game r WHERE r.id = %(game)s)
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = %(game)s FOR UPDATE OF g"""  # noqa: S608
# The log's tail after a version (the version of the process's cached fold, games.loading): read in the same
# statement as the game, it saves the read that would bring the cached fold up to date (games.loading uses it
# only when it reaches the game's version as read, which a statement that waited for the lock may not).
_TAIL_SUBQUERY = """(SELECT json_agg(json_build_array(e.seq, e.prev_hash, e.hash, e.data) ORDER BY e.seq)
    FROM games_event e WHERE e.game_id = %(game)s AND e.seq > %(after)s)"""
_READ_TAIL_SQL = f"""SELECT {_GAME_COLUMNS}, c.username, {_roster_subquery("%(game)s")},
        {_CREDENTIAL_SUBQUERY}, {_TAIL_SUBQUERY}
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = %(game)s"""  # noqa: S608 (model columns)
_LOCK_TAIL_SQL = f"""SELECT {_GAME_COLUMNS}, c.username, {_roster_subquery("%(game)s")},
        {_CREDENTIAL_SUBQUERY}, (SELECT r.revision FROM games_game r WHERE r.id = %(game)s), {_TAIL_SUBQUERY}
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = %(game)s FOR UPDATE OF g"""  # noqa: S608
_ROSTER_SQL = f"""SELECT c.username, {_roster_subquery("%(game)s")}
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = %(game)s"""  # noqa: S608
# After a locking statement that waited (its snapshot older than the row it locked): the roster and the log's
# tail again, in one statement with a snapshot of now (the game row is ours: nothing newer can be committed).
_ROSTER_TAIL_SQL = f"""SELECT c.username, {_roster_subquery("%(game)s")}, {_TAIL_SUBQUERY}
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = %(game)s"""  # noqa: S608
_ROSTERS_SQL = f"""SELECT g.id, c.username, {_roster_subquery("g.id")}
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = ANY(%s)"""  # noqa: S608


def _game_params(
    game_id: int, tail_after: int | None = None, credential: int | None = None
) -> dict[str, int | None]:
    """The parameters of a one-game statement: the game (named in every subquery), the version the log's
    tail starts after (for the statements that read it), and the API token to check (the read statements)."""
    return {"game": game_id, "after": tail_after, "credential": credential}


@dataclass(frozen=True, slots=True)
class RosterSeat:
    """A seat as the service needs it: lobby ``index``, game ``position`` (None before the start), who sits
    there (a player, or a bot's strategy), and the opaque ``uid`` given to the ruleset."""

    index: int
    position: int | None
    player_id: int | None
    username: str | None
    display_name: str
    bot_strategy: str
    uid: str

    @property
    def is_bot(self) -> bool:
        return self.player_id is None


@dataclass(frozen=True, slots=True)
class Roster:
    creator: str
    seats: tuple[RosterSeat, ...]


def _roster_from(creator: str, rows: list[list[Any]] | None) -> Roster:
    seats = tuple(
        RosterSeat(
            index=index,
            position=position,
            player_id=player_id,
            username=username,
            display_name=(display_name or username) if player_id is not None else f"Bot {index} ({bot})",
            bot_strategy=bot,
            uid=uid,
        )
        for index, position, player_id, username, display_name, bot, uid in rows or []
    )
    return Roster(creator, seats)


def _game_from(values: Sequence[Any]) -> Game:
    row = list(values)
    for i in _JSON_AT:  # jsonb arrives as text (Django's loader); the ORM would parse it the same way
        if isinstance(row[i], str):
            row[i] = json.loads(row[i])
    return Game.from_db(connection.alias, _GAME_ATTNAMES, row)


def roster(game: Game) -> Roster:
    """The game's seats and creator, as loaded with the game (read again after a seat write)."""
    cached: Roster | None = game.__dict__.get("_roster")
    if cached is None:
        with prepared_cursor(connection) as cursor:
            cursor.execute(_ROSTER_SQL, _game_params(game.pk))
            row = cursor.fetchone()
        cached = _roster_from(row[0], row[1]) if row else Roster("", ())
        game.__dict__["_roster"] = cached
    return cached


def attach_rosters(games: Sequence[Game]) -> None:
    """Read the rosters of ``games`` (a page of a listing) in one statement."""
    missing = {g.pk: g for g in games if "_roster" not in g.__dict__}
    if not missing:
        return
    with prepared_cursor(connection) as cursor:
        cursor.execute(_ROSTERS_SQL, [list(missing)])
        for game_id, creator, rows in cursor.fetchall():
            missing[game_id].__dict__["_roster"] = _roster_from(creator, rows)


def forget_roster(game: Game) -> None:
    """Seats changed (inside the game's lock): the next :func:`roster` reads them again."""
    game.__dict__.pop("_roster", None)


def _fetch_game(
    sql: str, game_id: int, tail_after: int | None = None, credential: int | None = None
) -> tuple[Game, Sequence[Any]]:
    """Run ``sql`` (the game's columns, then others) for ``game_id``: the game and the other columns (404
    problem if there is no such game). With ``tail_after``, ``sql`` ends with the log's tail after that
    version: it is kept on the game for :func:`games.loading.load_state`."""
    with prepared_cursor(connection) as cursor:
        cursor.execute(sql, _game_params(game_id, tail_after, credential))
        row = cursor.fetchone()
    if row is None:
        raise Refused(Refusal.NOT_FOUND, "game_not_found", "No such game.")
    n = len(_GAME_ATTNAMES)
    game = _game_from(row[:n])
    if tail_after is None:
        return game, row[n:]
    rows = row[-1]
    if isinstance(rows, str):
        rows = json.loads(rows)
    game.__dict__["_tail"] = (tail_after, rows or [])
    return game, row[n:-1]


@dataclass(frozen=True, slots=True)
class Caller:
    """The API token asked about in a game's statement (``credential``), as of that statement: ``live``
    (not revoked, its player active), with its player's username and staff flag when it is."""

    token_id: int
    live: bool
    username: str = ""
    is_staff: bool = False


def _note_caller(game: Game, credential: int | None, value: Any) -> None:
    if credential is None:
        return
    if isinstance(value, str):
        value = json.loads(value)
    caller = Caller(credential, True, value[0], bool(value[1])) if value else Caller(credential, False)
    game.__dict__["_caller"] = caller


def caller(game: Game) -> Caller | None:
    """The token checked with the game's read (``credential`` of :func:`get_game` or :func:`lock_game`)."""
    found: Caller | None = game.__dict__.get("_caller")
    return found


def lock_game(game_id: int, *, tail_after: int | None = None, credential: int | None = None) -> Game:
    """The game row, locked until the end of the current transaction, with its roster (and with
    ``tail_after``, the log's events after that version, for :func:`games.loading.load_state`; with
    ``credential``, an API token's id, whether it is live: :func:`caller`)."""
    sql = _LOCK_SQL if tail_after is None else _LOCK_TAIL_SQL
    game, (creator, seats, checked, revision_before_lock) = _fetch_game(sql, game_id, tail_after, credential)
    _note_caller(game, credential, checked)
    if revision_before_lock == game.revision:
        game.__dict__["_roster"] = _roster_from(creator, seats)
    elif tail_after is not None:
        # The statement waited for the lock (or the seats changed): its roster and tail are as of before the
        # transaction it waited for. Both again in one statement (without it: the roster, then the events).
        with prepared_cursor(connection) as cursor:
            cursor.execute(_ROSTER_TAIL_SQL, _game_params(game_id, tail_after))
            row = cursor.fetchone()
        if row is not None:
            rows = json.loads(row[2]) if isinstance(row[2], str) else row[2]
            game.__dict__["_roster"] = _roster_from(row[0], row[1])
            game.__dict__["_tail"] = (tail_after, rows or [])
    # else the roster read may be stale: :func:`roster` reads it again when needed
    return game


def lock_running(game_id: int) -> Game | None:
    """The game locked with its roster (as :func:`lock_game`) if it exists and is running, else ``None``:
    what timers and bots act on."""
    try:
        game = lock_game(game_id)
    except Refused:
        return None
    return game if game.status == GameStatus.RUNNING else None


def get_game(game_id: int, *, tail_after: int | None = None, credential: int | None = None) -> Game:
    """The game with its roster, read in one statement (with ``tail_after``, the log's events after that
    version too, for :func:`games.loading.load_state`; with ``credential``, an API token's id, whether it
    is live: :func:`caller`)."""
    sql = _READ_SQL if tail_after is None else _READ_TAIL_SQL
    game, (creator, seats, checked) = _fetch_game(sql, game_id, tail_after, credential)
    _note_caller(game, credential, checked)
    game.__dict__["_roster"] = _roster_from(creator, seats)
    return game


def seat_of(game: Game, player: Player | None) -> RosterSeat | None:
    if player is None or not player.is_authenticated:
        return None
    return next((s for s in roster(game).seats if s.player_id == player.pk), None)


def viewer_for(game: Game, player: Player | None, *, for_write: bool = False) -> Viewer:
    """The seat the player views (or acts) as; ``None`` for a spectator. Raises 404 when the player may not
    see the game at all, 403 ``not_seated`` when they may watch but not act."""
    seat = seat_of(game, player)
    if seat is not None and (game.status != GameStatus.RUNNING or seat.position is not None):
        if for_write and seat.position is None:
            raise Refused(Refusal.CONFLICT, "not_started", "The game has not started.")
        return seat.position
    visible = (
        game.status in (GameStatus.OPEN, GameStatus.OVER)
        or game.allow_spectators
        or (player is not None and player.is_staff)
    )
    if not visible:
        raise Refused(Refusal.NOT_FOUND, "game_not_found", "No such game.")
    if for_write:
        raise Refused(Refusal.FORBIDDEN, "not_seated", "You have no seat in this game.")
    return None


def may_know_of(game: Game, player: Player | None) -> bool:
    """Whether ``player`` may learn that ``game`` exists: whoever may see it (:func:`viewer_for`: a seat, or a
    game open to spectators, in the lobby or over; operators) and its creator. Everyone else must get exactly
    the answer a game id that does not exist gets (R8.3: no existence oracle)."""
    if player is not None and player.is_authenticated and game.creator_id == player.pk:
        return True
    try:
        viewer_for(game, player)
    except Refused:
        return False
    return True


def machine_seats(game: Game, rs: Ruleset[Any], state: Any) -> frozenset[int]:
    """The seats a machine plays now: bot seats, and seats on autopilot (played by the ``sensible`` bot)."""
    bots = frozenset(s.position for s in roster(game).seats if s.is_bot and s.position is not None)
    return bots | autopilot_seats(rs, state)


def autopilot_seats(rs: Ruleset[Any], state: Any) -> frozenset[int]:
    seats = getattr(rs, "autopilot_seats", None)
    return frozenset(seats(state)) if seats is not None else frozenset()
