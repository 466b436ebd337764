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


def canonical_json(value: Any) -> bytes:
    """Sorted keys (by code point), no spaces, UTF-8 with non-ASCII as is, no NaN (docs/AUDIT.md)."""
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


def public_hash(
    *,
    game_id: int,
    seq: int,
    type: str,
    schema_version: int,
    public_data: Mapping[str, Any],
    created_at: str,
    prev_public_hash: str,
) -> str:
    """SHA-256 (hex) of the canonical JSON of what a spectator sees of one event, chained."""
    record = {
        "game": game_id,
        "seq": seq,
        "type": type,
        "schema_version": schema_version,
        "data": public_data,
        "created_at": created_at,
        "prev_public_hash": prev_public_hash,
    }
    return hashlib.sha256(canonical_json(record)).hexdigest()


def chain_hash(ruleset: str, game_id: int, event: Mapping[str, Any], prev_public_hash: str) -> str:
    """The public hash of a record's event (``seq``, ``type``, ``schema_version``, ``data`` unredacted,
    ``created_at`` as the record writes it) after ``prev_public_hash``."""
    return public_hash(
        game_id=game_id,
        seq=event["seq"],
        type=event["type"],
        schema_version=event["schema_version"],
        public_data=spectator_data(ruleset, event["data"]),
        created_at=event["created_at"],
        prev_public_hash=prev_public_hash,
    )
