"""Every event of every ruleset is told in words by the browser client (``describeEvent`` of
web/src/games/, run in Node): bot games of each ruleset, each event as a player, a spectator and (the game
over) anyone received it, none shown as a bare type name or with a field read wrong ("undefined", "null").
A redacted event (a secret field null) is told without it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from games.audit.record import simulated_record
from games.rules.registry import get_ruleset
from games.rules.simulate import game_seed

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
GAMES = [("goodcritters", 5, {"payoffs": True}), ("loose_triggers", 5, {}), ("were_cats", 4, {})]


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for slug, players, options in GAMES:
        rs = get_ruleset(slug)
        for game_no in range(2):
            seed = game_seed(f"words-{slug}", game_no)
            record = simulated_record(players=players, options=options, seed=seed, salt=game_no, ruleset=slug)
            names = [f"<b>p{s}</b>" for s in range(players)]
            # seat 0 and a spectator while the game runs, then anyone once it is over
            viewers: tuple[tuple[int | None, bool], ...] = ((0, False), (None, False), (None, True))
            for viewer, over in viewers:
                events = []
                for e in record["events"]:
                    shown = rs.redact_event(rs.event_from_json(e["data"]), viewer, terminal=over)
                    events.append({"seq": e["seq"], "event": shown})
                out.append({"ruleset": slug, "names": names, "events": events})
    return out


def test_every_event_is_told_in_words(tmp_path: Path) -> None:
    esbuild = WEB / "node_modules" / ".bin" / "esbuild"
    node = shutil.which("node")
    if node is None or not esbuild.exists():
        pytest.fail("node and web/node_modules are needed: run scripts/web (scripts/test does)")
    bundle = tmp_path / "check-events.mjs"
    subprocess.run(
        [str(esbuild), "src/games/check-events.ts", "--bundle", "--platform=node", "--format=esm",
         "--jsx=automatic", "--jsx-import-source=preact", "--loader:.css=empty", f"--outfile={bundle}"],
        cwd=WEB, check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    runner = tmp_path / "run.mjs"
    runner.write_text(f"globalThis.__CASES__ = {json.dumps(cases())};\nawait import('./check-events.mjs');\n")
    run = subprocess.run([node, str(runner)], check=True, capture_output=True, timeout=120, text=True)
    found = json.loads(run.stdout)
    assert found["bad"] == [], found["bad"][:20]
    told = {t.split(":", 1)[1] for t in found["types"]}
    # the games' own events that bot games reach, at least these, were told
    musts = ("LootDistributed", "RobSucceeded", "Aimed", "BangFired", "Wounded", "CatMade", "VictimTaken")
    assert set(musts) <= told, set(musts) - told
