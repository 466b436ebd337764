"""Mail: the facts a player is told (``MailNotice``, written in the transaction of the events or the offer
that caused them), their pacing into mails (``OutgoingMail``), and sending them through Django's email
framework.

- **Facts, redacted**: a notice holds only what the player's own view shows (the game's name, the step, its
  deadline, who wrote to them; scores once the game is over). It is written by the events' receiver in the
  command's transaction, so a notice exists exactly when its events do.
- **Pacing** (``flush``, per player, under a lock on the player's settings row): at most one mail per
  ``MAIL_MIN_INTERVAL_SECONDS`` (a burst becomes one mail listing the games); a "your turn" is *held* (no mail
  for it) while the player has that game's stream open or acted in it within ``MAIL_RECENT_ACTION_SECONDS``,
  and rides along in the next mail; a notice that is no longer true when its mail is written (the step is
  over) is dropped. Digest mode: one mail a day at the player's hour in their time zone.
- **Sending** (``send``): the mail's Message-ID is fixed when it is written; an attempt claims the row
  (committed) before it talks to the SMTP server and marks it ``sent`` after; a worker killed in between
  leaves the claim to lapse (``MAIL_SEND_LEASE_SECONDS``) and the sweeper sends the same message again. An
  SMTP server that is down delays mail (retries with backoff, ``MAIL_RETRY_*``) and loses none.
"""

from __future__ import annotations

import hashlib
import html
import logging
import secrets
import zoneinfo
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from critters_api.celery import app as celery_app
from critters_api.citus import one_connection_per_node
from critters_api.db.base import prepared_cursor
from games.models import Event, Game, GameStatus, Seat

from .chat import game_url, in_words
from .models import (
    DeliveryMode,
    MailKind,
    MailNotice,
    MailSettings,
    MailStatus,
    NoticeStatus,
    OutgoingMail,
)

logger = logging.getLogger(__name__)

FLUSH = "notifications.mail_flush"
SEND = "notifications.mail_send"
COUNTDOWN_HORIZON = 300.0
HELD_RECHECK_SECONDS = 30.0
"""A held "your turn" is looked at again this often (the player may have left the table)."""
HELD_AT_TABLE = frozenset(
    {MailKind.YOUR_TURN, MailKind.GAME_STARTED, MailKind.GAME_ENDED, MailKind.PRIVATE_MESSAGE}
)
"""What is not mailed on its own while the player is at that game's table (its stream open, or they acted
in it within MAIL_RECENT_ACTION_SECONDS): they see it there. It rides along in the next mail. A deadline
warning, the autopilot and a seat offer always go."""
LATE_FLUSH_SECONDS = 2.0
"""The sweeper runs a player's due flush itself once it is this late (its countdown task did not come)."""
UNSUBSCRIBE_SALT = "notifications.unsubscribe"

DEADLINE_NEAR_EVENT = "DeadlineNear"
GAME_STARTED_EVENT = "GameStarted"
AUTOPILOT_EVENT = "AutopilotEngaged"
MESSAGE_EVENT = "MessageSent"


# --------------------------------------------------------------------------------------------------
# tokens and links
# --------------------------------------------------------------------------------------------------
def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def unsubscribe_token(player_id: int) -> str:
    return signing.Signer(salt=UNSUBSCRIBE_SALT).sign_object({"p": player_id})


def player_of_unsubscribe_token(token: str) -> int | None:
    try:
        value = signing.Signer(salt=UNSUBSCRIBE_SALT).unsign_object(token)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    player = value.get("p") if isinstance(value, dict) else None
    return player if isinstance(player, int) else None


def api_url(path: str, **query: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}/api/v1/{path}" + (f"?{urlencode(query)}" if query else "")


def unsubscribe_url(player_id: int) -> str:
    return api_url("email/unsubscribe", token=unsubscribe_token(player_id))


def settings_for(player_id: int, *, lock: bool = False) -> MailSettings:
    if lock:  # Citus: a locked player's notices (over every shard) are read before their settings are written
        one_connection_per_node(connection)
    qs = MailSettings.objects.select_for_update() if lock else MailSettings.objects
    row = qs.filter(pk=player_id).first()
    if row is None:
        MailSettings.objects.get_or_create(player_id=player_id)
        row = qs.get(pk=player_id)
    return row


