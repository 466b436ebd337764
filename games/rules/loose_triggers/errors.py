"""Rule errors of Loose Triggers: every stable code once, with its kind and a one-line meaning."""

from __future__ import annotations

from typing import Any, Final, NoReturn

from games.rules.core import ErrorKind, RuleError

INVALID, CONFLICT, FORBIDDEN = ErrorKind.INVALID, ErrorKind.CONFLICT, ErrorKind.FORBIDDEN

CATALOGUE: Final[dict[str, tuple[ErrorKind, str]]] = {
    "invalid_command": (INVALID, "the command is malformed (unknown type, missing or ill-typed field)"),
    "invalid_setup": (INVALID, "the operator's setup is not a valid seat order, Loot deck or Bagman"),
    "invalid_players": (INVALID, "the number of players is not 4 to 8, or a player is listed twice"),
    "not_started": (CONFLICT, "the game has not started"),
    "already_started": (CONFLICT, "the game has already started"),
    "game_over": (CONFLICT, "the game is over"),
    "wrong_step": (CONFLICT, "the game is not waiting for this command now"),
    "stale_step": (CONFLICT, "the step to close is not the current one"),
    "aim_window": (
        CONFLICT,
        "the aim window before the give is open: the Bagman gives once it closes (LT2.5)",
    ),
    "system_only": (FORBIDDEN, "only the system may send this command"),
    "player_only": (FORBIDDEN, "only a seated player may send this command"),
    "not_seated": (FORBIDDEN, "the seat is not at this table"),
    "dead": (FORBIDDEN, "a dead player takes no part (LT5)"),
    "not_bagman": (FORBIDDEN, "only the Bagman gives Loot (LT2.2)"),
    "not_your_choice": (FORBIDDEN, "another player makes this choice (LT4.1, LT4.2)"),
    "not_a_gunner": (FORBIDDEN, "only a Gunner with cards chooses an Action (LT3.3)"),
    "resigned": (FORBIDDEN, "a resigned seat only plays the defaults (LT7.3)"),
    "already_resigned": (CONFLICT, "the seat has already resigned"),
    "already_voted": (CONFLICT, "the seat has already voted (LT5.4)"),
    "invalid_seat": (INVALID, "no such living seat"),
    "invalid_slot": (INVALID, "no displayed card at that slot"),
    "invalid_target": (INVALID, "a player cannot aim at themselves, or at their current target (LT3.2)"),
    "already_opened": (CONFLICT, "the player opened a Discussion during this display already (LT3.6)"),
    "counter_locked": (CONFLICT, "the Counter cannot change target (LT3.2)"),
    "too_many_retargets": (CONFLICT, "the Gunner has used every change of target (LT3.2)"),
    "card_not_in_hand": (INVALID, "the card is not in the player's hand"),
    "card_not_in_stack": (INVALID, "the card is not in that Loot stack"),
    "not_in_the_fire": (INVALID, "BurnLoot needs an IN THE FIRE! card (LT4.5)"),
    "discussion_running": (CONFLICT, "not while a Discussion runs (LT4.5)"),
    "invalid_loot": (INVALID, "BurnLoot needs two different Loot cards of the player's own stack (LT4.5)"),
    "invalid_sources": (INVALID, "a Grab takes exactly three sources, display slots at most once (LT4.2)"),
    "invalid_candidate": (INVALID, "the candidate is not a living, not resigned player (LT5.4, LT7.3)"),
}
CODES: Final[dict[str, ErrorKind]] = {code: kind for code, (kind, _meaning) in CATALOGUE.items()}


def rule_error(code: str, message: str, **details: Any) -> RuleError:
    return RuleError(code, message, kind=CODES[code], **details)


def fail(code: str, message: str, **details: Any) -> NoReturn:
    raise rule_error(code, message, **details)
