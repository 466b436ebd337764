"""The command service and the lobby: every write to a game goes through here.

A command: lock the game row (``select_for_update`` inside ``transaction.atomic``; different games never wait
on each other) → check ``If-Match`` inside the lock → load state (the fold of the log) → ``ruleset.decide`` →
append with the expected version → ``transaction.on_commit`` hooks. The service is generic: it talks to the
game only through the :class:`games.rules.core.Ruleset` protocol.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from critters_api.db.base import prepared_cursor
from critters_api.problems import Problem, rule_error_problem
from games.rules.core import Context, ErrorKind, RuleError, Ruleset, Viewer
from games.rules.registry import RULESETS, get_ruleset
from players.models import Player

from . import statecache, store
from .models import CommandResult, Game, GameStatus, Seat

logger = logging.getLogger(__name__)

BOT_STRATEGIES: tuple[str, ...] = ("random", "sensible")


# --------------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------------
def ruleset_for(game: Game) -> Ruleset[Any]:
    return get_ruleset(game.ruleset)


_EVENTS_SQL = (
    "SELECT seq, prev_hash, hash, data FROM games_event WHERE game_id = %s AND seq > %s AND seq <= %s"
    " ORDER BY seq"
)


def _event_rows(game: Game, after: int) -> list[tuple[int, str, str, Any]]:
    """(seq, prev_hash, hash, data) of the game's events after ``after`` up to the game's version as read
    (plain SQL: this runs whenever a process's cached fold is behind, i.e. on most requests of a busy game
    served by several processes)."""
    with prepared_cursor(connection) as cursor:
        cursor.execute(_EVENTS_SQL, [game.pk, after, game.version])
        rows = cursor.fetchall()
    return [
        (seq, prev, digest, json.loads(data) if isinstance(data, str) else data)
        for seq, prev, digest, data in rows
    ]


def load_state(game: Game, ruleset: Ruleset[Any] | None = None) -> Any:
    """The game's state at its version as read: the fold of its log (continued from a cached fold of a
    prefix of the same chain when there is one, see :mod:`games.statecache`)."""
    rs = ruleset or ruleset_for(game)
    entry = statecache.get(game.pk) if statecache.size() > 0 else None
    if entry is not None and entry.ruleset_version == rs.version and entry.version <= game.version:
        if entry.version == game.version and entry.head_hash == game.head_hash:
            return entry.state
        rows = _event_rows(game, entry.version)
        if rows and rows[0][0] == entry.version + 1 and rows[0][1] == entry.head_hash:
            state = rs.fold((rs.event_from_json(row[3]) for row in rows), entry.state)
            remember_state(game.pk, rs, rows[-1][0], rows[-1][2], state)
            return state
    full = _event_rows(game, 0)
    state = rs.fold(rs.event_from_json(row[3]) for row in full)
    if full:
        remember_state(game.pk, rs, full[-1][0], full[-1][2], state)
    return state


def full_replay(game: Game) -> Any:
    """The fold of the whole log, never cached (for checks and tests)."""
    rs = ruleset_for(game)
    return rs.fold(rs.event_from_json(data) for data in store.load_data(game.pk))


def remember_state(game_id: int, rs: Ruleset[Any], version: int, head_hash: str, state: Any) -> None:
    statecache.put(game_id, statecache.Entry(rs.version, version, head_hash, state))


def append_decided(
    game: Game,
    rs: Ruleset[Any],
    command: Any,
    events: Sequence[Any],
    *,
    state: Any,
    command_id: str,
    actor_id: int | None,
    now: datetime,
    extra_fields: Sequence[str] = (),
) -> Any:
    """Append what ``rs.decide`` made of ``command`` (from ``state``) at ``now``, the game row locked, and
    return the new state. The command itself goes on the batch's first event so that the record can be
    re-decided by an auditor: its JSON form plus ``seat``, the acting seat (``null`` for system commands),
    which the JSON form never carries. The game row's head, what it waits on (and ``extra_fields``) are
    saved in the same statement as the events (:func:`games.store.append`)."""
    from . import deadlines

    if not events:  # nothing happened: nothing to append or to save
        return state
    stored = {**rs.command_to_json(command), "seat": getattr(command, "seat", None)}
    new_state = rs.fold(events, state)
    before = (game.step_no, game.deadline_at, game.warn_at, game.bots_due_at)
    changed = _track_waiting(game, rs, new_state)
    store.append(
        game,
        [store.NewEvent(e.TYPE, e.VERSION, rs.event_to_json(e)) for e in events],
        expected_version=game.version,
        command_id=command_id,
        actor_id=actor_id,
        now=now,
        command=stored,
        also_set={name: getattr(game, name) for name in (*changed, *extra_fields)},
    )
    remember_state(game.pk, rs, game.version, game.head_hash, new_state)
    deadlines.schedule_followups(game, before)
    return new_state


# The hot path reads a game with its roster (seats, their players' names, the creator's name) in one or two
# statements of plain SQL: the ORM would compile four queries per request for the same rows.
_GAME_FIELDS = tuple(Game._meta.concrete_fields)
_GAME_COLUMNS = ", ".join(f'g."{f.column}"' for f in _GAME_FIELDS)
_GAME_ATTNAMES = [f.attname for f in _GAME_FIELDS]
_JSON_AT = tuple(i for i, f in enumerate(_GAME_FIELDS) if f.get_internal_type() == "JSONField")
_ROSTER_SUBQUERY = """(SELECT json_agg(json_build_array(s."index", s."position", s.player_id, p.username,
        p.display_name, s.bot_strategy, s.uid) ORDER BY s."index")
    FROM games_seat s LEFT JOIN players_player p ON p.id = s.player_id WHERE s.game_id = g.id)"""
_READ_SQL = f"""SELECT {_GAME_COLUMNS}, c.username, {_ROSTER_SUBQUERY}
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = %s"""  # noqa: S608 (model columns)
# Locking reads the roster in the same statement, and also the game's revision as of the statement's
# snapshot: under READ COMMITTED a statement that waited for the lock gets the newest game row but reads
# the seats as they were when it started. Every seat write bumps the revision under this lock, so when the
# two revisions differ the roster may be stale and is read again (a second statement, a new snapshot).
_LOCK_SQL = f"""SELECT {_GAME_COLUMNS}, c.username, {_ROSTER_SUBQUERY},
        (SELECT r.revision FROM games_game r WHERE r.id = g.id)
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = %s FOR UPDATE OF g"""  # noqa: S608
_ROSTER_SQL = f"""SELECT c.username, {_ROSTER_SUBQUERY}
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = %s"""  # noqa: S608
_ROSTERS_SQL = f"""SELECT g.id, c.username, {_ROSTER_SUBQUERY}
    FROM games_game g JOIN players_player c ON c.id = g.creator_id WHERE g.id = ANY(%s)"""  # noqa: S608


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
            cursor.execute(_ROSTER_SQL, [game.pk])
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


def _fetch_game(sql: str, game_id: int) -> tuple[Game, Sequence[Any]]:
    """Run ``sql`` (the game's columns, then others) for ``game_id``: the game and the other columns (404
    problem if there is no such game)."""
    with prepared_cursor(connection) as cursor:
        cursor.execute(sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        raise Problem(404, "game_not_found", "No such game.")
    n = len(_GAME_ATTNAMES)
    return _game_from(row[:n]), row[n:]


def lock_game(game_id: int) -> Game:
    """The game row, locked until the end of the current transaction, with its roster."""
    game, (creator, seats, revision_before_lock) = _fetch_game(_LOCK_SQL, game_id)
    if revision_before_lock == game.revision:  # else the roster read may be stale: read it when needed
        game.__dict__["_roster"] = _roster_from(creator, seats)
    return game


def lock_running(game_id: int) -> Game | None:
    """The game locked with its roster (as :func:`lock_game`) if it exists and is running, else ``None``:
    what timers and bots act on."""
    try:
        game = lock_game(game_id)
    except Problem:
        return None
    return game if game.status == GameStatus.RUNNING else None


def get_game(game_id: int) -> Game:
    """The game with its roster, read in one statement."""
    game, (creator, seats) = _fetch_game(_READ_SQL, game_id)
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
            raise Problem(409, "not_started", "The game has not started.")
        return seat.position
    visible = (
        game.status in (GameStatus.OPEN, GameStatus.OVER)
        or game.allow_spectators
        or (player is not None and player.is_staff)
    )
    if not visible:
        raise Problem(404, "game_not_found", "No such game.")
    if for_write:
        raise Problem(403, "not_seated", "You have no seat in this game.")
    return None


# --------------------------------------------------------------------------------------------------
# lobby
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class OperatorSetup:
    """What an operator may fix (the game is then marked ``fair: false``)."""

    seed: bytes | None = None
    seat_order: tuple[int, ...] | None = None  # lobby seat indexes in the order they should sit
    deck: Mapping[str, Any] = field(default_factory=dict)  # ruleset setup keys other than ``seats``


def _parse_options(ruleset: Ruleset[Any], raw: Mapping[str, Any]) -> dict[str, Any]:
    options = ruleset.parse_options(raw)  # InvalidOptions (a RuleError, 422)
    return ruleset.options_to_json(options)


def game_create(
    *,
    creator: Player,
    ruleset: str = "goodcritters",
    seats: int,
    options: Mapping[str, Any] | None = None,
    name: str = "",
    allow_spectators: bool = True,
    join: bool = True,
    bots: Sequence[str] = (),
    setup: OperatorSetup | None = None,
) -> Game:
    if ruleset not in RULESETS:
        raise Problem(
            422, "unknown_ruleset", f"No ruleset {ruleset!r}.", errors={"ruleset": ["Unknown ruleset."]}
        )
    rs = get_ruleset(ruleset)
    low, high = rs.seat_range()
    if not low <= seats <= high:
        raise Problem(
            422,
            "invalid_seats",
            f"This ruleset seats {low} to {high}.",
            errors={"seats": [f"Must be from {low} to {high}."]},
        )
    options_json = _parse_options(rs, options or {})
    if len(bots) + (1 if join else 0) > seats:
        raise Problem(
            422, "too_many_seats", "More bots (and you) than seats.", errors={"bots": ["Too many."]}
        )
    for strategy in bots:
        _check_strategy(strategy)
    setup_json: dict[str, Any] | None = None
    if setup is not None:
        if not creator.is_staff:
            raise Problem(403, "operators_only", "Only operators can fix the seed, deck or seats.")
        setup_json = _setup_json(rs, setup, seats)
    with transaction.atomic():
        game = Game.objects.create(
            ruleset=ruleset,
            name=name,
            creator=creator,
            seat_count=seats,
            options=options_json,
            allow_spectators=allow_spectators,
            fair=setup is None,
            setup=setup_json,
        )
        index = 0
        if join:
            Seat.objects.create(game=game, index=0, player=creator, uid=_player_uid(creator))
            index = 1
        for strategy in bots:
            Seat.objects.create(game=game, index=index, bot_strategy=strategy, uid=f"bot{index}")
            index += 1
        if index == seats:
            game = lock_game(game.pk)
            _start(game)
    return game


def _setup_json(rs: Ruleset[Any], setup: OperatorSetup, seats: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if setup.seed is not None:
        if len(setup.seed) != 32:
            raise Problem(422, "invalid_setup", "The seed is 32 bytes (64 hex digits).")
        out["seed"] = setup.seed.hex()
    if setup.seat_order is not None:
        if sorted(setup.seat_order) != list(range(seats)):
            raise Problem(422, "invalid_setup", f"seat_order must order the lobby seats 0..{seats - 1}.")
        out["seat_order"] = list(setup.seat_order)
    if "seats" in setup.deck:
        raise Problem(422, "invalid_setup", "Give the seat order as seat_order (lobby seat indexes).")
    if "fixed_seed" in setup.deck:
        raise Problem(422, "invalid_setup", "Give the seed as seed: fixed_seed is the server's to set.")
    deck = dict(setup.deck)
    # let the ruleset check the shape now (a bad deck is refused again, with nothing applied, at start)
    players = [f"check{i}" for i in range(seats)]
    rs.start_command(players=players, creator=None, options=rs.parse_options({}), seed=b"\0" * 32, setup=deck)
    out["deck"] = deck
    return out


def _player_uid(player: Player) -> str:
    return f"p{player.pk}"


def _check_strategy(strategy: str) -> None:
    if strategy not in BOT_STRATEGIES:
        raise Problem(
            422,
            "invalid_strategy",
            f"Bot strategies: {', '.join(BOT_STRATEGIES)}.",
            errors={"strategy": ["Unknown strategy."]},
        )


def _lock_open(game_id: int) -> Game:
    game = lock_game(game_id)
    if game.status != GameStatus.OPEN:
        code = "game_cancelled" if game.status == GameStatus.CANCELLED else "already_started"
        raise Problem(409, code, f"The game is {game.status}, not open.")
    return game


def _free_index(game: Game, wanted: int | None) -> int:
    taken = set(Seat.objects.filter(game=game).values_list("index", flat=True))
    if wanted is not None:
        if not 0 <= wanted < game.seat_count:
            raise Problem(
                422,
                "invalid_seat",
                f"Seats are 0 to {game.seat_count - 1}.",
                errors={"seat": ["No such seat."]},
            )
        if wanted in taken:
            raise Problem(409, "seat_taken", f"Seat {wanted} is taken.")
        return wanted
    for index in range(game.seat_count):
        if index not in taken:
            return index
    raise Problem(409, "game_full", "The game is full.")


def _bump(game: Game) -> None:
    game.revision += 1
    Game.objects.filter(pk=game.pk).update(revision=game.revision)


def _start_if_full(game: Game) -> None:
    if Seat.objects.filter(game=game).count() >= game.seat_count:
        _start(game)


def game_join(*, game_id: int, player: Player, seat: int | None = None) -> Game:
    with transaction.atomic():
        game = _lock_open(game_id)
        if Seat.objects.filter(game=game, player=player).exists():
            raise Problem(409, "already_seated", "You already have a seat in this game.")
        index = _free_index(game, seat)
        Seat.objects.create(game=game, index=index, player=player, uid=_player_uid(player))
        forget_roster(game)
        _bump(game)
        _start_if_full(game)
    return game


def game_leave(*, game_id: int, player: Player) -> Game:
    with transaction.atomic():
        game = _lock_open(game_id)
        deleted, _ = Seat.objects.filter(game=game, player=player).delete()
        forget_roster(game)
        if not deleted:
            raise Problem(409, "not_seated", "You have no seat in this game.")
        _bump(game)
    return game


def game_add_bot(*, game_id: int, by: Player, strategy: str, seat: int | None = None) -> Game:
    _check_strategy(strategy)
    with transaction.atomic():
        game = _lock_open(game_id)
        _only_creator(game, by)
        index = _free_index(game, seat)
        Seat.objects.create(game=game, index=index, bot_strategy=strategy, uid=f"bot{index}")
        forget_roster(game)
        _bump(game)
        _start_if_full(game)
    return game


def game_remove_seat(*, game_id: int, by: Player, seat: int) -> Game:
    """The creator frees a lobby seat (a bot's, or removes a player) before the start."""
    with transaction.atomic():
        game = _lock_open(game_id)
        _only_creator(game, by)
        deleted, _ = Seat.objects.filter(game=game, index=seat).delete()
        forget_roster(game)
        if not deleted:
            raise Problem(404, "seat_not_found", f"Seat {seat} is free.")
        _bump(game)
    return game


def _only_creator(game: Game, by: Player) -> None:
    if game.creator_id != by.pk and not by.is_staff:
        raise Problem(403, "not_creator", "Only the game's creator may do this.")


def game_start(*, game_id: int, by: Player) -> Game:
    with transaction.atomic():
        game = _lock_open(game_id)
        _only_creator(game, by)
        _start(game)
    return game


def game_cancel(*, game_id: int, by: Player) -> Game:
    with transaction.atomic():
        game = _lock_open(game_id)
        _only_creator(game, by)
        game.status = GameStatus.CANCELLED
        game.ended_at = timezone.now()
        game.revision += 1
        game.save(update_fields=["status", "ended_at", "revision"])
    return game


def _start(game: Game) -> None:
    """Start a locked open game with the seats taken now (called inside the transaction)."""
    rs = ruleset_for(game)
    seats = list(Seat.objects.filter(game=game).select_related("player").order_by("index"))
    low, _high = rs.seat_range()
    if len(seats) < low:
        raise Problem(409, "not_enough_players", f"At least {low} seats must be taken to start.")
    setup = game.setup or {}
    seed = bytes.fromhex(setup["seed"]) if setup.get("seed") else secrets.token_bytes(32)
    deck = dict(setup.get("deck") or {})
    if setup.get("seed"):
        deck["fixed_seed"] = True  # an operator chose the seed: the log says the game is not fair (R8.2)
    if setup.get("seat_order") is not None:
        by_index = {s.index: s.uid for s in seats}
        if set(by_index) != set(setup["seat_order"]):
            raise Problem(409, "setup_mismatch", "The operator's seat_order does not match the taken seats.")
        deck["seats"] = [by_index[i] for i in setup["seat_order"]]
    creator_seat = next((s for s in seats if s.player_id == game.creator_id), None)
    now = timezone.now()
    command = rs.start_command(
        players=[s.uid for s in seats],
        creator=creator_seat.uid if creator_seat else None,
        options=rs.parse_options(game.options),
        seed=seed,
        setup=deck or None,
    )
    state = rs.initial_state()
    events = rs.decide(state, command, Context(now=now))
    ids = rs.view_for(rs.fold(events, state), None).get("players")
    order: list[str] = list(ids) if isinstance(ids, list) else [s.uid for s in seats]
    position = {uid: i for i, uid in enumerate(order)}
    for s in seats:
        s.position = position[s.uid]
    Seat.objects.bulk_update(seats, ["position"])
    forget_roster(game)
    game.status = GameStatus.RUNNING
    game.started_at = now
    game.seat_count = len(seats)
    append_decided(
        game,
        rs,
        command,
        events,
        state=state,
        command_id=f"start:{uuid.uuid4()}",
        actor_id=None,
        now=now,
        extra_fields=("status", "started_at", "seat_count"),
    )


def _track_waiting(game: Game, rs: Ruleset[Any], state: Any) -> list[str]:
    """Denormalise onto ``game`` (not saved) what it waits on in ``state``, for listings and timers: the
    step, its deadline and warning, since when a machine seat has something to do, and the end of the game.
    Returns the names of the fields to save."""
    from . import deadlines

    waiting = rs.waiting(state)
    game.step_no = waiting.step_no if waiting else None
    game.waiting_step = waiting.step if waiting else ""
    game.deadline_at = waiting.due_at if waiting else None
    game.warn_at = deadlines.warn_at(rs, state)
    due_bots = waiting is not None and bool(waiting.seats & machine_seats(game, rs, state))
    if not due_bots:
        game.bots_due_at = None
    elif game.bots_due_at is None:
        game.bots_due_at = timezone.now()
    fields = ["step_no", "waiting_step", "deadline_at", "warn_at", "bots_due_at"]
    if rs.is_terminal(state) and game.status != GameStatus.OVER:
        game.status = GameStatus.OVER
        game.ended_at = timezone.now()
        fields += ["status", "ended_at"]
    return fields


def machine_seats(game: Game, rs: Ruleset[Any], state: Any) -> frozenset[int]:
    """The seats a machine plays now: bot seats, and seats on autopilot (played by the ``sensible`` bot)."""
    bots = frozenset(s.position for s in roster(game).seats if s.is_bot and s.position is not None)
    return bots | autopilot_seats(rs, state)


def autopilot_seats(rs: Ruleset[Any], state: Any) -> frozenset[int]:
    seats = getattr(rs, "autopilot_seats", None)
    return frozenset(seats(state)) if seats is not None else frozenset()


# --------------------------------------------------------------------------------------------------
# commands
# --------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class CommandResponse:
    """What a command produced: an HTTP status and body (the viewer's new state, or a problem), the ETag."""

    status: int
    body: dict[str, Any]
    etag: str = ""
    replayed: bool = False
    game_id: int = 0


def _request_hash(game_id: int, command_json: Mapping[str, Any]) -> str:
    return hashlib.sha256(store.canonical_json({"game": game_id, "command": dict(command_json)})).hexdigest()


def _try_key_lock(player_id: int, game_id: int, key: str) -> bool:
    digest = hashlib.sha256(f"idempotency:{player_id}:{game_id}:{key}".encode()).digest()
    lock_id = int.from_bytes(digest[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [lock_id])
        row = cursor.fetchone()
    return bool(row and row[0])


def _idempotent_replay(player: Player, game_id: int, key: str, request_hash: str) -> CommandResponse | None:
    """The stored response to this key, if any. A key is scoped to its game (the same key on another game is
    another request): the lookup stays inside one game, as every statement of a command does (a database
    distributed by game answers it from one shard, docs/SCALING.md)."""
    if not _try_key_lock(player.pk, game_id, key):
        raise Problem(
            409, "idempotency_key_in_use", "A request with this Idempotency-Key is still being processed."
        )
    stored = CommandResult.objects.filter(game_id=game_id, player=player, key=key).first()
    if stored is None:
        return None
    if stored.request_hash != request_hash:
        raise Problem(422, "idempotency_key_reused", "This Idempotency-Key was used for a different request.")
    return CommandResponse(
        stored.status_code, stored.response, stored.etag, replayed=True, game_id=stored.game_id
    )


def game_command(
    *,
    game_id: int,
    player: Player,
    command_json: Mapping[str, Any],
    idempotency_key: str | None = None,
    if_match: str | None = None,
    render: Callable[[Game, Any, Viewer], dict[str, Any]] | None = None,
) -> CommandResponse:
    """Apply one player command (``{"type": ..., ...fields}``) for the caller's seat.

    Rule errors come back as a problem response (and are stored under the idempotency key like successes);
    precondition and access errors raise :class:`Problem` (nothing stored). ``render`` builds the success
    body from the game, the new state and the viewer (default: :func:`games.selectors.viewer_state`)."""
    from .selectors import viewer_state

    make_body = render or viewer_state
    request_hash = _request_hash(game_id, command_json)
    with transaction.atomic():
        if idempotency_key is not None:
            replay = _idempotent_replay(player, game_id, idempotency_key, request_hash)
            if replay is not None:
                return replay
        game = lock_game(game_id)
        seat = viewer_for(game, player, for_write=True)
        if if_match is not None and not etag_matches(if_match, game.etag):
            raise Problem(
                412, "precondition_failed", "The game has changed since the ETag you sent.", etag=game.etag
            )
        if game.status != GameStatus.RUNNING:
            code = "game_over" if game.status == GameStatus.OVER else "not_started"
            raise Problem(409, code, f"The game is {game.status}.")
        rs = ruleset_for(game)
        state = load_state(game, rs)
        now = timezone.now()
        if game.deadline_at is not None and game.deadline_at <= now and game.step_no is not None:
            # a passed deadline is applied before anything else (correctness never waits on the worker)
            before = game.etag
            state = expire_locked(game, rs, state, now)
            if if_match is not None and game.etag != before:
                raise Problem(
                    412,
                    "precondition_failed",
                    "The step's deadline passed: the game has changed.",
                    etag=game.etag,
                )
            if game.status != GameStatus.RUNNING:
                raise Problem(409, "game_over", "The game is over.")
        try:
            command = rs.command_from_json(command_json, seat)
            if seat in autopilot_seats(rs, state) and command.TYPE not in rs.autopilot_player_commands:
                raise RuleError(
                    "autopilot_on",
                    "Your seat is on autopilot: take it back first (TakeBackSeat).",
                    kind=ErrorKind.CONFLICT,
                )
            events = rs.decide(state, command, Context(now=now))
        except RuleError as exc:
            status, body = rule_error_problem(exc)
            response = CommandResponse(status, body, game.etag, game_id=game.pk)
        else:
            command_id = idempotency_key or f"cmd:{uuid.uuid4()}"
            state = append_decided(
                game,
                rs,
                command,
                events,
                state=state,
                command_id=command_id,
                actor_id=player.pk,
                now=now,
            )
            body = make_body(game, state, seat)
            if idempotency_key is not None:  # stored as served, so that a retry gets the same bytes
                body = json.loads(json.dumps(body, cls=JSONEncoder))
            response = CommandResponse(200, body, game.etag, game_id=game.pk)
        if idempotency_key is not None:
            CommandResult.objects.create(
                player=player,
                key=idempotency_key,
                game=game,
                request_hash=request_hash,
                status_code=response.status,
                response=response.body,
                etag=response.etag,
            )
    return response


def etag_matches(header: str, etag: str) -> bool:
    """``If-Match``: ``*`` or a list of entity tags, one of which is the current (strong comparison)."""
    candidates = [part.strip() for part in header.split(",")]
    return "*" in candidates or etag in candidates


# --------------------------------------------------------------------------------------------------
# bots, deadlines, notifications
# --------------------------------------------------------------------------------------------------
def has_bots(game_id: int) -> bool:
    return Seat.objects.filter(game_id=game_id, player__isnull=True).exists()


def bots_play(game_id: int, *, max_steps: int | None = None) -> int:
    """Let the game's machine seats (bots, and seats on autopilot played by the ``sensible`` bot) act until
    none has anything to do; returns the number of commands applied.

    Each bot command is its own short transaction (lock, fold, decide, append), so players' commands
    interleave. Idempotent and safe to call any number of times, from any process: the Celery task
    ``games.tasks.play_bots`` calls it (and the sweeper, for a task that was lost); tests call it directly."""
    from . import deadlines

    limit = max_steps if max_steps is not None else settings.BOTS_MAX_STEPS
    applied = 0
    skip: set[int] = set()
    cached: tuple[int, Any] | None = None  # (version, state): reused while nobody else appended
    with deadlines.bots_running():
        while applied < limit:
            with transaction.atomic():
                game = lock_running(game_id)
                if game is None:
                    return applied
                rs = ruleset_for(game)
                fresh = cached is not None and cached[0] == game.version
                state = cached[1] if cached is not None and fresh else load_state(game, rs)
                if game.deadline_at is not None and game.deadline_at <= timezone.now():
                    state = expire_locked(game, rs, state, timezone.now())
                if rs.is_terminal(state):
                    return applied
                strategies: dict[int, str] = dict.fromkeys(autopilot_seats(rs, state), "sensible")
                for bot in roster(game).seats:
                    if bot.is_bot and bot.position is not None:
                        strategies[bot.position] = bot.bot_strategy
                acted = False
                for position in sorted(strategies):
                    if position in skip:
                        continue
                    command = rs.bot_command(state, position, strategy=strategies[position], salt=game.pk)
                    if command is None:
                        continue
                    now = timezone.now()
                    try:
                        events = rs.decide(state, command, Context(now=now))
                    except RuleError:
                        logger.exception("bot in seat %s of game %s: command refused", position, game_id)
                        skip.add(position)
                        continue
                    state = append_decided(
                        game,
                        rs,
                        command,
                        events,
                        state=state,
                        command_id=f"bot:{uuid.uuid4()}",
                        actor_id=None,
                        now=now,
                    )
                    cached = (game.version, state)
                    acted = True
                    applied += 1
                    break
                if not acted:
                    if game.bots_due_at is not None:  # nothing a bot can do now: off the sweeper's list
                        game.bots_due_at = None
                        game.save(update_fields=["bots_due_at"])
                    return applied
    return applied


def game_expire(*, game_id: int, step_no: int, now: datetime | None = None) -> int:
    """A deadline timer fired for step ``step_no``: apply the ruleset's expire command (a no-op when stale:
    another step, not due yet, or the game is not running). Returns the number of events appended."""
    with transaction.atomic():
        game = lock_running(game_id)
        if game is None or game.step_no != step_no:
            return 0
        before = game.version
        rs = ruleset_for(game)
        expire_locked(game, rs, load_state(game, rs), now or timezone.now())
        return game.version - before


def system_command(
    game: Game, rs: Ruleset[Any], state: Any, command: Any, now: datetime, command_id: str
) -> Any:
    """Decide and append a system command on the locked ``game``; returns the new state (the old one when the
    command yields no events, e.g. a stale timer). Rule errors are the caller's."""
    events = rs.decide(state, command, Context(now=now))
    if not events:
        return state
    return append_decided(
        game, rs, command, events, state=state, command_id=command_id, actor_id=None, now=now
    )


def expire_locked(game: Game, rs: Ruleset[Any], state: Any, now: datetime) -> Any:
    """Apply the deadline of the locked game's current step if it has passed at ``now`` (R7.2/R7.3, R7.5);
    the same path for the sweeper, the ETA task and a request that finds the deadline passed."""
    waiting = rs.waiting(state)
    if waiting is None or waiting.due_at is None or waiting.due_at > now:
        return state
    step_no = waiting.step_no
    return system_command(
        game, rs, state, rs.expire_command(step_no), now, f"expire:{step_no}:{uuid.uuid4().hex[:8]}"
    )


# --------------------------------------------------------------------------------------------------
# pause, resume, hand-over (the creator's; a vote to pause is a player command of the ruleset)
# --------------------------------------------------------------------------------------------------
def _lock_running(game_id: int) -> Game:
    game = lock_game(game_id)
    if game.status != GameStatus.RUNNING:
        code = "game_over" if game.status == GameStatus.OVER else "not_started"
        raise Problem(409, code, f"The game is {game.status}.")
    return game


def _fresh_state(game: Game, rs: Ruleset[Any], now: datetime) -> Any:
    """The locked game's state with a passed deadline applied first."""
    return expire_locked(game, rs, load_state(game, rs), now)


def game_pause(*, game_id: int, by: Player, pause: bool) -> Game:
    """The creator pauses (or resumes) a running game: an event in the log; deadlines stop (and, on resume,
    move by the paused time). Rule errors (already paused, pause by vote) propagate as problems."""
    with transaction.atomic():
        game = _lock_running(game_id)
        _only_creator(game, by)
        rs = ruleset_for(game)
        now = timezone.now()
        state = _fresh_state(game, rs, now)
        if game.status != GameStatus.RUNNING:
            raise Problem(409, "game_over", "The game is over.")
        word = "pause" if pause else "resume"
        system_command(game, rs, state, rs.pause_command(pause), now, f"{word}:{uuid.uuid4()}")
    return game


def game_hand_over(
    *, game_id: int, by: Player, seat: int, to: str, strategy: str = "sensible", player: Player | None = None
) -> Game:
    """The creator gives an abandoned seat (on autopilot) to a bot (``to="bot"``, with ``strategy``) or to
    ``player`` (``to="player"``, not yet in this game). The previous player loses the seat."""
    if to == "bot":
        _check_strategy(strategy)
    elif player is None:
        raise Problem(
            422, "validation_error", "Name the player who takes the seat.", errors={"player": ["Required."]}
        )
    with transaction.atomic():
        game = _lock_running(game_id)
        _only_creator(game, by)
        row = Seat.objects.filter(game=game, position=seat).first()
        if row is None:
            raise Problem(404, "seat_not_found", f"No seat {seat} in this game.")
        if to == "player":
            assert player is not None
            if Seat.objects.filter(game=game, player=player).exists():
                raise Problem(409, "already_seated", "That player already has a seat in this game.")
            row.player, row.bot_strategy, row.uid = player, "", _player_uid(player)
        else:
            row.player, row.bot_strategy, row.uid = None, strategy, f"bot{row.index}"
        rs = ruleset_for(game)
        now = timezone.now()
        state = _fresh_state(game, rs, now)
        if game.status != GameStatus.RUNNING:
            raise Problem(409, "game_over", "The game is over.")
        command = rs.hand_over_command(seat, to=to, player=row.uid)
        rs.decide(state, command, Context(now=now))  # refused (RuleError) before the seat row changes
        row.save(update_fields=["player", "bot_strategy", "uid"])
        forget_roster(game)
        system_command(game, rs, state, command, now, f"hand-over:{uuid.uuid4()}")
    return game


__all__ = [
    "BOT_STRATEGIES",
    "CommandResponse",
    "OperatorSetup",
    "bots_play",
    "game_add_bot",
    "game_cancel",
    "game_command",
    "game_create",
    "game_expire",
    "game_hand_over",
    "game_join",
    "game_leave",
    "game_pause",
    "game_start",
    "has_bots",
    "load_state",
]