def _zone(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def next_digest_at(hour: int, zone: str, now: datetime) -> datetime:
    """The next ``hour``:00 in ``zone`` strictly after ``now`` (an hour a DST change skips: the same wall
    time, as zoneinfo resolves it)."""
    tz = _zone(zone)
    local = now.astimezone(tz)
    candidate = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if candidate <= local:
        candidate = (local + timedelta(days=1)).replace(hour=hour, minute=0, second=0, microsecond=0)
    return candidate.astimezone(zoneinfo.ZoneInfo("UTC"))


# --------------------------------------------------------------------------------------------------
# the facts, written with the events (outbox)
# --------------------------------------------------------------------------------------------------
SUBSCRIBED_SQL = (
    "SELECT 1 FROM notifications_mailsettings WHERE mail_enabled AND email <> '' AND player_id = ANY(%s)"
)
"""Whether any of the players (the parameter) gets mail: a verified address, mail on."""


def _subscribers(player_ids: Sequence[int]) -> dict[int, MailSettings]:
    """The players among ``player_ids`` who get mail (a verified address, mail on): one cheap statement
    first (most players have none), the rows only when some do."""
    if not player_ids:
        return {}
    with prepared_cursor(connection) as cursor:
        cursor.execute(f"SELECT EXISTS ({SUBSCRIBED_SQL})", [list(player_ids)])
        row = cursor.fetchone()
    if not (row and row[0]):
        return {}
    rows = MailSettings.objects.filter(player_id__in=list(player_ids), mail_enabled=True).exclude(email="")
    return {r.player_id: r for r in rows}


def _wants(ms: MailSettings, game_id: int, kind: str) -> bool:
    return kind in (ms.kinds or []) and game_id not in (ms.muted_games or [])


def write_notices(game: Game, events: Sequence[Event], player_ids: Sequence[int]) -> list[int]:
    """The notices ``events`` (just appended to ``game``, locked) cause for its seated players
    (``player_ids``, as the seats are now) who get mail; returns the players to flush after commit."""
    subs = _subscribers(player_ids)
    if not subs or not events:
        return []
    from games.loading import load_state, ruleset_for

    rs = ruleset_for(game)
    state = load_state(game, rs)
    names = _seat_names(game, rs, state)
    positions = _positions(game, rs, state)
    terminal = rs.is_terminal(state)
    waiting = rs.waiting(state)
    base = {"game_id": game.pk, "game_name": game.name or f"game {game.pk}"}
    rows: list[MailNotice] = []

    def add(player_id: int, kind: str, key: str, data: dict[str, Any]) -> None:
        if _wants(subs[player_id], game.pk, kind):
            rows.append(
                MailNotice(
                    player_id=player_id,
                    game=game,
                    kind=kind,
                    key=key,
                    data={**base, **data},
                    created_at=events[-1].created_at,
                )
            )

    for player_id, seat in positions.items():
        if player_id not in subs:
            continue
        for row in events:
            data = row.data
            if row.type == GAME_STARTED_EVENT:
                add(player_id, MailKind.GAME_STARTED, "started", {"seat": seat})
            elif row.type == DEADLINE_NEAR_EVENT and seat in (data.get("seats") or []):
                add(
                    player_id,
                    MailKind.DEADLINE_NEAR,
                    f"near:{data.get('step_no')}:{row.seq}",
                    {
                        "seat": seat,
                        "step_no": data.get("step_no"),
                        "step": data.get("step"),
                        "due_at": data.get("due_at"),
                    },
                )
            elif row.type == AUTOPILOT_EVENT and data.get("seat") == seat:
                add(player_id, MailKind.AUTOPILOT, f"autopilot:{row.seq}", {"seat": seat})
            elif (
                row.type == MESSAGE_EVENT
                and data.get("to") is not None
                and seat in (data.get("to") or [])
                and data.get("seat") != seat
            ):
                sender = names.get(int(data.get("seat", -1)), "a player")
                add(player_id, MailKind.PRIVATE_MESSAGE, f"message:{row.seq}", {"seat": seat, "from": sender})
        if waiting is not None and not terminal and seat in waiting.seats:
            add(
                player_id,
                MailKind.YOUR_TURN,
                f"turn:{waiting.step_no}",
                {
                    "seat": seat,
                    "step_no": waiting.step_no,
                    "step": waiting.step,
                    "due_at": waiting.due_at.isoformat()
                    if isinstance(waiting.due_at, datetime)
                    else waiting.due_at,
                },
            )
        if terminal:
            scores = rs.scores(state)
            standings = (
                [{"name": names.get(i, f"seat {i}"), "score": s} for i, s in enumerate(scores)]
                if scores is not None
                else []
            )
            add(player_id, MailKind.GAME_ENDED, "ended", {"seat": seat, "scores": standings})
    if not rows:
        return []
    already = set(  # a turn, the start, the end: once per game (every batch of the step would repeat them)
        MailNotice.objects.filter(
            game=game, player_id__in={r.player_id for r in rows}, key__in={r.key for r in rows}
        ).values_list("player_id", "kind", "key")
    )
    rows = [r for r in rows if (r.player_id, r.kind, r.key) not in already]
    if not rows:
        return []
    MailNotice.objects.bulk_create(rows, ignore_conflicts=True)
    return sorted({r.player_id for r in rows})


def _positions(game: Game, rs: Any, state: Any) -> dict[int, int]:
    """player id → seat position (from the fold: positions are written after the start batch)."""
    order = rs.view_for(state, None).get("players")
    by_uid = {uid: i for i, uid in enumerate(order)} if isinstance(order, list) else {}
    out: dict[int, int] = {}
    for player_id, uid, position in Seat.objects.filter(game=game, player__isnull=False).values_list(
        "player_id", "uid", "position"
    ):
        pos = by_uid.get(uid, position)
        if pos is not None and player_id is not None:
            out[player_id] = pos
    return out


def _seat_names(game: Game, rs: Any, state: Any) -> dict[int, str]:
    """seat → the public name of its holder (a bot: "bot")."""
    order = rs.view_for(state, None).get("players")
    by_uid = {uid: i for i, uid in enumerate(order)} if isinstance(order, list) else {}
    out: dict[int, str] = {}
    for seat in Seat.objects.filter(game=game).select_related("player"):
        pos = by_uid.get(seat.uid, seat.position)
        if pos is None:
            continue
        out[pos] = seat.player.public_name if seat.player is not None else "a bot"
    return out


def notice_offer(offer: Any) -> None:
    """A seat was offered to a player (``games.models.SeatOffer`` created, in its transaction)."""
    subs = _subscribers([offer.player_id])
    ms = subs.get(offer.player_id)
    if ms is None or not _wants(ms, offer.game_id, MailKind.SEAT_OFFERED):
        return
    game = Game.objects.filter(pk=offer.game_id).only("pk", "name", "creator").first()
    if game is None:
        return
    by = offer.offered_by.public_name if getattr(offer, "offered_by", None) is not None else "the creator"
    MailNotice.objects.bulk_create(
        [
            MailNotice(
                player_id=offer.player_id,
                game=game,
                kind=MailKind.SEAT_OFFERED,
                key=f"offer:{offer.pk}",
                data={
                    "game_id": game.pk,
                    "game_name": game.name or f"game {game.pk}",
                    "seat": offer.seat,
                    "from": by,
                },
            )
        ],
        ignore_conflicts=True,
    )
    player_id = offer.player_id
    transaction.on_commit(lambda: enqueue_flush([player_id]))


def enqueue_flush(player_ids: Sequence[int], countdown: float | None = None) -> None:
    for player_id in player_ids:
        try:
            celery_app.send_task(FLUSH, (player_id,), countdown=countdown, ignore_result=True)
        except Exception:  # the sweeper looks at the player's notices (flush_at, or the stale pending ones)
            logger.warning(
                "could not enqueue the mail flush of %s; the sweeper will", player_id, exc_info=True
            )


def enqueue_send(mail_ids: Sequence[int], countdown: float | None = None) -> None:
    for mail_id in mail_ids:
        try:
            celery_app.send_task(SEND, (mail_id,), countdown=countdown, ignore_result=True)
        except Exception:
            logger.warning("could not enqueue mail %s; the sweeper will", mail_id, exc_info=True)
            try:
                OutgoingMail.objects.filter(pk=mail_id).update(queued_until=None)
            except Exception:
                logger.warning("could not release mail %s", mail_id, exc_info=True)


# --------------------------------------------------------------------------------------------------
# pacing: notices → one mail
# --------------------------------------------------------------------------------------------------
def _current_turn(notice: MailNotice, now: datetime) -> bool:
    """Whether a "your turn" / "deadline near" notice is still true: the game runs, the player still holds
    the seat, and the step it names still waits on that seat."""
    game = Game.objects.filter(pk=notice.game_id).first()
    if game is None or game.status != GameStatus.RUNNING:
        return False
    seat = notice.data.get("seat")
    held = Seat.objects.filter(game=game, player_id=notice.player_id).exists()
    if not held:
        return False
    from games.loading import load_state, ruleset_for

    rs = ruleset_for(game)
    waiting = rs.waiting(load_state(game, rs))
    return bool(
        waiting is not None and waiting.step_no == notice.data.get("step_no") and seat in waiting.seats
    )


def _at_table(notice: MailNotice, now: datetime) -> bool:
    """The player has the game's stream open, or acted in it within MAIL_RECENT_ACTION_SECONDS."""
    from . import presence

    if presence.present(notice.player_id, notice.game_id):
        return True
    recent = now - timedelta(seconds=float(settings.MAIL_RECENT_ACTION_SECONDS))
    return Event.objects.filter(
        game_id=notice.game_id, actor_id=notice.player_id, created_at__gte=recent
    ).exists()


def flush(player_id: int) -> int | None:
    """Look at the player's pending notices: compose at most one mail (within the pacing bound) and queue
    it; returns its id (None: nothing sent now). Idempotent, safe from any worker at any time: the
    settings row's lock serializes it per player, and ``last_mail_at`` is the bound."""
    with transaction.atomic():
        one_connection_per_node(connection)  # Citus: reads over every shard come before writes of this row
        ms = MailSettings.objects.select_for_update().filter(pk=player_id).first()
        if ms is None:
            return None
        now = timezone.now()  # under the lock: the bound compares times taken in the order of the mails
        pending = list(MailNotice.objects.filter(player_id=player_id, status=NoticeStatus.PENDING))
        if not ms.email or not ms.mail_enabled:
            MailNotice.objects.filter(pk__in=[n.pk for n in pending]).update(status=NoticeStatus.DROPPED)
            _set_flush_at(ms, None)
            return None
        keep: list[MailNotice] = []
        dropped: list[int] = []
        for notice in pending:
            if not _wants(ms, notice.game_id, notice.kind):
                dropped.append(notice.pk)
            elif notice.kind in (MailKind.YOUR_TURN, MailKind.DEADLINE_NEAR) and not _current_turn(
                notice, now
            ):
                dropped.append(notice.pk)  # the step is over: not news any more
            else:
                keep.append(notice)
        if dropped:
            MailNotice.objects.filter(pk__in=dropped).update(status=NoticeStatus.DROPPED)
        if not keep:
            _set_flush_at(ms, None)
            return None
        if ms.delivery == DeliveryMode.DIGEST:
            if ms.next_digest_at is None:
                ms.next_digest_at = next_digest_at(ms.digest_hour, ms.time_zone, now)
                ms.save(update_fields=["next_digest_at"])
            if now < ms.next_digest_at:
                _set_flush_at(ms, ms.next_digest_at)
                return None
            ms.next_digest_at = next_digest_at(ms.digest_hour, ms.time_zone, now)
            ms.save(update_fields=["next_digest_at"])
            return _compose(ms, keep, now, digest=True)
        at_table: dict[int, bool] = {}
        held = []
        for n in keep:
            if n.kind in HELD_AT_TABLE:
                if n.game_id not in at_table:
                    at_table[n.game_id] = _at_table(n, now)
                if at_table[n.game_id]:
                    held.append(n)
        if len(held) == len(keep):  # only news of tables the player is at: no mail now, look again later
            _set_flush_at(ms, now + timedelta(seconds=HELD_RECHECK_SECONDS))
            return None
        interval = timedelta(seconds=float(settings.MAIL_MIN_INTERVAL_SECONDS))
        if ms.last_mail_at is not None and now < ms.last_mail_at + interval:
            _set_flush_at(ms, ms.last_mail_at + interval)
            return None
        return _compose(ms, keep, now, digest=False)  # what was held rides along


def _set_flush_at(ms: MailSettings, at: datetime | None) -> None:
    """When to look at the player's notices next; a short wait gets a countdown task (the sweeper covers a
    lost one). A look already due no later than ``at`` is kept (its task will set the next one): one
    countdown per player at a time, however many flushes run."""
    now = timezone.now()
    if at is None:
        if ms.flush_at is not None:
            ms.flush_at = None
            ms.save(update_fields=["flush_at"])
        return
    if ms.flush_at is not None and now < ms.flush_at <= at:
        return
    ms.flush_at = at
    ms.save(update_fields=["flush_at"])
    wait = (at - now).total_seconds()
    if wait <= COUNTDOWN_HORIZON:
        player_id = ms.player_id
        transaction.on_commit(lambda: enqueue_flush([player_id], countdown=max(0.0, wait) + 0.05))


def _compose(ms: MailSettings, notices: list[MailNotice], now: datetime, *, digest: bool) -> int:
    from players.models import Player

    player = Player.objects.get(pk=ms.player_id)
    subject, text, rich = render_notices(player.public_name, notices, now, ms.time_zone, digest=digest)
    unsubscribe = unsubscribe_url(ms.player_id)
    text += (
        "\n\n--\nYou get this because mail notifications are on for your account (change them in your "
        f"notification settings).\nUnsubscribe (one click): {unsubscribe}\n"
    )
    rich += (
        f'<hr><p style="color:#666;font-size:small">You get this because mail notifications are on for '
        f'your account. <a href="{html.escape(unsubscribe)}">Unsubscribe</a> (one click).</p>'
    )
    mail = OutgoingMail.objects.create(
        player_id=ms.player_id,
        purpose="digest" if digest else "notice",
        to=ms.email,
        subject=subject,
        text=text,
        html=_page(rich),
        unsubscribe_url=unsubscribe,
        created_at=now,
        queued_until=now + timedelta(seconds=float(settings.MAIL_SEND_LEASE_SECONDS)),
    )
    MailNotice.objects.filter(pk__in=[n.pk for n in notices]).update(status=NoticeStatus.MAILED, mail=mail)
    ms.last_mail_at = now
    ms.flush_at = None
    ms.save(update_fields=["last_mail_at", "flush_at"])
    mail_id = mail.pk
    transaction.on_commit(lambda: enqueue_send([mail_id]))
    return mail_id


def _page(body: str) -> str:
    return f'<!doctype html><html><body style="font-family:sans-serif">{body}</body></html>'


def _when(value: Any, zone: str, now: datetime) -> str:
    due = parse_datetime(value) if isinstance(value, str) else None
    if due is None:
        return ""
    local = due.astimezone(_zone(zone))
    left = (due - now).total_seconds()
    rel = "passed" if left <= 0 else f"in {in_words(left)}"
    return f"deadline {rel} ({local:%Y-%m-%d %H:%M} {local.tzname()})"


def describe(notice: MailNotice, now: datetime, zone: str) -> str:
    """One line about a notice, from its (redacted) data only."""
    d = notice.data
    when = _when(d.get("due_at"), zone, now)
    tail = f", {when}" if when else ""
    if notice.kind == MailKind.YOUR_TURN:
        return f"it's your turn ({d.get('step')}){tail}"
    if notice.kind == MailKind.DEADLINE_NEAR:
        return f"your move is due soon ({d.get('step')}){tail}"
    if notice.kind == MailKind.AUTOPILOT:
        return "you were put on autopilot: a bot plays your seat until you act again"
    if notice.kind == MailKind.GAME_STARTED:
        return "the game has started"
    if notice.kind == MailKind.GAME_ENDED:
        scores = ", ".join(f"{s['name']} {s['score']}" for s in d.get("scores") or [])
        return "the game is over" + (f" (final scores: {scores})" if scores else "")
    if notice.kind == MailKind.SEAT_OFFERED:
        return f"{d.get('from')} offered you seat {d.get('seat')}: accept it to play"
    if notice.kind == MailKind.PRIVATE_MESSAGE:
        return f"{d.get('from')} sent you a private message"
    return notice.kind


def render_notices(
    name: str, notices: list[MailNotice], now: datetime, zone: str, *, digest: bool
) -> tuple[str, str, str]:
    """(subject, text, html body) of a mail about ``notices`` (grouped by game, oldest first)."""
    games: dict[int, list[MailNotice]] = {}
    for n in notices:
        games.setdefault(n.game_id, []).append(n)
    titles = {gid: str(ns[0].data.get("game_name")) for gid, ns in games.items()}
    if digest:
        subject = f"Your daily digest: news from {len(games)} game{'s' if len(games) != 1 else ''}"
    elif len(games) == 1:
        (gid,) = games
        kinds = {n.kind for n in games[gid]}
        if MailKind.DEADLINE_NEAR in kinds:
            subject = f"Deadline near in {titles[gid]}"
        elif MailKind.YOUR_TURN in kinds:
            subject = f"Your turn in {titles[gid]}"
        elif MailKind.GAME_ENDED in kinds:
            subject = f"{titles[gid]} is over"
        else:
            subject = f"News from {titles[gid]}"
    else:
        subject = f"{len(games)} games: " + ", ".join(titles[g] for g in list(games)[:3])
        subject += "…" if len(games) > 3 else ""
    lines = [f"Hello {name},", ""]
    parts = [f"<p>Hello {html.escape(name)},</p><ul>"]
    for gid, ns in games.items():
        url = game_url(gid)
        lines.append(f"* {titles[gid]} ({url})")
        items = "".join(f"<li>{html.escape(describe(n, now, zone))}</li>" for n in ns)
        parts.append(
            f'<li><a href="{html.escape(url)}"><b>{html.escape(titles[gid])}</b></a><ul>{items}</ul></li>'
        )
        for n in ns:
            lines.append(f"  - {describe(n, now, zone)}")
    parts.append("</ul>")
    return subject[:300], "\n".join(lines), "".join(parts)


# --------------------------------------------------------------------------------------------------
# verification
# --------------------------------------------------------------------------------------------------
def write_verification(ms: MailSettings, address: str, now: datetime) -> int:
    """A verification mail for ``address`` (in the caller's transaction, the settings row locked): the link
    carries a fresh token (only its digest is stored); the previous pending address's link stops working."""
    token = new_token()
    ms.pending_email = address
    ms.pending_digest = token_digest(token)
    ms.pending_since = now
    ms.last_verification_at = now
    ms.save(update_fields=["pending_email", "pending_digest", "pending_since", "last_verification_at"])
    OutgoingMail.objects.filter(
        player_id=ms.player_id, purpose="verification", status=MailStatus.PENDING
    ).update(status=MailStatus.CANCELLED)
    link = api_url("email/verify", token=token)
    hours = int(float(settings.MAIL_VERIFY_HOURS))
    text = (
        "Hello,\n\nplease confirm that this address may receive game notifications:\n\n"
        f"{link}\n\nThe link works for {hours} hours. Nothing else is sent to this address until it is "
        "confirmed. If you did not ask for this, ignore this mail.\n"
    )
    rich = _page(
        "<p>Hello,</p><p>please confirm that this address may receive game notifications:</p>"
        f'<p><a href="{html.escape(link)}">Confirm this address</a></p>'
        f"<p>The link works for {hours} hours. Nothing else is sent to this address until it is confirmed. "
        "If you did not ask for this, ignore this mail.</p>"
    )
    mail = OutgoingMail.objects.create(
        player_id=ms.player_id,
        purpose="verification",
        to=address,
        subject="Confirm your address for game notifications",
        text=text,
        html=rich,
        queued_until=now + timedelta(seconds=float(settings.MAIL_SEND_LEASE_SECONDS)),
    )
    mail_id = mail.pk
    transaction.on_commit(lambda: enqueue_send([mail_id]))
    return mail_id


# --------------------------------------------------------------------------------------------------
# sending
# --------------------------------------------------------------------------------------------------
def message_id_domain() -> str:
    return urlsplit(settings.PUBLIC_BASE_URL).hostname or "localhost"


def backoff_seconds(attempts: int) -> float:
    base = float(settings.MAIL_RETRY_BASE_SECONDS)
    return float(min(float(settings.MAIL_RETRY_MAX_SECONDS), base * (2 ** max(0, attempts - 1))))


def _still_wanted(mail: OutgoingMail, ms: MailSettings) -> bool:
    """A notice or digest goes only to the player's verified address while mail is on; a verification only
    to the address still waiting for it."""
    if mail.purpose == "verification":
        return ms.pending_email == mail.to
    return ms.mail_enabled and ms.email == mail.to


def build_message(mail: OutgoingMail) -> EmailMultiAlternatives:
    headers = {"Message-ID": f"<{mail.message_id}@{message_id_domain()}>", "Auto-Submitted": "auto-generated"}
    if mail.unsubscribe_url:
        headers["List-Unsubscribe"] = f"<{mail.unsubscribe_url}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message = EmailMultiAlternatives(
        subject=mail.subject,
        body=mail.text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[mail.to],
        headers=headers,
        connection=get_connection(fail_silently=False, timeout=float(settings.EMAIL_TIMEOUT)),
    )
    message.attach_alternative(mail.html, "text/html")
    return message


