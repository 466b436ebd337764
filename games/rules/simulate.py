"""Play bot games and print a summary.

    python -m games.rules.simulate --games 1000 --players 5 [--bot sensible|random|mix]
        [--option key=value ...] [--seed S] [--ruleset goodcritters]

``--option`` values are JSON (``--option payoffs=true --option fuzz_depth='[0.25,0.5]'``); a value that is
not JSON is taken as a string (``--option no_vote_rule=russian``). Deadlines: ``--option
deadlines='{"choose": 60}'``. Game ``i`` uses the seed SHA-256(S || i) and bot salt i, so runs repeat.
The progress bar goes to stderr, the summary to stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from games.rules.core import Context, Event, RuleError, Ruleset
from games.rules.registry import get_ruleset

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
BOTS = ("sensible", "random", "mix")


@dataclass
class GameRecord:
    """One finished bot game: its events, final state, rounds and scores."""

    events: list[Event]
    state: Any
    scores: Sequence[int]
    commands: list[Any] = field(default_factory=list)


def strategies_for(bot: str, players: int, game_no: int) -> list[str]:
    if bot == "mix":  # alternate seats, shifted per game so every seat plays both
        return ["sensible" if (seat + game_no) % 2 else "random" for seat in range(players)]
    return [bot] * players


def game_seed(seed: str, game_no: int) -> bytes:
    return hashlib.sha256(f"{seed}/{game_no}".encode()).digest()


def play_game(
    ruleset: Ruleset[Any],
    *,
    players: int,
    strategies: Sequence[str],
    options: Any,
    seed: bytes,
    salt: int,
    keep_commands: bool = False,
    max_commands: int = 200_000,
    on_command: Callable[[Any, Any, list[Event]], None] | None = None,
) -> GameRecord:
    """Play one game with bots until it ends. When every bot passes and the game still waits, the step's
    deadline is expired (a time later than any deadline); a game that cannot move raises RuntimeError."""
    now = EPOCH
    ctx = Context(now=now)
    state = ruleset.initial_state()
    names = [f"bot{seat}" for seat in range(players)]
    start = ruleset.start_command(players=names, creator=names[0], options=options, seed=seed)
    step = getattr(ruleset, "step", None)  # decide + evolve in one go, when the ruleset offers it

    def apply(state: Any, command: Any) -> tuple[Any, list[Event]]:
        if step is not None:
            events, new_state = step(state, command, ctx)
            return new_state, events
        events = ruleset.decide(state, command, ctx)
        return ruleset.fold(events, state), events

    state, log = apply(state, start)
    commands: list[Any] = [start] if keep_commands else []
    count = 0
    while not ruleset.is_terminal(state):
        moved = False
        for seat in range(players):
            command = ruleset.bot_command(state, seat, strategy=strategies[seat], salt=salt)
            if command is None:
                continue
            before = state
            state, events = apply(state, command)
            log.extend(events)
            if keep_commands:
                commands.append(command)
            if on_command is not None:
                on_command(before, command, events)
            moved = True
            count += 1
            if count > max_commands:
                raise RuntimeError("the bots did not finish the game")
            if ruleset.is_terminal(state):
                break
        if not moved and not ruleset.is_terminal(state):
            waiting = ruleset.waiting(state)
            if waiting is None or waiting.due_at is None:
                raise RuntimeError("the game waits and no bot moves")
            late = Context(now=waiting.due_at + timedelta(seconds=1))
            command = ruleset.expire_command(waiting.step_no)
            events = ruleset.decide(state, command, late)
            state = ruleset.fold(events, state)
            log.extend(events)
            if keep_commands:
                commands.append(command)
    scores = ruleset.scores(state) or ()
    return GameRecord(events=log, state=state, scores=scores, commands=commands)


def _parse_option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--option wants key=value, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _progress(done: int, total: int, started: float) -> None:
    width = 30
    filled = width * done // max(total, 1)
    rate = done / max(time.perf_counter() - started, 1e-9)
    bar = "#" * filled + "-" * (width - filled)
    sys.stderr.write(f"\r[{bar}] {done}/{total} games  {rate:,.0f} games/s")
    sys.stderr.flush()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.rules.simulate", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--bot", choices=BOTS, default="sensible")
    parser.add_argument("--option", action="append", default=[], type=_parse_option, metavar="KEY=VALUE")
    parser.add_argument("--seed", default="simulate")
    parser.add_argument("--ruleset", default="goodcritters")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    ruleset = get_ruleset(args.ruleset)
    low, high = ruleset.seat_range()
    if not low <= args.players <= high:
        parser.error(f"--players must be from {low} to {high}")
    try:
        options = ruleset.parse_options(dict(args.option))
    except RuleError as exc:
        parser.error(exc.message)
    wins = [0.0] * args.players
    totals = [0] * args.players
    rounds = 0
    events = 0
    started = time.perf_counter()
    for game_no in range(args.games):
        record = play_game(
            ruleset,
            players=args.players,
            strategies=strategies_for(args.bot, args.players, game_no),
            options=options,
            seed=game_seed(args.seed, game_no),
            salt=game_no,
        )
        events += len(record.events)
        rounds += getattr(record.state, "round", 0)
        best = max(record.scores)
        winners = [s for s, score in enumerate(record.scores) if score == best]
        for seat, score in enumerate(record.scores):
            totals[seat] += score
        for seat in winners:
            wins[seat] += 1 / len(winners)
        if not args.quiet and (game_no % 10 == 0 or game_no == args.games - 1):
            _progress(game_no + 1, args.games, started)
    elapsed = time.perf_counter() - started
    if not args.quiet:
        sys.stderr.write("\n")
    games = max(args.games, 1)
    shown = json.dumps(dict(args.option))
    print(f"games: {args.games}  players: {args.players}  bots: {args.bot}  options: {shown}")
    print(f"time: {elapsed:.2f} s  games/s: {args.games / elapsed:,.1f}  events/game: {events / games:,.1f}")
    print(f"average rounds: {rounds / games:.2f}")
    print("seat  win share  average score")
    for seat in range(args.players):
        print(f"{seat:>4}  {wins[seat] / games:>9.3f}  {totals[seat] / games:>13,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
