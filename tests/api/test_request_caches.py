"""What the request path keeps between requests must never change an answer (issue #25, the speed part).

- A state read or a command authenticates its bearer token from the process's cache
  (``players.auth.GameCheckedTokenAuthentication``) and checks it again in the statement that reads the game:
  a token revoked, or a player deactivated, by anyone (another process: here the rows are changed directly,
  so nothing in this process is told) is refused at once, with nothing applied; the staff flag is the one of
  now. Other views and methods read the token as before.
- The rules' part of a viewer's state is kept with the cached fold, per version and viewer
  (``games.selectors._ruled_view``): every answer equals the one computed afresh, right after a command too.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import statecache
from games.models import Game
from players.models import ApiToken, Player
from tests.conftest import Api, assert_problem, make_api, start_table
from tests.outside.driver import kebab, next_command

pytestmark = pytest.mark.django_db


def _token(api: Api) -> ApiToken:
    return ApiToken.objects.get(player=api.player)


def _say(api: Api, game_id: int, text: str) -> Any:
    return api.command(game_id, "send-message", {"text": text, "to": None})


def _refused(response: Any) -> None:
    assert_problem(response, 401, "authentication_failed")
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_a_token_revoked_elsewhere_is_refused_at_once_by_reads_and_commands() -> None:
    t = start_table(4)
    api = t.apis[0]
    assert _say(api, t.game_id, "hello").status_code == 200  # the token is in this process's cache now
    assert api.get(f"/api/v1/games/{t.game_id}/state").status_code == 200
    version = Game.objects.get(pk=t.game_id).version
    ApiToken.objects.filter(pk=_token(api).pk).update(revoked_at=timezone.now())  # as another process would

    _refused(api.get(f"/api/v1/games/{t.game_id}/state"))
    _refused(_say(api, t.game_id, "still here?"))
    _refused(api.get("/api/v1/me"))
    assert Game.objects.get(pk=t.game_id).version == version  # nothing applied
    # the others' tokens are not affected
    assert _say(t.apis[1], t.game_id, "hi").status_code == 200


def test_a_token_revoked_through_the_api_is_refused_at_once() -> None:
    t = start_table(4)
    api = t.apis[0]
    assert api.get(f"/api/v1/games/{t.game_id}/state").status_code == 200
    assert api.delete(f"/api/v1/me/tokens/{_token(api).pk}").status_code == 204
    _refused(api.get(f"/api/v1/games/{t.game_id}/state"))
    _refused(_say(api, t.game_id, "gone"))
    # a method the cache is not used for refuses it too
    _refused(api.client.options(f"/api/v1/games/{t.game_id}/state", headers=api._headers(None)))


def test_a_player_deactivated_elsewhere_is_refused_at_once() -> None:
    t = start_table(4)
    api = t.apis[2]
    assert _say(api, t.game_id, "hello").status_code == 200
    Player.objects.filter(pk=api.player.pk).update(is_active=False)
    _refused(api.get(f"/api/v1/games/{t.game_id}/state"))
    _refused(_say(api, t.game_id, "hello again"))
    Player.objects.filter(pk=api.player.pk).update(is_active=True)
    assert _say(api, t.game_id, "back").status_code == 200
    # refused by authentication itself (not cached as it was read), then served as soon as it is active again
    Player.objects.filter(pk=api.player.pk).update(is_active=False)
    _refused(api.get(f"/api/v1/games/{t.game_id}/state"))
    _refused(api.get(f"/api/v1/games/{t.game_id}/state"))
    Player.objects.filter(pk=api.player.pk).update(is_active=True)
    assert api.get(f"/api/v1/games/{t.game_id}/state").status_code == 200


def test_the_staff_flag_is_the_one_read_with_the_game() -> None:
    t = start_table(4)
    Game.objects.filter(pk=t.game_id).update(allow_spectators=False)
    outsider = make_api()
    path = f"/api/v1/games/{t.game_id}/state"
    assert_problem(outsider.get(path), 404, "game_not_found")  # cached now, not staff
    Player.objects.filter(pk=outsider.player.pk).update(is_staff=True)
    body = outsider.get(path)
    assert body.status_code == 200, body.content
    assert body.json()["viewer"] is None
    Player.objects.filter(pk=outsider.player.pk).update(is_staff=False)
    assert_problem(outsider.get(path), 404, "game_not_found")


def test_a_cached_token_saves_the_statement_of_its_own() -> None:
    t = start_table(4)
    api = t.apis[0]
    path = f"/api/v1/games/{t.game_id}/state"
    assert api.get(path).status_code == 200
    with CaptureQueriesContext(connection) as reads:
        assert api.get(path).status_code == 200
    assert len(reads.captured_queries) == 1, reads.captured_queries  # the game, its roster and the token


@pytest.mark.parametrize("options", [{}, {"payoffs": True}])
def test_every_view_equals_a_fresh_one_right_after_each_command(options: dict[str, Any]) -> None:
    t = start_table(5, options)
    rnd = random.Random(25)
    commands = 0
    while commands < 40:
        view = t.state(0)
        if view["over"] or view["waiting"] is None:
            break
        for seat in view["waiting"]["seats"]:
            picked = next_command(t.state(seat), rnd)
            if picked is None:
                continue
            kind, body = picked
            response = t.apis[seat].command(t.game_id, kebab(kind), body)
            assert response.status_code == 200, response.content
            commands += 1
            cached = {s: t.state(s) for s in range(5)}
            assert cached[seat] == response.json()  # the command's answer is the seat's view
            again = {s: t.state(s) for s in range(5)}  # served from the memo
            statecache.clear()
            fresh = {s: t.state(s) for s in range(5)}  # folded and computed afresh
            assert cached == again == fresh
            break
        else:
            pytest.fail("the game waits on seats that have nothing to do")
    assert commands >= 10
