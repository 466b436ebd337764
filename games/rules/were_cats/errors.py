"""Rule errors of Were-cats: every stable code once, with its :class:`~games.rules.core.ErrorKind` and
its meaning (the catalogue the spec is generated from)."""

from __future__ import annotations

from typing import Any, Final, NoReturn

from games.rules.core import ErrorKind, RuleError

INVALID, CONFLICT, FORBIDDEN = ErrorKind.INVALID, ErrorKind.CONFLICT, ErrorKind.FORBIDDEN

ERRORS: Final[dict[str, tuple[ErrorKind, str]]] = {
    # malformed input
    "invalid_command": (INVALID, "The command is malformed: unknown type, missing or ill-typed field."),
    "invalid_setup": (
        INVALID,
        "The operator's setup (seat order, first seat) is not valid for these players.",
    ),
    "invalid_players": (INVALID, "Were-cats needs 2 to 5 distinct players and a 32-byte seed (WC1.1)."),
    # the game's phase
    "not_started": (CONFLICT, "The game has not started yet."),
    "already_started": (CONFLICT, "The game has already started."),
    "game_over": (CONFLICT, "The game is over."),
    "already_resigned": (CONFLICT, "The seat has already resigned."),
    "invalid_seat": (INVALID, "No such seat."),
    "wrong_step": (CONFLICT, "The game is not at a step where this command is played."),
    "already_done": (CONFLICT, "The seat has already said done for this Phase 1 (WC2.1: final)."),
    # who may act
    "system_only": (FORBIDDEN, "Only the system may send this command."),
    "not_seated": (FORBIDDEN, "The acting seat is not a seat of this game."),
    "not_your_turn": (FORBIDDEN, "It is another seat's turn (setup choice, populating, or another cat)."),
    # arguments
    "invalid_kind": (INVALID, "The coin kind must be penny, nickel or dime."),
    "kind_unavailable": (CONFLICT, "Not enough coins of that kind where they are taken from."),
    "invalid_coins": (INVALID, "Coin counts must be three non-negative integers."),
    "not_enough_victims": (INVALID, "The seat does not have these victims to place or eat."),
    "invalid_slot": (INVALID, "A turn-order slot is an integer from 1 to 6."),
    "slot_taken": (CONFLICT, "That slot already holds a cat."),
    "claw_too_weak": (INVALID, "The cat's claw (with what it eats) is too weak for this action (WC2.3)."),
    "invalid_reason": (INVALID, "A default's reason is timeout or resigned."),
}

CODES: Final[dict[str, ErrorKind]] = {code: kind for code, (kind, _meaning) in ERRORS.items()}


def rule_error(code: str, message: str, **details: Any) -> RuleError:
    return RuleError(code, message, kind=CODES[code], **details)


def fail(code: str, message: str, **details: Any) -> NoReturn:
    raise rule_error(code, message, **details)
