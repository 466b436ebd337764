"""Chat webhooks: the adapters that turn a delivery's payload (the same redacted facts a signed webhook
carries) into the JSON a chat's incoming webhook takes. Discord ``{"content"}``, Slack ``{"text"}`` (mrkdwn),
Matrix (hookshot-style generic webhooks) ``{"text", "html"}``. The message names the endpoint's owner, the
game and the deadline, with a link to the seat's page: "alice, it's your turn in *first heist*, deadline in
3 h". Game names are the players' text: escaped for each format, and Discord is told to ping nobody."""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils.dateparse import parse_datetime

from .models import EndpointKind


def game_url(game_id: int) -> str:
    """The seat's page in the browser client (PUBLIC_BASE_URL + /play/games/<id>)."""
    return f"{settings.PUBLIC_BASE_URL}/play/games/{game_id}"


def in_words(seconds: float) -> str:
    """A short, rounded duration: "45 s", "12 min", "3 h", "2 days"."""
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{round(seconds)} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    if seconds < 36 * 3600:
        return f"{round(seconds / 3600)} h"
    return f"{round(seconds / 86400)} days"


def deadline_phrase(due_at: Any, now: datetime) -> str:
    """ ", deadline in 3 h" (or "" without a deadline)."""
    due = parse_datetime(due_at) if isinstance(due_at, str) else None
    if due is None:
        return ""
    left = (due - now).total_seconds()
    return ", the deadline has passed" if left <= 0 else f", deadline in {in_words(left)}"


def sentence(kind: str, payload: dict[str, Any], name: str, now: datetime) -> tuple[str, str]:
    """(the sentence before the game's name, the one after it) for a notification type."""
    data = payload.get("data", {})
    after = deadline_phrase(data.get("due_at"), now)
    if kind == "game.your_turn":
        return f"{name}, it's your turn in ", after
    if kind == "game.deadline_near":
        return f"{name}, hurry: your move in ", after
    if kind == "game.started":
        return f"{name}, the game ", " has started"
    if kind == "game.ended":
        return f"{name}, the game ", " is over"
    return f"{name}: {data.get('event_type', 'news')} in ", ""


def _discord_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in "\\*_~`|>[]()#@<:-":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("*", "\u2217")


def body(kind: str, payload: dict[str, Any], owner_name: str, now: datetime) -> dict[str, Any]:
    """The JSON body of a chat endpoint's delivery."""
    data = payload.get("data", {})
    game = str(data.get("game_name") or f"game {data.get('game_id')}")
    url = game_url(int(data.get("game_id") or 0))
    before, after = sentence(str(payload.get("type")), payload, owner_name, now)
    if kind == EndpointKind.DISCORD:
        text = f"{_discord_escape(before)}**{_discord_escape(game)}**{_discord_escape(after)}: <{url}>"
        return {"content": text[:2000], "allowed_mentions": {"parse": []}}
    if kind == EndpointKind.SLACK:
        text = f"{_slack_escape(before)}*{_slack_escape(game)}*{_slack_escape(after)}: <{url}|open the game>"
        return {"text": text, "mrkdwn": True}
    plain = f"{before}{game}{after}: {url}"
    rich = (
        f"{html.escape(before)}<b>{html.escape(game)}</b>{html.escape(after)}: "
        f'<a href="{html.escape(url)}">open the game</a>'
    )
    return {"text": plain, "html": rich, "msgtype": "m.notice"}
