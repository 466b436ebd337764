"""The large-database benchmark's fill (``bench/bigdb_fill.py``) at a tiny scale, so the benchmark cannot rot:
what it writes with COPY must be what the service would have stored. Every game's hash chain checks out
against the store, every finished game's record passes the audit (each command re-decided), every running
game's row (step, deadline, warning) matches the fold of its log, and the service serves and plays the
fixtures through the API (a state read, a command, the inbox, the player's list, the sweep of due deadlines).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from bench.bigdb_fill import Plan, fill
from games import deadlines, loading, store
from games.audit.export import game_record
from games.audit.verify import verify_record
from games.models import Event, Game, GameStatus, Seat
from players.models import ApiToken, Player
from tests.worker import database_url_for

pytestmark = pytest.mark.django_db(transaction=True)


def _url() -> str:
    return database_url_for(dict(connection.settings_dict))


def test_the_fill_writes_what_the_service_would_have_stored() -> None:
    plan = Plan(
        events=12_000,
        players=60,
        running=12,
        templates=6,
        open_games=3,
        heavy_games=24,
        heavy_running=4,
        due_games=5,
    )
    info: dict[str, Any] = fill(_url(), plan)
    fx = info["fixtures"]
    assert Event.objects.count() == info["events"] >= 12_000
    assert Game.objects.filter(status=GameStatus.RUNNING).count() == info["running_games"] == 12 + 4 + 5
    assert Game.objects.filter(status=GameStatus.OVER).count() == info["finished_games"]
    assert Seat.objects.filter(player_id=fx["heavy_player"]).count() == 24

    for game in Game.objects.exclude(status=GameStatus.OPEN):
        assert store.verify_chain(game.pk), f"game {game.pk}: broken hash chain"
        rs = loading.ruleset_for(game)
        state = loading.full_replay(game)
        if game.status == GameStatus.OVER:
            assert rs.is_terminal(state)
            verdict = verify_record(game_record(game))
            assert verdict.ok, (game.pk, verdict.text())
        else:
            waiting = rs.waiting(state)
            assert waiting is not None
            assert waiting.due_at is not None
            assert game.deadline_at is not None
            assert (game.step_no, game.waiting_step, game.deadline_at) == (
                waiting.step_no,
                waiting.step,
                waiting.due_at,
            )
            assert game.warn_at == rs.warn_at(state)
            due = game.deadline_at <= timezone.now()
            assert due == (game.pk in fx["due_games"]), game.pk

    # the service serves the fixtures and plays on them
    heavy = Player.objects.get(pk=fx["heavy_player"])
    token = ApiToken.issue(heavy, "t")[1]
    client = Client(headers={"Authorization": f"Bearer {token}"})
    game_id = fx["measure_game"]
    state = client.get(f"/api/v1/games/{game_id}/state")
    assert state.status_code == 200, state.content
    assert state.json()["waiting"]["you"] is True
    sent = client.post(
        f"/api/v1/games/{game_id}/commands/send-message",
        {"text": "hi", "to": None},
        content_type="application/json",
    )
    assert sent.status_code == 200, sent.content
    assert store.verify_chain(game_id)
    inbox = client.get("/api/v1/me/inbox").json()["games"]
    assert len(inbox) == 4
    mine = client.get("/api/v1/me/games?page_size=100").json()["results"]
    assert len(mine) == 24
    assert client.get(f"/api/v1/games/{fx['old_game']}/verify").json()["ok"] is True

    versions = dict(Game.objects.filter(pk__in=fx["due_games"]).values_list("pk", "version"))
    report = deadlines.sweep(timers=("deadline_at",))
    assert sorted(report.expired) == sorted(fx["due_games"])
    for game_id in fx["due_games"]:
        assert report.events[game_id] > 0
        game = Game.objects.get(pk=game_id)
        assert game.version == versions[game_id] + report.events[game_id]
        assert store.verify_chain(game_id)
        assert game.deadline_at is None or game.deadline_at > timezone.now()
