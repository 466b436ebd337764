"""The command path: a player's command, from its JSON to its events and the response.

Parse and authorize (the caller's seat), the ``Idempotency-Key`` (a stored response is served again),
``If-Match`` (optimistic concurrency, checked inside the game row's lock), a passed deadline applied first,
``ruleset.decide``, then the append (:func:`games.services.append.append_decided`, which also schedules
the timers and bots that follow). The service is generic: it talks to the game only through the
:class:`games.rules.core.Ruleset` protocol.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from critters_api.problems import rule_error_problem
from games import store
from games.errors import Refusal, Refused
from games.loading import cached_version
from games.models import CommandResult, Game, GameStatus
from games.roster import autopilot_seats, lock_game, may_know_of, viewer_for
from games.rules.core import Context, ErrorKind, RuleError, Viewer
from games.selectors import viewer_state
from players.models import Player

from . import timers
from .append import append_decided


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
    """The stored response to this key (its lock held: :func:`_try_key_lock`), if any. A key is scoped to its
    game (the same key on another game is another request): the lookup stays inside one game, as every
    statement of a command does (a database distributed by game answers it from one shard,
    docs/SCALING.md)."""
    stored = CommandResult.objects.filter(game_id=game_id, player=player, key=key).first()
    if stored is None:
        return None
    if stored.request_hash != request_hash:
        raise Refused(
            Refusal.INVALID,
            "idempotency_key_reused",
            "This Idempotency-Key was used for a different request.",
        )
    return CommandResponse(
        stored.status_code, stored.response, stored.etag, replayed=True, game_id=stored.game_id
    )


def game_command(
    *,
    game_id: int,
    player: Player,
    command_json: Mapping[str, Any] | None = None,
    parse: Callable[[Game], Mapping[str, Any]] | None = None,
    idempotency_key: str | None = None,
    if_match: str | None = None,
    render: Callable[[Game, Any, Viewer], dict[str, Any]] | None = None,
    credential: int | None = None,
    check_caller: Callable[[Game], None] | None = None,
) -> CommandResponse:
    """Apply one player command (``{"type": ..., ...fields}``) for the caller's seat.

    Access first: the game is locked and read with its roster (one statement), and a caller who may not know
    of it gets the answer of a missing id (404 ``game_not_found``) before anything else is looked at. Then
    the body: ``parse(game)`` (its shape may depend on the game's ruleset) gives the command's JSON, or
    ``command_json`` is it. Then the Idempotency-Key (a stored response is served again), the seat, If-Match,
    the game's status, the opening every write shares (:func:`games.services.timers.open_locked`: a passed
    deadline applied first), the rules' decision and the append.

    Rule errors come back as a problem response (and are stored under the idempotency key like successes);
    precondition and access errors raise :class:`games.errors.Refused` (nothing stored). ``render`` builds
    the success body from the game, the new state and the viewer (default:
    :func:`games.selectors.viewer_state`). ``credential`` (an API token's id) is checked in the statement
    that locks the game, and ``check_caller(game)`` judges it (:func:`games.roster.caller`) before anything
    else, the access to the game included."""
    make_body = render or viewer_state
    with transaction.atomic():
        if idempotency_key is not None and not _try_key_lock(player.pk, game_id, idempotency_key):
            raise Refused(
                Refusal.CONFLICT,
                "idempotency_key_in_use",
                "A request with this Idempotency-Key is still being processed.",
            )
        game = lock_game(game_id, tail_after=cached_version(game_id), credential=credential)
        if check_caller is not None:
            check_caller(game)
        if not may_know_of(game, player):
            raise Refused(Refusal.NOT_FOUND, "game_not_found", "No such game.")
        if parse is not None:
            command_json = parse(game)
        assert command_json is not None, "game_command needs command_json or parse"
        request_hash = ""
        if idempotency_key is not None:
            request_hash = _request_hash(game_id, command_json)
            replay = _idempotent_replay(player, game_id, idempotency_key, request_hash)
            if replay is not None:
                return replay
        seat = viewer_for(game, player, for_write=True)
        if if_match is not None and not etag_matches(if_match, game.etag):
            raise Refused(
                Refusal.PRECONDITION_FAILED,
                "precondition_failed",
                "The game has changed since the ETag you sent.",
                etag=game.etag,
            )
        if game.status != GameStatus.RUNNING:
            code = "game_over" if game.status == GameStatus.OVER else "not_started"
            raise Refused(Refusal.CONFLICT, code, f"The game is {game.status}.")
        now = timezone.now()
        before = game.etag
        opened = timers.open_locked(game, now)  # a passed deadline is applied before anything else
        rs, state = opened.rs, opened.state
        if game.etag != before:
            if if_match is not None:
                raise Refused(
                    Refusal.PRECONDITION_FAILED,
                    "precondition_failed",
                    "The step's deadline passed: the game has changed.",
                    etag=game.etag,
                )
            if game.status != GameStatus.RUNNING:
                raise Refused(Refusal.CONFLICT, "game_over", "The game is over.")
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
