"""The independent verifier of a finished game's record (docs/AUDIT.md). Pure: no database, no Django.

    python -m games.audit.verify RECORD.json [--json] [--checkpoint SEQ:HEAD ...] [--key KEY]

prints a verdict and exits 0 when the record holds, 1 naming the first bad event when it does not, 2 when the
file (or a checkpoint or key argument) cannot be read. The checks, in order (each failure names the first bad
event):

1. ``format``: the record's shape (format name and version 1, 2 or 3, fields and their types, each
   ``created_at`` written exactly as the server writes it).
2. ``signature`` (with ``--key``): the record is signed by that key (docs/AUDIT.md, "The signature").
3. ``chain``: every event's ``seq`` (1, 2, 3, ...), ``prev_hash`` (the previous event's hash; 64 zeros for the
   first) and ``hash`` (SHA-256 of the canonical JSON of its stored fields), and the record's ``head_hash``.
4. ``public``: the public chain recomputed from the events as a spectator sees them (``games.audit.public``;
   version 3, public chain 2: with each event's seal, a salted hash of its every other fact) matches the
   record's ``public_hash`` fields and ``public_head_hash`` (versions 2 and 3) and every checkpoint
   ``(seq, head)`` a watcher saved while the game ran.
5. ``seed``: SHA-256(seed) is the ``seed_commitment`` published in the first event (RULES.md R8.2), and the
   seed is the one the first and the last event carry; the record's options, fair flag and
   ``ruleset_version`` (the rules the game was played under: it is re-decided under them) are those of the
   first event.
6. ``seats``: who held each seat and from which event on (``GameStarted.players``, each ``SeatHandedOver``).
7. ``commitment`` (rulesets with an ``audit_secrets`` hook, e.g. GoodCritters): every face-down choice's
   commitment is SHA-256(salt || choice) with the salt the seed gives for its ``commit_no``, and every reveal
   opens the commitment made for it.
8. ``random`` (the same): every random outcome (GoodCritters: the setup, each robbed or guarded card) is the
   one the seed gives (R8.1). A ruleset without the hook has these re-derived by check 9 alone.
9. ``rules``: every batch of events is exactly what the rules (the version the game started under) decide
   for the command stored on its first event, at the time the batch carries, from the state folded from the
   events before it; its actor is the seat's holder at that event or nobody; the game is over.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from games.rules import rng
from games.rules.core import AuditFailure, AuditSecrets, Context, RuleError, Ruleset
from games.rules.registry import RULESETS

from . import public
from .public import canonical_json

FORMAT: Final = "goodcritters.record"
FORMAT_VERSION: Final = (
    3  # what the server writes (2 for a game under public chain 1); this verifier reads 1 to 3
)
READS: Final = (1, 2, 3)
GENESIS_HASH: Final = "0" * 64

EVENT_FIELDS: Final[dict[str, tuple[type, ...]]] = {
    "seq": (int,),
    "type": (str,),
    "schema_version": (int,),
    "data": (dict,),
    "created_at": (str,),
    "command_id": (str,),
    "actor": (int, type(None)),
    "command": (dict, type(None)),
    "prev_hash": (str,),
    "hash": (str,),
}
EVENT_FIELDS_V2: Final = {**EVENT_FIELDS, "public_hash": (str,)}
EVENT_FIELDS_V3: Final = {**EVENT_FIELDS_V2, "salt": (str,)}  # public chain 2: the seal's salt
CREATED_AT: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{6})?\+00:00")
"""An event's ``created_at`` as the server writes it: UTC, ``+00:00``, six fractional digits or none."""
HOLDER_FIELDS: Final[dict[str, tuple[type, ...]]] = {
    "from_seq": (int,),
    "uid": (str,),
    "player_id": (int, type(None)),
    "player": (str, type(None)),
    "display_name": (str,),
    "bot": (str, type(None)),
}


@dataclass(frozen=True, slots=True)
class Finding:
    """The first thing wrong with a record: the event (``seq``, ``None`` for the record as a whole), which
    check failed and why."""

    seq: int | None
    check: str
    message: str
    type: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "type": self.type, "check": self.check, "message": self.message}


