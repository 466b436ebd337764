"""The lobby: create a game, take and free its seats (players and bots), start or cancel it.

Every change to a game's seats is made with its row locked and bumps its ``revision`` (so that a locking read
knows when the roster it read may be stale, :func:`games.roster.lock_game`). A game starts when its last
seat is taken, or when the creator says so.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.errors import Refusal, Refused
from games.loading import ruleset_for
from games.models import Game, GameStatus, Seat
from games.roster import forget_roster, lock_game
from games.rules.core import Context, Ruleset
from games.rules.registry import RULESETS, get_ruleset
from players.models import Player

from .append import append_decided

BOT_STRATEGIES: tuple[str, ...] = ("random", "sensible")


@dataclass(frozen=True, slots=True)
class OperatorSetup:
    """What an operator may fix (the game is then marked ``fair: false``)."""

    seed: bytes | None = None
    seat_order: tuple[int, ...] | None = None  # lobby seat indexes in the order they should sit
    deck: Mapping[str, Any] = field(default_factory=dict)  # ruleset setup keys other than ``seats``


def _parse_options(ruleset: Ruleset[Any], raw: Mapping[str, Any]) -> dict[str, Any]:
    options = ruleset.parse_options(raw)  # InvalidOptions (a RuleError, 422)
    check_new_game = getattr(ruleset, "check_new_game", None)
    if check_new_game is not None:  # a new game's bounds (issue #28, item 14), tighter than a record's
        check_new_game(options)
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
        raise Refused(
            Refusal.INVALID,
            "unknown_ruleset",
            f"No ruleset {ruleset!r}.",
            errors={"ruleset": ["Unknown ruleset."]},
        )
    rs = get_ruleset(ruleset)
    low, high = rs.seat_range()
    if not low <= seats <= high:
        raise Refused(
            Refusal.INVALID,
            "invalid_seats",
            f"This ruleset seats {low} to {high}.",
            errors={"seats": [f"Must be from {low} to {high}."]},
        )
    options_json = _parse_options(rs, options or {})
    if len(bots) + (1 if join else 0) > seats:
        raise Refused(
            Refusal.INVALID,
            "too_many_seats",
            "More bots (and you) than seats.",
            errors={"bots": ["Too many."]},
        )
    for strategy in bots:
        check_strategy(strategy)
    setup_json: dict[str, Any] | None = None
    if setup is not None:
        if not creator.is_staff:
            raise Refused(
                Refusal.FORBIDDEN, "operators_only", "Only operators can fix the seed, deck or seats."
            )
        setup_json = _setup_json(rs, setup, seats)
    with transaction.atomic():
        check_game_limits(creator, opening=True)
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
            Seat.objects.create(game=game, index=0, player=creator, uid=player_uid(creator))
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
            raise Refused(Refusal.INVALID, "invalid_setup", "The seed is 32 bytes (64 hex digits).")
        out["seed"] = setup.seed.hex()
    if setup.seat_order is not None:
        if sorted(setup.seat_order) != list(range(seats)):
            raise Refused(
                Refusal.INVALID, "invalid_setup", f"seat_order must order the lobby seats 0..{seats - 1}."
            )
        out["seat_order"] = list(setup.seat_order)
    if "seats" in setup.deck:
        raise Refused(
            Refusal.INVALID, "invalid_setup", "Give the seat order as seat_order (lobby seat indexes)."
        )
    if "fixed_seed" in setup.deck:
        raise Refused(
            Refusal.INVALID, "invalid_setup", "Give the seed as seed: fixed_seed is the server's to set."
        )
    deck = dict(setup.deck)
    # let the ruleset check the shape now (a bad deck is refused again, with nothing applied, at start)
    players = [f"check{i}" for i in range(seats)]
    rs.start_command(players=players, creator=None, options=rs.parse_options({}), seed=b"\0" * 32, setup=deck)
    out["deck"] = deck
    return out


def check_game_limits(player: Player, *, opening: bool) -> None:
    """Issue #28, item 12: one account cannot fill the worker. Before ``player`` creates or joins a game
    (``opening``) or takes a seat in a running one: at most ``MAX_OPEN_GAMES_PER_PLAYER`` open games they
    created or sit in, and ``MAX_RUNNING_GAMES_PER_PLAYER`` running games they created or hold a seat in
    (settings; 0: no cap). Operators (staff) have no cap. The player's row is locked first, so that two
    requests of one player at once cannot both pass (call it inside the transaction that adds the game or
    seat)."""
    if player.is_staff:
        return
    open_cap = settings.MAX_OPEN_GAMES_PER_PLAYER if opening else 0
    running_cap = settings.MAX_RUNNING_GAMES_PER_PLAYER
    if not open_cap and not running_cap:
        return
    list(Player.objects.select_for_update().filter(pk=player.pk).values_list("pk", flat=True))
    mine = Game.objects.filter(Q(creator=player) | Q(seats__player=player))
    if open_cap and mine.filter(status=GameStatus.OPEN).distinct().count() >= open_cap:
        raise Refused(
            Refusal.CONFLICT,
            "too_many_open_games",
            f"You already have {open_cap} open games (created or joined): start, cancel or leave one first.",
        )
    if running_cap and mine.filter(status=GameStatus.RUNNING).distinct().count() >= running_cap:
        raise Refused(
            Refusal.CONFLICT,
            "too_many_running_games",
            f"You already play {running_cap} running games: finish one before you take on another.",
        )


def check_not_bot_only(by: Player, humans: int) -> None:
    """Issue #28, item 12: a game with no human seat plays itself to the end on the worker's time that other
    games' deadlines and bots need; only an operator may run one (``BOT_ONLY_GAMES_STAFF_ONLY``)."""
    if humans == 0 and settings.BOT_ONLY_GAMES_STAFF_ONLY and not by.is_staff:
        raise Refused(
            Refusal.FORBIDDEN, "bot_only_game", "A game where every seat is a bot is for operators only."
        )


