"""The creator's controls of a running game: pause and resume it, hand an abandoned seat over (to a bot or
another player). A vote to pause is a player command of the ruleset (:mod:`games.services.commands`)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from critters_api.problems import Problem
from games.loading import load_state, ruleset_for
from games.models import Game, GameStatus, Seat
from games.roster import forget_roster, lock_game
from games.rules.core import Context, Ruleset
from players.models import Player

from . import timers
from .append import system_command
from .lobby import check_not_bot_only, check_strategy, only_creator, player_uid


def _lock_running(game_id: int) -> Game:
    game = lock_game(game_id)
    if game.status != GameStatus.RUNNING:
        code = "game_over" if game.status == GameStatus.OVER else "not_started"
        raise Problem(409, code, f"The game is {game.status}.")
    return game


def _fresh_state(game: Game, rs: Ruleset[Any], now: datetime) -> Any:
    """The locked game's state with a passed deadline applied first."""
    return timers.expire_locked(game, rs, load_state(game, rs), now)


def game_pause(*, game_id: int, by: Player, pause: bool) -> Game:
    """The creator pauses (or resumes) a running game: an event in the log; deadlines stop (and, on resume,
    move by the paused time). Rule errors (already paused, pause by vote) propagate as problems."""
    with transaction.atomic():
        game = _lock_running(game_id)
        only_creator(game, by)
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
        check_strategy(strategy)
    elif player is None:
        raise Problem(
            422, "validation_error", "Name the player who takes the seat.", errors={"player": ["Required."]}
        )
    with transaction.atomic():
        game = _lock_running(game_id)
        only_creator(game, by)
        row = Seat.objects.filter(game=game, position=seat).first()
        if row is None:
            raise Problem(404, "seat_not_found", f"No seat {seat} in this game.")
        if to == "player":
            assert player is not None
            if Seat.objects.filter(game=game, player=player).exists():
                raise Problem(409, "already_seated", "That player already has a seat in this game.")
            row.player, row.bot_strategy, row.uid = player, "", player_uid(player)
        else:
            humans = Seat.objects.filter(game=game, player__isnull=False).exclude(pk=row.pk).count()
            check_not_bot_only(by, humans)
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
