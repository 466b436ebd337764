"""Games, seats, the append-only event log and stored command results (idempotency).

State is always the fold of a game's events (``games.store``); the game row holds only lobby data, the head
of the log (``version`` = last ``seq``, ``head_hash``) and denormalised facts for listing and timers.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone


class GameStatus(models.TextChoices):
    OPEN = "open", "Open (waiting for players)"
    RUNNING = "running", "Running"
    OVER = "over", "Over"
    CANCELLED = "cancelled", "Cancelled"


class Game(models.Model):
    ruleset = models.CharField(max_length=32, default="goodcritters")
    name = models.CharField(max_length=100, blank=True)
    # no index of its own: (status, created_at) serves every equality on status (see Meta.indexes)
    status = models.CharField(max_length=16, choices=GameStatus.choices, default=GameStatus.OPEN)
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_games"
    )
    seat_count = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, help_text="The ruleset's options in their full JSON form.")
    allow_spectators = models.BooleanField(default=True)
    fair = models.BooleanField(
        default=True, help_text="False when an operator fixed the seed, deck or seats."
    )
    setup = models.JSONField(
        null=True, blank=True, help_text="Operator setup (seed, deck and seat order): secret, never served."
    )
    # the head of the event log
    version = models.PositiveIntegerField(default=0, help_text="The last event's seq (0: no events).")
    head_hash = models.CharField(max_length=64, blank=True, default="")
    public_head_hash = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="The last event's public hash (the chain over what a spectator sees, docs/AUDIT.md).",
    )
    public_chain = models.PositiveSmallIntegerField(
        default=2,
        help_text=(
            "The public chain's rule the game's events are hashed by (docs/AUDIT.md, \"The public chain\"): "
            "2 seals every fact of an event; 1, games created before, only what a spectator sees."
        ),
    )
    revision = models.PositiveIntegerField(default=0, help_text="Bumped on every change (ETag).")
    # what the game waits on (denormalised from the fold, for listing and timers)
    step_no = models.PositiveIntegerField(null=True, blank=True)
    waiting_step = models.CharField(max_length=32, blank=True, default="")
    # the timers are indexed among running games only (Meta.indexes): what the sweeper claims from
    deadline_at = models.DateTimeField(null=True, blank=True)
    warn_at = models.DateTimeField(
        null=True, blank=True, help_text="When the deadline warning is due (timers)."
    )
    bots_due_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Since when a bot or autopilot seat has something to do (the sweeper's safety net).",
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-created_at", "-id"]
        indexes: ClassVar = [
            models.Index(fields=["status", "created_at"]),
            # the sweeper's claims (games.deadlines): due timers of running games, earliest first. Partial:
            # a finished game never enters them, so they stay the size of the running games, not of the year
            *(
                models.Index(
                    fields=[column], condition=models.Q(status="running"), name=f"game_running_{column}"
                )
                for column in ("deadline_at", "warn_at", "bots_due_at")
            ),
        ]
        constraints: ClassVar = [
            models.CheckConstraint(condition=models.Q(seat_count__gte=1), name="game_seat_count_positive"),
        ]

    def __str__(self) -> str:
        return f"Game {self.pk} ({self.ruleset}, {self.status})"

    @property
    def etag(self) -> str:
        return f'"{self.pk}.{self.revision}"'


class Seat(models.Model):
    """A place at a game's table: a human player or a bot. ``index`` is the lobby seat; ``position`` the
    seat number in the running game (the ruleset may shuffle seats at start)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="seats"
    )
    bot_strategy = models.CharField(max_length=16, blank=True, default="")
    uid = models.CharField(max_length=32, help_text="The opaque player id given to the ruleset.")
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering: ClassVar = ["game", "index"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["game", "index"], name="seat_unique_index"),
            models.UniqueConstraint(fields=["game", "uid"], name="seat_unique_uid"),
            models.UniqueConstraint(
                fields=["game", "player"], condition=models.Q(player__isnull=False), name="seat_unique_player"
            ),
            models.UniqueConstraint(
                fields=["game", "position"],
                condition=models.Q(position__isnull=False),
                name="seat_unique_position",
            ),
            models.CheckConstraint(
                condition=(models.Q(player__isnull=True) & ~models.Q(bot_strategy=""))
                | (models.Q(player__isnull=False) & models.Q(bot_strategy="")),
                name="seat_player_xor_bot",
            ),
        ]

    def __str__(self) -> str:
        who = self.player.username if self.player else f"bot ({self.bot_strategy})"
        return f"Seat {self.index} of game {self.game_id}: {who}"

    @property
    def is_bot(self) -> bool:
        return self.player_id is None


