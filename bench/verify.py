"""Audit benchmark: the time to verify one finished game's record (docs/AUDIT.md), without the database.

    python bench/verify.py [--repeat 15] [--games 3]

Builds the records of ``--games`` finished 8-player bot games (mixed bots, Payoff rules on, the simulator's
seeds) and of 4-player games for comparison, verifies each ``--repeat`` times with
``games.audit.verify.verify_record`` (the hash chain, the seed, every commitment and random pick, and
every command re-decided by the rules), and prints the median and p90 per game; writes
``bench/results/verify.json``.
Target (2 cores, CPython 3.11): an 8-player game verifies in under 50 ms (median).
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

from games.audit.record import simulated_record  # noqa: E402
from games.audit.verify import verify_record  # noqa: E402
from games.rules.simulate import game_seed  # noqa: E402

TARGET_MS = 50.0


def measure(players: int, games: int, repeat: int) -> dict[str, Any]:
    times: list[float] = []
    events: list[int] = []
    commands: list[int] = []
    for game_no in range(games):
        record = simulated_record(
            players=players, options={"payoffs": True}, seed=game_seed("bench-verify", game_no), salt=game_no
        )
        for _ in range(repeat):
            started = time.perf_counter()
            verdict = verify_record(record)
            times.append((time.perf_counter() - started) * 1000)
            if not verdict.ok:
                raise SystemExit(f"the verifier refused a simulator game: {verdict.text()}")
        events.append(verdict.events)
        commands.append(verdict.commands)
    times.sort()
    return {
        "players": players,
        "games": games,
        "repeat": repeat,
        "median_ms": round(statistics.median(times), 2),
        "p90_ms": round(times[int(0.9 * (len(times) - 1))], 2),
        "events_per_game": round(statistics.mean(events), 1),
        "commands_per_game": round(statistics.mean(commands), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args(argv)
    rows = [measure(8, args.games, args.repeat), measure(4, args.games, args.repeat)]
    for row in rows:
        print(
            f"{row['players']} players, payoffs: median {row['median_ms']:.1f} ms, "
            f"p90 {row['p90_ms']:.1f} ms per game ({row['events_per_game']:.0f} events, "
            f"{row['commands_per_game']:.0f} commands re-decided)"
        )
    eight = rows[0]["median_ms"]
    verdict = "meets" if eight < TARGET_MS else "MISSES"
    print(f"8-player target: < {TARGET_MS:.0f} ms median: {verdict} ({eight:.1f} ms)")
    out = ROOT / "bench" / "results" / "verify.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "benchmark": "verify",
                "python": platform.python_version(),
                "machine": platform.machine(),
                "target_ms_8_players": TARGET_MS,
                "results": rows,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out.relative_to(ROOT)}")
    return 0 if eight < TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