def send(mail_id: int) -> float | None:
    """One attempt at a due pending mail (a no-op for anything else). The claim (attempts, lease) is
    committed before the SMTP conversation; ``sent`` after the server took the message. Returns the delay
    before the next attempt when one is scheduled."""
    player_id = OutgoingMail.objects.filter(pk=mail_id).values_list("player_id", flat=True).first()
    if player_id is None:
        return None
    with transaction.atomic():
        # the player's settings row first, then the mail (the order every writer of both takes)
        one_connection_per_node(connection)  # Citus: reference tables written after reads over every shard
        ms = MailSettings.objects.select_for_update().filter(pk=player_id).first()
        mail = (
            OutgoingMail.objects.select_for_update(skip_locked=True)
            .filter(pk=mail_id, status=MailStatus.PENDING)
            .first()
        )
        now = timezone.now()
        if ms is None or mail is None or mail.next_attempt_at > now:
            return None  # sent, cancelled, being sent by another worker, or not due
        if not _still_wanted(mail, ms):
            mail.status = MailStatus.CANCELLED
            mail.save(update_fields=["status"])
            return None
        lease = timedelta(seconds=float(settings.MAIL_SEND_LEASE_SECONDS))
        if mail.purpose != "verification" and _older_pending(mail).exists():
            # a player's mails leave in the order they were written: this one follows the older one (its
            # success enqueues the next; the sweeper only picks the oldest of each player)
            if mail.queued_until is not None:
                mail.queued_until = None
                mail.save(update_fields=["queued_until"])
            return None
        if mail.purpose != "verification":
            # the bound holds at the SMTP server too: mails that waited (an outage) leave one per interval
            gap = timedelta(seconds=float(settings.MAIL_MIN_INTERVAL_SECONDS))
            other = ms.last_sent_mail != mail.pk  # a retry of the same mail is not a second mail
            if other and ms.last_sent_at is not None and now < ms.last_sent_at + gap:
                wait = (ms.last_sent_at + gap - now).total_seconds()
                mail.next_attempt_at = ms.last_sent_at + gap
                mail.queued_until = mail.next_attempt_at + lease
                mail.save(update_fields=["next_attempt_at", "queued_until"])
                transaction.on_commit(lambda: enqueue_send([mail_id], countdown=wait))
                return wait
            ms.last_sent_at, ms.last_sent_mail = now, mail.pk
            ms.save(update_fields=["last_sent_at", "last_sent_mail"])
        mail.attempts += 1
        mail.next_attempt_at = now + lease
        mail.queued_until = now + lease
        mail.save(update_fields=["attempts", "next_attempt_at", "queued_until"])
    try:
        build_message(mail).send(fail_silently=False)
    except Exception as exc:
        return _failed(mail.pk, f"{type(exc).__name__}: {exc}")
    OutgoingMail.objects.filter(pk=mail.pk, status=MailStatus.PENDING).update(
        status=MailStatus.SENT, sent_at=timezone.now(), queued_until=None, last_error=""
    )
    if mail.purpose != "verification":
        _enqueue_next(mail.player_id)
    return None


