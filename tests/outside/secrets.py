"""An oracle of what each seat may know (RULES.md R8.3), built INDEPENDENTLY of the ruleset's redaction code
from the server's full, unredacted log, and a checker that searches every response a seat gets for anything
outside it.

While the game runs, a seat may know:
- every card that was ever face up (on the table: R2.1/R4.3 reveals, the Step 2 distribution R2.2, awards,
  returns, confiscations) and the cards of open Payoff bundles (R6.2);
- every card that was ever in its own Stash (dealt, distributed, skimmed, robbed, guarded, gifted, traded,
  taken bundles: it saw them there);
- the cards of a peek bundle aimed at it (R6.2), of a trade offered to it (R6.4);
- card ids it sent itself (an error may echo them).
Nothing else: not another Stash's cards or values, not the pile's order or flavours, not another seat's
face-down Action before its reveal (R2.3, R3.1), not a salt before its opening, not the seed (R8.2) or the
event hashes before the end. Once the game is over everything is public.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from games import store
from games.rules import rng
from games.rules.registry import get_ruleset

RULESET = get_ruleset("goodcritters")
CARD_KEYS = frozenset(
    {
        "stash",
        "stashes",
        "pile",
        "cards",
        "shares",
        "loot",
        "give_loot",
        "take_loot",
        "card",
        "table",
        "confiscated",
    }
)
PUBLIC_EVENT_CARDS = {
    "LootRevealed": ("cards",),
    "LootDistributed": ("shares",),
    "LootAwarded": ("shares",),
    "LootReturned": ("cards",),
    "LootConfiscated": ("cards",),
}


def _ints(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _ints(item)
    elif isinstance(value, dict) and "id" in value and "value" in value:
        yield from _ints(value["id"])


def card_ids_in(doc: Any) -> set[int]:
    """Every Loot card id a JSON document shows: card objects (``{"id", "value", "type"}``) anywhere, and
    integers under the card-bearing keys of events and views."""
    found: set[int] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "id" in node and "value" in node and isinstance(node.get("id"), int):
                found.add(node["id"])
            for key, value in node.items():
                if key in CARD_KEYS:
                    found.update(_ints(value))
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return found


@dataclass
class Oracle:
    """Follows one game's full log (from the database) and knows what each viewer may see."""

    game_id: int
    n: int = 0
    seq: int = 0
    state: Any = None
    over: bool = False
    seed: bytes = b""
    public: set[int] = field(default_factory=set)
    known: dict[int, set[int]] = field(default_factory=dict)
    opened_salts: dict[int | None, set[str]] = field(default_factory=dict)
    hashes: list[str] = field(default_factory=list)
    _secrets: dict[tuple[int | None, int], list[str]] = field(default_factory=dict)

    def advance(self) -> None:
        rows = store.load_stream(self.game_id, after=self.seq)
        if self.state is None:
            self.state = RULESET.initial_state()
        for row in rows:
            data = row.data
            kind = data["type"]
            if kind == "GameStarted":
                self.seed = bytes.fromhex(data["seed"])
                self.n = len(data["players"])
                self.known = {s: set() for s in range(self.n)}
                self.opened_salts = {s: set() for s in [*range(self.n), None]}
            for key in PUBLIC_EVENT_CARDS.get(kind, ()):
                self.public.update(_ints(data[key]))
            if kind == "ActionRevealed":
                if data.get("salt"):
                    for viewers in self.opened_salts.values():
                        viewers.add(data["salt"])
            elif kind == "PayoffResolved" and data.get("salt"):
                for viewer, salts in self.opened_salts.items():
                    if (
                        data["visibility"] == "open"
                        or viewer == data["seat"]
                        or (viewer == data["target"] and (data["visibility"] == "peek" or data["taken"]))
                    ):
                        salts.add(data["salt"])
            elif kind == "GameEnded":
                self.over = True
            self.state = RULESET.evolve(self.state, RULESET.event_from_json(data))
            self.hashes.append(row.hash)
            self._learn()
        if rows:
            self.seq = rows[-1].seq
            self._secrets.clear()

    def _learn(self) -> None:
        st = self.state.game  # GoodCritters' own state, inside the table's
        if self.n == 0:
            return
        self.public.update(st.table)
        self.public.update(st.confiscated)
        for seat in range(self.n):
            self.known[seat].update(st.stashes[seat])
        for bundle in st.bundles:
            if bundle is None:
                continue
            if bundle.visibility == "open":
                self.public.update(bundle.loot)
            self.known[bundle.giver].update(bundle.loot)
            if bundle.visibility == "peek":
                self.known[bundle.target].update(bundle.loot)
        for trade in st.trades:
            self.known[trade.seat].update(trade.give_loot)
            self.known[trade.to].update(trade.give_loot)

    def may_see_cards(self, viewer: int | None) -> set[int]:
        return set(self.public) | (self.known.get(viewer, set()) if viewer is not None else set())

    def secret_strings(self, viewer: int | None) -> list[str]:
        """High-entropy secrets that must not appear anywhere in a response (any encoding we serve)."""
        if self.over or not self.seed:
            return []
        key = (viewer, self.seq)
        if key not in self._secrets:
            self._secrets[key] = self._secret_strings(viewer)
        return self._secrets[key]

    def _secret_strings(self, viewer: int | None) -> list[str]:
        out = [self.seed.hex(), base64.b64encode(self.seed).decode(), *self.hashes]
        opened = self.opened_salts.get(viewer, set())
        for k in range(self.state.game.commit_no + 8):
            salt = rng.salt(self.seed, f"salt/{k}").hex()
            if salt not in opened:
                out.append(salt)
        return out


