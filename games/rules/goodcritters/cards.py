"""The cards of GoodCritters: the one place where the deck's composition lives (RULES.md R1.2)."""

from __future__ import annotations

from typing import Final

# (value in dollars, number of Loot cards). Card ids are given in this order: ids 0..34 are $2,000, ...
LOOT_COMPOSITION: Final[tuple[tuple[int, int], ...]] = ((2000, 35), (3000, 35), (4000, 35), (5000, 35))

# Flavour only ("the type of Loot does not matter"): assigned to the ids by the seeded shuffle, equal numbers.
LOOT_TYPES: Final[tuple[str, ...]] = ("cash", "gems", "jewelry", "painting", "sculpture")

VALUES: Final[tuple[int, ...]] = tuple(value for value, count in LOOT_COMPOSITION for _ in range(count))
"""``VALUES[card_id]`` is the value of a Loot card."""

LOOT_COUNT: Final[int] = len(VALUES)  # 140
FUZZ: Final[int] = LOOT_COUNT  # The Fuzz! card's id in the Loot pile (140)
STARTING_VALUES: Final[tuple[int, ...]] = tuple(value for value, _ in LOOT_COMPOSITION)  # one of each (R1.3)

PAYOFF_CARD_VALUE: Final[int] = 1000
PAYOFF_CARDS_EACH: Final[int] = 5  # R1.7
PAYOFF_TOKENS_EACH: Final[int] = 2  # R1.7

ACTIONS: Final[tuple[str, ...]] = ("guard", "rob", "skim", "vote_no", "vote_yes")
GUARD, ROB, SKIM, VOTE_NO, VOTE_YES = ACTIONS

PAYOFF_SIDES: Final[tuple[str, ...]] = ("yes", "no")  # R6.1
BUNDLE_VISIBILITIES: Final[tuple[str, ...]] = ("open", "peek", "hidden")  # R6.2

MIN_PLAYERS: Final[int] = 4
MAX_PLAYERS: Final[int] = 8

# R1.4: players -> (P parts, The Fuzz! in part K counted from the top)
PILE_SPLIT: Final[dict[int, tuple[int, int]]] = {4: (6, 4), 5: (7, 5), 6: (5, 4), 7: (7, 6), 8: (5, 5)}


def stash_value(cards: frozenset[int] | tuple[int, ...]) -> int:
    values = VALUES
    return sum(values[c] for c in cards)


def card_json(card: int, types: tuple[str, ...]) -> dict[str, object]:
    """A Loot card as a viewer sees it."""
    return {"id": card, "value": VALUES[card], "type": types[card] if types else None}
