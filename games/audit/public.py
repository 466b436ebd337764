"""The public hash chain (docs/AUDIT.md, "The public chain"): a second hash chain over each event exactly as a
spectator may see it while the game runs (R8.3: secrets set to null, commitments kept). It is computed when an
event is appended, served while the game runs (its head with every state), and lets a watcher's saved
checkpoints pin a finished game's record. Pure: no Django, no database.

The spectator's redaction is pinned here, as a table (``SPECTATOR_NULLS``), independently of the rules' own
``redact_event``: the chain's definition must not move when a view changes.
``tests/audit/test_public_chain.py`` checks that the two agree on every event of many games.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, Final

GENESIS: Final = "0" * 64


def canonical_json(value: Any) -> bytes:
    """Sorted keys (by code point), no spaces, UTF-8 with non-ASCII as is, no NaN (docs/AUDIT.md)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def _always(_data: Mapping[str, Any]) -> bool:
    return True


def _unless_open(data: Mapping[str, Any]) -> bool:
    return data.get("visibility") != "open"


def _if_private(data: Mapping[str, Any]) -> bool:
    return data.get("to") is not None


# GoodCritters, viewer None, game running: event type -> (when, the fields set to null). GameStarted's
# ``stashes`` becomes a list of nulls, one per seat (every Stash is secret, their number is not).
SPECTATOR_NULLS: Final[dict[str, tuple[Callable[[Mapping[str, Any]], bool], tuple[str, ...]]]] = {
    "GameStarted": (_always, ("seed", "pile", "types")),
    "ActionChosen": (_always, ("action",)),
    "PayoffOffered": (_unless_open, ("loot",)),
    "PayoffResolved": (_unless_open, ("loot", "salt")),
    "GiftGiven": (_always, ("loot",)),
    "TradeOffered": (_always, ("give_loot", "want_values")),
    "TradeAccepted": (_always, ("give_loot", "take_loot")),
    "LootSkimmed": (_always, ("card",)),
    "BossBonus": (_always, ("card",)),
    "RobSucceeded": (_always, ("card",)),
    "RobGuarded": (_always, ("card",)),
    "MessageSent": (_if_private, ("text", "to")),
    "GameEnded": (_always, ("seed",)),
}


def spectator_data(ruleset: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """An event's JSON ``data`` as a spectator sees it while the game runs (GoodCritters' R8.3): a new
    top-level object (nested values are shared with ``data``: read it, do not change it)."""
    if ruleset != "goodcritters":  # a table game: its own spectator redaction (pinned by its event versions)
        from games.rules.registry import get_ruleset

        rs = get_ruleset(ruleset)
        redacted: dict[str, Any] = rs.redact_event(rs.event_from_json(data), None, terminal=False)
        return redacted
    out = dict(data)
    rule = SPECTATOR_NULLS.get(str(out.get("type")))
    if rule is not None and rule[0](out):
        for name in rule[1]:
            out[name] = None
        if out.get("type") == "GameStarted" and isinstance(out.get("stashes"), list):
            out["stashes"] = [None] * len(out["stashes"])
    return out


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