NOTICE_PURPOSES = ("notice", "digest")


def _older_pending(mail: OutgoingMail) -> Any:
    return OutgoingMail.objects.filter(
        player_id=mail.player_id, status=MailStatus.PENDING, purpose__in=NOTICE_PURPOSES
    ).filter(Q(created_at__lt=mail.created_at) | Q(created_at=mail.created_at, pk__lt=mail.pk))


def _enqueue_next(player_id: int) -> None:
    """After a mail went: the player's next one, once the interval is over (the sweeper covers a lost one)."""
    nxt = (
        OutgoingMail.objects.filter(
            player_id=player_id, status=MailStatus.PENDING, purpose__in=NOTICE_PURPOSES
        )
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)
        .first()
    )
    if nxt is not None:
        enqueue_send([nxt], countdown=float(settings.MAIL_MIN_INTERVAL_SECONDS) + 0.05)


def _failed(mail_id: int, error: str) -> float | None:
    logger.warning("mail %s not sent: %s", mail_id, error)
    now = timezone.now()
    with transaction.atomic():
        mail = OutgoingMail.objects.select_for_update().filter(pk=mail_id, status=MailStatus.PENDING).first()
        if mail is None:
            return None
        mail.last_error = error[:300]
        if mail.attempts >= int(settings.MAIL_MAX_ATTEMPTS):
            mail.status = MailStatus.FAILED
            mail.queued_until = None
            mail.save(update_fields=["last_error", "status", "queued_until"])
            return None
        wait = backoff_seconds(mail.attempts)
        mail.next_attempt_at = now + timedelta(seconds=wait)
        mail.queued_until = None
        if wait <= COUNTDOWN_HORIZON:
            mail.queued_until = mail.next_attempt_at + timedelta(
                seconds=float(settings.MAIL_SEND_LEASE_SECONDS)
            )
            transaction.on_commit(lambda: enqueue_send([mail_id], countdown=wait))
        mail.save(update_fields=["last_error", "next_attempt_at", "queued_until"])
        return wait


