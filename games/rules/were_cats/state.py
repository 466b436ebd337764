"""The state of a game of Were-cats: an immutable named tuple of tuples (cheap to fold, like GoodCritters).

Coins of one place are a ``Coins`` count triple ``(pennies, nickels, dimes)`` (WC1.2: where a coin lies
says what it is). Per-seat facts are tuples indexed by seat; each seat's cats are a 6-tuple indexed by
``slot - 1``, ``None`` for an empty slot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from .coins import KINDS, NO_COINS, SLOTS, TOTAL, Coins, add
from .options import DEFAULT_OPTIONS, Options

# phases
NEW: Final = "new"  # not started
CHOOSE: Final = "choose"  # WC1.3, the setup choice (one seat after another)
PLACE: Final = "place"  # WC2.1, Phase 1 (everybody at once)
POPULATE: Final = "populate"  # WC2.2 (one seat after another)
ACT: Final = "act"  # WC2.3, Phase 2 (one cat after another)
OVER: Final = "over"  # WC3


@dataclass(frozen=True, slots=True)
class Cat:
    """A coin on a turn-order slot (WC1.2): heads up may act, tails up may not."""

    kind: str
    heads: bool


Slots = tuple[Cat | None, ...]


class State(NamedTuple):
    phase: str = NEW
    n: int = 0
    players: tuple[str, ...] = ()
    options: Options = DEFAULT_OPTIONS
    seed: bytes = b""
    fair: bool = True
    first_seat: int = 0  # WC1.3: the seat the setup choice starts with
    starting: tuple[str | None, ...] = ()  # the kind each seat took at setup
    supply: Coins = TOTAL
    city: Coins = NO_COINS
    hands: tuple[Coins, ...] = ()
    eats: tuple[Coins, ...] = ()
    scares: tuple[Coins, ...] = ()
    cats: tuple[Slots, ...] = ()
    quarter: int | None = None  # who holds the quarter (nobody before the first Phase 1 ends)
    round: int = 0
    done: tuple[bool, ...] = ()  # Phase 1: said done
    resigned: tuple[bool, ...] = ()  # WC4.3: cannot win
    race_won: bool = False  # Phase 1: somebody said done by themselves and took the quarter
    turn: int | None = None  # the seat the game waits on (setup choice, populating, acting cat)
    slot: int | None = None  # the acting cat's slot (Phase 2)
    step_no: int = 0
    end_reason: str | None = None
    scores: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()

    def cat(self, seat: int, slot: int) -> Cat | None:
        return self.cats[seat][slot - 1]

    def victims(self, seat: int) -> Coins:
        """Everything a seat holds as victims: hand, eat area and scare area (WC3.2)."""
        return add(add(self.hands[seat], self.eats[seat]), self.scares[seat])

    def action_order(self) -> list[tuple[int, int]]:
        """WC2.3: (seat, slot) in slot order 1 to 6; on equal slots the quarter's holder first, then
        clockwise."""
        first = self.quarter if self.quarter is not None else self.first_seat
        return [((first + k) % self.n, slot) for slot in SLOTS for k in range(self.n)]

    def next_cat(self) -> tuple[int, int] | None:
        """The next heads-up cat to act: acted cats and new cats are tails up, so it is the first heads-up
        cat of the action order."""
        for seat, slot in self.action_order():
            cat = self.cats[seat][slot - 1]
            if cat is not None and cat.heads:
                return seat, slot
        return None


FIELDS: Final[tuple[str, ...]] = State._fields
_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(FIELDS)}
_tuple_new: Final = tuple.__new__


def update(state: State, **changes: Any) -> State:
    """A copy of ``state`` with ``changes`` (faster than ``_replace``)."""
    values = list(state)
    for name, value in changes.items():
        values[_INDEX[name]] = value
    new: State = _tuple_new(State, values)
    return new


INITIAL_STATE: Final[State] = State()


def setitem(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """``values`` with ``values[index] = value``."""
    return (*values[:index], value, *values[index + 1 :])


def coin_census(state: State) -> dict[str, Coins]:
    """Where the coins are (for conservation checks): place -> counts. The quarter is not counted here."""
    where: dict[str, Coins] = {"supply": state.supply, "city": state.city}
    for seat in range(state.n):
        where[f"hand/{seat}"] = state.hands[seat]
        where[f"eat/{seat}"] = state.eats[seat]
        where[f"scare/{seat}"] = state.scares[seat]
        counts = [0, 0, 0]
        for cat in state.cats[seat]:
            if cat is not None:
                counts[KINDS.index(cat.kind)] += 1
        where[f"cats/{seat}"] = (counts[0], counts[1], counts[2])
    return where
