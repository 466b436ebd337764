"""The creator's controls of a running game: pause and resume it, hand an abandoned seat over (to a bot or
another player). A vote to pause is a player command of the ruleset (:mod:`games.services.commands`)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.errors import Refusal, Refused
from games.loading import ruleset_for
from games.models import Event, Game, GameStatus, Seat, SeatOffer
from games.roster import forget_roster, lock_game
from games.rules.core import Context, RuleError, Ruleset
from players.models import Player

from . import timers
from .append import system_command
from .lobby import check_game_limits, check_not_bot_only, check_strategy, only_creator, player_uid


def _lock_running(game_id: int) -> Game:
    game = lock_game(game_id)
    if game.status != GameStatus.RUNNING:
        code = "game_over" if game.status == GameStatus.OVER else "not_started"
        raise Refused(Refusal.CONFLICT, code, f"The game is {game.status}.")
    return game


def _fresh_state(game: Game, rs: Ruleset[Any], now: datetime) -> Any:
    """The locked game's state with a passed deadline applied first (the opening every write shares)."""
    return timers.open_locked(game, now).state


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
            raise Refused(Refusal.CONFLICT, "game_over", "The game is over.")
        word = "pause" if pause else "resume"
        system_command(game, rs, state, rs.pause_command(pause), now, f"{word}:{uuid.uuid4()}")
    return game


def game_hand_over(
    *, game_id: int, by: Player, seat: int, to: str, strategy: str = "sensible", player: Player | None = None
) -> Game | SeatOffer:
    """The creator hands a seat on autopilot, or a stalled one (the table's ruling 13), over: to a bot
    (``to="bot"``, with ``strategy``) at once, the previous player losing the seat; to ``player``
    (``to="player"``, not yet in this game) as an offer (issue #28, item 13) that changes nothing until the
    player accepts it (:func:`offer_accept`). Returns the game, or the offer."""
    if to == "bot":
        check_strategy(strategy)
    elif player is None:
        raise Refused(
            Refusal.INVALID,
            "validation_error",
            "Name the player who takes the seat.",
            errors={"player": ["Required."]},
        )
    with transaction.atomic():
        game = _lock_running(game_id)
        only_creator(game, by)
        row = Seat.objects.filter(game=game, position=seat).first()
        if row is None:
            raise Refused(Refusal.NOT_FOUND, "seat_not_found", f"No seat {seat} in this game.")
        if to == "player":
            assert player is not None
            if Seat.objects.filter(game=game, player=player).exists():
                raise Refused(
                    Refusal.CONFLICT, "already_seated", "That player already has a seat in this game."
                )
        else:
            humans = Seat.objects.filter(game=game, player__isnull=False).exclude(pk=row.pk).count()
            check_not_bot_only(by, humans)
        rs = ruleset_for(game)
        now = timezone.now()
        state = _fresh_state(game, rs, now)
        if game.status != GameStatus.RUNNING:
            raise Refused(Refusal.CONFLICT, "game_over", "The game is over.")
        idle = _idle_since(game, rs, state, row)
        if to == "player":
            assert player is not None
            command = rs.hand_over_command(seat, to=to, player=player_uid(player), idle_since=idle)
            rs.decide(state, command, Context(now=now))  # the rules would take it now (else a rule error)
            SeatOffer.objects.filter(game=game, seat=seat).delete()  # a new offer replaces the seat's last
            return SeatOffer.objects.create(
                game=game,
                seat=seat,
                player=player,
                offered_by=by,
                holder_uid=row.uid,
                since_version=game.version,
                stalled=idle is not None,
                created_at=now,
            )
        row.player, row.bot_strategy, row.uid = None, strategy, f"bot{row.index}"
        _hand_over(game, rs, state, now, row, seat, to="bot", idle=idle)
    return game


def _hand_over(
    game: Game, rs: Ruleset[Any], state: Any, now: datetime, row: Seat, seat: int, *, to: str, idle: Any
) -> None:
    """Give ``row`` (its new holder set, not saved) its seat: the rules decide first, so that a refusal
    (RuleError) comes before the seat row changes."""
    command = rs.hand_over_command(seat, to=to, player=row.uid, idle_since=idle)
    rs.decide(state, command, Context(now=now))
    row.save(update_fields=["player", "bot_strategy", "uid"])
    SeatOffer.objects.filter(game=game, seat=seat).delete()
    forget_roster(game)
    system_command(game, rs, state, command, now, f"hand-over:{uuid.uuid4()}")


_SEAT_CHANGES = ("AutopilotEngaged", "AutopilotReleased", "SeatHandedOver", "PlayerResigned")
_STEP_STARTS = ("DeadlineSet", "StepOpened")  # a step's opening: the table's, or GoodCritters' own


