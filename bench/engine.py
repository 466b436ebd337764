"""Rules-engine benchmark: replay (fold) speed and the time to simulate whole bot games.

    python bench/engine.py [--games 40] [--repeat 5]

Prints events replayed per second (median of ``--repeat`` folds of a corpus of recorded bot games) and the
median time to simulate one full 5-player and one 8-player game with ``sensible`` bots (and with ``mix``
bots, Payoff rules on), then writes the figures as JSON to ``bench/results/engine.json``.
Targets (2 cores, CPython 3.11): replay >= 100,000 events/s; an 8-player bot game < 10 ms (median).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.rules.registry import get_ruleset  # noqa: E402
from games.rules.simulate import game_seed, play_game, strategies_for  # noqa: E402

RULESET = get_ruleset("goodcritters")


def corpus(games: int) -> list[list[Any]]:
    """Event logs of bot games of every size, with and without the Payoff rules."""
    logs = []
    for i in range(games):
        players = 4 + i % 5
        options = RULESET.parse_options({"payoffs": i % 2 == 0})
        record = play_game(
            RULESET,
            players=players,
            strategies=strategies_for("mix", players, i),
            options=options,
            seed=game_seed("bench/corpus", i),
            salt=i,
        )
        logs.append(record.events)
    return logs


def replay_rate(logs: list[list[Any]], repeat: int) -> tuple[float, int]:
    total = sum(len(log) for log in logs)
    rates = []
    for _ in range(repeat):
        started = time.perf_counter()
        for log in logs:
            RULESET.fold(log)
        rates.append(total / (time.perf_counter() - started))
    return statistics.median(rates), total


def game_time_ms(players: int, bot: str, options: dict[str, Any], games: int) -> dict[str, float]:
    parsed = RULESET.parse_options(options)
    times = []
    events = []
    for i in range(games):
        started = time.perf_counter()
        record = play_game(
            RULESET,
            players=players,
            strategies=strategies_for(bot, players, i),
            options=parsed,
            seed=game_seed(f"bench/{players}/{bot}", i),
            salt=i,
        )
        times.append((time.perf_counter() - started) * 1000)
        events.append(len(record.events))
    return {
        "median_ms": round(statistics.median(times), 3),
        "p90_ms": round(sorted(times)[int(len(times) * 0.9)], 3),
        "events_per_game": round(statistics.mean(events), 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per measurement")
    parser.add_argument("--repeat", type=int, default=5, help="folds of the replay corpus")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "engine.json"))
    args = parser.parse_args()

    logs = corpus(args.games)
    rate, total = replay_rate(logs, args.repeat)
    corpus_text = f"{total:,} events, {len(logs)} games"
    print(f"replay: {rate:,.0f} events/s (median of {args.repeat} folds of {corpus_text})")
    results: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "replay_events_per_s": round(rate),
        "replay_corpus_events": total,
        "games": {},
    }
    for players, bot, options in (
        (5, "sensible", {}),
        (8, "sensible", {}),
        (5, "mix", {"payoffs": True}),
        (8, "mix", {"payoffs": True}),
    ):
        figures = game_time_ms(players, bot, options, args.games)
        key = f"{players}p/{bot}" + ("/payoffs" if options else "")
        results["games"][key] = figures
        print(
            f"simulate {key}: median {figures['median_ms']:.2f} ms/game "
            f"(p90 {figures['p90_ms']:.2f} ms, {figures['events_per_game']:.0f} events/game, "
            f"{args.games} games)"
        )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
