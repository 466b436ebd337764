"""The cards of Loose Triggers, Smoking Barrels as game data, in one place (LT1.5, LT1.6).

Loot cards are ids ``0..55``: ``0..35`` cash, ``36..55`` relics (four sets of five). Action cards are
their own card numbers ``1..40`` (lower numbers resolve first, LT1.6).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

# --- Loot (LT1.5) ------------------------------------------------------------------------------------
CASH_COUNTS: Final[tuple[tuple[int, int], ...]] = (
    (500, 8),
    (1000, 8),
    (1500, 8),
    (2000, 6),
    (3000, 4),
    (5000, 2),
)
RELICS: Final[tuple[str, ...]] = ("Jewel of Shanghai", "Golden Idol", "Ming Vase", "Fabergé Egg")
RELIC_SET_VALUES: Final[tuple[int, ...]] = (0, 50, 250, 650, 2000, 6000)  # by how many of one relic
RELIC_SET_SIZE: Final[int] = 5

CASH: Final[tuple[int, ...]] = tuple(value for value, count in CASH_COUNTS for _ in range(count))
FIRST_RELIC: Final[int] = len(CASH)  # 36
LOOT_COUNT: Final[int] = FIRST_RELIC + len(RELICS) * RELIC_SET_SIZE  # 56
LOOT_CARDS: Final[tuple[int, ...]] = tuple(range(LOOT_COUNT))


def relic_of(card: int) -> int | None:
    """The relic index (0..3) of a Loot card, or None for cash."""
    return None if card < FIRST_RELIC else (card - FIRST_RELIC) // RELIC_SET_SIZE


def loot_json(card: int) -> dict[str, object]:
    relic = relic_of(card)
    if relic is None:  # both keys always there, null for the other kind (issue #24: one convention)
        return {"card": card, "kind": "cash", "value": CASH[card], "relic": None}
    return {"card": card, "kind": "relic", "value": None, "relic": RELICS[relic]}


def loot_value(cards: Iterable[int]) -> int:
    """Cash plus relic sets (the set value is for the set, not per card: LT1.5)."""
    total = 0
    counts = [0, 0, 0, 0]
    for card in cards:
        if card < FIRST_RELIC:
            total += CASH[card]
        else:
            counts[(card - FIRST_RELIC) // RELIC_SET_SIZE] += 1
    return total + sum(RELIC_SET_VALUES[k] for k in counts)


# --- Actions (LT1.6) -----------------------------------------------------------------------------------
BANG: Final = "BANG!"
GRAB: Final = "GRAB!"
DUCK: Final = "DUCK!"
CROSSFIRE: Final = "CROSSFIRE!"
IN_THE_FIRE: Final = "IN THE FIRE!"
ACTION_KINDS: Final[tuple[str, ...]] = (BANG, GRAB, DUCK, CROSSFIRE, IN_THE_FIRE)
ACTION_RANGES: Final[dict[str, range]] = {
    BANG: range(1, 13),
    GRAB: range(13, 21),
    DUCK: range(21, 31),
    CROSSFIRE: range(31, 36),
    IN_THE_FIRE: range(36, 41),
}
ACTION_CARDS: Final[tuple[int, ...]] = tuple(range(1, 41))
_KIND_OF: Final[dict[int, str]] = {card: kind for kind, cards in ACTION_RANGES.items() for card in cards}


def kind_of(card: int) -> str:
    """BANG! | GRAB! | DUCK! | CROSSFIRE! | IN THE FIRE!"""
    return _KIND_OF[card]


def is_kind(card: int | None, kind: str) -> bool:
    return card is not None and _KIND_OF[card] == kind


def action_json(card: int) -> dict[str, object]:
    return {"card": card, "kind": _KIND_OF[card]}


# --- Aliases (LT1.2) -----------------------------------------------------------------------------------
ALIASES: Final[tuple[str, ...]] = ("Crow", "Finch", "Heron", "Magpie", "Owl", "Raven", "Sparrow", "Wren")
