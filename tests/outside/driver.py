"""An outside bot: picks a seat's next command from its SERVED view and the ``legal_commands`` the API lists
(no server internals), so it can drive games against any deployment (tests, fault injection, benchmarks)."""

from __future__ import annotations

import random
from typing import Any

ACTIONS = ("guard", "rob", "skim", "vote_no", "vote_yes")


def next_command(view: dict[str, Any], rnd: random.Random) -> tuple[str, dict[str, Any]] | None:
    """``(command type, body)`` for the viewing seat now, or ``None`` when the game does not wait on it."""
    legal: list[str] = view["legal_commands"]
    waiting = view["waiting"]
    if waiting is None or not waiting["you"]:
        return None
    state = view["state"]
    me: int = view["viewer"]
    mine = state["seats"][me]
    if "DistributeLoot" in legal:
        shares: list[list[int]] = [[] for _ in state["seats"]]
        for card in state["table"]:
            shares[rnd.randrange(len(shares))].append(card["id"])
        return "DistributeLoot", {"shares": shares}
    if not mine["chosen"]:
        others = [s["seat"] for s in state["seats"] if s["seat"] != me]
        if "PlaceThreat" in legal and mine["threat"] is None and rnd.random() < 0.3:
            return "PlaceThreat", {"target": rnd.choice(others)}
        return "ChooseAction", {"action": rnd.choice(ACTIONS)}
    if "SetReady" in legal and not mine["ready"]:
        return "SetReady", {"ready": True}
    return None


def kebab(type_name: str) -> str:
    return "".join(f"-{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(type_name))
