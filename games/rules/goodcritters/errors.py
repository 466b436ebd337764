"""Rule errors of GoodCritters: stable codes, each with its :class:`~games.rules.core.ErrorKind`.

Messages never name anything of another player's that the caller may not see (R8.3).
"""

from __future__ import annotations

from typing import Any, Final, NoReturn

from games.rules.core import ErrorKind, RuleError

INVALID, CONFLICT, FORBIDDEN = ErrorKind.INVALID, ErrorKind.CONFLICT, ErrorKind.FORBIDDEN

CODES: Final[dict[str, ErrorKind]] = {
    # malformed input
    "invalid_command": INVALID,
    "invalid_setup": INVALID,
    "invalid_players": INVALID,
    # the game's phase
    "not_started": CONFLICT,
    "already_started": CONFLICT,
    "game_over": CONFLICT,
    "wrong_step": CONFLICT,
    "no_change": CONFLICT,
    # who may act
    "not_seated": FORBIDDEN,
    "system_only": FORBIDDEN,
    "player_only": FORBIDDEN,
    "resigned": FORBIDDEN,
    "not_boss": FORBIDDEN,
    "not_your_trade": FORBIDDEN,
    # Step 2
    "invalid_distribution": INVALID,
    # Step 3
    "invalid_action": INVALID,
    "invalid_seat": INVALID,
    "cannot_threaten_self": INVALID,
    "no_threat": CONFLICT,
    "action_not_chosen": CONFLICT,
    # payoffs, gifts, trades
    "payoffs_off": INVALID,
    "invalid_token": INVALID,
    "invalid_side": INVALID,
    "invalid_visibility": INVALID,
    "cannot_pay_self": INVALID,
    "empty_bundle": INVALID,
    "card_not_in_stash": INVALID,
    "duplicate_card": INVALID,
    "not_enough_payoff_cards": INVALID,
    "token_not_placed": CONFLICT,
    "cannot_gift_self": INVALID,
    "empty_gift": INVALID,
    "cannot_trade_self": INVALID,
    "empty_trade": INVALID,
    "invalid_values": INVALID,
    "invalid_count": INVALID,
    "no_such_trade": CONFLICT,
    "trade_mismatch": INVALID,
    "too_many_trades": CONFLICT,
    # talk
    "invalid_message": INVALID,
    # play by web: absent players, pause
    "paused": CONFLICT,
    "not_paused": CONFLICT,
    "already_paused": CONFLICT,
    "pause_by_creator": CONFLICT,
    "pause_by_vote": CONFLICT,
    "not_on_autopilot": CONFLICT,
    "invalid_hand_over": INVALID,
}


def rule_error(code: str, message: str, **details: Any) -> RuleError:
    return RuleError(code, message, kind=CODES[code], **details)


def fail(code: str, message: str, **details: Any) -> NoReturn:
    raise rule_error(code, message, **details)
