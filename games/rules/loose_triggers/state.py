"""The state of a game of Loose Triggers: an immutable named tuple of tuples (cheap to fold, as GoodCritters).

Per-seat facts are tuples indexed by seat. Decks are tuples top first; the Action discard pile's top is its
last element. A running Discussion (LT3) is ``discussion`` = countdown | choose | resolve.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from .cards import ACTION_CARDS, LOOT_CARDS
from .options import DEFAULT_OPTIONS, RULES_UNWRITTEN, Options

SETUP: Final = "setup"
PLAY: Final = "play"
OVER: Final = "over"

# waiting steps (GameWaiting.step)
AIM: Final = "aim"  # LT2.5: the aim window before a give
GIVE: Final = "give"  # LT2.2
COUNTDOWN: Final = "countdown"  # LT3.1
CHOOSE: Final = "choose"  # LT3.3
PICK: Final = "pick"  # LT4.1 PickLoot
CLAIM: Final = "claim"  # LT4.1 ClaimSpoils
GRAB_STEP: Final = "grab"  # LT4.2
ELECT: Final = "elect"  # LT5.4
RESOLVE: Final = "resolve"  # a Discussion resolving (only while decide runs, or under a sub-choice)

NO_CARD: Final = -1  # in ActionsRevealed: the seat played no card


class State(NamedTuple):
    phase: str = SETUP
    n: int = 0
    players: tuple[str, ...] = ()
    options: Options = DEFAULT_OPTIONS
    seed: bytes = b""
    fair: bool = True
    aliases: tuple[str, ...] = ()
    pals: tuple[int, ...] = ()
    bagman: int | None = None
    last_bagman: int = 0
    loot_deck: tuple[int, ...] = ()
    display: tuple[int, ...] = ()
    display_down: tuple[bool, ...] = ()
    give_after: int = 0  # the seat that received the previous card (LT2.3)
    loot_discard: tuple[int, ...] = ()
    action_deck: tuple[int, ...] = ()
    action_discard: tuple[int, ...] = ()
    hands: tuple[tuple[int, ...], ...] = ()
    stacks: tuple[tuple[int, ...], ...] = ()
    wounds: tuple[int, ...] = ()
    alive: tuple[bool, ...] = ()
    deaths: tuple[int, ...] = ()  # seats in order of death (LT5.3)
    resigned: tuple[bool, ...] = ()
    opened: tuple[bool, ...] = ()  # opened a Discussion during this display (LT3.6)
    step: str | None = None
    step_no: int = 0
    # a Discussion
    discussion: str | None = None
    aims: tuple[int | None, ...] = ()  # each Gunner's Target
    retargets: tuple[int, ...] = ()
    counter: int | None = None
    chosen: tuple[int | None, ...] = ()  # face-down choices (NO_CARD: none)
    commit_no: int = 0
    played: tuple[int | None, ...] = ()  # revealed cards
    in_play: tuple[int | None, ...] = ()  # revealed cards not yet discarded
    queue: tuple[int, ...] = ()  # played card numbers still to resolve, lowest first
    pending_seat: int | None = None  # who makes the sub-choice (pick, claim, grab)
    pending_target: int | None = None
    pending_claim: bool = False  # a ClaimSpoils follows the PickLoot
    votes: tuple[int | None, ...] = ()
    random_no: int = 0  # random draws so far (labels ``random/{k}``)
    remakes: int = 0  # Action deck remakes so far (labels ``remake/{k}``)
    end_reason: str | None = None
    values: tuple[int, ...] | None = None
    ranks: tuple[int, ...] | None = None
    scores: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()
    rules: int = RULES_UNWRITTEN  # the rules' version (GameStarted.rules, README "Rules versions")

    def living(self) -> list[int]:
        return [s for s, alive in enumerate(self.alive) if alive]

    def gunners(self) -> list[int]:
        return [s for s in range(self.n) if self.aims[s] is not None]


FIELDS: Final[tuple[str, ...]] = State._fields
_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(FIELDS)}
_tuple_new: Final = tuple.__new__
# field indexes, for evolve's hot paths (``values = list(state); values[I_STEP] = ...``: no keyword arguments)
I_DISPLAY: Final = _INDEX["display"]
I_DISPLAY_DOWN: Final = _INDEX["display_down"]
I_GIVE_AFTER: Final = _INDEX["give_after"]
I_ACTION_DECK: Final = _INDEX["action_deck"]
I_ACTION_DISCARD: Final = _INDEX["action_discard"]
I_HANDS: Final = _INDEX["hands"]
I_STACKS: Final = _INDEX["stacks"]
I_WOUNDS: Final = _INDEX["wounds"]
I_OPENED: Final = _INDEX["opened"]
I_STEP: Final = _INDEX["step"]
I_STEP_NO: Final = _INDEX["step_no"]
I_DISCUSSION: Final = _INDEX["discussion"]
I_AIMS: Final = _INDEX["aims"]
I_RETARGETS: Final = _INDEX["retargets"]
I_COUNTER: Final = _INDEX["counter"]
I_CHOSEN: Final = _INDEX["chosen"]
I_COMMIT_NO: Final = _INDEX["commit_no"]
I_IN_PLAY: Final = _INDEX["in_play"]
I_QUEUE: Final = _INDEX["queue"]
I_PENDING_SEAT: Final = _INDEX["pending_seat"]
I_PENDING_TARGET: Final = _INDEX["pending_target"]
I_PENDING_CLAIM: Final = _INDEX["pending_claim"]
I_VOTES: Final = _INDEX["votes"]


def update(state: State, **changes: Any) -> State:
    """A copy of ``state`` with ``changes`` (faster than ``_replace``)."""
    values = list(state)
    for name, value in changes.items():
        values[_INDEX[name]] = value
    new: State = _tuple_new(State, values)
    return new


def setitem(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


INITIAL_STATE: Final[State] = State()


def card_places(state: State) -> tuple[dict[int, str], dict[int, str]]:
    """Where each Loot card and each Action card is (conservation checks): id -> place; a card found twice
    is reported by its count not matching."""
    loot: dict[int, str] = {}
    actions: dict[int, str] = {}
    count_loot = 0
    count_actions = 0
    for where, cards in (
        ("deck", state.loot_deck),
        ("display", state.display),
        ("discard", state.loot_discard),
    ):
        for c in cards:
            loot[c] = where
            count_loot += 1
    for seat, stack in enumerate(state.stacks):
        for c in stack:
            loot[c] = f"stack/{seat}"
            count_loot += 1
    for where, cards in (("deck", state.action_deck), ("discard", state.action_discard)):
        for c in cards:
            actions[c] = where
            count_actions += 1
    for seat, hand in enumerate(state.hands):
        for c in hand:
            actions[c] = f"hand/{seat}"
            count_actions += 1
    for seat, card in enumerate(state.in_play):
        if card is not None:
            actions[card] = f"play/{seat}"
            count_actions += 1
    if state.phase != SETUP:
        assert count_loot == len(LOOT_CARDS) == len(loot), (count_loot, len(loot))
        assert count_actions == len(ACTION_CARDS) == len(actions), (count_actions, len(actions))
    return loot, actions