def player_uid(player: Player) -> str:
    return f"p{player.pk}"


def check_strategy(strategy: str) -> None:
    if strategy not in BOT_STRATEGIES:
        raise Refused(
            Refusal.INVALID,
            "invalid_strategy",
            f"Bot strategies: {', '.join(BOT_STRATEGIES)}.",
            errors={"strategy": ["Unknown strategy."]},
        )


def _lock_open(game_id: int) -> Game:
    game = lock_game(game_id)
    if game.status != GameStatus.OPEN:
        code = "game_cancelled" if game.status == GameStatus.CANCELLED else "already_started"
        raise Refused(Refusal.CONFLICT, code, f"The game is {game.status}, not open.")
    return game


def _free_index(game: Game, wanted: int | None) -> int:
    taken = set(Seat.objects.filter(game=game).values_list("index", flat=True))
    if wanted is not None:
        if not 0 <= wanted < game.seat_count:
            raise Refused(
                Refusal.INVALID,
                "invalid_seat",
                f"Seats are 0 to {game.seat_count - 1}.",
                errors={"seat": ["No such seat."]},
            )
        if wanted in taken:
            raise Refused(Refusal.CONFLICT, "seat_taken", f"Seat {wanted} is taken.")
        return wanted
    for index in range(game.seat_count):
        if index not in taken:
            return index
    raise Refused(Refusal.CONFLICT, "game_full", "The game is full.")


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
            raise Refused(Refusal.CONFLICT, "already_seated", "You already have a seat in this game.")
        check_game_limits(player, opening=True)
        index = _free_index(game, seat)
        Seat.objects.create(game=game, index=index, player=player, uid=player_uid(player))
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
            raise Refused(Refusal.CONFLICT, "not_seated", "You have no seat in this game.")
        _bump(game)
    return game


def game_add_bot(*, game_id: int, by: Player, strategy: str, seat: int | None = None) -> Game:
    check_strategy(strategy)
    with transaction.atomic():
        game = _lock_open(game_id)
        only_creator(game, by)
        index = _free_index(game, seat)
        Seat.objects.create(game=game, index=index, bot_strategy=strategy, uid=f"bot{index}")
        forget_roster(game)
        _bump(game)
        _start_if_full(game)
    return game


def only_creator(game: Game, by: Player) -> None:
    if game.creator_id != by.pk and not by.is_staff:
        raise Refused(Refusal.FORBIDDEN, "not_creator", "Only the game's creator may do this.")


def game_start(*, game_id: int, by: Player) -> Game:
    with transaction.atomic():
        game = _lock_open(game_id)
        only_creator(game, by)
        _start(game)
    return game


def game_cancel(*, game_id: int, by: Player) -> Game:
    with transaction.atomic():
        game = _lock_open(game_id)
        only_creator(game, by)
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
        raise Refused(Refusal.CONFLICT, "not_enough_players", f"At least {low} seats must be taken to start.")
    check_not_bot_only(game.creator, sum(1 for s in seats if s.player_id is not None))
    setup = game.setup or {}
    seed = bytes.fromhex(setup["seed"]) if setup.get("seed") else secrets.token_bytes(32)
    deck = dict(setup.get("deck") or {})
    if setup.get("seed"):
        deck["fixed_seed"] = True  # an operator chose the seed: the log says the game is not fair (R8.2)
    if setup.get("seat_order") is not None:
        by_index = {s.index: s.uid for s in seats}
        if set(by_index) != set(setup["seat_order"]):
            raise Refused(
                Refusal.CONFLICT,
                "setup_mismatch",
                "The operator's seat_order does not match the taken seats.",
            )
        deck["seats"] = [by_index[i] for i in setup["seat_order"]]
    creator_seat = next((s for s in seats if s.player_id == game.creator_id), None)
    now = timezone.now()
    options = rs.parse_options(game.options)
    # the options as the game starts with them, in full (GameStarted's, which the record's must equal): a game
    # created before an option existed gets its default (docs/AUDIT.md, ruling 32)
    game.options = rs.options_to_json(options)
    command = rs.start_command(
        players=[s.uid for s in seats],
        creator=creator_seat.uid if creator_seat else None,
        options=options,
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
        extra_fields=("status", "started_at", "seat_count", "options"),
    )
