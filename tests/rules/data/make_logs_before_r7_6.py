"""How ``logs-before-r7-6.json`` was made: run from a checkout of the engine before R7.6 (commit 04e0a33),
``python tests/rules/data/make_logs_before_r7_6.py OUT.json``. It plays two play-by-web games with the
conformance bots (pauses, votes, resignations, autopilot, hand-overs thrown in) and writes their events as
stored, a digest of the spectator's and seat 0's view after every event, and the final spectator view.
``test_always_goes_on.py`` folds them with today's engine and compares (not run by pytest). At 04e0a33 the
games were played by ``tests.rules.test_absence.WebGame``; the shared harness
(``tests/rules/conformance.py``) plays them the same way today."""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

sys.path.insert(0, ".")

from tests.rules.conformance import Game, Setup
from tests.rules.gc import RULESET
from tests.rules.test_absence import WEB_SPEC

CASES: list[tuple[int, dict[str, Any], int]] = [
    (
        4,
        {
            "deadlines": {"distribute": 30, "choose": 20},
            "pause_by": "vote",
            "fuzz_depth": "short",
            "absence": {"extensions": 1, "autopilot_after": 1},
        },
        11,
    ),
    (
        5,
        {
            "deadlines": {"distribute": 30, "choose": 20},
            "pause_by": "creator",
            "fuzz_depth": "short",
            "payoffs": True,
            "boss_term_limit": 2,
            "warn_before": 5,
        },
        12,
    ),
]
WANTED = {
    "GamePaused",
    "GameResumed",
    "PlayerResigned",
    "AutopilotEngaged",
    "SeatHandedOver",
    "DeadlineExtended",
}


def digest(view: dict[str, Any]) -> str:
    view = {k: v for k, v in view.items() if k != "pause_until"}
    return hashlib.sha256(json.dumps(view, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def main(out: str) -> None:
    games = []
    for n, options, base in CASES:
        for salt in range(base, base + 400):
            game = Game(WEB_SPEC, Setup(n, options, bytes([salt % 256]) * 32, salt), heavy=False)
            game.resign_rate = 0.01
            game.play()
            if {type(e).__name__ for e in game.events} >= WANTED:
                break
        state = RULESET.initial_state()
        views = []
        for event in game.events:
            state = RULESET.evolve(state, event)
            views.append([digest(RULESET.view_for(state, None)), digest(RULESET.view_for(state, 0))])
        final = {k: v for k, v in RULESET.view_for(state, None).items() if k != "pause_until"}
        games.append(
            {"events": [RULESET.event_to_json(e) for e in game.events], "views": views, "final": final}
        )
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"made_by": "main 04e0a33 (before R7.6)", "games": games}, f, separators=(",", ":"))


if __name__ == "__main__":
    main(sys.argv[1])
