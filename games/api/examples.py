"""OpenAPI examples for the games API."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample

_GAME_VALUE: dict[str, Any] = {
    "id": 42,
    "name": "Friday heist",
    "ruleset": "goodcritters",
    "status": "open",
    "creator": "bonnie",
    "seats": 5,
    "taken": 3,
    "players": [
        {"seat": 0, "player": "bonnie", "display_name": "Bonnie", "bot": None},
        {"seat": 1, "player": None, "display_name": "Bot 1 (sensible)", "bot": "sensible"},
        {"seat": 2, "player": "louie", "display_name": "louie", "bot": None},
    ],
    "your_seat": 0,
    "options": {
        "payoffs": False,
        "boss_term_limit": None,
        "fuzz_depth": "standard",
        "no_vote_rule": "english",
        "shuffle_seats": False,
        "timeout_action": "none",
        "deadlines": {"distribute": 3600, "choose": 3600},
    },
    "allow_spectators": True,
    "fair": True,
    "version": 0,
    "waiting_step": None,
    "deadline_at": None,
    "created_at": "2026-11-22T16:00:00Z",
    "started_at": None,
    "ended_at": None,
}

GAME = OpenApiExample("game", value=_GAME_VALUE, response_only=True)
GAME_LIST = OpenApiExample(
    "page of games",
    value={
        "next": "https://example.org/api/v1/games?cursor=cD0yMDI2",
        "previous": None,
        "results": [_GAME_VALUE],
    },
    response_only=True,
)
GAME_CREATE = OpenApiExample(
    "five seats, two bots",
    value={
        "name": "Friday heist",
        "seats": 5,
        "options": {"deadlines": {"distribute": 3600, "choose": 3600}},
        "bots": ["sensible", "random"],
    },
    request_only=True,
)

VIEWER_STATE = OpenApiExample(
    "viewer state",
    value={
        "game": {**_GAME_VALUE, "status": "running", "taken": 5, "version": 12, "waiting_step": "choose"},
        "version": 12,
        "viewer": 0,
        "state": {
            "ruleset": "goodcritters",
            "started": True,
            "over": False,
            "round": 1,
            "boss": 0,
            "step": "choose",
            "seats": [
                {
                    "seat": 0,
                    "player": "p7",
                    "stash_size": 4,
                    "stash_value": 14000,
                    "chosen": False,
                    "ready": False,
                    "action": None,
                }
            ],
            "table": [{"id": 17, "value": 3000, "type": "gems"}],
            "pile_size": 112,
        },
        "legal_commands": ["ChooseAction", "PlaceThreat", "Resign", "SendMessage"],
        "waiting": {
            "step_no": 2,
            "step": "choose",
            "seats": [0, 2],
            "due_at": "2026-11-22T17:00:00Z",
            "you": True,
        },
        "over": False,
        "scores": None,
    },
    response_only=True,
)

FEED = OpenApiExample(
    "feed",
    value={
        "events": [
            {
                "seq": 3,
                "created_at": "2026-11-22T16:01:00Z",
                "hash": None,
                "event": {
                    "type": "LootRevealed",
                    "v": 1,
                    "round": 1,
                    "cards": [17, 88, 5, 120, 63, 31, 2],
                    "extra": False,
                },
            },
            {
                "seq": 4,
                "created_at": "2026-11-22T16:01:00Z",
                "hash": None,
                "event": {
                    "type": "ActionChosen",
                    "v": 1,
                    "seat": 2,
                    "action": None,
                    "commitment": "9f2c…",
                    "commit_no": 1,
                    "unready": [],
                },
            },
        ],
        "next_after": 4,
        "version": 4,
        "more": False,
        "over": False,
        "head_hash": None,
    },
    response_only=True,
)

COMMAND_EXAMPLES: dict[str, dict[str, Any]] = {
    "DistributeLoot": {"shares": [[17, 88], [5], [120, 63], [31], [2]]},
    "ChooseAction": {"action": "vote_yes"},
    "PlaceThreat": {"target": 3},
    "RemoveThreat": {},
    "SetReady": {"ready": True},
    "OfferPayoff": {
        "token": 0,
        "side": "yes",
        "target": 2,
        "loot": [17],
        "visibility": "peek",
        "payoff_cards": 1,
    },
    "WithdrawPayoff": {"token": 0},
    "GiveGift": {"to": 1, "loot": [], "payoff_cards": 2},
    "OfferTrade": {"to": 1, "give_loot": [17], "give_payoff": 0, "want_values": [], "want_payoff": 3},
    "AcceptTrade": {"trade_id": 1, "loot": []},
    "DeclineTrade": {"trade_id": 1},
    "WithdrawTrade": {"trade_id": 1},
    "Resign": {},
    "SendMessage": {"text": "Vote yes and I'll guard you.", "to": [2]},
}
