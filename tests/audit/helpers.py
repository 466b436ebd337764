"""Records for the audit tests, built without the database: simulator games (``games.audit.record``), games
with an absent seat (deadlines expire, cards default, R7.2/R7.3), messages and a resignation, and tampering
helpers."""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

from games.audit import public
from games.audit.record import Batch, assemble, chain, seat_entries, simulated_record
from games.audit.verify import event_hash, played_under
from games.rules.core import Context
from games.rules.registry import get_ruleset
from games.rules.simulate import EPOCH, game_seed

RULESET = get_ruleset("goodcritters")


def sim_record(players: int, options: dict[str, Any] | None = None, game_no: int = 0) -> dict[str, Any]:
    return simulated_record(
        players=players, options=options or {}, seed=game_seed("audit-tests", game_no), salt=game_no
    )


def absent_record(players: int, options: dict[str, Any], *, game_no: int = 0) -> dict[str, Any]:
    """Seat 0 never acts (its deadlines expire); seat 1 sends a private message early on; the last seat
    resigns in round 3 (with 5 or more players). The clock moves one second per command."""
    rs = RULESET
    seed = game_seed("audit-absent", game_no)
    names = [f"p{s}" for s in range(players)]
    start = rs.start_command(players=names, creator=names[0], options=rs.parse_options(options), seed=seed)
    now = EPOCH
    batches: list[Batch] = []
    state = rs.initial_state()

    def apply(command: Any, at: Any, actor: int | None) -> None:
        nonlocal state
        events = rs.decide(state, command, Context(now=at))
        assert events, command
        state = rs.fold(events, state)
        stored = {**rs.command_to_json(command), "seat": getattr(command, "seat", None)}
        batches.append(
            Batch(stored, at.isoformat(), f"t:{len(batches)}", actor, [rs.event_to_json(e) for e in events])
        )

    apply(start, now, None)
    messaged = resigned = False
    for _ in range(20_000):
        if rs.is_terminal(state):
            break
        now += timedelta(seconds=1)
        if not messaged:
            apply(rs.command_from_json({"type": "SendMessage", "text": "psst", "to": [2]}, 1), now, 101)
            messaged = True
            continue
        if players >= 5 and not resigned and state.game.round == 3:
            apply(rs.command_from_json({"type": "Resign"}, players - 1), now, 100 + players - 1)
            resigned = True
            continue
        moved = False
        for seat in range(1, players):
            command = rs.bot_command(state, seat, strategy="sensible" if seat % 2 else "random", salt=game_no)
            if command is not None:
                apply(command, now, 100 + seat)
                moved = True
                break
        if not moved:
            waiting = rs.waiting(state)
            assert waiting is not None
            assert waiting.due_at is not None
            now = max(now, waiting.due_at + timedelta(seconds=1))
            apply(rs.expire_command(waiting.step_no), now, None)
    assert rs.is_terminal(state), "the game did not end"
    events = chain(7, batches, rs.slug)
    started = events[0]["data"]
    meta = {
        "id": 7,
        "name": "absent seat",
        "ruleset": rs.slug,
        "ruleset_version": played_under(rs, started),
        "options": rs.options_to_json(rs.parse_options(options)),
        "fair": started["fair"],
        "status": "over",
        "created_at": events[0]["created_at"],
        "started_at": events[0]["created_at"],
        "ended_at": events[-1]["created_at"],
    }

    def who(uid: str) -> dict[str, Any]:
        return {"player_id": 100 + int(uid[1:]), "player": uid, "display_name": uid.upper(), "bot": None}

    seats = seat_entries(events, who)
    return assemble(meta, seats, events)


