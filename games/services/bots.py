"""The machine seats' turns: bots, and seats on autopilot (played by the ``sensible`` bot)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.roster import autopilot_seats, lock_running, roster
from games.rules.core import Context, RuleError

from . import followups, timers
from .append import append_decided

logger = logging.getLogger(__name__)


def bots_play(game_id: int, *, max_steps: int | None = None) -> int:
    """Let the game's machine seats (bots, and seats on autopilot played by the ``sensible`` bot) act until
    none has anything to do; returns the number of commands applied.

    Each bot command is its own short transaction (lock, fold, decide, append), so players' commands
    interleave. Idempotent and safe to call any number of times, from any process: the Celery task
    ``games.tasks.play_bots`` calls it (and the sweeper, for a task that was lost); tests call it directly."""
    limit = max_steps if max_steps is not None else settings.BOTS_MAX_STEPS
    applied = 0
    skip: set[int] = set()
    cached: tuple[int, Any] | None = None  # (version, state): reused while nobody else appended
    with followups.bots_running():
        while applied < limit:
            with transaction.atomic():
                game = lock_running(game_id)
                if game is None:
                    return applied
                fresh = cached is not None and cached[0] == game.version
                known = cached[1] if cached is not None and fresh else None
                opened = timers.open_locked(game, timezone.now(), state=known)
                rs, state = opened.rs, opened.state
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