def sweep(limit: int = 500) -> tuple[int, int]:
    """The sweeper's part for mail: enqueue due mails no task holds (a lost task, a worker killed mid-send
    whose claim lapsed, retries past the countdown horizon), and the flushes that are due (pacing, digests,
    held turns, notices whose flush task was lost). Returns (mails, flushes) enqueued."""
    now = timezone.now()
    oldest = list(  # each player's mails leave in order: only the oldest of each is a candidate
        OutgoingMail.objects.filter(status=MailStatus.PENDING, purpose__in=NOTICE_PURPOSES)
        .order_by("player_id", "created_at", "pk")
        .distinct("player_id")
        .values_list("pk", flat=True)[:limit]
    )
    with transaction.atomic():
        ids = list(
            OutgoingMail.objects.select_for_update(skip_locked=True)
            .filter(status=MailStatus.PENDING, next_attempt_at__lte=now)
            .filter(Q(purpose="verification") | Q(pk__in=oldest))
            .filter(Q(queued_until__isnull=True) | Q(queued_until__lte=now))
            .order_by("next_attempt_at", "pk")
            .values_list("pk", flat=True)[:limit]
        )
        if ids:
            until = now + timedelta(seconds=float(settings.MAIL_SEND_LEASE_SECONDS))
            OutgoingMail.objects.filter(pk__in=ids).update(queued_until=until)
            transaction.on_commit(lambda: enqueue_send(ids))
    late = now - timedelta(seconds=LATE_FLUSH_SECONDS)  # its countdown task was lost, or it was far off
    due = set(MailSettings.objects.filter(flush_at__lte=late).values_list("player_id", flat=True)[:limit])
    stale = now - timedelta(seconds=HELD_RECHECK_SECONDS)
    due |= set(
        MailNotice.objects.filter(status=NoticeStatus.PENDING, created_at__lte=stale)
        .filter(Q(player__mail_settings__flush_at__isnull=True))
        .order_by()
        .values_list("player_id", flat=True)
        .distinct()[:limit]
    )
    enqueue_flush(sorted(due))
    return len(ids), len(due)
