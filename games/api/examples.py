"""OpenAPI examples for the games API."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from typing import Any

from drf_spectacular.utils import OpenApiExample

from games.rules.core import Context
from games.rules.registry import get_ruleset

_GAME_VALUE: dict[str, Any] = {
    "id": 42,
    "name": "Friday heist",
    "ruleset": "goodcritters",
    "status": "open",
    "creator": "bonnie",
    "seats": 5,
    "taken": 3,
    "players": [
        {"seat": 0, "player": "bonnie", "display_name": "Bonnie", "bot": None},
        {"seat": 1, "player": None, "display_name": "Bot 1 (sensible)", "bot": "sensible"},
        {"seat": 2, "player": "louie", "display_name": "louie", "bot": None},
    ],
    "your_seat": 0,
    "options": get_ruleset("goodcritters").options_to_json(
        get_ruleset("goodcritters").parse_options({"deadlines": {"distribute": 3600, "choose": 3600}})
    ),
    "allow_spectators": True,
    "fair": True,
    "version": 0,
    "waiting_step": None,
    "deadline_at": None,
    "created_at": "2026-11-22T16:00:00Z",
    "started_at": None,
    "ended_at": None,
}

GAME = OpenApiExample("game", value=_GAME_VALUE, response_only=True)
GAME_LIST = OpenApiExample(
    "page of games",
    value={
        "next": "https://example.org/api/v1/games?cursor=cD0yMDI2",
        "previous": None,
        "results": [_GAME_VALUE],
    },
    response_only=True,
)
GAME_CREATE = OpenApiExample(
    "five seats, two bots",
    value={
        "name": "Friday heist",
        "seats": 5,
        "options": {"deadlines": {"distribute": 3600, "choose": 3600}},
        "bots": ["sensible", "random"],
    },
    request_only=True,
)

TABLE_OPTIONS: dict[str, dict[str, Any]] = {
    "loose_triggers": {
        "countdown": 90,
        "max_retargets": 2,
        "deadlines": {"give": 3600, "choose": 3600, "pick": 3600},
        "absence": {"extensions": 1, "autopilot_after": 3},
        "pause_by": "vote",
        "warn_before": 600,
    },
    "were_cats": {"max_rounds": 12, "deadlines": {"place": 86400, "act": 86400}, "warn_before": 3600},
}
"""Options (a request) of a Loose Triggers and a Were-cats game, for the examples."""

GAME_CREATE_TABLE = [
    OpenApiExample(
        f"{slug}: {seats} seats, one bot",
        value={
            "ruleset": slug,
            "name": name,
            "seats": seats,
            "options": TABLE_OPTIONS[slug],
            "bots": ["sensible"],
        },
        request_only=True,
    )
    for slug, seats, name in (("loose_triggers", 5, "Saloon at noon"), ("were_cats", 3, "Full moon"))
]


@cache
def sample_game() -> tuple[list[Any], Any]:
    """A real GoodCritters game of five, two steps in (so that every example validates against the spec,
    which is generated from the same types): its events and its state, the Boss's distribution done."""
    rs = get_ruleset("goodcritters")
    ctx = Context(now=datetime(2026, 11, 22, 16, 0, tzinfo=UTC))
    options = rs.parse_options({"payoffs": True, "deadlines": {"distribute": 3600, "choose": 3600}})
    start = rs.start_command(
        players=["p7", "p8", "p9", "p10", "p11"], creator="p7", options=options, seed=bytes(range(32))
    )
    events = rs.decide(rs.initial_state(), start, ctx)
    state = rs.fold(events)
    boss = rs.view_for(state, None)["boss"]
    table = [card["id"] for card in rs.view_for(state, None)["table"]]
    shares = [table if seat == boss else [] for seat in range(5)]
    distribute = rs.command_from_json({"type": "DistributeLoot", "shares": shares}, boss)
    more = rs.decide(state, distribute, ctx)
    state = rs.fold(more, state)
    events += more
    choose = rs.command_from_json({"type": "ChooseAction", "action": "vote_yes"}, 2)
    more = rs.decide(state, choose, ctx)
    state = rs.fold(more, state)
    return [*events, *more], state


@cache
def public_hashes(slug: str = "goodcritters") -> list[str]:
    """The public chain (docs/AUDIT.md) of the sample game, as game 42 would have it: each event's
    ``public_hash``, over what a spectator sees of it."""
    from games.audit import public

    rs = get_ruleset(slug)
    events, _state = _sample(slug)
    prev, out = "0" * 64, []
    for seq, event in enumerate(events, start=1):
        data = json.loads(json.dumps(rs.event_to_json(event)))
        prev = public.public_hash(
            game_id=_GAME_VALUE["id"],
            seq=seq,
            type=data["type"],
            schema_version=data["v"],
            public_data=public.spectator_data(slug, data),
            created_at="2026-11-22T16:01:00+00:00",
            prev_public_hash=prev,
        )
        out.append(prev)
    return out


