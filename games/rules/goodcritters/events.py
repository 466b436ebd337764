"""Events: the facts of a game of GoodCritters, past tense, each with a stable ``TYPE`` and a ``VERSION``.

Seats are ints; cards are Loot card ids (``0..139``, value by id, see :mod:`.cards`; ``140`` is The Fuzz!).
Fields that some viewers may not see are stripped by :func:`.views.redact_event`; ``unready`` lists the seats
whose ready flag the event clears (R2.4), so :func:`.evolve.evolve` only applies facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from .options import Options

Cards = tuple[int, ...]
Seats = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameStarted:
    """R1.1-R1.7. ``pile`` is the Loot pile, top first, The Fuzz! (140) included; secret until the end, as
    are ``seed``, ``types`` (type of each card id) and every Stash but the viewer's own. ``rules``: the rules
    the game plays to its end (ruling 32). Version 2 carries ``rules`` (3 and later); version 1, with no
    ``rules`` and no ``max_pause`` among the options, is a game under rules 2 (``serde`` reads and writes
    both: a game under rules 2 is written as version 1, as it always was)."""

    TYPE = "GameStarted"
    VERSION = 2
    players: tuple[str, ...]  # player ids by seat (clockwise order)
    boss: int
    options: Options
    fair: bool  # False when an operator fixed seats or cards (tutorials, bug reproduction)
    seed: str  # hex, secret until the game ends
    seed_commitment: str  # hex SHA-256(seed), public (R8.2)
    stashes: tuple[Cards, ...]
    pile: Cards
    types: tuple[str, ...]
    pile_size: int  # public: the number of cards in the pile, The Fuzz! included
    # the rules' version the game plays under (ruling 32); absent from version 1 (a game under rules 2)
    rules: int = field(metadata={"absent_before_version": 2})


@dataclass(frozen=True, slots=True)
class RoundStarted:
    TYPE = "RoundStarted"
    VERSION = 1
    round: int
    boss: int


@dataclass(frozen=True, slots=True)
class LootRevealed:
    """Cards turned face up from the top of the pile: Step 1 (R2.1) or the two extra cards (R4.3)."""

    TYPE = "LootRevealed"
    VERSION = 1
    round: int
    cards: Cards
    extra: bool


@dataclass(frozen=True, slots=True)
class FuzzRevealed:
    """The Fuzz! came off the pile: ``cause`` is reveal | extra | skim | bonus (R5.1, R5.2, R5.4)."""

    TYPE = "FuzzRevealed"
    VERSION = 1
    cause: str
    seat: int | None


@dataclass(frozen=True, slots=True)
class StepOpened:
    """A step that waits on players opened; ``due_at`` (ISO-8601 UTC) is its deadline (R7.1, R7.5), which the
    play-by-web table writes in (``games.rules.table``)."""

    TYPE = "StepOpened"
    VERSION = 1
    step_no: int
    step: str  # distribute | choose
    round: int
    due_at: str | None


@dataclass(frozen=True, slots=True)
class LootDistributed:
    """R2.2: ``shares[seat]`` are the face-up cards assigned to ``seat``.
    ``auto``: deadline | resigned | None."""

    TYPE = "LootDistributed"
    VERSION = 1
    boss: int
    shares: tuple[Cards, ...]
    auto: str | None


@dataclass(frozen=True, slots=True)
class ActionChosen:
    """R2.3: ``seat`` chose (or changed) its face-down Action card. ``action`` is secret to others;
    ``commitment`` = SHA-256(salt || canonical JSON {"action": action}), salt from label
    ``salt/{commit_no}``."""

    TYPE = "ActionChosen"
    VERSION = 1
    seat: int
    action: str
    commitment: str
    commit_no: int
    unready: Seats


@dataclass(frozen=True, slots=True)
class ThreatPlaced:
    """R2.3, R2.5: placed or moved (public)."""

    TYPE = "ThreatPlaced"
    VERSION = 1
    seat: int
    target: int
    unready: Seats


@dataclass(frozen=True, slots=True)
class ThreatRemoved:
    TYPE = "ThreatRemoved"
    VERSION = 1
    seat: int
    unready: Seats


@dataclass(frozen=True, slots=True)
class PayoffOffered:
    """R6.1/R6.2: a Payoff token placed (or replaced: the old bundle goes back first) with its bundle.
    ``loot`` is seen by the giver, by the target when ``peek``, by all when ``open``. ``commitment`` (not for
    ``open``) = SHA-256(salt || canonical JSON {"loot": sorted ids}), salt from label ``salt/{commit_no}``."""

    TYPE = "PayoffOffered"
    VERSION = 1
    seat: int
    token: int
    side: str  # yes | no
    target: int
    visibility: str  # open | peek | hidden
    loot: Cards
    loot_count: int
    payoff_cards: int
    commitment: str | None
    commit_no: int | None
    unready: Seats


@dataclass(frozen=True, slots=True)
class PayoffWithdrawn:
    TYPE = "PayoffWithdrawn"
    VERSION = 1
    seat: int
    token: int
    unready: Seats


@dataclass(frozen=True, slots=True)
class GiftGiven:
    """R6.4: ``loot`` is seen by both players; others see the counts."""

    TYPE = "GiftGiven"
    VERSION = 1
    seat: int
    to: int
    loot: Cards
    loot_count: int
    payoff_cards: int
    unready: Seats


@dataclass(frozen=True, slots=True)
class TradeOffered:
    """R6.4 and DECISIONS.md: exact cards given, Loot *values* and Payoff cards wanted."""

    TYPE = "TradeOffered"
    VERSION = 1
    trade_id: int
    seat: int
    to: int
    give_loot: Cards
    give_loot_count: int
    give_payoff: int
    want_values: tuple[int, ...]
    want_loot_count: int
    want_payoff: int
    unready: Seats


@dataclass(frozen=True, slots=True)
class TradeAccepted:
    """Both sides swapped at once: ``give_*`` went from ``offerer`` to ``seat``, ``take_*`` the other way."""

    TYPE = "TradeAccepted"
    VERSION = 1
    trade_id: int
    seat: int
    offerer: int
    give_loot: Cards
    give_loot_count: int
    give_payoff: int
    take_loot: Cards
    take_loot_count: int
    take_payoff: int
    unready: Seats


@dataclass(frozen=True, slots=True)
class TradeFailed:
    """An accepted trade whose offerer no longer holds what it promised fails cleanly (R6.4)."""

    TYPE = "TradeFailed"
    VERSION = 1
    trade_id: int
    seat: int
    offerer: int
    unready: Seats


@dataclass(frozen=True, slots=True)
class TradeDeclined:
    TYPE = "TradeDeclined"
    VERSION = 1
    trade_id: int
    seat: int
    unready: Seats


@dataclass(frozen=True, slots=True)
class TradeWithdrawn:
    TYPE = "TradeWithdrawn"
    VERSION = 1
    trade_id: int
    seat: int
    unready: Seats


@dataclass(frozen=True, slots=True)
class TradesLapsed:
    """Offers not answered when their step closed (R6.4)."""

    TYPE = "TradesLapsed"
    VERSION = 1
    trade_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class StepClosed:
    """Step 3 closed: ``reason`` is ready (everyone chose and is ready, R2.4) or deadline (R7.3)."""

    TYPE = "StepClosed"
    VERSION = 1
    step_no: int
    step: str
    reason: str


@dataclass(frozen=True, slots=True)
class ActionRevealed:
    """R3.1: a revealed Action card (``None``: no card, R7.3). ``salt`` opens the seat's last commitment.
    ``early``: a Guard shown out of turn by a Rob (R3.4); ``defaulted``: played by R7.3/R7.4."""

    TYPE = "ActionRevealed"
    VERSION = 1
    seat: int
    action: str | None
    salt: str | None
    early: bool
    defaulted: bool


@dataclass(frozen=True, slots=True)
class PayoffResolved:
    """R6.3 at the target's reveal: ``taken`` → the target has the bundle, else it went back to ``seat``."""

    TYPE = "PayoffResolved"
    VERSION = 1
    seat: int
    token: int
    target: int
    side: str
    visibility: str
    taken: bool
    loot: Cards
    loot_count: int
    payoff_cards: int
    salt: str | None


