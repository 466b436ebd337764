"""GoodCritters' audit hooks (``games.rules.core.AuditHooks``, docs/AUDIT.md): its own check of the
commitments and random picks from the seed alone, the public chain's pinned spectator redaction, and what the
replay page plots (each Stash's value). Independent of the rules' ``decide``: a second, simpler reading of
R8.1-R8.3."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from games.rules import rng
from games.rules.core import JSON, AuditFailure

from .cards import VALUES
from .state import SETUP, State

# --------------------------------------------------------------------------------------------------
# commitments and random picks (docs/AUDIT.md, checks 7 and 8)
# --------------------------------------------------------------------------------------------------
# GameStarted's fields whose mismatch with the rules means the random generator's outcome was changed
SETUP_RANDOM: Final = frozenset({"players", "boss", "stashes", "pile", "types", "pile_size"})


def _is_hex(text: Any, length: int) -> bool:
    if not isinstance(text, str) or len(text) != length:
        return False
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return text == text.lower()


class Secrets:
    """GoodCritters' commitments and random picks, checked from the seed alone (independently of the rules'
    own code paths): the state before each event supplies the Stashes a pick is drawn from."""

    def __init__(self, seed: bytes) -> None:
        self.seed = seed
        self.actions: dict[int, tuple[int, str, int]] = {}  # seat -> (commit_no, commitment, seq)
        self.bundles: dict[tuple[int, int], tuple[int, str, int]] = {}  # (giver, token) -> ...
        self.commitments_opened = 0
        self.random_picks = 0
        self.next_commit = 0  # commit_no runs 0, 1, 2, ... in log order, without gaps

    def random_fields(self, kind: str) -> frozenset[str]:
        return SETUP_RANDOM if kind == "GameStarted" else frozenset()

    def _number(self, commit_no: Any) -> None:
        if commit_no != self.next_commit:
            raise AuditFailure(
                "commitment",
                f"commit_no is {commit_no!r}, the game's next commitment is number {self.next_commit} (they "
                "run 0, 1, 2, ... in the log's order)",
            )
        self.next_commit += 1

    def _salt(self, commit_no: Any) -> bytes:
        if type(commit_no) is not int or commit_no < 0:
            raise AuditFailure("commitment", "commit_no must be a non-negative integer")
        return rng.salt(self.seed, f"salt/{commit_no}")

    def check(self, seq: int, data: Mapping[str, Any], state: Any) -> None:
        kind = data.get("type")
        if kind == "ActionChosen":
            salt = self._salt(data.get("commit_no"))
            self._number(data["commit_no"])
            if rng.commitment(salt, {"action": data.get("action")}) != data.get("commitment"):
                raise AuditFailure("commitment", "the commitment is not SHA-256(salt || the chosen card)")
            self.actions[data["seat"]] = (data["commit_no"], data["commitment"], seq)
        elif kind == "PayoffOffered" and data.get("commitment") is not None:
            salt = self._salt(data.get("commit_no"))
            self._number(data["commit_no"])
            if rng.commitment(salt, {"loot": sorted(data.get("loot") or [])}) != data["commitment"]:
                raise AuditFailure("commitment", "the commitment is not SHA-256(salt || the bundle's cards)")
            self.bundles[(data["seat"], data["token"])] = (data["commit_no"], data["commitment"], seq)
        elif kind == "ActionRevealed" and data.get("salt") is not None:
            made = self.actions.get(data.get("seat", -1))
            if made is None:
                raise AuditFailure("commitment", "a card is opened that was never committed")
            self._open(data["salt"], {"action": data.get("action")}, made)
        elif kind == "PayoffResolved" and data.get("salt") is not None:
            made = self.bundles.get((data.get("seat", -1), data.get("token", -1)))
            if made is None:
                raise AuditFailure("commitment", "a bundle is opened that was never committed")
            self._open(data["salt"], {"loot": sorted(data.get("loot") or [])}, made)
        elif kind in ("RobSucceeded", "RobGuarded"):
            robber = data.get("robber")
            if kind == "RobSucceeded":
                owner, label = data.get("victim"), f"round/{state.round}/rob/{robber}"
            else:
                owner, label = robber, f"round/{state.round}/guard/{robber}"
            if type(owner) is not int or not 0 <= owner < state.n:
                raise AuditFailure("rules", "the event names no seat")
            cards = sorted(state.stashes[owner])
            expected = cards[rng.Stream(self.seed, label).below(len(cards))] if cards else None
            if data.get("card") != expected:
                whose = "victim's" if kind == "RobSucceeded" else "robber's"
                raise AuditFailure(
                    "random",
                    f"the card taken is {data.get('card')}, the seed picks {expected} from the {whose} Stash "
                    f"(label {label!r})",
                )
            self.random_picks += 1

    def _open(self, salt_hex: Any, choice: Any, made: tuple[int, str, int]) -> None:
        commit_no, commitment, made_at = made
        if not _is_hex(salt_hex, 32):
            raise AuditFailure("commitment", "the salt must be 16 bytes as 32 lowercase hex digits")
        if salt_hex != rng.salt(self.seed, f"salt/{commit_no}").hex():
            raise AuditFailure("commitment", f"the salt opened is not the seed's salt/{commit_no}")
        if rng.commitment(bytes.fromhex(salt_hex), choice) != commitment:
            raise AuditFailure(
                "commitment", f"the revealed choice does not open the commitment made at event #{made_at}"
            )
        self.commitments_opened += 1


def audit_secrets(seed: bytes) -> Secrets:
    """A fresh checker of one record's commitments and random picks (``games.rules.core.AuditSecrets``)."""
    return Secrets(seed)


# --------------------------------------------------------------------------------------------------
# the public chain's spectator redaction (docs/AUDIT.md, "The public chain")
# --------------------------------------------------------------------------------------------------
def _always(_data: Mapping[str, Any]) -> bool:
    return True


def _unless_open(data: Mapping[str, Any]) -> bool:
    return data.get("visibility") != "open"


def _if_private(data: Mapping[str, Any]) -> bool:
    return data.get("to") is not None


# Viewer None, game running: event type -> (when, the fields set to null). GameStarted's ``stashes`` becomes a
# list of nulls, one per seat (every Stash is secret, their number is not). Pinned here, independently of the
# rules' own ``redact_event``: the chain's definition must not move when a view changes
# (``tests/audit/test_public_chain.py`` checks that the two agree on every event of many games).
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


def spectator_data(data: Mapping[str, Any]) -> JSON:
    """An event's JSON ``data`` as a spectator sees it while the game runs (R8.3): a new top-level object
    (nested values are shared with ``data``: read it, do not change it)."""
    out = dict(data)
    rule = SPECTATOR_NULLS.get(str(out.get("type")))
    if rule is not None and rule[0](out):
        for name in rule[1]:
            out[name] = None
        if out.get("type") == "GameStarted" and isinstance(out.get("stashes"), list):
            out["stashes"] = [None] * len(out["stashes"])
    return out


# --------------------------------------------------------------------------------------------------
# the replay page's chart
# --------------------------------------------------------------------------------------------------
def chart(state: State) -> tuple[str, tuple[int, ...]] | None:
    """Each seat's Stash value (the Loot in it; Payoff cards and bundles on offer not counted)."""
    if state.phase == SETUP:
        return None
    return "Stash value", tuple(sum(VALUES[c] for c in state.stashes[s]) for s in range(state.n))
