"""OpenAPI examples for the games API."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from functools import cache
from typing import Any, Final

from drf_spectacular.utils import OpenApiExample

from games.rules.core import Context, Sample
from games.rules.registry import DEFAULT_RULESET, RULESETS, get_ruleset
from games.selectors import acting_and_moves


def _sample_of(slug: str) -> Sample:
    """The game's own sample (``core.Sample``), or a plain one."""
    rs = get_ruleset(slug)
    sample: Sample | None = getattr(rs, "sample", None)
    return sample if sample is not None else Sample(name=slug, seats=rs.seat_range()[0], options={})


_DEFAULT: Final = _sample_of(DEFAULT_RULESET)
_OTHERS: Final = [slug for slug in RULESETS if slug != DEFAULT_RULESET]

_GAME_VALUE: dict[str, Any] = {
    "id": 42,
    "name": _DEFAULT.name,
    "ruleset": DEFAULT_RULESET,
    "status": "open",
    "creator": "bonnie",
    "seats": _DEFAULT.seats,
    "taken": 3,
    "players": [
        {"seat": 0, "player": "bonnie", "display_name": "Bonnie", "bot": None},
        {"seat": 1, "player": None, "display_name": "Bot 1 (sensible)", "bot": "sensible"},
        {"seat": 2, "player": "louie", "display_name": "louie", "bot": None},
    ],
    "your_seat": 0,
    "options": get_ruleset(DEFAULT_RULESET).options_to_json(
        get_ruleset(DEFAULT_RULESET).parse_options(_DEFAULT.options)
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
    f"{_DEFAULT.name}: two bots",
    value={
        "name": _DEFAULT.name,
        "seats": _DEFAULT.seats,
        "options": dict(_DEFAULT.options),
        "bots": ["sensible", "random"],
    },
    request_only=True,
)
GAME_CREATE_TABLE = [  # each other game, by its ruleset
    OpenApiExample(
        f"{slug}: {sample.seats} seats, one bot",
        value={
            "ruleset": slug,
            "name": sample.name,
            "seats": sample.seats,
            "options": dict(sample.options),
            "bots": ["sensible"],
        },
        request_only=True,
    )
    for slug, sample in ((slug, _sample_of(slug)) for slug in _OTHERS)
]


@cache
def sample_game(slug: str = DEFAULT_RULESET, *, stop_after: int = 12) -> tuple[list[Any], Any]:
    """A real game of ``slug``, its sample's seats and options (``core.Sample``), ``stop_after`` commands of
    sensible bots in: its events and its state (for the examples, so that every example validates against the
    spec, which is generated from the same types)."""
    rs = get_ruleset(slug)
    sample = _sample_of(slug)
    ctx = Context(now=datetime(2026, 11, 22, 16, 0, tzinfo=UTC))
    n = sample.seats
    start = rs.start_command(
        players=[f"p{7 + i}" for i in range(n)],
        creator="p7",
        options=rs.parse_options(sample.options),
        seed=bytes(range(32)),
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


_COMMAND_ID = "start:6c9b0f8e-2c55-4a3e-9d1e-6f1e1b1a2c3d"


def sample_salt(seq: int) -> str:
    """The sample game's salt of event ``seq``'s seal (public chain 2; the server draws them at random)."""
    return hashlib.sha256(f"sample salt {seq}".encode()).hexdigest()[:32]


@cache
def seals(slug: str = DEFAULT_RULESET) -> list[str]:
    """The sample game's seals (public chain 2, docs/AUDIT.md): each event's data, no command, the example's
    command id and no actor, salted."""
    from games.audit import public

    rs = get_ruleset(slug)
    events, _state = sample_game(slug)
    return [
        public.seal(
            sample_salt(seq),
            data=json.loads(json.dumps(rs.event_to_json(event))),
            command=None,
            command_id=_COMMAND_ID,
            actor=None,
        )
        for seq, event in enumerate(events, start=1)
    ]


@cache
def public_hashes(slug: str = DEFAULT_RULESET) -> list[str]:
    """The public chain (docs/AUDIT.md) of the sample game, as game 42 would have it: each event's
    ``public_hash``, over what a spectator sees of it and its seal (public chain 2)."""
    from games.audit import public

    rs = get_ruleset(slug)
    events, _state = sample_game(slug)
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
            seal=seals(slug)[seq - 1],
        )
        out.append(prev)
    return out


def viewer_state_value(viewer: int = 2, slug: str = DEFAULT_RULESET) -> dict[str, Any]:
    rs = get_ruleset(slug)
    events, state = sample_game(slug)
    names = ["bonnie", "clyde", "louie", "dewey", "huey"][: _sample_of(slug).seats]  # the sample's seats
    waiting = rs.waiting(state)
    assert waiting is not None
    due_at = None if waiting.due_at is None else waiting.due_at.isoformat().replace("+00:00", "Z")
    return {
        "game": {
            **_GAME_VALUE,
            "name": _sample_of(slug).name,
            "ruleset": slug,
            "seats": len(names),
            "options": rs.options_to_json(rs.parse_options(_sample_of(slug).options)),
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
        **acting_and_moves(
            rs,
            state,
            viewer,
            [{"seat": seat, "player": player} for seat, player in enumerate(names)],
            started=True,
        ),
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
    rs = get_ruleset(DEFAULT_RULESET)
    events, _state = sample_game()
    n = len(events)
    return [
        {
            "ruleset": DEFAULT_RULESET,
            "seq": seq,
            "created_at": "2026-11-22T16:01:00Z",
            "event": rs.redact_event(events[seq - 1], viewer, terminal=False),
            "hash": None,
            "public_hash": public_hashes()[seq - 1],
            "seal": seals()[seq - 1],
        }
        for seq in range(n - last + 1, n + 1)
    ]


def record_event(seq: int = 1) -> dict[str, Any]:
    """A record's entry (``games_record_retrieve``) for event ``seq`` of the sample game."""
    rs = get_ruleset(DEFAULT_RULESET)
    events, _state = sample_game()
    data = rs.event_to_json(events[seq - 1])
    return {
        "seq": seq,
        "type": data["type"],
        "schema_version": data["v"],
        "data": json.loads(json.dumps(data)),
        "created_at": "2026-11-22T16:00:00.123456+00:00",
        "command_id": _COMMAND_ID,
        "actor": None,
        "command": None,
        "prev_hash": "0" * 64,
        "hash": "4f1c2a0d5e1b9c8a7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c",
        "public_hash": public_hashes()[seq - 1],
        "salt": sample_salt(seq),
    }


def recorded_start_command() -> dict[str, Any]:
    rs = get_ruleset(DEFAULT_RULESET)
    start = rs.start_command(
        players=[f"p{7 + i}" for i in range(_DEFAULT.seats)],
        creator="p7",
        options=rs.parse_options(_DEFAULT.options),
        seed=bytes(range(32)),
    )
    return {**rs.command_to_json(start), "seat": None}


VIEWER_STATE = OpenApiExample("viewer state", value=viewer_state_value(), response_only=True)
VIEWER_STATES = [
    VIEWER_STATE,
    *(
        OpenApiExample(f"{slug}: viewer state", value=viewer_state_value(1, slug), response_only=True)
        for slug in _OTHERS
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

TABLE_COMMAND_EXAMPLES: dict[str, dict[str, Any]] = {
    # the table's commands: the same shapes in every game
    "SetReady": {"ready": True},
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

    written = {*_sample_of(slug).commands, *TABLE_COMMAND_EXAMPLES}
    wanted = {c.TYPE for c in player_command_classes(slug)} - written
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


def command_examples(type_name: str, rulesets: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """(label, request body) examples of command ``type_name`` for each of ``rulesets`` that gives it its
    own shape (``ChooseAction``): one per ruleset; else one."""
    out: list[tuple[str, dict[str, Any]]] = []
    for slug in rulesets:
        written = _sample_of(slug).commands.get(type_name)
        value = dict(written) if written is not None else sample_commands(slug).get(type_name)
        if value is None:
            value = TABLE_COMMAND_EXAMPLES.get(type_name)
        if value is not None:
            out.append((f"{type_name} ({slug})" if len(rulesets) > 1 else type_name, value))
    return out