@dataclass(frozen=True, slots=True)
class LootSkimmed:
    """R3.3: the first Skim of the round took ``card`` (``None``: the pile was empty). Secret to others."""

    TYPE = "LootSkimmed"
    VERSION = 1
    seat: int
    card: int | None


@dataclass(frozen=True, slots=True)
class RobSucceeded:
    """R3.4: ``robber`` took ``card`` from ``victim`` (``None``: empty Stash). Only the two see the card."""

    TYPE = "RobSucceeded"
    VERSION = 1
    robber: int
    victim: int
    card: int | None


@dataclass(frozen=True, slots=True)
class RobGuarded:
    """R3.4/R3.5: ``guard`` was guarding and took ``card`` from ``robber`` instead."""

    TYPE = "RobGuarded"
    VERSION = 1
    robber: int
    guard: int
    card: int | None


@dataclass(frozen=True, slots=True)
class VoteResolved:
    """§4: ``outcome`` is pass (R4.1) | tie (R4.2) | fail (R4.3, R4.5) | boss_keeps (R4.4, R4.5)."""

    TYPE = "VoteResolved"
    VERSION = 1
    yes: int
    no: int
    outcome: str = field(metadata={"enum": ("pass", "tie", "fail", "boss_keeps")})


@dataclass(frozen=True, slots=True)
class LootAwarded:
    """R4.1/R4.2: every player adds the cards assigned to them to their Stash."""

    TYPE = "LootAwarded"
    VERSION = 1
    shares: tuple[Cards, ...]


