"""The public hash chain (docs/AUDIT.md, "The public chain"): a second hash chain over each event exactly as a
spectator may see it while the game runs (secrets set to null, commitments kept). It is computed when an
event is appended, served while the game runs (its head with every state), and lets a watcher's saved
checkpoints pin a finished game's record. Pure: no Django, no database.

What a spectator sees of an event is the ruleset's to say (its ``spectator_data`` hook, or its own
``redact_event`` for a spectator): GoodCritters pins it as a table (``games.rules.goodcritters.audit``),
independently of its views, so that the chain's definition does not move when a view changes;
``tests/audit/test_public_chain.py`` checks that the two agree on every event of many games.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

from games.rules.core import default_spectator_data
from games.rules.registry import get_ruleset

GENESIS: Final = "0" * 64
CHAIN_VERSIONS: Final = (1, 2)
"""The public chain's rules: 1 hashes what a spectator sees of an event; 2 (games created since issue 28, item
15) also hashes its ``seal``, a salted hash of every other fact of the event (:func:`seal`)."""
SALT_HEX: Final = 32  # a seal's salt: 16 random bytes, as lowercase hex


def canonical_json(value: Any) -> bytes:
    """Sorted keys (by code point), no spaces, UTF-8 with non-ASCII as is, no NaN (docs/AUDIT.md): the bytes
    every hash of the record is taken over (the event chain, the public chain, seals, the signature). The one
    definition (``games.store`` and ``games.audit.verify`` use it); the commitments of the rules engine take
    theirs over another form, :func:`games.rules.rng.canonical_ascii_json`."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def spectator_data(ruleset: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """An event's JSON ``data`` as a spectator of a game of ``ruleset`` (a registered slug) sees it while the
    game runs: the ruleset's ``spectator_data`` hook when it has one (GoodCritters pins a table of the fields
    set to null), else its own ``redact_event(event, None, terminal=False)`` (``games.rules.core``,
    ``AuditHooks``). A new top-level object (nested values may be shared with ``data``: do not change it)."""
    rs = get_ruleset(ruleset)
    hook = getattr(rs, "spectator_data", None)
    if hook is not None:
        out: dict[str, Any] = hook(data)
        return out
    return default_spectator_data(rs, data)


def seal(salt: str, *, data: Mapping[str, Any], command: Any, command_id: str, actor: int | None) -> str:
    """Public chain 2: an event's seal, SHA-256 (hex) of its salt's 16 bytes followed by the canonical JSON of
    the facts of the event the spectator's form does not show in full: its unredacted ``data``, the
    ``command`` stored on it (``null`` but on a batch's first event), the ``command_id`` and the ``actor``.
    The salt (``salt``: 32 lowercase hex digits) is drawn at random when the event is appended and kept
    secret until the game is over (the record reveals it), so the seal, served while the game runs, tells
    nothing of a private message or a face-down card, and pins them: a rewrite after the fact changes it."""
    facts = {"data": data, "command": command, "command_id": command_id, "actor": actor}
    return hashlib.sha256(bytes.fromhex(salt) + canonical_json(facts)).hexdigest()


def public_hash(
    *,
    game_id: int,
    seq: int,
    type: str,
    schema_version: int,
    public_data: Mapping[str, Any],
    created_at: str,
    prev_public_hash: str,
    seal: str | None = None,
) -> str:
    """SHA-256 (hex) of the canonical JSON of what a spectator sees of one event, chained; with its ``seal``
    under public chain 2 (``None``: public chain 1, no ``seal`` member)."""
    record = {
        "game": game_id,
        "seq": seq,
        "type": type,
        "schema_version": schema_version,
        "data": public_data,
        "created_at": created_at,
        "prev_public_hash": prev_public_hash,
    }
    if seal is not None:
        record["seal"] = seal
    return hashlib.sha256(canonical_json(record)).hexdigest()


def event_seal(event: Mapping[str, Any]) -> str | None:
    """The seal of a record's event (public chain 2: it has a ``salt``), else ``None``."""
    if "salt" not in event:
        return None
    return seal(
        event["salt"],
        data=event["data"],
        command=event["command"],
        command_id=event["command_id"],
        actor=event["actor"],
    )


def chain_hash(ruleset: str, game_id: int, event: Mapping[str, Any], prev_public_hash: str) -> str:
    """The public hash of a record's event (``seq``, ``type``, ``schema_version``, ``data`` unredacted,
    ``created_at`` as the record writes it; under public chain 2, an event with a ``salt``, its seal over
    ``data``, ``command``, ``command_id`` and ``actor``) after ``prev_public_hash``."""
    return public_hash(
        game_id=game_id,
        seq=event["seq"],
        type=event["type"],
        schema_version=event["schema_version"],
        public_data=spectator_data(ruleset, event["data"]),
        created_at=event["created_at"],
        prev_public_hash=prev_public_hash,
        seal=event_seal(event),
    )