@cache
def sample_table_game(slug: str, *, stop_after: int = 12) -> tuple[list[Any], Any]:
    """A real game of ``slug`` (a game on the table) of five seats (Were-cats: three), ``stop_after`` bot
    commands in: its events and its state (for the examples, so that they validate against the spec)."""
    rs = get_ruleset(slug)
    ctx = Context(now=datetime(2026, 11, 22, 16, 0, tzinfo=UTC))
    n = 5 if slug == "loose_triggers" else 3
    options = rs.parse_options(TABLE_OPTIONS[slug])
    start = rs.start_command(
        players=[f"p{7 + i}" for i in range(n)], creator="p7", options=options, seed=bytes(range(32))
    )
    events = rs.decide(rs.initial_state(), start, ctx)
    state = rs.fold(events)
    for _ in range(stop_after):
        command = next(
            (c for seat in range(n) if (c := rs.bot_command(state, seat, strategy="sensible", salt=3))),
            None,
        )
        if command is None:
            break
        more = rs.decide(state, command, ctx)
        state = rs.fold(more, state)
        events += more
    return events, state


def _sample(slug: str) -> tuple[list[Any], Any]:
    """The sample game of ``slug``."""
    return sample_game() if slug == "goodcritters" else sample_table_game(slug)


def viewer_state_value(viewer: int = 2, slug: str = "goodcritters") -> dict[str, Any]:
    rs = get_ruleset(slug)
    events, state = _sample(slug)
    names = ["bonnie", "clyde", "louie", "dewey", "huey"][: len(rs.view_for(state, None)["seats"])]
    waiting = rs.waiting(state)
    assert waiting is not None
    due_at = None if waiting.due_at is None else waiting.due_at.isoformat().replace("+00:00", "Z")
    options = _GAME_VALUE["options"]
    if slug != "goodcritters":
        options = rs.options_to_json(rs.parse_options(TABLE_OPTIONS[slug]))
    return {
        "game": {
            **_GAME_VALUE,
            "ruleset": slug,
            "seats": len(names),
            "options": options,
            "status": "running",
            "taken": len(names),
            "players": [
                {"seat": seat, "player": player, "display_name": player, "bot": None}
                for seat, player in enumerate(names)
            ],
            "your_seat": viewer,
            "version": len(events),
            "waiting_step": waiting.step,
            "deadline_at": due_at,
            "started_at": "2026-11-22T16:00:00Z",
        },
        "version": len(events),
        "viewer": viewer,
        "state": rs.view_for(state, viewer),
        "legal_commands": rs.legal_commands(state, viewer),
        "waiting": {
            "step_no": waiting.step_no,
            "step": waiting.step,
            "seats": sorted(waiting.seats),
            "due_at": due_at,
            "you": viewer in waiting.seats,
        },
        "over": False,
        "scores": None,
        "public_head": {"seq": len(events), "hash": public_hashes(slug)[-1]},
    }


def feed_items(viewer: int = 2, last: int = 2) -> list[dict[str, Any]]:
    rs = get_ruleset("goodcritters")
    events, _state = sample_game()
    n = len(events)
    return [
        {
            "seq": seq,
            "created_at": "2026-11-22T16:01:00Z",
            "event": rs.redact_event(events[seq - 1], viewer, terminal=False),
            "hash": None,
            "public_hash": public_hashes()[seq - 1],
        }
        for seq in range(n - last + 1, n + 1)
    ]


def record_event(seq: int = 1) -> dict[str, Any]:
    """A record's entry (``games_record_retrieve``) for event ``seq`` of the sample game."""
    rs = get_ruleset("goodcritters")
    events, _state = sample_game()
    data = rs.event_to_json(events[seq - 1])
    return {
        "seq": seq,
        "type": data["type"],
        "schema_version": data["v"],
        "data": json.loads(json.dumps(data)),
        "created_at": "2026-11-22T16:00:00.123456+00:00",
        "command_id": "start:6c9b0f8e-2c55-4a3e-9d1e-6f1e1b1a2c3d",
        "actor": None,
        "command": None,
        "prev_hash": "0" * 64,
        "hash": "4f1c2a0d5e1b9c8a7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c",
        "public_hash": public_hashes()[seq - 1],
    }


