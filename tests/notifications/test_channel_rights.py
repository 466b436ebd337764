"""Long-lived channels re-check who they speak for (R8.3): a live stream, a long-poll and the inbox, held
across a hand-over of the seat to another player or across the revocation of the token they were opened
with, never deliver what the viewer lost the right to: the new holder's face-down ``ActionChosen`` and the
private messages to that seat. The stream ends with the reason (``event: end``), the long-poll answers as
a request made when it answers (the spectator's view, a 404 for a private game, a 401 for a revoked
token). Streams over a real uvicorn server on the test database; long-polls through Django's test client
in a thread while the main thread plays."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest

from games import deadlines
from games.models import Event, Game
from players.models import ApiToken
from tests.conftest import Api, Table, assert_problem, hand_over_to, make_api, start_table
from tests.deadlines.test_policy_api import _choose_and_ready, _distribute, _due, _options

from .helpers import AsgiServer, parse_sse

pytestmark = pytest.mark.django_db(transaction=True)

SECRET_TEXT = "psst, seat 1: rob the Boss"


@pytest.fixture(scope="module")
def server(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AsgiServer]:
    s = AsgiServer(tmp_path_factory.mktemp("asgi") / "uvicorn.log", {"STREAM_KEEPALIVE_SECONDS": "0.5"})
    s.start()
    try:
        yield s
    finally:
        s.stop()


def wait_until(predicate: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


class Reader(threading.Thread):
    """Reads one stream in a thread until it ends, errors or ``stop`` is set; keeps every message."""

    def __init__(self, server: AsgiServer, game_id: int, token: str, after: int | None = None) -> None:
        super().__init__(daemon=True)
        query = f"?after={after}" if after is not None else ""
        self.url = f"{server.base_url}/api/v1/games/{game_id}/stream{query}"
        self.token = token
        self.messages: list[dict[str, Any]] = []
        self.opened = threading.Event()
        self.stop = threading.Event()
        self.ended: dict[str, Any] | None = None
        self.closed = False
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            headers = {"Authorization": f"Bearer {self.token}"}
            with httpx.stream("GET", self.url, headers=headers, timeout=httpx.Timeout(30.0)) as r:
                assert r.status_code == 200, r.read()
                for message in parse_sse(r.iter_lines()):
                    self.opened.set()
                    if self.stop.is_set():
                        return
                    if "comment" in message:
                        continue
                    self.messages.append(message)
                    if message.get("event") == "end":
                        self.ended = json.loads(message["data"])
                self.closed = True
        except BaseException as exc:  # reported by the test
            self.error = exc
        finally:
            self.opened.set()

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(m["data"]) for m in self.messages if m.get("event") == "game_event"]

    def finish(self, timeout: float = 10.0) -> None:
        """Wait for the stream to end by itself (the server closes it); else stop reading."""
        self.join(timeout)
        self.stop.set()
        self.join(5)


def abandon_seat_1(spectators: bool = True) -> Table:
    """A running game where seat 1 missed a step and went on autopilot (R7.5), its creator in seat 0."""
    table = start_table(4, _options(absence={"extensions": 0, "autopilot_after": 1}))
    if not spectators:
        Game.objects.filter(pk=table.game_id).update(allow_spectators=False)
    gid = table.game_id
    _distribute(table)
    for seat in (0, 2, 3):
        _choose_and_ready(table.apis[seat], gid)
    deadlines.sweep(now=_due(table) + timedelta(seconds=1))  # seat 1 missed: autopilot
    assert Event.objects.filter(game_id=gid, type="AutopilotEngaged").exists()
    return table


def hand_seat_1_to(table: Table, newcomer: Api) -> int:
    """The creator hands seat 1 to ``newcomer``; returns the seq of the ``SeatHandedOver`` event."""
    r = hand_over_to(table.apis[0], table.game_id, 1, newcomer)  # an offer accepted (issue #28, item 13)
    assert r.status_code == 200, r.content
    table.apis[1] = newcomer
    return Event.objects.get(game_id=table.game_id, type="SeatHandedOver").seq


def newcomer_keeps_secrets(table: Table) -> None:
    """The new holder of seat 1 chooses a face-down action, and seat 2 sends seat 1 a private message."""
    gid = table.game_id
    step = table.state(0)["state"]["step"]
    if step == "distribute":
        _distribute(table)
    r = table.apis[1].command(gid, "choose-action", {"action": "rob"})
    assert r.status_code == 200, r.content
    r = table.apis[2].command(gid, "send-message", {"text": SECRET_TEXT, "to": [1]})
    assert r.status_code == 200, r.content


def seat_1_secrets_in(events: list[dict[str, Any]], after: int) -> list[dict[str, Any]]:
    """Items after seq ``after`` that show seat 1's face-down action or a private message's text."""
    leaks = []
    for item in events:
        event = item["event"]
        if item["seq"] <= after:
            continue
        if event["type"] == "ActionChosen" and event["seat"] == 1 and event["action"] is not None:
            leaks.append(item)
        if event["type"] == "MessageSent" and event.get("text") == SECRET_TEXT:
            leaks.append(item)
    return leaks


def private_items(game_id: int) -> list[int]:
    """The seqs of the new holder's secrets in the log."""
    rows = Event.objects.filter(game_id=game_id, type__in=["ActionChosen", "MessageSent"]).order_by("seq")
    return [
        r.seq
        for r in rows
        if (r.type == "ActionChosen" and r.data["seat"] == 1) or r.data.get("text") == SECRET_TEXT
    ]


