"""``evolve``: apply one event to the state. Never rejects, never draws randomness."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from .events import (
    ActionChosen,
    ActionDeckRemade,
    ActionDiscarded,
    ActionsRevealed,
    Aimed,
    BagmanChanged,
    BagmanElected,
    BangFired,
    CardGrabbed,
    CardsDrawn,
    CountdownEnded,
    Died,
    DiscussionEnded,
    Event,
    GameEnded,
    GameStarted,
    LootBurned,
    LootDisplayed,
    LootGiven,
    LootTaken,
    SeatResigned,
    SpoilsClaimed,
    StepOpened,
    VoteCast,
    Wounded,
)
from .options import RULES_2
from .state import (
    COUNTDOWN,
    I_ACTION_DECK,
    I_ACTION_DISCARD,
    I_AIMS,
    I_CHOSEN,
    I_COMMIT_NO,
    I_COUNTER,
    I_DISCUSSION,
    I_DISPLAY,
    I_DISPLAY_DOWN,
    I_GIVE_AFTER,
    I_HANDS,
    I_IN_PLAY,
    I_OPENED,
    I_PENDING_CLAIM,
    I_PENDING_SEAT,
    I_PENDING_TARGET,
    I_QUEUE,
    I_RETARGETS,
    I_STACKS,
    I_STEP,
    I_STEP_NO,
    I_VOTES,
    I_WOUNDS,
    INITIAL_STATE,
    NO_CARD,
    OVER,
    PLAY,
    RESOLVE,
    State,
    setitem,
    update,
)

# The frequent handlers change a ``list(state)`` in place (``update``'s keyword arguments cost more than the
# copy of the fields).
_new: Final = tuple.__new__


def _without(cards: tuple[int, ...], *remove: int) -> tuple[int, ...]:
    gone = set(remove)
    return tuple(c for c in cards if c not in gone)


def _add(cards: tuple[int, ...], *more: int) -> tuple[int, ...]:
    return tuple(sorted((*cards, *more)))


def _game_started(s: State, e: GameStarted) -> State:
    n = len(e.players)
    return State(
        phase=PLAY,
        n=n,
        players=e.players,
        options=e.options,
        seed=bytes.fromhex(e.seed),
        fair=e.fair,
        aliases=e.aliases,
        pals=e.pals,
        bagman=e.bagman,
        last_bagman=e.bagman,
        loot_deck=e.loot_deck,
        give_after=e.bagman,
        action_deck=e.action_deck,
        hands=tuple(tuple(sorted(h)) for h in e.hands),
        stacks=((),) * n,
        wounds=(0,) * n,
        alive=(True,) * n,
        resigned=(False,) * n,
        opened=(False,) * n,
        aims=(None,) * n,
        retargets=(0,) * n,
        chosen=(None,) * n,
        played=(None,) * n,
        in_play=(None,) * n,
        votes=(None,) * n,
        rules=e.rules,
    )


def _seat_resigned(s: State, e: SeatResigned) -> State:
    return update(s, resigned=setitem(s.resigned, e.seat, True))


def _step_opened(s: State, e: StepOpened) -> State:
    v = list(s)
    v[I_STEP] = e.step
    v[I_STEP_NO] = e.step_no
    if e.seat != NO_CARD:
        v[I_PENDING_SEAT] = e.seat
        v[I_PENDING_TARGET] = None if e.target == NO_CARD else e.target
        v[I_PENDING_CLAIM] = e.claim
    return _new(State, v)


def _loot_displayed(s: State, e: LootDisplayed) -> State:
    k = len(e.cards)
    return update(
        s,
        loot_deck=s.loot_deck[k:],
        display=e.cards,
        display_down=e.face_down,
        give_after=e.bagman,
        opened=(False,) * s.n,
    )


def _take_slot(s: State, slot: int) -> dict[str, Any]:
    return {
        "display": s.display[:slot] + s.display[slot + 1 :],
        "display_down": s.display_down[:slot] + s.display_down[slot + 1 :],
    }


def _loot_given(s: State, e: LootGiven) -> State:
    slot = e.slot
    v = list(s)
    v[I_STACKS] = setitem(s.stacks, e.to, _add(s.stacks[e.to], e.card))
    v[I_GIVE_AFTER] = e.to
    v[I_STEP] = None
    v[I_DISPLAY] = s.display[:slot] + s.display[slot + 1 :]
    v[I_DISPLAY_DOWN] = s.display_down[:slot] + s.display_down[slot + 1 :]
    return _new(State, v)


def _aimed(s: State, e: Aimed) -> State:
    v = list(s)
    if e.how == "open":
        v[I_OPENED] = setitem(s.opened, e.seat, True)
        v[I_VOTES] = (None,) * s.n  # LT5.4: the vote restarts after the Discussion
        v[I_DISCUSSION] = COUNTDOWN
    elif e.how == "retarget":
        v[I_RETARGETS] = setitem(s.retargets, e.seat, s.retargets[e.seat] + 1)
    v[I_AIMS] = setitem(s.aims, e.seat, e.target)
    v[I_COUNTER] = e.seat
    v[I_STEP] = None
    return _new(State, v)


def _countdown_ended(s: State, e: CountdownEnded) -> State:
    return update(s, discussion="choose", step=None)


def _action_chosen(s: State, e: ActionChosen) -> State:
    v = list(s)
    v[I_CHOSEN] = setitem(s.chosen, e.seat, e.card)
    v[I_COMMIT_NO] = s.commit_no + 1
    return _new(State, v)


def _actions_revealed(s: State, e: ActionsRevealed) -> State:
    hands = list(s.hands)
    played: list[int | None] = []
    for seat, card in enumerate(e.cards):
        if card == NO_CARD:
            played.append(None)
        else:
            played.append(card)
            hands[seat] = _without(hands[seat], card)
    queue = tuple(sorted(c for c in e.cards if c != NO_CARD))
    return update(
        s,
        hands=tuple(hands),
        played=tuple(played),
        in_play=tuple(played),
        queue=queue,
        chosen=(None,) * s.n,
        discussion=RESOLVE,
        step=None,
    )


def _discard_played(s: State, seat: int, card: int) -> State:
    v = list(s)
    v[I_IN_PLAY] = setitem(s.in_play, seat, None)
    v[I_ACTION_DISCARD] = (*s.action_discard, card)
    v[I_QUEUE] = _without(s.queue, card)
    return _new(State, v)


def _bang_fired(s: State, e: BangFired) -> State:
    """LT4.1: the BANG! has fired (out of the queue). Rules 1 discarded it here; from rules 2 it stays in play
    until its ``ActionDiscarded``, once its effects are over."""
    if s.rules >= RULES_2:
        v = list(s)
        v[I_QUEUE] = _without(s.queue, e.card)
        return _new(State, v)
    return _discard_played(s, e.gunner, e.card)


def _action_discarded(s: State, e: ActionDiscarded) -> State:
    return _discard_played(s, e.seat, e.card)


def _wounded(s: State, e: Wounded) -> State:
    v = list(s)
    v[I_WOUNDS] = setitem(s.wounds, e.seat, e.wounds)
    return _new(State, v)


def _died(s: State, e: Died) -> State:
    stacks = setitem(s.stacks, e.seat, ())
    loot_discard = s.loot_discard
    if e.loot_to == "killer":
        stacks = setitem(stacks, e.killer, _add(stacks[e.killer], *e.loot))
    else:
        loot_discard = (*loot_discard, *e.loot)
    return update(
        s,
        alive=setitem(s.alive, e.seat, False),
        deaths=(*s.deaths, e.seat),
        hands=setitem(s.hands, e.seat, ()),
        action_discard=(*s.action_discard, *e.hand),
        stacks=stacks,
        loot_discard=loot_discard,
    )


def _loot_taken(s: State, e: LootTaken) -> State:
    stacks = setitem(s.stacks, e.victim, _without(s.stacks[e.victim], e.card))
    stacks = setitem(stacks, e.seat, _add(stacks[e.seat], e.card))
    return update(s, stacks=stacks, step=None, random_no=s.random_no + (0 if e.chosen else 1))


def _spoils_claimed(s: State, e: SpoilsClaimed) -> State:
    changes: dict[str, Any] = {"step": None}
    if e.slot != NO_CARD:
        changes.update(_take_slot(s, e.slot))
        changes["stacks"] = setitem(s.stacks, e.seat, _add(s.stacks[e.seat], e.card))
    return update(s, **changes)


def _bagman_changed(s: State, e: BagmanChanged) -> State:
    if e.seat == NO_CARD:
        return update(s, bagman=None)
    return update(s, bagman=e.seat, last_bagman=e.seat)


def _action_deck_remade(s: State, e: ActionDeckRemade) -> State:
    return update(s, action_deck=(*s.action_deck, *e.deck), action_discard=(), remakes=s.remakes + 1)


def _cards_drawn(s: State, e: CardsDrawn) -> State:
    v = list(s)
    v[I_ACTION_DECK] = s.action_deck[len(e.cards) :]
    v[I_HANDS] = setitem(s.hands, e.seat, _add(s.hands[e.seat], *e.cards))
    return _new(State, v)


def _card_grabbed(s: State, e: CardGrabbed) -> State:
    if e.card == NO_CARD:
        return s
    seat = e.seat
    if e.source == "loot":
        return update(
            s, loot_deck=s.loot_deck[1:], stacks=setitem(s.stacks, seat, _add(s.stacks[seat], e.card))
        )
    if e.source == "display":
        return update(
            s, stacks=setitem(s.stacks, seat, _add(s.stacks[seat], e.card)), **_take_slot(s, e.slot)
        )
    if e.source == "action":
        return update(
            s, action_deck=s.action_deck[1:], hands=setitem(s.hands, seat, _add(s.hands[seat], e.card))
        )
    return update(
        s, action_discard=s.action_discard[:-1], hands=setitem(s.hands, seat, _add(s.hands[seat], e.card))
    )


def _loot_burned(s: State, e: LootBurned) -> State:
    return update(
        s,
        hands=setitem(s.hands, e.seat, _without(s.hands[e.seat], e.card)),
        action_discard=(*s.action_discard, e.card),
        stacks=setitem(s.stacks, e.seat, _without(s.stacks[e.seat], *e.loot)),
        loot_discard=(*s.loot_discard, *e.loot),
    )


def _vote_cast(s: State, e: VoteCast) -> State:
    return update(s, votes=setitem(s.votes, e.seat, e.candidate))


def _bagman_elected(s: State, e: BagmanElected) -> State:
    return update(s, bagman=e.seat, last_bagman=e.seat, votes=(None,) * s.n, step=None)


def _discussion_ended(s: State, e: DiscussionEnded) -> State:
    n = s.n
    return update(
        s,
        discussion=None,
        aims=(None,) * n,
        retargets=(0,) * n,
        counter=None,
        chosen=(None,) * n,
        played=(None,) * n,
        in_play=(None,) * n,
        queue=(),
        pending_seat=None,
        pending_target=None,
        pending_claim=False,
        step=None,
    )


def _game_ended(s: State, e: GameEnded) -> State:
    return update(
        s,
        phase=OVER,
        step=None,
        end_reason=e.reason,
        values=e.values,
        ranks=e.ranks,
        scores=e.scores,
        winners=e.winners,
    )


def _aim_window_closed(s: State, e: Any) -> State:
    return s  # LT2.5: a record of the close; the step that follows opens next (StepOpened)


HANDLERS: Final[dict[str, Callable[[State, Any], State]]] = {
    "GameStarted": _game_started,
    "SeatResigned": _seat_resigned,
    "StepOpened": _step_opened,
    "LootDisplayed": _loot_displayed,
    "LootGiven": _loot_given,
    "Aimed": _aimed,
    "CountdownEnded": _countdown_ended,
    "ActionChosen": _action_chosen,
    "ActionsRevealed": _actions_revealed,
    "BangFired": _bang_fired,
    "Wounded": _wounded,
    "Died": _died,
    "LootTaken": _loot_taken,
    "SpoilsClaimed": _spoils_claimed,
    "BagmanChanged": _bagman_changed,
    "ActionDeckRemade": _action_deck_remade,
    "CardsDrawn": _cards_drawn,
    "ActionDiscarded": _action_discarded,
    "CardGrabbed": _card_grabbed,
    "LootBurned": _loot_burned,
    "VoteCast": _vote_cast,
    "BagmanElected": _bagman_elected,
    "AimWindowClosed": _aim_window_closed,
    "DiscussionEnded": _discussion_ended,
    "GameEnded": _game_ended,
}


def evolve(state: State, event: Event) -> State:
    return HANDLERS[event.TYPE](state, event)


def fold(events: Iterable[Event], state: State | None = None) -> State:
    s = INITIAL_STATE if state is None else state
    handlers = HANDLERS
    for event in events:
        s = handlers[event.TYPE](s, event)
    return s
