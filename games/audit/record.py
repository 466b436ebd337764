"""Building records (docs/AUDIT.md) without the database: the shared assembly used by the server's export
(``games.audit.export``), and records of simulator games, used by the tests, the benchmark and the worked
example in ``docs/examples/``. Pure: no Django.

    python -m games.audit.record [--ruleset SLUG] --players 4 --seed example --option payoffs=true \
        --out RECORD.json

plays one bot game with the simulator (``games.rules.simulate.play_game``, the same seeds and bots) and
writes its record, as the server would export it for a game whose every seat is a bot.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from games.rules.core import Context, Ruleset
from games.rules.registry import RULESETS, get_ruleset
from games.rules.simulate import EPOCH, _parse_option, game_seed, play_game, strategies_for

from . import public
from .verify import FORMAT, FORMAT_VERSION, GENESIS_HASH, event_hash, played_under


@dataclass(frozen=True, slots=True)
class Batch:
    """What one command appended: the command's JSON (with ``seat``), its time, id and actor, the events."""

    command: dict[str, Any]
    created_at: str
    command_id: str
    actor: int | None
    events: list[dict[str, Any]]


def simulated_salt(seed: str, seq: int) -> str:
    """The salt of event ``seq``'s seal in a record the simulator makes (public chain 2): the server draws
    each at random; the simulator derives them from the game's seed (hex) so that its records are the same
    on every run: the first 16 bytes of SHA-256(seed || "seal/{seq}")."""
    return hashlib.sha256(bytes.fromhex(seed) + f"seal/{seq}".encode()).hexdigest()[: public.SALT_HEX]


def chain(
    game_id: int, batches: Sequence[Batch], ruleset: str, *, public_chain: int = 2
) -> list[dict[str, Any]]:
    """The record's events for ``batches`` of a game of ``ruleset`` (a registered slug: its spectator's view
    makes the public chain), numbered and hash-chained (both chains) exactly as the event store does, under
    ``public_chain`` 2 (each event's seal salted by :func:`simulated_salt`) or 1 (records made before)."""
    out: list[dict[str, Any]] = []
    prev = prev_public = GENESIS_HASH
    seed = batches[0].events[0].get("seed") if batches and batches[0].events else None
    for batch in batches:
        for k, data in enumerate(batch.events):
            event: dict[str, Any] = {
                "seq": len(out) + 1,
                "type": data["type"],
                "schema_version": data["v"],
                "data": data,
                "created_at": batch.created_at,
                "command_id": batch.command_id,
                "actor": batch.actor,
                "command": batch.command if k == 0 else None,
                "prev_hash": prev,
            }
            event["hash"] = prev = event_hash(game_id, event)
            if public_chain >= 2:
                event["salt"] = simulated_salt(seed or "", event["seq"])
            event["public_hash"] = prev_public = public.chain_hash(ruleset, game_id, event, prev_public)
            out.append(event)
    return out