@dataclass(slots=True)
class Verdict:
    """The verifier's answer: ``ok``, or the first :class:`Finding`; with what was checked."""

    ok: bool
    game: Any = None
    events: int = 0
    commands: int = 0
    commitments: int = 0
    random_picks: int = 0
    head_hash: str | None = None
    public_head_hash: str | None = None
    error: Finding | None = None
    checks: list[str] = field(default_factory=list)
    format_version: int | None = None
    fair: bool | None = None
    checkpoints: int = 0
    signed_by: str | None = None
    secrets: bool = True  # the ruleset checked its commitments and random picks on their own (AuditSecrets)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "format": FORMAT,
            "format_version": self.format_version,
            "game": self.game,
            "events": self.events,
            "commands": self.commands,
            "commitments_opened": self.commitments,
            "random_picks": self.random_picks,
            "head_hash": self.head_hash,
            "public_head_hash": self.public_head_hash,
            "fair": self.fair,
            "checkpoints": self.checkpoints,
            "signed_by": self.signed_by,
            "checks": list(self.checks),
            "error": self.error.to_json() if self.error is not None else None,
        }

    def text(self) -> str:
        if self.ok:
            setup = (
                "the setup is the one the seed gives"
                if self.fair
                else "the setup is what the operator fixed (fair: false; outcomes follow from the operator's "
                "seed or deck, they were not left to chance)"
            )
            extra = ""
            if self.checkpoints:
                extra += f" {self.checkpoints} watchers' checkpoints match the public chain."
            if self.signed_by:
                extra += f" Signed by key {self.signed_by}."
            secrets = (
                f"{self.commitments} commitments opened, {self.random_picks} random picks re-derived from "
                f"the seed ({setup})"
                if self.secrets
                else f"commitments and random outcomes re-derived by the rules from the seed ({setup})"
            )
            return (
                f"OK: game {self.game}: {self.events} events, hash chain intact (head {self.head_hash}), "
                f"public chain head {self.public_head_hash}, "
                f"seed matches its commitment, {secrets}, "
                f"{self.commands} commands re-decided by the rules.{extra}"
            )
        assert self.error is not None
        where = "the record" if self.error.seq is None else f"event #{self.error.seq}"
        if self.error.type:
            where += f" ({self.error.type})"
        return f"FAILED [{self.error.check}] at {where}: {self.error.message}"


class _Bad(Exception):
    def __init__(self, seq: int | None, check: str, message: str, type: str | None = None) -> None:
        super().__init__(message)
        self.finding = Finding(seq, check, message, type)


