"""R7.6 with a REAL Celery worker and beat (``tests/worker.py``): the scenario of issue 13, item 6, played
over the HTTP API; afterwards nothing but the worker moves the game (the beat's sweeper, the ETA task
published on commit for the end of the pause, the autopilot's bot tasks), and it goes on to the end."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from games import loading, store
from games.models import Event, Game, GameStatus
from tests.conftest import start_table
from tests.worker import CeleryWorkerProcess

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _rows(game_id: int, kind: str) -> list[Event]:
    return list(Event.objects.filter(game_id=game_id, type=kind).order_by("seq"))


def _status(game_id: int) -> str:
    return Game.objects.only("status").get(pk=game_id).status


def test_the_issue_game_is_resumed_by_the_worker_and_played_to_the_end_r7_6(
    celery_worker_process: CeleryWorkerProcess,
) -> None:
    worker = celery_worker_process
    table = start_table(
        4,
        {
            "deadlines": {"distribute": 60, "choose": 2},
            "pause_by": "vote",
            "absence": {"extensions": 0, "autopilot_after": 1},
            "max_pause": 3,
            "fuzz_depth": [0.1, 0.2],
        },
    )
    gid = table.game_id
    state = table.state(0)["state"]
    shares: list[list[int]] = [[] for _ in range(4)]
    shares[0] = [c["id"] for c in state["table"]]
    assert table.apis[0].command(gid, "distribute-loot", {"shares": shares}).status_code == 200
    for seat in (0, 1, 2):
        assert table.apis[seat].command(gid, "choose-action", {"action": "vote_yes"}).status_code == 200
        assert table.apis[seat].command(gid, "set-ready", {"ready": True}).status_code == 200
    # seat 3 never acts: the worker applies the 2 s deadline and puts the seat on autopilot
    worker.wait_for(lambda: bool(_rows(gid, "AutopilotEngaged")), timeout=20)
    worker.wait_for(lambda: Game.objects.get(pk=gid).waiting_step == "distribute", timeout=10)
    for seat in (1, 2):
        assert table.apis[seat].command(gid, "resign").status_code == 200
    assert table.apis[0].command(gid, "vote-pause", {"pause": True}).status_code == 200
    assert table.apis[0].command(gid, "resign").status_code == 200
    paused = _rows(gid, "GamePaused")
    assert len(paused) == 1
    paused_at = datetime.fromisoformat(paused[0].data["at"])

    worker.wait_for(lambda: _status(gid) == GameStatus.OVER, timeout=90)
    resumed = _rows(gid, "GameResumed")
    assert [r.data["by"] for r in resumed] == ["limit"]
    late = (resumed[0].created_at - (paused_at + timedelta(seconds=3))).total_seconds()
    assert 0 <= late < 3  # never early, not much late
    # the Step 3 that opened during the pause had its full 2 s from the resume
    assert datetime.fromisoformat(resumed[0].data["due_at"]) == resumed[0].created_at + timedelta(seconds=2)
    assert Event.objects.filter(game_id=gid, type="ActionChosen", actor=None).exists()  # the autopilot played
    assert "Task games.tasks.play_bots[" in worker.log()
    ended = _rows(gid, "GameEnded")
    assert ended[0].data["winners"] == [3]
    assert store.verify_chain(gid)
    game = Game.objects.get(pk=gid)
    assert loading.load_state(game) == loading.full_replay(game)