class Event(models.Model):
    """One fact in a game's log. Append-only: a database trigger refuses UPDATE, DELETE and TRUNCATE.

    ``hash`` = SHA-256 over the canonical JSON of the immutable stored fields, ``prev_hash`` included (a
    per-game chain, see ``games.store.event_hash``); ``public_hash`` the same over what a spectator sees of
    it (``games.audit.public``)."""

    # no index of its own: the unique (game, seq) index serves every lookup by game (and is the log's order)
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=64)
    schema_version = models.PositiveSmallIntegerField()
    data = models.JSONField()
    created_at = models.DateTimeField()
    command_id = models.CharField(
        max_length=255, help_text="The request's Idempotency-Key, or a generated id."
    )
    command = models.JSONField(
        null=True,
        blank=True,
        help_text=(
            "On the first event of a command's batch: the command that decided the batch (its JSON form, the "
            "acting seat included), so an auditor can re-decide it; null on the batch's other events. "
            "Server-side until the game is over, like the events' secrets."
        ),
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    public_hash = models.CharField(
        max_length=64,
        help_text=(
            "The public chain's hash: over the event as a spectator sees it while the game runs, and the "
            "previous event's public hash (games.audit.public). Served at any time."
        ),
    )
    salt = models.CharField(
        max_length=32,
        blank=True,
        default="",
        help_text=(
            "Public chain 2: the 16 random bytes (hex) the event's seal is salted with (games.audit.public); "
            "secret until the game is over, then in the record. Empty under public chain 1."
        ),
    )

    class Meta:
        ordering: ClassVar = ["game", "seq"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["game", "seq"], name="event_unique_game_seq"),
            models.CheckConstraint(condition=models.Q(seq__gte=1), name="event_seq_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.type}"


class CommandResult(models.Model):
    """The first response to a command sent with an ``Idempotency-Key`` (stored in the command's transaction);
    a retry with the same key on the same game gets it back."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField()
    etag = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints: ClassVar = [
            # a key is scoped to its game: the lookup (and, distributed by game, the constraint) stays
            # inside one game (docs/SCALING.md)
            models.UniqueConstraint(fields=["game", "player", "key"], name="command_result_unique_game_key"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id}:{self.key} → {self.status_code}"


class TimerHeartbeat(models.Model):
    """The deadline sweeper's heartbeat (one row per sweeper ``name``): when it last ran, and the last outage
    it detected (a gap between sweeps longer than ``DEADLINE_OUTAGE_AFTER``), whose deadlines are extended."""

    name = models.CharField(max_length=32, primary_key=True)
    at = models.DateTimeField()
    outage_start = models.DateTimeField(null=True, blank=True)
    outage_end = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} at {self.at.isoformat()}"


class SeatOffer(models.Model):
    """The creator's offer of a running game's seat to a player (issue #28, item 13): a seat on autopilot, or
    stalled (the table's ruling 13), handed to a person is theirs only once they accept. Until then nothing
    of the game changes and the player gets nothing of it (no seat, no state, no webhook); the offer lapses
    when the seat changes (its holder acts or takes it back, it is handed over, resigned, or the game ends).
    Not part of the game's log: only the hand-over it leads to is (``SeatHandedOver``)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seat_offers")
    seat = models.PositiveSmallIntegerField(help_text="The seat number in the running game (``position``).")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seat_offers")
    offered_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    holder_uid = models.CharField(max_length=32, help_text="The seat's holder when offered (its ``uid``).")
    since_version = models.PositiveIntegerField(help_text="The game's last event when offered.")
    stalled = models.BooleanField(default=False, help_text="Offered as a stalled seat, not on autopilot.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering: ClassVar = ["-created_at", "-id"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["game", "seat"], name="seat_offer_one_per_seat"),
        ]

    def __str__(self) -> str:
        return f"Offer of seat {self.seat} of game {self.game_id} to player {self.player_id}"