def recorded_start_command() -> dict[str, Any]:
    rs = get_ruleset("goodcritters")
    start = rs.start_command(
        players=["p7", "p8", "p9", "p10", "p11"],
        creator="p7",
        options=rs.parse_options({"payoffs": True, "deadlines": {"distribute": 3600, "choose": 3600}}),
        seed=bytes(range(32)),
    )
    return {**rs.command_to_json(start), "seat": None}


VIEWER_STATE = OpenApiExample("viewer state", value=viewer_state_value(), response_only=True)
VIEWER_STATES = [
    VIEWER_STATE,
    *(
        OpenApiExample(f"{slug}: viewer state", value=viewer_state_value(1, slug), response_only=True)
        for slug in ("loose_triggers", "were_cats")
    ),
]

FEED = OpenApiExample(
    "feed",
    value={
        "events": feed_items(),
        "next_after": len(sample_game()[0]),
        "version": len(sample_game()[0]),
        "more": False,
        "over": False,
        "head_hash": None,
        "public_head": {"seq": len(sample_game()[0]), "hash": public_hashes()[-1]},
    },
    response_only=True,
)

COMMAND_EXAMPLES: dict[str, dict[str, Any]] = {
    # GoodCritters' commands and the table's (the same shapes in every ruleset)
    "DistributeLoot": {"shares": [[17, 88], [5], [120, 63], [31], [2]]},
    "ChooseAction": {"action": "vote_yes"},
    "PlaceThreat": {"target": 3},
    "RemoveThreat": {},
    "SetReady": {"ready": True},
    "OfferPayoff": {
        "token": 0,
        "side": "yes",
        "target": 2,
        "loot": [17],
        "visibility": "peek",
        "payoff_cards": 1,
    },
    "WithdrawPayoff": {"token": 0},
    "GiveGift": {"to": 1, "loot": [], "payoff_cards": 2},
    "OfferTrade": {"to": 1, "give_loot": [17], "give_payoff": 0, "want_values": [], "want_payoff": 3},
    "AcceptTrade": {"trade_id": 1, "loot": []},
    "DeclineTrade": {"trade_id": 1},
    "WithdrawTrade": {"trade_id": 1},
    "Resign": {},
    "SendMessage": {"text": "Vote yes and I'll guard you.", "to": [2]},
    "TakeBackSeat": {},
    "VotePause": {"pause": True},
}


@cache
def sample_commands(slug: str) -> dict[str, dict[str, Any]]:
    """Per command type, the request body of the first such command the bots send in real games of
    ``slug`` (its JSON form without ``type``, ``seat`` and the fields only the system sets)."""
    import dataclasses

    from games.rules.simulate import play_game

    from .bindings import player_command_classes

    rs = get_ruleset(slug)
    low, high = rs.seat_range()
    found: dict[str, dict[str, Any]] = {}

    def keep(_before: Any, command: Any, _events: Any) -> None:
        if command.TYPE in found or getattr(command, "seat", None) is None:
            return
        system = {f.name for f in dataclasses.fields(command) if f.metadata.get("system")}
        body = {k: v for k, v in rs.command_to_json(command).items() if k not in {"type", "seat", *system}}
        found[command.TYPE] = json.loads(json.dumps(body))

    wanted = {c.TYPE for c in player_command_classes(slug)} - set(COMMAND_EXAMPLES) - set(RARE_COMMANDS)
    for game_no in range(20):  # until the bots have sent each of the game's own commands (a few games)
        if wanted <= set(found):
            break
        n = low + game_no % (high - low + 1)
        play_game(
            rs,
            players=n,
            strategies=["sensible", "random"] * 4,
            options=rs.parse_options({}),
            seed=bytes([game_no]) * 32,
            salt=game_no,
            on_command=keep,
        )
    return found


RARE_COMMANDS: dict[str, dict[str, Any]] = {
    "ElectBagman": {"candidate": 2},  # LT5.4: only when the Bagman dies
}
"""Commands the bots seldom send, written out."""


def command_examples(type_name: str, rulesets: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """(label, request body) examples of command ``type_name`` for each of ``rulesets`` that gives it its
    own shape (``ChooseAction``): one per ruleset; else one."""
    out: list[tuple[str, dict[str, Any]]] = []
    for slug in rulesets:
        value = COMMAND_EXAMPLES.get(type_name) if slug == "goodcritters" else None
        if value is None:
            value = sample_commands(slug).get(type_name) if slug != "goodcritters" else None
        if value is None:
            value = COMMAND_EXAMPLES.get(type_name) or RARE_COMMANDS.get(type_name)
        if value is not None:
            out.append((f"{type_name} ({slug})" if len(rulesets) > 1 else type_name, value))
    return out