class LeakFound(AssertionError):
    pass


def check_response(
    oracle: Oracle, viewer: int | None, response: httpx.Response, *, sent_cards: Iterable[int] = ()
) -> None:
    """Fail if ``response`` (status line, headers, body) shows ``viewer`` anything R8.3 hides from it."""
    raw = "\n".join(f"{k}: {v}" for k, v in response.headers.items()) + "\n" + response.text
    where = (
        f"{response.request.method} {response.request.url.path} -> {response.status_code} (viewer {viewer})"
    )
    for secret in oracle.secret_strings(viewer):
        if secret in raw:
            raise LeakFound(f"{where}: a secret string leaked: {secret[:16]}…")
    if oracle.over or not response.headers.get("content-type", "").startswith(
        ("application/json", "application/problem+json")
    ):
        return
    doc = response.json()
    shown = card_ids_in(doc)
    allowed = oracle.may_see_cards(viewer) | set(sent_cards)
    leaked = shown - allowed
    if leaked:
        raise LeakFound(f"{where}: cards {sorted(leaked)} are hidden from this viewer (R8.3)")
    _check_structure(oracle, viewer, doc, where)


def _check_structure(oracle: Oracle, viewer: int | None, doc: Any, where: str) -> None:
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            kind = node.get("type")
            if kind == "GameStarted":
                for key in ("seed", "pile", "types"):
                    if node.get(key) is not None:
                        raise LeakFound(f"{where}: GameStarted.{key} before the end (R8.2, R8.3)")
            if kind == "ActionChosen" and node.get("seat") != viewer and node.get("action") is not None:
                raise LeakFound(f"{where}: another seat's face-down Action (R2.3, R8.3)")
            if "stash_size" in node and "seat" in node and node["seat"] != viewer:
                for key in ("stash", "stash_value", "action"):
                    if node.get(key) is not None:
                        raise LeakFound(f"{where}: seat {node['seat']}'s {key} (R8.3)")
            if node.get("seed") is not None and "seed_commitment" in node:
                raise LeakFound(f"{where}: the seed before the end (R8.2)")
            if "types" in node and node["types"] is not None and kind == "GameStarted":
                raise LeakFound(f"{where}: the flavours of the pile")
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
