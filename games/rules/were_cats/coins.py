"""The coins of Were-cats and what each is worth (WC1.1, WC1.4, WC2.3, WC3.2): the one place for numbers.

A set of coins of the three common kinds is a ``Coins`` triple of counts ``(pennies, nickels, dimes)``; the
quarter is never a victim, villager or cat (it only marks who acts first), so it has no count here.
"""

from __future__ import annotations

from typing import Final, TypeAlias

Coins: TypeAlias = tuple[int, int, int]

PENNY: Final = "penny"
NICKEL: Final = "nickel"
DIME: Final = "dime"
KINDS: Final[tuple[str, str, str]] = (PENNY, NICKEL, DIME)
INDEX: Final[dict[str, int]] = {k: i for i, k in enumerate(KINDS)}

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 5
TOTAL: Final[Coins] = (10, 6, 6)  # WC1.1 (and one quarter)
NO_COINS: Final[Coins] = (0, 0, 0)
SLOTS: Final[tuple[int, ...]] = (1, 2, 3, 4, 5, 6)  # turn-order slots on each player card
CITY_SIZE: Final = 4  # WC2.2

START_SLOT: Final[dict[str, int]] = {PENNY: 6, NICKEL: 5, DIME: 4}  # WC1.3
CAT_CLAW: Final[dict[str, int]] = {PENNY: 3, NICKEL: 2, DIME: 1}  # WC1.4
VILLAGER_CLAW: Final[dict[str, int]] = {PENNY: 1, NICKEL: 2, DIME: 3}  # WC1.4 (victims too)
MAKE_CAT_COST: Final[dict[str, int]] = {PENNY: 11, NICKEL: 10, DIME: 9}  # WC2.3
CAT_POINTS: Final[dict[str, int]] = {PENNY: 2, NICKEL: 3, DIME: 2}  # WC3.2


def add(a: Coins, b: Coins) -> Coins:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a: Coins, b: Coins) -> Coins:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def one(kind: str) -> Coins:
    i = INDEX[kind]
    return (1 if i == 0 else 0, 1 if i == 1 else 0, 1 if i == 2 else 0)


def covers(have: Coins, want: Coins) -> bool:
    """``want`` can be taken out of ``have``."""
    return all(w <= h for h, w in zip(have, want, strict=True))


def victim_claw(coins: Coins) -> int:
    """The claw a cat gains by eating ``coins`` (WC2.3: each victim adds its own claw, WC1.4)."""
    return coins[0] * VILLAGER_CLAW[PENNY] + coins[1] * VILLAGER_CLAW[NICKEL] + coins[2] * VILLAGER_CLAW[DIME]


def make_cat_need(kind: str, slot: int) -> int:
    """The claw needed to make a ``kind`` cat on ``slot`` (WC2.3: cost minus the slot's number)."""
    return MAKE_CAT_COST[kind] - slot


def victim_points(victims: Coins) -> int:
    """WC3.2: the most-held kind(s) 2 per coin, the least-held kind(s) 0, the kind in between 1; a kind that
    is both most and least (all counts equal) scores as most."""
    most, least = max(victims), min(victims)
    points = 0
    for count in victims:
        if count == most:
            points += 2 * count
        elif count == least:
            points += 0
        else:
            points += count
    return points
