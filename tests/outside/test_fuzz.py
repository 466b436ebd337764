"""Spec fuzzing: schemathesis (CLI, pinned 4.x) against the running service, over EVERY operation of the
served schema (new endpoints are covered as they appear), authenticated as a seated player, with the
checks for server errors, response-schema conformance and status-code conformance (and the stateful
phase, which follows the schema's links where it has any). ``game_id`` is pinned to a running game the
fuzzing player sits in, so command endpoints reach the rules instead of stopping at 404; ``token_id`` to
a spare token of that player.

The number of examples is bounded for CI (``FUZZ_EXAMPLES``, default 8 per operation); docs/TESTING.md
has the longer run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import HttpPlayer
from .live import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
CHECKS = "all"

# Well-formed requests the service still refuses for what the schema cannot say: the game's state (the rules
# refuse a command that is not allowed now: 409/412/422 with the rule's code), another player's private
# address for a webhook, a seat count a ruleset does not take... Each such code is in the operation's
# documented codes (x-codes); here they count as an acceptable answer to schema-valid data.
POSITIVE_ALSO: dict[str, list[str]] = {
    "games_commands_.*": ["412", "422"],
    "games_(create|join|bots_create|start|leave|cancel|pause|resume|seats_hand_over)": ["422"],
    "(games_list|me_games_list)": ["400"],
    "me_webhooks_(create|update)": ["422"],
    "(players_sign_up|me_update|me_tokens_create)": ["422"],
    "auth_tokens_create": ["422"],
    # a muted game that is not yours, a time zone the machine does not know (docs/NOTIFICATIONS.md)
    "me_notifications_update": ["422"],
    # a mailed link's token that is unknown, used or expired (400 `email_token_invalid`)
    "email_(verify|unsubscribe)": ["400"],
}
DEFAULT_POSITIVE = ["2xx", "3xx", "401", "403", "404", "409", "429"]


def fuzz_config(workdir: Path, *, game_id: int, token_id: int) -> Path:
    config = workdir / "schemathesis.toml"
    lines = [f'[parameters]\n"path.game_id" = {game_id}\n"path.token_id" = {token_id}\n']
    for regex, more in POSITIVE_ALSO.items():
        statuses = ", ".join(f'"{s}"' for s in [*DEFAULT_POSITIVE, *more])
        lines.append(
            f'[[operations]]\ninclude-operation-id-regex = "^{regex}$"\n'
            f"checks.positive_data_acceptance.expected-statuses = [{statuses}]\n"
        )
    # the feed's long-poll answers after up to `wait` (≤ 30) seconds by design
    lines.append(
        '[[operations]]\ninclude-operation-id = "games_events_list"\nchecks.max_response_time = 35.0\n'
    )
    config.write_text("\n".join(lines))
    return config


def run_schemathesis(
    live: LiveServer,
    player: HttpPlayer,
    config: Path,
    *,
    examples: int,
    workdir: Path,
    seed: int,
    phases: str,
) -> subprocess.CompletedProcess[str]:
    cmd = [
        str(SCHEMATHESIS),
        "--config-file",
        str(config),
        "run",
        f"{live.url}/api/schema/",
        "--url",
        live.url,
        "--header",
        f"Authorization: Bearer {player.token}",
        "--checks",
        CHECKS,
        "--phases",
        phases,
        "--max-examples",
        str(examples),
        "--seed",
        str(seed),
        "--workers",
        "2",
        "--request-timeout",
        "30",
        "--suppress-health-check",
        "too_slow,filter_too_much",
        "--report",
        "junit",
        "--report-dir",
        str(workdir / "report"),
        "--output-truncate",
        "false",
        "--no-color",
        # a live Server-Sent-Events stream never ends (and answers a documented 503 under WSGI): it has its
        # own tests; every other operation of the served schema is fuzzed
        "--exclude-operation-id",
        "games_stream",
    ]
    env = dict(os.environ)
    env["SCHEMATHESIS_HOOKS"] = ""
    timeout = int(os.environ.get("FUZZ_TIMEOUT", "900"))
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False, cwd=workdir
    )


def fuzz(
    live: LiveServer, http_players: Callable[[int], list[HttpPlayer]], tmp_path: Path, phases: str
) -> str:
    fuzzer, *others = http_players(4)
    created = fuzzer.post("/api/v1/games", {"seats": 4, "options": {"payoffs": True}})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for other in others:
        assert other.post(f"/api/v1/games/{game_id}/join").status_code == 200
    assert fuzzer.get(f"/api/v1/games/{game_id}/state").json()["game"]["status"] == "running"
    spare = fuzzer.post("/api/v1/me/tokens", {"name": "spare"})
    assert spare.status_code == 201, spare.text

    examples = int(os.environ.get("FUZZ_EXAMPLES", "8"))
    config = fuzz_config(tmp_path, game_id=game_id, token_id=spare.json()["id"])
    proc = run_schemathesis(
        live,
        fuzzer,
        config,
        examples=examples,
        workdir=tmp_path,
        seed=int(os.environ.get("FUZZ_SEED", "1123")),
        phases=phases,
    )
    output = proc.stdout + proc.stderr
    report = os.environ.get("FUZZ_REPORT")
    if report:  # the long run keeps schemathesis' own summary
        Path(report).write_text(output)
    assert proc.returncode == 0, output[-20000:]
    selected = re.search(r"Selected: (\d+)/(\d+)", output)
    tested = re.search(r"Tested: (\d+)", output)
    assert selected, output[-3000:]
    assert tested, output[-3000:]
    # every operation of the served schema but the excluded stream was exercised
    assert int(selected.group(1)) == int(selected.group(2)) - 1 == int(tested.group(1)), output[-3000:]
    # the fuzzing token still works (the spare one may be revoked by the fuzzer)
    assert fuzzer.get("/api/v1/me").status_code == 200
    return output


@pytest.mark.timeout(int(os.environ.get("FUZZ_TIMEOUT", "600")))
def test_schemathesis_finds_nothing_over_every_operation(
    live: LiveServer, http_players: Callable[[int], list[HttpPlayer]], tmp_path: Path
) -> None:
    """Examples from the schema, random fuzzing (positive and negative data) and stateful link-following."""
    output = fuzz(live, http_players, tmp_path, "examples,fuzzing,stateful")
    assert "Stateful" in output


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_schemathesis_coverage_phase_finds_nothing(
    live: LiveServer, http_players: Callable[[int], list[HttpPlayer]], tmp_path: Path
) -> None:
    """The coverage phase: boundary and invalid values derived from every schema constraint (~1 minute)."""
    fuzz(live, http_players, tmp_path, "coverage")