# --------------------------------------------------------------------------------------------------
# the live stream
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spectators", [True, False], ids=["public-game", "private-game"])
def test_a_stream_held_across_a_hand_over_never_shows_the_new_holders_secrets(
    server: AsgiServer, spectators: bool
) -> None:
    table = abandon_seat_1(spectators)
    gid = table.game_id
    old = table.apis[1]
    reader = Reader(server, gid, old.token)
    reader.start()
    assert reader.opened.wait(20), server.log()[-2000:]
    wait_until(lambda: any(m.get("event") == "state" for m in reader.messages))
    snapshot = next(json.loads(m["data"]) for m in reader.messages if m.get("event") == "state")
    assert snapshot["viewer"] == 1  # the seat's own view, before the hand-over

    handed = hand_seat_1_to(table, make_api())
    newcomer_keeps_secrets(table)
    secrets = private_items(gid)
    assert secrets
    assert min(secrets) > handed
    reader.finish()
    assert reader.error is None, repr(reader.error)
    assert seat_1_secrets_in(reader.events(), handed) == []
    assert all(e["seq"] < handed for e in reader.events())  # nothing from the batch of the hand-over on
    assert reader.ended is not None, "the stream went on after its seat changed hands"
    assert reader.ended["reason"] == ("viewer_changed" if spectators else "game_not_visible")
    # reconnecting gets what the player may see now: the spectator's view, or nothing of a private game
    r = (
        httpx.get(
            f"{server.base_url}/api/v1/games/{gid}/stream?after={Game.objects.get(pk=gid).version}",
            headers={"Authorization": f"Bearer {old.token}"},
            timeout=httpx.Timeout(5.0, read=1.0),
        )
        if not spectators
        else None
    )
    if r is not None:
        assert r.status_code == 404
        assert r.json()["code"] == "game_not_found"


def test_the_new_holders_spectator_stream_ends_so_that_they_reconnect_to_their_seat(
    server: AsgiServer,
) -> None:
    table = abandon_seat_1()
    newcomer = make_api()
    reader = Reader(server, table.game_id, newcomer.token)
    reader.start()
    assert reader.opened.wait(20)
    hand_seat_1_to(table, newcomer)
    reader.finish()
    assert reader.error is None, repr(reader.error)
    assert reader.ended is not None
    assert reader.ended["reason"] == "viewer_changed"


@pytest.mark.parametrize("idle", [True, False], ids=["idle", "busy"])
def test_a_stream_ends_when_its_token_is_revoked(server: AsgiServer, idle: bool) -> None:
    table = abandon_seat_1()
    gid = table.game_id
    player = table.apis[2]
    token, raw = ApiToken.issue(player.player, "a phone")
    version = Game.objects.get(pk=gid).version
    reader = Reader(server, gid, raw, after=version)
    reader.start()
    assert reader.opened.wait(20)
    r = player.delete(f"/api/v1/me/tokens/{token.pk}")  # with another of the player's tokens
    assert r.status_code == 204, r.content
    revoked_at = time.monotonic()
    if not idle:  # a private message to the seat right after: never sent to the revoked token
        r = table.apis[3].command(gid, "send-message", {"text": SECRET_TEXT, "to": [2]})
        assert r.status_code == 200, r.content
    reader.finish(timeout=10)
    assert reader.error is None, repr(reader.error)
    assert reader.ended is not None, "the stream went on after its token was revoked"
    assert reader.ended["reason"] == "token_revoked"
    assert time.monotonic() - revoked_at < 5  # within a poll interval (0.5 s here) or the next batch
    assert reader.events() == []
    assert all(SECRET_TEXT not in json.dumps(m) for m in reader.messages)
    # and the token opens nothing any more
    r = httpx.get(
        f"{server.base_url}/api/v1/games/{gid}/stream", headers={"Authorization": f"Bearer {raw}"}, timeout=5
    )
    assert r.status_code == 401


# --------------------------------------------------------------------------------------------------
# the long-poll (GET /games/{id}/events?wait=)
# --------------------------------------------------------------------------------------------------
class LongPoll(threading.Thread):
    def __init__(self, api: Api, path: str, params: dict[str, Any], token: str | None = None) -> None:
        super().__init__(daemon=True)
        self.api, self.path, self.params = api, path, params
        self.headers = {"Authorization": f"Bearer {token}"} if token else None
        self.response: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        from django.db import connection

        try:
            self.response = self.api.get(self.path, headers=self.headers, **self.params)
        except BaseException as exc:
            self.error = exc
        finally:
            connection.close()