def event_hash(game_id: int, event: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of an event's stored fields (docs/AUDIT.md, "The hash chain")."""
    record = {
        "game": game_id,
        "seq": event["seq"],
        "type": event["type"],
        "schema_version": event["schema_version"],
        "data": event["data"],
        "created_at": event["created_at"],
        "command_id": event["command_id"],
        "actor": event["actor"],
        "command": event["command"],
        "prev_hash": event["prev_hash"],
    }
    return hashlib.sha256(canonical_json(record)).hexdigest()


def _is_hex(text: Any, length: int) -> bool:
    if not isinstance(text, str) or len(text) != length:
        return False
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return text == text.lower()


def _is_created_at(text: str) -> bool:
    if not CREATED_AT.fullmatch(text):
        return False
    try:
        return datetime.fromisoformat(text).isoformat() == text  # a real time; no ".000000"
    except ValueError:
        return False


def _check_format(record: Any) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    if not isinstance(record, Mapping):
        raise _Bad(None, "format", "the record is not a JSON object")
    if record.get("format") != FORMAT:
        raise _Bad(None, "format", f"format is {record.get('format')!r}, expected {FORMAT!r}")
    version = record.get("format_version")
    if type(version) is not int or version not in READS:
        raise _Bad(
            None,
            "format",
            f"format_version {version!r}: this verifier reads versions {', '.join(map(str, READS))}",
        )
    game = record.get("game")
    if not isinstance(game, Mapping) or type(game.get("id")) is not int:
        raise _Bad(None, "format", "game.id (an integer) is missing")
    slug = game.get("ruleset")
    if slug not in RULESETS:
        raise _Bad(None, "format", f"unknown ruleset {slug!r} (known: {', '.join(sorted(RULESETS))})")
    if "ruleset" in record and record["ruleset"] != slug:  # the top-level copy (absent in older records)
        raise _Bad(None, "format", f"ruleset {record['ruleset']!r} is not game.ruleset {slug!r}")
    known = RULESETS[slug].rules_versions
    if game.get("ruleset_version") not in known:
        raise _Bad(
            None,
            "format",
            f"ruleset {slug} version {game.get('ruleset_version')!r}: this verifier re-decides versions "
            f"{', '.join(map(repr, known))}",
        )
    if not isinstance(game.get("options"), Mapping) or type(game.get("fair")) is not bool:
        raise _Bad(None, "format", "game.options (an object) and game.fair (a boolean) are required")
    seats = record.get("seats")
    if not isinstance(seats, list) or not all(
        isinstance(s, Mapping)
        and type(s.get("seat")) is int
        and isinstance(s.get("uid"), str)
        and type(s.get("player_id", ...)) in (int, type(None))
        for s in seats
    ):
        raise _Bad(None, "format", "seats must be a list of {seat, uid, player_id, ...} objects")
    if version >= 2:
        for s in seats:
            holders = s.get("holders")
            if (
                not isinstance(holders, list)
                or not holders
                or not all(
                    isinstance(h, Mapping)
                    and set(h) == set(HOLDER_FIELDS)
                    and all(type(h[name]) in types for name, types in HOLDER_FIELDS.items())
                    for h in holders
                )
            ):
                raise _Bad(
                    None,
                    "format",
                    f"seat {s['seat']}: holders must be a non-empty list of "
                    f"{{{', '.join(HOLDER_FIELDS)}}} objects",
                )
        if not _is_hex(record.get("public_head_hash"), 64):
            raise _Bad(None, "format", "public_head_hash must be 64 lowercase hex digits")
    if not _is_hex(record.get("seed"), 64):
        raise _Bad(1, "seed", "the seed must be 32 bytes as 64 lowercase hex digits")
    if not _is_hex(record.get("head_hash"), 64):
        raise _Bad(None, "format", "head_hash must be 64 lowercase hex digits")
    events = record.get("events")
    if not isinstance(events, list) or not events:
        raise _Bad(None, "format", "events must be a non-empty list")
    fields = EVENT_FIELDS_V3 if version >= 3 else EVENT_FIELDS_V2 if version >= 2 else EVENT_FIELDS
    for position, event in enumerate(events, start=1):
        if not isinstance(event, Mapping):
            raise _Bad(position, "format", "an event is not a JSON object")
        for name, types in fields.items():
            value = event.get(name, ...)
            if value is ... or type(value) not in types:
                raise _Bad(position, "format", f"field {name!r} is missing or of the wrong type")
        if set(event) != set(fields):
            extra = sorted(set(event) - set(fields))
            raise _Bad(position, "format", f"unknown fields {extra}")
        if version >= 3 and not _is_hex(event["salt"], public.SALT_HEX):
            raise _Bad(position, "format", "salt must be 32 lowercase hex digits (16 bytes)")
        if not _is_created_at(event["created_at"]):
            raise _Bad(
                position,
                "format",
                f"created_at {event['created_at']!r} is not written as the format says (ISO-8601 UTC with "
                "+00:00, six fractional digits when the microseconds are not zero, none when they are)",
            )
    return dict(game), list(events), version


def _check_chain(game_id: int, events: Sequence[Mapping[str, Any]], head_hash: str) -> None:
    prev = GENESIS_HASH
    for position, event in enumerate(events, start=1):
        if event["seq"] != position:
            raise _Bad(
                position,
                "chain",
                f"the event at position {position} has seq {event['seq']}: an event is missing, added or out "
                "of order",
                event["type"],
            )
        if event["prev_hash"] != prev:
            raise _Bad(position, "chain", "prev_hash is not the previous event's hash", event["type"])
        digest = event_hash(game_id, event)
        if digest != event["hash"]:
            raise _Bad(
                position,
                "chain",
                f"the hash of the stored fields is {digest}, the record says {event['hash']}",
                event["type"],
            )
        prev = digest
    if head_hash != prev:
        raise _Bad(len(events), "chain", "head_hash is not the last event's hash (events cut off?)")


def _check_public(
    record: Mapping[str, Any],
    game: Mapping[str, Any],
    events: Sequence[Mapping[str, Any]],
    version: int,
    checkpoints: Sequence[tuple[int, str]],
) -> str:
    """Recompute the public chain; compare it with the record's (version 2) and with the checkpoints.
    Returns its head."""
    prev = GENESIS_HASH
    chain: list[str] = []
    for event in events:
        try:
            prev = public.chain_hash(game["ruleset"], game["id"], event, prev)
        except Exception as exc:  # event data the redaction cannot read
            raise _Bad(
                event["seq"], "format", f"the event's data is malformed: {exc!r}", event["type"]
            ) from None
        if version >= 2 and event["public_hash"] != prev:  # version 3: public chain 2, sealed
            raise _Bad(
                event["seq"],
                "public",
                f"the public hash of what a spectator saw of this event is {prev}, the record says "
                f"{event['public_hash']}",
                event["type"],
            )
        chain.append(prev)
    if version >= 2 and record["public_head_hash"] != prev:
        raise _Bad(len(events), "public", "public_head_hash is not the last event's public hash")
    for seq, head in checkpoints:
        if not 1 <= seq <= len(chain):
            raise _Bad(
                None,
                "public",
                f"checkpoint {seq}:{head}: the record has no event {seq} (it has {len(chain)}): events are "
                "missing",
            )
        if chain[seq - 1] != head:
            raise _Bad(
                seq,
                "public",
                f"checkpoint {seq}:{head} does not match: the record's public chain at event {seq} is "
                f"{chain[seq - 1]}: the record is not the game that was watched (an event up to #{seq} "
                "differs from what spectators were shown)",
                events[seq - 1]["type"],
            )
    return prev


def _check_seed(
    record: Mapping[str, Any], game: Mapping[str, Any], events: Sequence[Mapping[str, Any]], version: int
) -> bytes:
    seed = bytes.fromhex(record["seed"])
    first = events[0]["data"]
    if events[0]["type"] != "GameStarted":
        raise _Bad(1, "seed", "the first event is not GameStarted", events[0]["type"])
    if rng.seed_commitment(seed) != first.get("seed_commitment"):
        raise _Bad(
            1,
            "seed",
            f"SHA-256 of the record's seed is {rng.seed_commitment(seed)}, the commitment published at the "
            f"start is {first.get('seed_commitment')}",
            "GameStarted",
        )
    if first.get("seed") != record["seed"]:
        raise _Bad(1, "seed", "the seed in the first event is not the record's seed", "GameStarted")
    if record.get("seed_commitment") is not None and record["seed_commitment"] != first["seed_commitment"]:
        raise _Bad(
            1, "seed", "the record's seed_commitment is not the one published at the start", "GameStarted"
        )
    # the options the game started with, as its log says: its GameStarted's, or what the ruleset reads from
    # its first events (``started_options``: a table's settings beside the game's options)
    started_options = getattr(RULESETS[game["ruleset"]], "started_options", None)
    options = first.get("options") if started_options is None else started_options(events)
    if options != game["options"]:
        raise _Bad(1, "seed", "the record's options are not the game's options", "GameStarted")
    played = played_under(RULESETS[game["ruleset"]], first)
    if played != game["ruleset_version"]:
        raise _Bad(
            1,
            "seed",
            f"the record's ruleset_version is {game['ruleset_version']!r}, the game started under the rules "
            f"{played!r}",
            "GameStarted",
        )
    # the fair flag is a fact of the log (GameStarted.fair); version-1 records of games whose seed an
    # operator fixed said fair: false while the log said true (the rules did not know): accepted, the record
    # claiming less than the log
    legacy = version == 1 and game["fair"] is False and first.get("fair") is True
    if first.get("fair") != game["fair"] and not legacy:
        raise _Bad(1, "seed", "the record's fair flag is not the game's", "GameStarted")
    last = events[-1]
    if last["type"] == "GameEnded" and "seed" in last["data"] and last["data"]["seed"] != record["seed"]:
        raise _Bad(last["seq"], "seed", "the seed revealed at the end is not the record's seed", "GameEnded")
    return seed


def played_under(rs: Ruleset[Any], first: Mapping[str, Any]) -> str:
    """The rules a game plays under, as its first event (the JSON of its ``GameStarted``) says: the game is
    re-decided under them to its end (games/rules/README.md, ruling 32)."""
    try:
        return rs.rules_version(rs.evolve(rs.initial_state(), rs.event_from_json(first)))
    except Exception as exc:  # a first event the rules cannot read
        raise _Bad(1, "format", f"the first event cannot be read: {exc}", "GameStarted") from None


_PLAYER_UID = re.compile(r"p([0-9]+)")


def _log_holders(events: Sequence[Mapping[str, Any]]) -> list[list[tuple[int, str]]]:
    players = events[0]["data"].get("players")
    if not isinstance(players, list):
        raise _Bad(1, "seats", "GameStarted names no players", "GameStarted")
    out: list[list[tuple[int, str]]] = [[(1, uid)] for uid in players]
    for event in events:
        if event["type"] == "SeatHandedOver":
            seat = event["data"].get("seat")
            if type(seat) is not int or not 0 <= seat < len(out):
                raise _Bad(event["seq"], "seats", "the hand-over names no seat", event["type"])
            out[seat].append((event["seq"], event["data"].get("player")))
    return out


def _check_seats(
    record: Mapping[str, Any], events: Sequence[Mapping[str, Any]], version: int
) -> list[list[tuple[int, int | None]]]:
    """Who held each seat from which event on, checked against the log; returns ``[(from_seq, player_id),
    ...]`` per seat (``player_id`` null: a bot)."""
    held = _log_holders(events)
    seats = sorted(record["seats"], key=lambda s: s["seat"])
    if [s["seat"] for s in seats] != list(range(len(held))) or len(record["seats"]) != len(held):
        raise _Bad(None, "seats", "the record's seats are not the seats of the first event (0 to n-1)")
    out: list[list[tuple[int, int | None]]] = []
    for seat, log in zip(seats, held, strict=True):
        if version >= 2:
            claimed = [(h["from_seq"], h["uid"]) for h in seat["holders"]]
            if claimed != log:
                raise _Bad(
                    None,
                    "seats",
                    f"seat {seat['seat']}: the record's holders {claimed} are not the log's {log} "
                    "(GameStarted.players, then each SeatHandedOver)",
                )
            last = seat["holders"][-1]
            if (seat["uid"], seat["player_id"]) != (last["uid"], last["player_id"]):
                raise _Bad(None, "seats", f"seat {seat['seat']}: uid and player_id are not its last holder's")
            out.append([(h["from_seq"], h["player_id"]) for h in seat["holders"]])
            continue
        # version 1: one entry per seat, its holder at the end; earlier holders are named by the server's uid
        # (``p{player id}``)
        if seat["uid"] != log[-1][1]:
            raise _Bad(
                None, "seats", f"seat {seat['seat']}: the record's uid is not the seat's holder in the log"
            )
        ids: list[tuple[int, int | None]] = []
        for since, uid in log:
            if uid == seat["uid"]:
                ids.append((since, seat["player_id"]))
            else:
                m = _PLAYER_UID.fullmatch(uid) if isinstance(uid, str) else None
                ids.append((since, int(m.group(1)) if m else None))
        out.append(ids)
    return out


def _diff(stored: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    keys = sorted(set(stored) | set(expected))
    return [
        k
        for k in keys
        if k not in stored or k not in expected or canonical_json(stored[k]) != canonical_json(expected[k])
    ]


def _holder(holders: Sequence[Sequence[tuple[int, int | None]]], seat: Any, seq: int) -> Any:
    """The player id holding ``seat`` at event ``seq`` (None: a bot); ``...``: no such seat."""
    if type(seat) is not int or not 0 <= seat < len(holders):
        return ...
    who: int | None = None
    for since, player_id in holders[seat]:
        if since <= seq:
            who = player_id
    return who


def _replay(
    rs: Ruleset[Any],
    events: Sequence[Mapping[str, Any]],
    seed: bytes,
    holders: Sequence[Sequence[tuple[int, int | None]]],
) -> tuple[int, AuditSecrets | None]:
    hook = getattr(rs, "audit_secrets", None)
    secrets: AuditSecrets | None = hook(seed) if hook is not None else None
    state = rs.initial_state()
    commands = 0
    i = 0
    while i < len(events):
        first = events[i]
        start = first["seq"]
        if first["command"] is None:
            raise _Bad(
                start,
                "rules",
                "no command decided this event (a batch must start with its command)",
                first["type"],
            )
        end = i + 1
        while end < len(events) and events[end]["command"] is None:
            end += 1
        batch = events[i:end]
        stored_command = dict(first["command"])
        if "seat" not in stored_command:
            raise _Bad(start, "format", "the stored command has no acting seat", first["type"])
        seat = stored_command.pop("seat")
        # who acted: the player holding the command's seat at that event, or nobody (the system, a bot, a seat
        # on autopilot); a command is never attributed to another player
        acting = _holder(holders, seat, start) if seat is not None else None
        if acting is ... or first["actor"] not in (None, acting):
            raise _Bad(
                start,
                "rules",
                f"the actor ({first['actor']}) is not the player in the command's seat ({seat})",
                first["type"],
            )
        for event in batch[1:]:
            for name in ("created_at", "command_id", "actor"):
                if event[name] != first[name]:
                    raise _Bad(
                        event["seq"],
                        "rules",
                        f"{name} differs from the rest of its command's batch",
                        event["type"],
                    )
        try:
            now = datetime.fromisoformat(first["created_at"])
        except ValueError:
            raise _Bad(start, "format", "created_at is not an ISO-8601 time", first["type"]) from None
        if now.utcoffset() is None:
            raise _Bad(start, "format", "created_at has no time zone", first["type"])
        try:
            command = rs.command_from_json(stored_command, seat)
            expected = [rs.event_to_json(e) for e in rs.decide(state, command, Context(now=now))]
        except RuleError as exc:
            raise _Bad(
                start,
                "rules",
                f"the rules refuse the stored command {stored_command.get('type')!r} of seat {seat}: "
                f"{exc.code} ({exc.message})",
                first["type"],
            ) from None
        except Exception as exc:  # a hostile command the rules could not even evaluate
            raise _Bad(
                start, "rules", f"the rules cannot decide the stored command: {exc!r}", first["type"]
            ) from None
        commands += 1
        for k, event in enumerate(batch):
            seq, kind, data = event["seq"], event["type"], event["data"]
            if data.get("type") != kind or data.get("v") != event["schema_version"]:
                raise _Bad(seq, "format", "type/schema_version differ from the event's data", kind)
            try:
                parsed = rs.event_from_json(data)
            except Exception as exc:  # any malformed event data whatsoever
                raise _Bad(seq, "format", f"the event's data cannot be read: {exc}", kind) from None
            if secrets is not None:
                try:
                    secrets.check(seq, data, state)
                except AuditFailure as failure:
                    raise _Bad(seq, failure.check, failure.message, kind) from None
                except Exception as exc:  # ill-typed fields in a forged event
                    raise _Bad(seq, "format", f"the event's fields are malformed: {exc!r}", kind) from None
            if k >= len(expected):
                raise _Bad(
                    seq,
                    "rules",
                    f"the command at event #{start} decides {len(expected)} events; this one is not one of "
                    "them",
                    kind,
                )
            # compared as JSON (canonical bytes), not as Python values: true is not 1, 1.0 is not 1
            if data != expected[k] or canonical_json(data) != canonical_json(expected[k]):
                fields = _diff(data, expected[k])
                check = "rules"
                if secrets is not None and fields and set(fields) <= secrets.random_fields(kind):
                    check = "random"
                    message = f"the {kind} event's {', '.join(fields)} are not the ones the seed gives"
                elif data.get("type") != expected[k].get("type"):
                    message = f"the rules decide a {expected[k].get('type')} event here"
                else:
                    shown = ", ".join(
                        f"{f}={data.get(f)!r} (rules: {expected[k].get(f)!r})" for f in fields[:3]
                    )
                    message = f"the event is not what the rules decide for the command at #{start}: {shown}"
                raise _Bad(seq, check, message, kind)
            state = rs.evolve(state, parsed)
        if len(batch) < len(expected):
            missing = expected[len(batch)].get("type")
            raise _Bad(
                start + len(batch),
                "rules",
                f"the command at event #{start} decides {len(expected)} events, the record has "
                f"{len(batch)}: event #{start + len(batch)} should be a {missing} event",
                missing,
            )
        i = end
    if not rs.is_terminal(state):
        raise _Bad(
            events[-1]["seq"], "rules", "the game is not over at the end of the record", events[-1]["type"]
        )
    return commands, secrets


def verify_record(
    record: Any, *, checkpoints: Sequence[tuple[int, str]] = (), keys: Sequence[Any] | None = None
) -> Verdict:
    """Check a record (the parsed JSON of docs/AUDIT.md) and return the :class:`Verdict`. ``checkpoints``:
    ``(seq, public head)`` pairs a watcher saved while the game ran; ``keys``: the server's Ed25519 public
    keys (``games.audit.signature.public_keys_from``): the record must then be signed by one of them."""
    verdict = Verdict(ok=False)
    try:
        game, events, version = _check_format(record)
        verdict.game = game["id"]
        verdict.events = len(events)
        verdict.format_version = version
        if keys is not None:
            from . import signature  # needs the cryptography package, only when a key is given

            why = signature.check(record, list(keys))
            if why is not None:
                raise _Bad(None, "signature", why)
            verdict.signed_by = record["signature"]["key_id"]
            verdict.checks.append("signature")
        _check_chain(game["id"], events, record["head_hash"])
        verdict.checks.append("chain")
        verdict.head_hash = record["head_hash"]
        verdict.public_head_hash = _check_public(record, game, events, version, checkpoints)
        verdict.checkpoints = len(checkpoints)
        verdict.checks.append("public")
        seed = _check_seed(record, game, events, version)
        verdict.checks.append("seed")
        verdict.fair = events[0]["data"].get("fair") is True and game["fair"] is True
        holders = _check_seats(record, events, version)
        verdict.checks.append("seats")
        commands, secrets = _replay(RULESETS[game["ruleset"]], events, seed, holders)
        verdict.checks += ["commitment", "random", "rules"] if secrets is not None else ["rules"]
        verdict.commands = commands
        verdict.secrets = secrets is not None
        if secrets is not None:
            verdict.commitments = secrets.commitments_opened
            verdict.random_picks = secrets.random_picks
    except _Bad as bad:
        verdict.error = bad.finding
        return verdict
    except Exception as exc:  # anything else a hostile record could provoke: refused, never a crash
        verdict.error = Finding(None, "format", f"the record cannot be checked: {exc!r}")
        return verdict
    verdict.ok = True
    return verdict


CHECKPOINT_PATTERN: Final = re.compile(r"[1-9][0-9]{0,17}:[0-9a-f]{64}")
"""A checkpoint as written: an event number (no leading zero) and the public hash at it."""


def parse_checkpoint(text: str) -> tuple[int, str]:
    """``SEQ:HEAD`` (an event number and 64 lowercase hex digits) -> ``(seq, head)``; ValueError else."""
    if not CHECKPOINT_PATTERN.fullmatch(text):
        raise ValueError(
            f"a checkpoint is SEQ:HEAD (an event number and 64 lowercase hex digits), not {text!r}"
        )
    seq, _sep, head = text.partition(":")
    return int(seq), head


def verify_file(
    path: str | Path, *, checkpoints: Sequence[tuple[int, str]] = (), keys: Sequence[Any] | None = None
) -> Verdict:
    """Read and check a record file; an unreadable file is a ``format`` failure of the record."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return Verdict(ok=False, error=Finding(None, "format", f"cannot read {path} as JSON: {exc}"))
    return verify_record(record, checkpoints=checkpoints, keys=keys)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.audit.verify",
        description="Verify a finished game's record (docs/AUDIT.md) without the server.",
    )
    parser.add_argument("record", help="the record's JSON file (GET /api/v1/games/{id}/record)")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.add_argument(
        "--checkpoint",
        action="append",
        default=[],
        metavar="SEQ:HEAD",
        help="a public chain head a watcher saved while the game ran (`public_head` of any state response): "
        "the record must have the same public hash at event SEQ (repeatable)",
    )
    parser.add_argument(
        "--key",
        metavar="KEY",
        help="the server's public key (the JSON of /.well-known/goodcritters-record-key, a JWK, 64 hex "
        "digits, or a file holding one): the record must be signed by it",
    )
    args = parser.parse_args(argv)
    path = Path(args.record)
    if not path.is_file():
        print(f"no such file: {path}", file=sys.stderr)
        return 2
    try:
        checkpoints = [parse_checkpoint(c) for c in args.checkpoint]
        keys = None
        if args.key is not None:
            from . import signature

            keys = signature.public_keys_from(args.key)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    verdict = verify_file(path, checkpoints=checkpoints, keys=keys)
    if (
        verdict.error is not None
        and verdict.error.seq is None
        and verdict.error.message.startswith("cannot read")
    ):
        print(verdict.error.message, file=sys.stderr)
        return 2
    print(json.dumps(verdict.to_json(), indent=2) if args.json else verdict.text())
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