def assemble(
    game: Mapping[str, Any], seats: Sequence[Mapping[str, Any]], events: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The record (unsigned): ``game`` (id, name, ruleset, ruleset_version, options, fair, status, times),
    ``seats`` (seat, its holders over time, and the last holder's uid, player_id, player, display_name, bot)
    and the events (with both chains' hashes); the seed and its commitment are read from the first event (the
    caller makes sure the game is over)."""
    first = events[0]["data"] if events else {}
    # format 3: the events are under public chain 2 (each has its seal's salt); format 2: public chain 1
    sealed = bool(events) and all("salt" in e for e in events)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION if sealed else 2,
        # the game's ruleset again, at the top (a copy of ``game.ruleset``): a typed client narrows the
        # record's events and commands by it; records made before it was added have no such key
        **({"ruleset": game["ruleset"]} if "ruleset" in game else {}),
        "game": dict(game),
        "seats": [dict(s) for s in seats],
        "seed": first.get("seed"),
        "seed_commitment": first.get("seed_commitment"),
        "head_hash": events[-1]["hash"] if events else GENESIS_HASH,
        "public_head_hash": events[-1]["public_hash"] if events else GENESIS_HASH,
        "events": [dict(e) for e in events],
    }


def holders_from_log(events: Sequence[Mapping[str, Any]]) -> list[list[tuple[int, str]]]:
    """Who held each seat over time, as the log says: ``[(from_seq, uid), ...]`` per seat, from
    ``GameStarted.players`` (seq 1) and each ``SeatHandedOver`` (its own seq)."""
    if not events or events[0]["type"] != "GameStarted":
        return []
    out: list[list[tuple[int, str]]] = [[(1, uid)] for uid in events[0]["data"]["players"]]
    for event in events:
        if event["type"] == "SeatHandedOver":
            out[event["data"]["seat"]].append((event["seq"], event["data"]["player"]))
    return out


def seat_entries(events: Sequence[Mapping[str, Any]], who: Any) -> list[dict[str, Any]]:
    """The record's ``seats`` from the log's holders; ``who(uid)`` gives a holder's ``player_id``, ``player``,
    ``display_name`` and ``bot``."""
    seats = []
    for position, held in enumerate(holders_from_log(events)):
        holders = [{"from_seq": since, "uid": uid, **who(uid)} for since, uid in held]
        last = holders[-1]
        seats.append(
            {"seat": position, **{k: v for k, v in last.items() if k != "from_seq"}, "holders": holders}
        )
    return seats


def _stored_command(rs: Ruleset[Any], command: Any) -> dict[str, Any]:
    return {**rs.command_to_json(command), "seat": getattr(command, "seat", None)}


def simulated_record(
    *,
    players: int,
    options: Mapping[str, Any] | None = None,
    seed: bytes,
    salt: int = 0,
    strategies: Sequence[str] | None = None,
    game_id: int = 1,
    name: str = "",
    ruleset: str = "goodcritters",  # the command line's default (the worked example's game); any registered
) -> dict[str, Any]:
    """Play a bot game of ``ruleset`` with the simulator and return its record. The simulator's commands are
    re-applied one by one to cut the log into batches (at the simulator's clock: its epoch, and one second
    past the due time for an expired deadline), and the result is checked against the simulator's own log."""
    rs = get_ruleset(ruleset)
    parsed = rs.parse_options(dict(options or {}))
    chosen = list(strategies or strategies_for("mix", players, salt))
    game = play_game(
        rs, players=players, strategies=chosen, options=parsed, seed=seed, salt=salt, keep_commands=True
    )
    state = rs.initial_state()
    batches: list[Batch] = []
    expire = rs.expire_command(0).TYPE
    for n, command in enumerate(game.commands):
        now = EPOCH
        if expire == command.TYPE:
            waiting = rs.waiting(state)
            if waiting is None or waiting.due_at is None:
                raise RuntimeError("the simulator expired a deadline the game does not have")
            now = waiting.due_at + timedelta(seconds=1)
        events = rs.decide(state, command, Context(now=now))
        state = rs.fold(events, state)
        batches.append(
            Batch(
                _stored_command(rs, command),
                now.isoformat(),
                f"sim:{n}",
                None,
                [rs.event_to_json(e) for e in events],
            )
        )
    replayed = [data for b in batches for data in b.events]
    if replayed != [rs.event_to_json(e) for e in game.events]:
        raise RuntimeError("re-applying the simulator's commands did not give the simulator's log")
    chained = chain(game_id, batches, rs.slug)
    started = chained[0]["data"]
    meta = {
        "id": game_id,
        "name": name,
        "ruleset": rs.slug,
        "ruleset_version": played_under(rs, started),
        "options": rs.options_to_json(parsed),
        "fair": started["fair"],
        "status": "over",
        "created_at": chained[0]["created_at"],
        "started_at": chained[0]["created_at"],
        "ended_at": chained[-1]["created_at"],
    }
    join_order = [f"bot{s}" for s in range(players)]

    def who(uid: str) -> dict[str, Any]:
        index = join_order.index(uid)
        return {
            "player_id": None,
            "player": None,
            "display_name": f"Bot {index} ({chosen[index]})",
            "bot": chosen[index],
        }

    return assemble(meta, seat_entries(chained, who), chained)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.audit.record", description=__doc__.split("\n")[0])
    parser.add_argument("--ruleset", default="goodcritters", choices=sorted(RULESETS))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--seed", default="example", help="game i's seed is SHA-256(SEED/i), as the simulator's"
    )
    parser.add_argument(
        "--game", type=int, default=0, help="the simulator's game number i (also the bot salt)"
    )
    parser.add_argument("--bot", choices=("sensible", "random", "mix"), default="mix")
    parser.add_argument("--option", action="append", default=[], type=_parse_option, metavar="KEY=VALUE")
    parser.add_argument("--name", default="")
    parser.add_argument("--out", help="write here (default: stdout)")
    args = parser.parse_args(argv)
    record = simulated_record(
        players=args.players,
        options=dict(args.option),
        seed=game_seed(args.seed, args.game),
        salt=args.game,
        strategies=strategies_for(args.bot, args.players, args.game),
        name=args.name,
        ruleset=args.ruleset,
    )
    text = json.dumps(record, indent=1, ensure_ascii=False) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
