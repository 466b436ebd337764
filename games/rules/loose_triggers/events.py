"""Events: the facts of a game of Loose Triggers, past tense, each with a stable ``TYPE`` and ``VERSION``.

Loot cards are ids ``0..55`` and Action cards their numbers ``1..40`` (:mod:`.cards`). Fields a viewer may not
see are blanked by :func:`.views.redact_event` (LT7.2); :func:`.evolve.evolve` only applies facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .options import Options

Cards = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameStarted:
    """LT1.1-LT1.7. Secret until the end: ``seed``, every Pal but the viewer's, both deck orders, every hand
    but the viewer's. ``rules``: the rules the game plays to its end (README "Rules versions"). Version 2
    carries ``rules`` (2 and later); version 1, with no ``rules``, is a game under rules 1 (``serde`` reads
    and writes both: a game under rules 1 is written as version 1, as it always was)."""

    TYPE: ClassVar[str] = "GameStarted"
    VERSION: ClassVar[int] = 2
    players: tuple[str, ...]
    aliases: tuple[str, ...]
    pals: tuple[int, ...]  # pals[seat] = that seat's Pal (LT1.3)
    bagman: int
    options: Options
    fair: bool
    seed: str
    seed_commitment: str
    loot_deck: Cards
    action_deck: Cards
    hands: tuple[Cards, ...]
    # the rules' version the game plays under (ruling 32); absent from version 1 (a game under rules 1)
    rules: int = field(metadata={"absent_before_version": 2})


@dataclass(frozen=True, slots=True)
class SeatResigned:
    """LT7.3: the seat stays alive, cannot win and is skipped when a Bagman is elected."""

    TYPE: ClassVar[str] = "SeatResigned"
    VERSION: ClassVar[int] = 1
    seat: int


@dataclass(frozen=True, slots=True)
class StepOpened:
    """A waiting step opened (aim, give, countdown, choose, pick, claim, grab, elect) with a new
    ``step_no``."""

    TYPE: ClassVar[str] = "StepOpened"
    VERSION: ClassVar[int] = 1
    step_no: int
    step: str
    seat: int = -1  # pick | claim | grab: who chooses
    target: int = -1  # pick | claim: the Target hit
    claim: bool = False  # pick: a ClaimSpoils follows


@dataclass(frozen=True, slots=True)
class LootDisplayed:
    """LT2.1: ``cards`` from the top of the Loot deck; face-down ones are the Bagman's secret."""

    TYPE: ClassVar[str] = "LootDisplayed"
    VERSION: ClassVar[int] = 1
    bagman: int
    cards: Cards
    face_down: tuple[bool, ...]


@dataclass(frozen=True, slots=True)
class LootGiven:
    """LT2.2/LT2.3: the displayed card at ``slot`` went to ``to`` (``timeout``: round-robin default)."""

    TYPE: ClassVar[str] = "LootGiven"
    VERSION: ClassVar[int] = 1
    bagman: int
    to: int
    slot: int
    card: int
    face_down: bool


@dataclass(frozen=True, slots=True)
class Aimed:
    """LT3.1/LT3.2: ``how`` = open | join | retarget; the aimer becomes the Counter."""

    TYPE: ClassVar[str] = "Aimed"
    VERSION: ClassVar[int] = 1
    seat: int
    target: int
    how: str = field(metadata={"enum": ("open", "join", "retarget")})


@dataclass(frozen=True, slots=True)
class CountdownEnded:
    """LT3.3: the Discussion locks."""

    TYPE: ClassVar[str] = "CountdownEnded"
    VERSION: ClassVar[int] = 1


@dataclass(frozen=True, slots=True)
class ActionChosen:
    """LT3.3: a face-down choice (``card`` -1 = none), published as a commitment; secret until the reveal."""

    TYPE: ClassVar[str] = "ActionChosen"
    VERSION: ClassVar[int] = 1
    seat: int
    commit_no: int
    commitment: str
    card: int


@dataclass(frozen=True, slots=True)
class ActionsRevealed:
    """LT3.4: every seat's chosen card (-1: none), all at once."""

    TYPE: ClassVar[str] = "ActionsRevealed"
    VERSION: ClassVar[int] = 1
    cards: Cards


@dataclass(frozen=True, slots=True)
class BangFired:
    """LT4.1: ``outcome`` = dead_target | ducked | crossfire | hit. Under rules 1 the BANG! goes to the
    discard pile now; from rules 2 it stays in play until an ``ActionDiscarded`` once its effects are over."""

    TYPE: ClassVar[str] = "BangFired"
    VERSION: ClassVar[int] = 1
    gunner: int
    target: int
    card: int
    outcome: str = field(metadata={"enum": ("dead_target", "ducked", "crossfire", "hit")})


@dataclass(frozen=True, slots=True)
class Wounded:
    """LT4.1/LT5.1: ``by`` dealt the Wound (the CROSSFIRE! player for a crossfire Wound)."""

    TYPE: ClassVar[str] = "Wounded"
    VERSION: ClassVar[int] = 1
    seat: int
    by: int
    cause: str  # bang | crossfire
    wounds: int


@dataclass(frozen=True, slots=True)
class Died:
    """LT5.1-LT5.3, LT4.5: the hand goes to the discard pile (face up); ``loot_to`` = killer | fire |
    discard; ``loot`` is secret but for the dead and the receiver."""

    TYPE: ClassVar[str] = "Died"
    VERSION: ClassVar[int] = 1
    seat: int
    killer: int
    hand: Cards
    loot: Cards
    loot_to: str