def long_poll(api: Api, game_id: int, token: str | None = None) -> LongPoll:
    after = Game.objects.get(pk=game_id).version
    poll = LongPoll(api, f"/api/v1/games/{game_id}/events", {"after": after, "wait": 10}, token)
    poll.start()
    time.sleep(0.3)  # inside its wait
    assert poll.is_alive()
    return poll


@pytest.mark.parametrize("spectators", [True, False], ids=["public-game", "private-game"])
def test_a_long_poll_waiting_across_a_hand_over_answers_for_who_the_caller_is_now(
    settings: Any, spectators: bool
) -> None:
    settings.FEED_POLL_INTERVAL = 2.0  # the hand-over and the newcomer's secrets all land in one wait
    table = abandon_seat_1(spectators)
    gid = table.game_id
    old = table.apis[1]
    poll = long_poll(old, gid)
    handed = hand_seat_1_to(table, make_api())
    newcomer_keeps_secrets(table)
    assert poll.is_alive(), "the long-poll answered before the secrets were committed: test too slow"
    poll.join(15)
    assert poll.error is None, repr(poll.error)
    r = poll.response
    if not spectators:
        assert_problem(r, 404, "game_not_found")
        return
    assert r.status_code == 200, r.content
    items = r.json()["events"]
    assert max(private_items(gid)) <= r.json()["next_after"]  # the secrets were in this answer's range
    assert seat_1_secrets_in(items, handed - 1) == []
    assert SECRET_TEXT not in r.content.decode()


def test_a_long_poll_waiting_across_a_revocation_is_a_401(settings: Any) -> None:
    table = abandon_seat_1()
    gid = table.game_id
    player = table.apis[2]
    token, raw = ApiToken.issue(player.player, "a phone")
    poll = long_poll(player, gid, raw)
    assert player.delete(f"/api/v1/me/tokens/{token.pk}").status_code == 204
    r = table.apis[3].command(gid, "send-message", {"text": SECRET_TEXT, "to": [2]})
    assert r.status_code == 200, r.content
    poll.join(15)
    assert poll.error is None, repr(poll.error)
    body = assert_problem(poll.response, 401, "authentication_failed")
    assert "revoked" in body["detail"]
    assert poll.response["WWW-Authenticate"].startswith("Bearer")
    assert SECRET_TEXT not in poll.response.content.decode()


# --------------------------------------------------------------------------------------------------
# the inbox (no long-lived state: each request resolves the caller again)
# --------------------------------------------------------------------------------------------------
def test_the_inbox_follows_a_hand_over_and_a_revocation() -> None:
    table = abandon_seat_1()
    gid = table.game_id
    old = table.apis[1]
    before = old.get("/api/v1/me/inbox")
    assert before.status_code == 200
    newcomer = make_api()
    hand_seat_1_to(table, newcomer)
    after = old.get("/api/v1/me/inbox", headers={"If-None-Match": before["ETag"]})
    assert after.status_code == 200  # the ETag changed: the game left the old holder's inbox
    assert all(item["game_id"] != gid for item in after.json()["games"])
    mine = newcomer.get("/api/v1/me/inbox").json()["games"]
    assert all(item["seat"] == 1 for item in mine if item["game_id"] == gid)
    token, raw = ApiToken.issue(newcomer.player, "a phone")
    assert newcomer.get("/api/v1/me/inbox", headers={"Authorization": f"Bearer {raw}"}).status_code == 200
    assert newcomer.delete(f"/api/v1/me/tokens/{token.pk}").status_code == 204
    r = newcomer.get("/api/v1/me/inbox", headers={"Authorization": f"Bearer {raw}"})
    assert_problem(r, 401, "authentication_failed")


def test_a_long_poll_on_a_session_that_ends_while_it_waits_is_a_401() -> None:
    from django.contrib.sessions.models import Session
    from django.test import Client

    table = abandon_seat_1()
    gid = table.game_id
    browser = Client()
    browser.force_login(table.apis[2].player)
    viewer = Api(player=table.apis[2].player, token="", client=browser)
    after = Game.objects.get(pk=gid).version
    poll = LongPoll(viewer, f"/api/v1/games/{gid}/events", {"after": after, "wait": 10}, token=None)
    poll.headers = {"Authorization": ""}  # the session cookie only
    poll.start()
    time.sleep(0.3)
    assert poll.is_alive()
    Session.objects.all().delete()  # logged out elsewhere (or expired and cleared)
    r = table.apis[3].command(gid, "send-message", {"text": SECRET_TEXT, "to": [2]})
    assert r.status_code == 200, r.content
    poll.join(15)
    assert poll.error is None, repr(poll.error)
    assert_problem(poll.response, 401, "authentication_failed")
    assert SECRET_TEXT not in poll.response.content.decode()