def rechain(record: dict[str, Any]) -> dict[str, Any]:
    """What a forger would do after editing events: renumber nothing, but recompute every prev_hash and
    hash and the head, and the public chain, so both chains hold again (the signature is another matter)."""
    prev = prev_public = "0" * 64
    for event in record["events"]:
        event["prev_hash"] = prev
        event["hash"] = prev = event_hash(record["game"]["id"], event)
        if "public_hash" in event:
            try:
                prev_public = public.chain_hash(
                    record["game"]["ruleset"], record["game"]["id"], event, prev_public
                )
            except (TypeError, ValueError):  # a salt the forger broke: the format check refuses it
                continue
            event["public_hash"] = prev_public
    record["head_hash"] = prev
    if "public_head_hash" in record:
        record["public_head_hash"] = prev_public
    return record


def first(record: dict[str, Any], kind: str, where: Any = None) -> dict[str, Any]:
    """The first event of ``kind`` (whose data satisfies ``where``)."""
    for event in record["events"]:
        if event["type"] == kind and (where is None or where(event["data"])):
            return event
    raise LookupError(kind)


def tampered(record: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(record)


def people_record(
    slug: str,
    players: int,
    *,
    options: dict[str, Any] | None = None,
    game_no: int = 0,
    game_id: int = 9,
    public_chain: int = 2,
) -> dict[str, Any]:
    """A game of ``slug`` whose seats are people (uids ``p{seat}``, account ids ``100 + seat``) played by the
    bots' moves: seat 1 first sends seat 2 a private message, then each seat plays (``sensible`` on odd seats,
    ``random`` on even ones) with its person as the actor, and a step nobody moves in is expired by the system
    (actor null). The clock moves one second per command."""
    rs = get_ruleset(slug)
    seed = game_seed(f"audit-people-{slug}", game_no)
    names = [f"p{s}" for s in range(players)]
    parsed = rs.parse_options(dict(options or {}))
    start = rs.start_command(players=names, creator=names[0], options=parsed, seed=seed)
    now = EPOCH
    batches: list[Batch] = []
    state = rs.initial_state()

    def apply(command: Any, at: Any, actor: int | None) -> None:
        nonlocal state
        events = rs.decide(state, command, Context(now=at))
        assert events, command
        state = rs.fold(events, state)
        stored = {**rs.command_to_json(command), "seat": getattr(command, "seat", None)}
        batches.append(
            Batch(stored, at.isoformat(), f"t:{len(batches)}", actor, [rs.event_to_json(e) for e in events])
        )

    apply(start, now, None)
    now += timedelta(seconds=1)
    message = {"type": "SendMessage", "text": "psst: I hold the key", "to": [2]}
    apply(rs.command_from_json(message, 1), now, 101)
    for _ in range(50_000):
        if rs.is_terminal(state):
            break
        now += timedelta(seconds=1)
        moved = False
        for seat in range(players):
            strategy = "sensible" if seat % 2 else "random"
            command = rs.bot_command(state, seat, strategy=strategy, salt=game_no)
            if command is not None:
                apply(command, now, 100 + seat)
                moved = True
                break
        if not moved:
            waiting = rs.waiting(state)
            assert waiting is not None
            assert waiting.due_at is not None
            now = max(now, waiting.due_at + timedelta(seconds=1))
            apply(rs.expire_command(waiting.step_no), now, None)
    assert rs.is_terminal(state), "the game did not end"
    events = chain(game_id, batches, rs.slug, public_chain=public_chain)
    started = events[0]["data"]
    meta = {
        "id": game_id,
        "name": f"{slug} people",
        "ruleset": rs.slug,
        "ruleset_version": played_under(rs, started),
        "options": rs.options_to_json(parsed),
        "fair": started["fair"],
        "status": "over",
        "created_at": events[0]["created_at"],
        "started_at": events[0]["created_at"],
        "ended_at": events[-1]["created_at"],
    }
    started_options = getattr(rs, "started_options", None)
    if started_options is not None:
        meta["options"] = started_options(events)

    def who(uid: str) -> dict[str, Any]:
        return {"player_id": 100 + int(uid[1:]), "player": uid, "display_name": uid.upper(), "bot": None}

    return assemble(meta, seat_entries(events, who), events)