def _idle_since(game: Game, rs: Ruleset[Any], state: Any, row: Seat) -> datetime | None:
    """For a stalled seat (the table's ruling 13: a step without a deadline waits on it, not on autopilot):
    since when it has waited without a move of its holder, the latest of the step's opening, the last
    resume and hand-over of the seat and its holder's last command other than a message. ``None`` for a
    seat that is not stalled (on autopilot, say: the rules then need no time)."""
    stalled = getattr(rs, "stalled_seats", None)
    seat = row.position
    if stalled is None or seat is None or seat not in stalled(state) or game.step_no is None:
        return None
    events = Event.objects.filter(game=game)
    marks = [
        events.filter(type__in=_STEP_STARTS, data__step_no=game.step_no),
        events.filter(type="GameResumed"),
        events.filter(type="SeatHandedOver", data__seat=seat),
    ]
    if row.player_id is not None:
        own = events.filter(actor_id=row.player_id, command__isnull=False)
        marks.append(own.exclude(command__type="SendMessage"))
    times = [m.order_by("-seq").values_list("created_at", flat=True).first() for m in marks]
    found = [t for t in times if t is not None]
    return max(found) if found else game.started_at


def offer_lapsed(offer: SeatOffer, game: Game, row: Seat | None) -> bool:
    """An offer lapses once its seat changed (issue #28, item 13): the game no longer runs, the seat has
    another holder, it was handed over, resigned, taken back or put on autopilot, or its holder played."""
    if game.status != GameStatus.RUNNING or row is None or row.uid != offer.holder_uid:
        return True
    later = Event.objects.filter(game=game, seq__gt=offer.since_version)
    if later.filter(type__in=_SEAT_CHANGES, data__seat=offer.seat).exists():
        return True
    if row.player_id is None:
        return False
    own = later.filter(actor_id=row.player_id, command__isnull=False).exclude(command__type="SendMessage")
    return own.exists()


def _offer_of(offer_id: int, player: Player, *, lock: bool = False) -> SeatOffer:
    qs = SeatOffer.objects.filter(pk=offer_id, player=player)
    if lock:  # the lock names the offer's game: on Citus a locking statement must stay on one shard
        qs = qs.filter(game_id=_offer_of(offer_id, player).game_id).select_for_update()
    offer = qs.first()
    if offer is None:
        raise Refused(Refusal.NOT_FOUND, "offer_not_found", "No such offer to you.")
    return offer


def offer_accept(*, offer_id: int, player: Player) -> Game:
    """The player takes the seat they were offered: the hand-over happens now (``SeatHandedOver`` in the
    log), if the offer still stands (409 ``offer_lapsed``) and their caps allow it."""
    game_id = _offer_of(offer_id, player).game_id
    with transaction.atomic():
        game = lock_game(game_id)
        offer = _offer_of(offer_id, player, lock=True)
        row = Seat.objects.filter(game=game, position=offer.seat).first()
        if offer_lapsed(offer, game, row):
            raise Refused(
                Refusal.CONFLICT, "offer_lapsed", "The seat changed since it was offered: the offer lapsed."
            )
        assert row is not None
        if Seat.objects.filter(game=game, player=player).exists():
            raise Refused(Refusal.CONFLICT, "already_seated", "You already have a seat in this game.")
        check_game_limits(player, opening=False)
        rs = ruleset_for(game)
        now = timezone.now()
        state = _fresh_state(game, rs, now)
        if game.status != GameStatus.RUNNING:
            raise Refused(Refusal.CONFLICT, "offer_lapsed", "The game is over: the offer lapsed.")
        idle = _idle_since(game, rs, state, row)
        row.player, row.bot_strategy, row.uid = player, "", player_uid(player)
        try:
            _hand_over(game, rs, state, now, row, offer.seat, to="player", idle=idle)
        except RuleError as exc:
            message = f"The seat can no longer be handed over: {exc.message}"
            raise Refused(Refusal.CONFLICT, "offer_lapsed", message) from exc
    return game


def offer_decline(*, offer_id: int, player: Player) -> None:
    """The player says no: the offer is gone, the seat stays as it is."""
    with transaction.atomic():
        _offer_of(offer_id, player, lock=True).delete()


def offer_withdraw(*, game_id: int, by: Player, seat: int) -> None:
    """The creator takes back the offer of ``seat``."""
    with transaction.atomic():
        game = lock_game(game_id)
        only_creator(game, by)
        deleted, _ = SeatOffer.objects.filter(game=game, seat=seat).delete()
        if not deleted:
            raise Refused(Refusal.NOT_FOUND, "offer_not_found", f"No offer of seat {seat} stands.")


def offers_to(player: Player, limit: int = 100) -> list[tuple[SeatOffer, Game]]:
    """The offers to ``player`` that still stand (lapsed ones are left out), newest first."""
    out: list[tuple[SeatOffer, Game]] = []
    qs = SeatOffer.objects.filter(player=player, game__status=GameStatus.RUNNING)
    for offer in qs.select_related("game", "offered_by").order_by("-created_at", "-id")[:limit]:
        row = Seat.objects.filter(game=offer.game, position=offer.seat).first()
        if not offer_lapsed(offer, offer.game, row):
            out.append((offer, offer.game))
    return out
