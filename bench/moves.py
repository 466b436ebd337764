"""What ``acting`` and ``moves`` (issue #24) cost on a state read, against the view itself: random positions
of each game (played by the served moves), each timed per call. Run: ``python bench/moves.py``."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.rules.moves import moves_to_json
from tests import movefill
from tests.rules.test_moves import ANYTIME, T0, _decide, _start

GAMES: list[tuple[str, dict[str, Any], int]] = [
    ("goodcritters", {"payoffs": True}, 5),
    ("goodcritters", {}, 5),
    ("loose_triggers", {"countdown": 30}, 5),
    ("were_cats", {}, 4),
]


def positions(slug: str, options: dict[str, Any], n: int, count: int) -> list[Any]:
    out = []
    for seed in range(count):
        rs, state = _start(slug, options, n, seed)
        rnd = random.Random(seed)
        for _ in range(rnd.randrange(5, 80)):
            if rs.is_terminal(state):
                break
            seat = rnd.randrange(n)
            game = [m for m in moves_to_json(rs.moves(state, seat)) if m["command"] not in ANYTIME]
            if game:
                _, state = _decide(rs, state, movefill.command(rnd.choice(game), rnd), seat, T0)
        if not rs.is_terminal(state):
            out.append((rs, state))
    return out


def per_call(fn: Any, items: list[Any], repeat: int = 20) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        for item in items:
            fn(*item)
    return (time.perf_counter() - start) / (repeat * len(items)) * 1e6


def main() -> None:
    print(f"{'game':32} {'view_for':>9} {'acting':>9} {'moves':>9}  (µs per read, one viewer)")
    for slug, options, n in GAMES:
        pos = positions(slug, options, n, 30)
        items = [(rs, state, seat) for rs, state in pos for seat in range(n)]
        view = per_call(lambda rs, s, seat: rs.view_for(s, seat), items)
        acting = per_call(lambda rs, s, seat: rs.acting(s), items)
        moves = per_call(lambda rs, s, seat: moves_to_json(rs.moves(s, seat)), items)
        label = f"{slug} {options.get('payoffs', '') and 'payoffs'}"
        print(f"{label:32} {view:9.1f} {acting:9.1f} {moves:9.1f}")


if __name__ == "__main__":
    main()
