"""The table's rule errors, each code once with its kind and meaning (codes shared with GoodCritters mean the
same there)."""

from __future__ import annotations

from typing import Any, Final, NoReturn

from games.rules.core import ErrorCode, ErrorKind, RuleError

INVALID, CONFLICT, FORBIDDEN = ErrorKind.INVALID, ErrorKind.CONFLICT, ErrorKind.FORBIDDEN

ERRORS: Final[dict[str, ErrorCode]] = {
    "invalid_command": ErrorCode(
        INVALID, "The command is malformed: unknown type, missing or ill-typed field."
    ),
    "invalid_setup": ErrorCode(INVALID, "The operator's setup is not valid for this game."),
    "not_started": ErrorCode(CONFLICT, "The game has not started."),
    "already_started": ErrorCode(CONFLICT, "The game has already started."),
    "game_over": ErrorCode(CONFLICT, "The game is over."),
    "wrong_step": ErrorCode(CONFLICT, "The game is not waiting for this command now."),
    "no_change": ErrorCode(CONFLICT, "The command would change nothing (already so)."),
    "not_seated": ErrorCode(FORBIDDEN, "You do not have a seat in this game."),
    "system_only": ErrorCode(FORBIDDEN, "Only the system sends this command."),
    "resigned": ErrorCode(FORBIDDEN, "You have resigned from this game: you may only send messages (R7.4)."),
    "action_not_chosen": ErrorCode(CONFLICT, "Make your choice before you say you are ready (R2.4, LT3.3)."),
    "invalid_message": ErrorCode(INVALID, "A message has 1 to 2000 characters, to other seats each once."),
    "paused": ErrorCode(
        CONFLICT, "The game is paused: only messages, resigning, votes and taking back a seat."
    ),
    "not_paused": ErrorCode(CONFLICT, "The game is not paused."),
    "already_paused": ErrorCode(CONFLICT, "The game is already paused."),
    "pause_by_creator": ErrorCode(CONFLICT, "In this game only the creator pauses and resumes."),
    "pause_by_vote": ErrorCode(CONFLICT, "In this game the players pause and resume by vote (VotePause)."),
    "not_on_autopilot": ErrorCode(CONFLICT, "The seat is not on autopilot (or is, for a vote)."),
    "invalid_hand_over": ErrorCode(INVALID, "A seat goes to a bot or to a player new to this game."),
    "not_stalled": ErrorCode(
        CONFLICT,
        "The seat is neither on autopilot nor stalled: a step without a deadline has not waited on it for 7 "
        "days without a move (the table's ruling 13).",
    ),
}


def fail(code: str, message: str, **details: Any) -> NoReturn:
    raise RuleError(code, message, kind=ERRORS[code].kind, **details)
