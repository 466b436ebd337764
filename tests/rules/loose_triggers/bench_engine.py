"""Loose Triggers engine benchmark, in the style of bench/engine.py (not collected by pytest):

    .venv/bin/python -m tests.rules.loose_triggers.bench_engine [--games 40] [--repeat 5]

Prints events replayed per second (median of ``--repeat`` folds of a corpus of bot games of 4-8 players) and
the median time to simulate one full 8-player game with ``sensible``, ``random`` and mixed bots.
Targets (issue 15): replay >= 100,000 events/s; an 8-player bot game < 10 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from games.rules.loose_triggers.evolve import fold
from games.rules.loose_triggers.simulate import play

MIXED = ["sensible", "random"] * 4


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    logs = [play(4 + i % 5, i.to_bytes(32, "big"), MIXED)[0] for i in range(args.games)]
    total = sum(len(log) for log in logs)
    rates = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        for log in logs:
            fold(log)
        rates.append(total / (time.perf_counter() - started))
    print(f"replay: {statistics.median(rates):,.0f} events/s ({total} events, {args.games} games)")
    for name, strategies in (("sensible", ["sensible"] * 8), ("random", ["random"] * 8), ("mixed", MIXED)):
        times, sizes = [], []
        for i in range(args.games):
            started = time.perf_counter()
            events, _ = play(8, (1000 + i).to_bytes(32, "big"), strategies)
            times.append((time.perf_counter() - started) * 1000)
            sizes.append(len(events))
        print(
            f"8-player {name} bot game: median {statistics.median(times):.2f} ms "
            f"(mean {statistics.mean(times):.2f} ms, median {statistics.median(sizes):.0f} events)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