@dataclass(frozen=True, slots=True)
class LootTaken:
    """LT4.1: one card from ``victim``'s stack (``chosen``: PickLoot, else random)."""

    TYPE: ClassVar[str] = "LootTaken"
    VERSION: ClassVar[int] = 1
    seat: int
    victim: int
    card: int
    chosen: bool


@dataclass(frozen=True, slots=True)
class SpoilsClaimed:
    """LT4.1: from a hit Bagman, a displayed card at ``slot`` (-1: none) and/or the Bagman card."""

    TYPE: ClassVar[str] = "SpoilsClaimed"
    VERSION: ClassVar[int] = 1
    seat: int
    from_bagman: int
    slot: int
    card: int
    face_down: bool
    bagman: bool


@dataclass(frozen=True, slots=True)
class BagmanChanged:
    """LT4.1, LT5.1, LT5.2: ``seat`` -1 = nobody (an election follows, LT5.4)."""

    TYPE: ClassVar[str] = "BagmanChanged"
    VERSION: ClassVar[int] = 1
    seat: int
    cause: str  # claimed | killed | crossfire | vacant


@dataclass(frozen=True, slots=True)
class ActionDeckRemade:
    """LT4.6: the discard pile shuffled into a new Action deck (order secret)."""

    TYPE: ClassVar[str] = "ActionDeckRemade"
    VERSION: ClassVar[int] = 1
    deck: Cards


@dataclass(frozen=True, slots=True)
class CardsDrawn:
    """Action cards from the top of the Action deck into ``seat``'s hand (secret but for the seat)."""

    TYPE: ClassVar[str] = "CardsDrawn"
    VERSION: ClassVar[int] = 1
    seat: int
    cards: Cards


@dataclass(frozen=True, slots=True)
class ActionDiscarded:
    """A played card leaves play for the discard pile (LT4.3-LT4.6)."""

    TYPE: ClassVar[str] = "ActionDiscarded"
    VERSION: ClassVar[int] = 1
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class CardGrabbed:
    """LT4.2: ``source`` = loot | display | action | discard; ``card`` -1 when the source was empty."""

    TYPE: ClassVar[str] = "CardGrabbed"
    VERSION: ClassVar[int] = 1
    seat: int
    source: str = field(metadata={"enum": ("loot", "display", "action", "discard")})
    slot: int
    card: int
    face_down: bool
    bagman: int


@dataclass(frozen=True, slots=True)
class LootBurned:
    """LT4.5 ``BurnLoot``: IN THE FIRE! and two Loot cards discarded (the Loot face down)."""

    TYPE: ClassVar[str] = "LootBurned"
    VERSION: ClassVar[int] = 1
    seat: int
    card: int
    loot: Cards


@dataclass(frozen=True, slots=True)
class VoteCast:
    """LT5.4 (votes are public)."""

    TYPE: ClassVar[str] = "VoteCast"
    VERSION: ClassVar[int] = 1
    seat: int
    candidate: int


@dataclass(frozen=True, slots=True)
class BagmanElected:
    """LT5.4: ``votes[seat]`` = votes received; ``tie``: nobody had most votes (clockwise rule)."""

    TYPE: ClassVar[str] = "BagmanElected"
    VERSION: ClassVar[int] = 1
    seat: int
    votes: Cards
    tie: bool


@dataclass(frozen=True, slots=True)
class AimWindowClosed:
    """LT2.5: the aim window ``step_no`` before a give closed: every other living, not resigned player
    passed (``passed``), its time was up (``deadline``) or someone aimed (``aimed``: a Discussion opened).
    Who passed is in the table's ``ReadySet`` events, when it opened in its ``StepOpened``."""

    TYPE: ClassVar[str] = "AimWindowClosed"
    VERSION: ClassVar[int] = 1
    step_no: int
    reason: str


@dataclass(frozen=True, slots=True)
class DiscussionEnded:
    TYPE: ClassVar[str] = "DiscussionEnded"
    VERSION: ClassVar[int] = 1


@dataclass(frozen=True, slots=True)
class GameEnded:
    """LT6.1-LT6.3: ``reason`` = loot_gone | last_alive | none_alive."""

    TYPE: ClassVar[str] = "GameEnded"
    VERSION: ClassVar[int] = 1
    reason: str
    values: Cards
    ranks: Cards
    bonus: Cards
    scores: Cards
    winners: Cards
    seed: str  # hex, opened for the audit (LT7.2, R8.2)


Event = (
    GameStarted
    | SeatResigned
    | StepOpened
    | LootDisplayed
    | LootGiven
    | Aimed
    | CountdownEnded
    | ActionChosen
    | ActionsRevealed
    | BangFired
    | Wounded
    | Died
    | LootTaken
    | SpoilsClaimed
    | BagmanChanged
    | ActionDeckRemade
    | CardsDrawn
    | ActionDiscarded
    | CardGrabbed
    | LootBurned
    | VoteCast
    | BagmanElected
    | AimWindowClosed
    | DiscussionEnded
    | GameEnded
)

EVENT_CLASSES: tuple[type[Event], ...] = (
    GameStarted,
    SeatResigned,
    StepOpened,
    LootDisplayed,
    LootGiven,
    Aimed,
    CountdownEnded,
    ActionChosen,
    ActionsRevealed,
    BangFired,
    Wounded,
    Died,
    LootTaken,
    SpoilsClaimed,
    BagmanChanged,
    ActionDeckRemade,
    CardsDrawn,
    ActionDiscarded,
    CardGrabbed,
    LootBurned,
    VoteCast,
    BagmanElected,
    AimWindowClosed,
    DiscussionEnded,
    GameEnded,
)