@dataclass(frozen=True, slots=True)
class LootReturned:
    """R4.3/R4.4: the cards return to the middle, face up."""

    TYPE = "LootReturned"
    VERSION = 1
    cards: Cards


@dataclass(frozen=True, slots=True)
class BossChanged:
    """``reason``: tie | vote_failed | term_limit."""

    TYPE = "BossChanged"
    VERSION = 1
    boss: int
    previous: int
    reason: str


@dataclass(frozen=True, slots=True)
class BossBonus:
    """R5.4: the former Boss took the top card of the pile (``None``: none left). Secret to others."""

    TYPE = "BossBonus"
    VERSION = 1
    seat: int
    card: int | None


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """R4.6: Action cards, Threat markers and Payoff tokens go back."""

    TYPE = "RoundEnded"
    VERSION = 1
    round: int


@dataclass(frozen=True, slots=True)
class LootConfiscated:
    """R5.1/R5.2: the cards on the table when the Fuzz show up."""

    TYPE = "LootConfiscated"
    VERSION = 1
    cards: Cards


END_REASONS: Final = ("fuzz_reveal", "fuzz_extra", "fuzz_skim", "fuzz_bonus")
"""How The Fuzz! ended the game (R5.1, R5.2, R5.4): revealed in Step 1, drawn as an extra card, skimmed,
drawn as the Boss's bonus."""


@dataclass(frozen=True, slots=True)
class GameEnded:
    """§5: final scores (R5.3), the winners (equal highest share the win; resigned seats cannot win, R7.4),
    and the seed, public now (R8.2)."""

    TYPE = "GameEnded"
    VERSION = 1
    reason: str = field(metadata={"enum": END_REASONS})
    scores: tuple[int, ...]
    winners: Seats
    seed: str


Event = (
    GameStarted
    | RoundStarted
    | LootRevealed
    | FuzzRevealed
    | StepOpened
    | LootDistributed
    | ActionChosen
    | ThreatPlaced
    | ThreatRemoved
    | PayoffOffered
    | PayoffWithdrawn
    | GiftGiven
    | TradeOffered
    | TradeAccepted
    | TradeFailed
    | TradeDeclined
    | TradeWithdrawn
    | TradesLapsed
    | StepClosed
    | ActionRevealed
    | PayoffResolved
    | LootSkimmed
    | RobSucceeded
    | RobGuarded
    | VoteResolved
    | LootAwarded
    | LootReturned
    | BossChanged
    | BossBonus
    | RoundEnded
    | LootConfiscated
    | GameEnded
)

EVENT_CLASSES: tuple[type[Event], ...] = (
    GameStarted,
    RoundStarted,
    LootRevealed,
    FuzzRevealed,
    StepOpened,
    LootDistributed,
    ActionChosen,
    ThreatPlaced,
    ThreatRemoved,
    PayoffOffered,
    PayoffWithdrawn,
    GiftGiven,
    TradeOffered,
    TradeAccepted,
    TradeFailed,
    TradeDeclined,
    TradeWithdrawn,
    TradesLapsed,
    StepClosed,
    ActionRevealed,
    PayoffResolved,
    LootSkimmed,
    RobSucceeded,
    RobGuarded,
    VoteResolved,
    LootAwarded,
    LootReturned,
    BossChanged,
    BossBonus,
    RoundEnded,
    LootConfiscated,
    GameEnded,
)
