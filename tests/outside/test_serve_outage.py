"""R7.7 under the README's serve command: PostgreSQL stopped for 60 s during play (issue #26, item 2).

``scripts/serve`` (supervisor, gunicorn with uvicorn workers, the Celery worker and beat, PRODUCTION settings)
on a private PostgreSQL and Redis. Games of all three rulesets run with short deadlines that only the timers
apply (each has one seat whose player never acts, and bots in the others), while a prober reads every game a
few times a second, as players' clients do. Then PostgreSQL is stopped for 60 s.

R7.7: nobody loses a step because the service was down. Every deadline that fell due during the outage is
extended (an outage ``DeadlineExtended`` in the record) before any default is played, whoever reaches the
game first when the database is back: the prober's requests (which used to play the defaults at once) or the
sweeper. After the grace the games go on, and every record's chain verifies.

``DEADLINE_OUTAGE_AFTER`` is 45 s here (60 s by default), so that a 60-second outage is one with a margin
whatever the phase of the sweeps; the grace is 15 s, so that the games visibly go on after it."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from .conftest import HttpPlayer, sign_up
from .private import PrivatePostgres, PrivateRedis, private_postgres, verify_chain
from .test_serve_faults import Serve, log_tails, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

PG_DOWN = 60.0
GRACE = 15
NO_ABSENCE = {"extensions": 0, "autopilot_after": None}
GAMES: dict[str, dict[str, Any]] = {
    "goodcritters": {
        "deadlines": {"distribute": 3, "choose": 3},
        "absence": NO_ABSENCE,
        "fuzz_depth": "long",
    },
    "loose_triggers": {
        "deadlines": {"give": 3, "choose": 3, "pick": 3},
        "countdown": 3,
        "absence": NO_ABSENCE,
    },
    "were_cats": {"deadlines": {"setup": 3, "place": 3, "populate": 3, "act": 3}, "absence": NO_ABSENCE},
}


@dataclass
class Outage:
    pg: PrivatePostgres
    games: dict[str, int]
    waiting: dict[int, datetime]  # game -> its deadline when the database went down
    down_at: datetime
    up_at: datetime
    logs: str


class Prober(threading.Thread):
    """Reads every game's state a few times a second, errors and all (503 while the database is down)."""

    def __init__(self, player: HttpPlayer, games: list[int]) -> None:
        super().__init__(daemon=True)
        self.player, self.games, self.stop = player, games, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            for game_id in self.games:
                with contextlib.suppress(httpx.HTTPError):
                    self.player.get(f"/api/v1/games/{game_id}/state", timeout=5)
            time.sleep(0.1)


def events(pg: PrivatePostgres, game_id: int) -> list[tuple[str, dict[str, Any], datetime]]:
    rows = pg.query(
        "SELECT type, data, created_at FROM games_event WHERE game_id = %s ORDER BY seq", (game_id,)
    )
    return [(kind, data, at) for kind, data, at in rows]


@pytest.fixture(scope="module")
def outage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Outage]:
    tmp = tmp_path_factory.mktemp("serve-outage")
    redis = PrivateRedis(tmp)
    redis.start()
    with private_postgres(tmp) as pg:
        serve = Serve(tmp, pg, redis)
        serve.env.update(DEADLINE_OUTAGE_AFTER="45", DEADLINE_OUTAGE_GRACE=str(GRACE))
        prober: Prober | None = None
        try:
            serve.start()
            games: dict[str, int] = {}
            for ruleset, options in GAMES.items():
                sleeper = sign_up(serve.url)
                r = sleeper.post(
                    "/api/v1/games",
                    {
                        "ruleset": ruleset,
                        "seats": 4,
                        "bots": ["sensible", "random", "sensible"],
                        "options": options,
                    },
                )
                assert r.status_code == 201, r.text
                games[ruleset] = r.json()["id"]
            reader = sign_up(serve.url)
            prober = Prober(reader, list(games.values()))
            prober.start()

            def deadlines_applied() -> bool:
                return all(
                    sum(kind == "DeadlinePassed" for kind, _, _ in events(pg, g)) >= 2 for g in games.values()
                )

            wait_for(deadlines_applied, 90, "the timers apply deadlines before the outage")
            rows = pg.query("SELECT id, deadline_at FROM games_game WHERE status = 'running'")
            waiting = {gid: due for gid, due in rows if due is not None}
            ((down_at,),) = pg.query("SELECT now()")
            pg.stop("immediate")
            time.sleep(PG_DOWN)
            pg.start()
            up_at = down_at + timedelta(seconds=PG_DOWN)
            time.sleep(GRACE + 25)  # the grace, then the games go on
            prober.stop.set()
            yield Outage(pg, games, waiting, down_at, up_at, log_tails(serve.var))
        finally:
            if prober is not None:
                prober.stop.set()
            serve.stop()
            serve.kill_leftovers()
            redis.stop()


def test_no_deadline_due_in_a_60s_database_outage_is_played_before_its_extension_r7_7(outage: Outage) -> None:
    for ruleset, game_id in outage.games.items():
        for kind, data, _at in events(outage.pg, game_id):
            if kind != "DeadlinePassed":
                continue
            due = datetime.fromisoformat(data["due_at"])
            assert not (outage.down_at < due <= outage.up_at), (
                f"{ruleset}: a deadline due at {due} during the outage was played without its extension\n"
                + outage.logs
            )


def test_each_waiting_step_got_its_outage_extension_in_the_record_r7_7(outage: Outage) -> None:
    assert outage.waiting, "no game was waiting on a deadline when the database went down"
    for game_id, due in outage.waiting.items():
        extensions = [
            data
            for kind, data, at in events(outage.pg, game_id)
            if kind == "DeadlineExtended" and data["reason"] == "outage" and at > outage.down_at
        ]
        assert extensions, f"game {game_id} (due {due}) got no outage extension\n{outage.logs}"
        assert datetime.fromisoformat(extensions[0]["due_at"]) >= datetime.fromisoformat(
            extensions[0]["previous_due_at"]
        ), "an extension brought a deadline earlier"


def test_the_games_go_on_after_the_grace_and_every_record_verifies(outage: Outage) -> None:
    for ruleset, game_id in outage.games.items():
        later = [
            kind
            for kind, _, at in events(outage.pg, game_id)
            if at > outage.up_at + timedelta(seconds=GRACE) and kind in ("DeadlinePassed", "GameEnded")
        ]
        assert later, f"{ruleset}: nothing moved after the grace\n{outage.logs}"
        assert verify_chain(outage.pg, game_id), ruleset
