"""Rule errors of GoodCritters: stable codes, each with its :class:`~games.rules.core.ErrorKind`.

Messages never name anything of another player's that the caller may not see (R8.3).
"""

from __future__ import annotations

from typing import Any, Final, NoReturn

from games.rules.core import ErrorCode, ErrorKind, RuleError

INVALID, CONFLICT, FORBIDDEN = ErrorKind.INVALID, ErrorKind.CONFLICT, ErrorKind.FORBIDDEN

ERRORS: Final[dict[str, ErrorCode]] = {
    # malformed input
    "invalid_command": ErrorCode(
        INVALID,
        "The command's JSON is malformed (unknown type, missing, unknown or ill-typed field).",
    ),
    "invalid_setup": ErrorCode(
        INVALID,
        "An operator's setup (seats, Stashes, pile, Boss) is not a valid deal.",
    ),
    "invalid_players": ErrorCode(
        INVALID,
        "The start names fewer than 4 or more than 8 players, or the same player twice (R1.1).",
    ),
    # the game's phase
    "not_started": ErrorCode(
        CONFLICT,
        "The game has not started yet.",
    ),
    "already_started": ErrorCode(
        CONFLICT,
        "The game has already started.",
    ),
    "game_over": ErrorCode(
        CONFLICT,
        "The game is over: nothing more can be played.",
    ),
    "wrong_step": ErrorCode(
        CONFLICT,
        "The game is not in a step where this is allowed (`details.step`: the current step).",
    ),
    "no_change": ErrorCode(
        CONFLICT,
        "This changes nothing (the marker is already there, the ready flag already so, already voted).",
    ),
    # who may act
    "not_seated": ErrorCode(
        FORBIDDEN,
        "You have no seat in this game.",
    ),
    "system_only": ErrorCode(
        FORBIDDEN,
        "Only the system (timers, the creator's tools) sends this command.",
    ),
    "player_only": ErrorCode(
        FORBIDDEN,
        "Only a seated player sends this command.",
    ),
    "not_boss": ErrorCode(
        FORBIDDEN,
        "Only the Boss may do this (distribute the Loot, R2.2).",
    ),
    "not_your_trade": ErrorCode(
        FORBIDDEN,
        "The trade offer is not made to you (accept, decline) or not yours (withdraw).",
    ),
    # Step 2
    "invalid_distribution": ErrorCode(
        INVALID,
        "The shares must hand out every face-up card exactly once, one share per seat (R2.2).",
    ),
    # Step 3
    "invalid_action": ErrorCode(
        INVALID,
        "Not an Action card (guard, rob, skim, vote_no, vote_yes).",
    ),
    "invalid_seat": ErrorCode(
        INVALID,
        "No such seat in this game.",
    ),
    "cannot_threaten_self": ErrorCode(
        INVALID,
        "The Threat marker goes in front of another seat (R2.3).",
    ),
    "no_threat": ErrorCode(
        CONFLICT,
        "You have no Threat marker placed.",
    ),
    # payoffs, gifts, trades
    "payoffs_off": ErrorCode(
        INVALID,
        "The Payoff rules are off in this game (option `payoffs`).",
    ),
    "invalid_token": ErrorCode(
        INVALID,
        "A Payoff token is 0 or 1 (R6.1).",
    ),
    "invalid_side": ErrorCode(
        INVALID,
        "A Payoff token's side is yes or no (R6.1).",
    ),
    "invalid_visibility": ErrorCode(
        INVALID,
        "A bundle is open, peek or hidden (R6.2).",
    ),
    "cannot_pay_self": ErrorCode(
        INVALID,
        "A Payoff goes in front of another seat (R6.1).",
    ),
    "empty_bundle": ErrorCode(
        INVALID,
        "A bundle needs at least one Loot card or Payoff card.",
    ),
    "card_not_in_stash": ErrorCode(
        INVALID,
        "A card named is not in your Stash (`details.card`).",
    ),
    "duplicate_card": ErrorCode(
        INVALID,
        "The same card is named twice.",
    ),
    "not_enough_payoff_cards": ErrorCode(
        INVALID,
        "You do not have that many Payoff cards.",
    ),
    "token_not_placed": ErrorCode(
        CONFLICT,
        "That Payoff token is not on the table.",
    ),
    "cannot_gift_self": ErrorCode(
        INVALID,
        "A gift goes to another seat (R6.4).",
    ),
    "empty_gift": ErrorCode(
        INVALID,
        "A gift needs at least one Loot card or Payoff card.",
    ),
    "cannot_trade_self": ErrorCode(
        INVALID,
        "A trade is offered to another seat (R6.4).",
    ),
    "empty_trade": ErrorCode(
        INVALID,
        "A trade gives at least one card and wants at least one card.",
    ),
    "invalid_values": ErrorCode(
        INVALID,
        "Wanted Loot values must be values Loot cards have.",
    ),
    "invalid_count": ErrorCode(
        INVALID,
        "A number of cards is negative.",
    ),
    "no_such_trade": ErrorCode(
        CONFLICT,
        "No open trade with this id (it was accepted, declined, withdrawn or lapsed).",
    ),
    "trade_mismatch": ErrorCode(
        INVALID,
        "The cards named do not match the trade's wanted values.",
    ),
    "too_many_trades": ErrorCode(
        CONFLICT,
        "You already have the most open trade offers allowed.",
    ),
    # talk
    # play by web: absent players, pause
}
"""Every code the rules raise, once: its kind (the HTTP status, ``critters_api.problems``) and meaning.
``tests/rules/test_error_catalogue.py`` walks the rules for raised codes missing here."""

CODES: Final[dict[str, ErrorKind]] = {code: entry.kind for code, entry in ERRORS.items()}


def rule_error(code: str, message: str, **details: Any) -> RuleError:
    return RuleError(code, message, kind=CODES[code], **details)


def fail(code: str, message: str, **details: Any) -> NoReturn:
    raise rule_error(code, message, **details)
