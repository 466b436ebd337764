"""The live stream over a real uvicorn server (ASGI) on the test database, followed with httpx: the snapshot
first, every event for the seat exactly once and in order across a forced reconnect, keep-alives, the polling
fallback when hints are lost, redaction (R8.3), and problem responses for bad requests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from games import loading, store
from games.models import Event, Game
from games.rules.registry import get_ruleset
from players.models import ApiToken
from tests.conftest import Api, assert_problem, make_api
from tests.e2e.test_full_games import play_over_http

from .helpers import AsgiServer, parse_sse, wait_for
from .test_webhooks import SHORT, new_game

RULESET = get_ruleset("goodcritters")
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def server(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AsgiServer]:
    s = AsgiServer(tmp_path_factory.mktemp("asgi") / "uvicorn.log", {"STREAM_KEEPALIVE_SECONDS": "0.5"})
    s.start()
    try:
        yield s
    finally:
        s.stop()


def seated(apis: list[Api], game_id: int) -> list[Api]:
    """The APIs in seat order."""
    state = apis[0].get(f"/api/v1/games/{game_id}/state").json()
    seat_of = {p["player"]: p["seat"] for p in state["game"]["players"]}
    return sorted(apis, key=lambda a: seat_of[a.player.username])


def jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


class Follower(threading.Thread):
    """Follows a game's stream in a thread; drops the connection once after ``reconnect_after`` events and
    resumes with Last-Event-ID. With ``survive_outages``, a server that goes away is reconnected to too."""

    def __init__(
        self,
        server: AsgiServer,
        game_id: int,
        token: str,
        reconnect_after: int | None,
        survive_outages: bool = False,
    ) -> None:
        super().__init__(daemon=True)
        self.url = f"{server.base_url}/api/v1/games/{game_id}/stream"
        self.token = token
        self.reconnect_after = reconnect_after
        self.survive_outages = survive_outages
        self.snapshots: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.ids: list[int] = []
        self.keepalives = 0
        self.connections = 0
        self.outages = 0
        self.last_id: str | None = None
        self.ended: dict[str, Any] | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while self.ended is None:
                headers = {"Authorization": f"Bearer {self.token}"}
                if self.last_id is not None:
                    headers["Last-Event-ID"] = self.last_id
                self.connections += 1
                try:
                    self.follow(headers)
                except httpx.TransportError:
                    if not self.survive_outages or self.outages > 300:
                        raise
                    self.outages += 1  # the server went away: reconnect with Last-Event-ID shortly
                    time.sleep(0.1)
        except BaseException as exc:  # reported by the test
            self.error = exc

    def follow(self, headers: dict[str, str]) -> None:
        with httpx.stream("GET", self.url, headers=headers, timeout=httpx.Timeout(30.0)) as r:
            assert r.status_code == 200, r.read()
            assert r.headers["content-type"].startswith("text/event-stream")
            for message in parse_sse(r.iter_lines()):
                if "comment" in message:
                    self.keepalives += 1
                    continue
                if "id" in message:
                    self.last_id = message["id"]
                kind = message.get("event")
                if kind == "state":
                    self.snapshots.append(json.loads(message["data"]))
                elif kind == "game_event":
                    self.events.append(json.loads(message["data"]))
                    self.ids.append(int(message["id"]))
                    if self.reconnect_after is not None and len(self.events) == self.reconnect_after:
                        self.reconnect_after = None
                        return  # drop the connection mid-game (a forced reconnect)
                elif kind == "end":
                    self.ended = json.loads(message["data"])
                    return


def test_a_full_game_over_the_stream_every_event_once_in_order_across_a_reconnect(server: AsgiServer) -> None:
    apis = [make_api() for _ in range(4)]
    game_id = new_game(apis, SHORT)
    apis = seated(apis, game_id)
    v0 = Game.objects.get(pk=game_id).version
    follower = Follower(server, game_id, apis[1].token, reconnect_after=4)
    follower.start()
    deadline = time.monotonic() + 20
    while not follower.snapshots and follower.error is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert follower.snapshots, follower.error or server.log()[-2000:]

    play_over_http(apis, game_id)
    follower.join(timeout=60)
    assert not follower.is_alive(), "the stream did not end after the game"
    assert follower.error is None, repr(follower.error)

    game = Game.objects.get(pk=game_id)
    assert game.status == "over"
    # first the viewer's full state, as of the version in its id
    (snapshot,) = follower.snapshots  # the resumed connection sends none
    assert snapshot["viewer"] == 1
    assert snapshot["version"] == v0
    rows = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    at_v0 = RULESET.fold(RULESET.event_from_json(e.data) for e in rows[:v0])
    assert snapshot["state"] == jsonable(RULESET.view_for(at_v0, 1))
    # then every later event exactly once, in order, across the reconnect
    assert follower.connections == 2
    assert follower.ids == [e["seq"] for e in follower.events] == list(range(v0 + 1, game.version + 1))
    public_head = {"seq": game.version, "hash": game.public_head_hash}
    assert follower.ended == {
        "version": game.version,
        "head_hash": game.head_hash,
        "public_head": public_head,
        "reason": "game_over",
    }
    # the public chain's head at the snapshot's version (a watcher's checkpoint, docs/AUDIT.md)
    assert snapshot["public_head"] == {"seq": v0, "hash": rows[v0 - 1].public_hash}
    # each one redacted for seat 1 (secrets are public only once the game is over, R8.3)
    for item, row in zip(follower.events, rows[v0:], strict=True):
        event = RULESET.event_from_json(row.data)
        assert item["event"]["type"] == row.type
        assert item["event"] in (
            jsonable(RULESET.redact_event(event, 1, terminal=False)),
            jsonable(RULESET.redact_event(event, 1, terminal=True)),
        )


def test_the_stream_shows_only_the_viewers_secrets_while_the_game_runs_r8_3(server: AsgiServer) -> None:
    apis = [make_api() for _ in range(4)]
    game_id = new_game(apis, SHORT)
    apis = seated(apis, game_id)
    spectator = make_api()
    with httpx.stream(
        "GET",
        f"{server.base_url}/api/v1/games/{game_id}/stream?after=0",
        headers={"Authorization": f"Bearer {spectator.token}"},
        timeout=10,
    ) as r:
        assert r.status_code == 200
        seen = []
        for message in parse_sse(r.iter_lines()):
            if message.get("event") == "game_event":
                seen.append(json.loads(message["data"]))
            if len(seen) == Game.objects.get(pk=game_id).version:
                break
    rows = list(Event.objects.filter(game_id=game_id).order_by("seq"))
    seed = rows[0].data["seed"]
    assert [s["seq"] for s in seen] == [e.seq for e in rows]
    for item, row in zip(seen, rows, strict=True):
        event = RULESET.event_from_json(row.data)
        assert item["event"] == jsonable(RULESET.redact_event(event, None, terminal=False))
        assert seed not in json.dumps(item)
    # a seat's snapshot is its own view, not another seat's
    with httpx.stream(
        "GET",
        f"{server.base_url}/api/v1/games/{game_id}/stream",
        headers={"Authorization": f"Bearer {apis[2].token}"},
        timeout=10,
    ) as r:
        message = next(m for m in parse_sse(r.iter_lines()) if m.get("event") == "state")
    state = loading.load_state(Game.objects.get(pk=game_id))
    body = json.loads(message["data"])
    assert body["state"] == jsonable(RULESET.view_for(state, 2))
    assert body["state"] != jsonable(RULESET.view_for(state, 3))
    assert seed not in message["data"]


def test_an_idle_stream_gets_keep_alives_and_wakes_on_the_next_event(server: AsgiServer) -> None:
    apis = [make_api() for _ in range(4)]
    game_id = new_game(apis, SHORT)
    apis = seated(apis, game_id)
    version = Game.objects.get(pk=game_id).version
    with httpx.stream(
        "GET",
        f"{server.base_url}/api/v1/games/{game_id}/stream",
        headers={"Authorization": f"Bearer {apis[0].token}", "Last-Event-ID": str(version)},
        timeout=10,
    ) as r:
        messages = parse_sse(r.iter_lines())
        assert next(messages) == {"retry": "1000"}
        assert next(messages) == {"comment": "keep-alive"}  # nothing happened: a keep-alive (0.5 s here)
        sent_at = time.monotonic()
        assert apis[0].command(game_id, "send-message", {"text": "hello"}).status_code == 200
        message = next(m for m in messages if "comment" not in m)
        delay = time.monotonic() - sent_at
    assert message["event"] == "game_event"
    assert int(message["id"]) == version + 1
    assert json.loads(message["data"])["event"]["type"] == "MessageSent"
    assert delay < 2.0


def test_a_lost_hint_delays_but_never_drops_an_event(tmp_path: Any) -> None:
    # this server listens on another hint channel: it never hears a hint and must rely on polling
    deaf = AsgiServer(
        tmp_path / "deaf.log", {"STREAM_CHANNEL_PREFIX": "elsewhere", "STREAM_POLL_SECONDS": "0.3"}
    )
    deaf.start()
    try:
        apis = [make_api() for _ in range(4)]
        game_id = new_game(apis, SHORT)
        apis = seated(apis, game_id)
        version = Game.objects.get(pk=game_id).version
        with httpx.stream(
            "GET",
            f"{deaf.base_url}/api/v1/games/{game_id}/stream?after={version}",
            headers={"Authorization": f"Bearer {apis[0].token}"},
            timeout=10,
        ) as r:
            messages = parse_sse(r.iter_lines())
            next(messages)  # retry
            for text in ("one", "two"):
                assert apis[0].command(game_id, "send-message", {"text": text}).status_code == 200
            got: list[dict[str, Any]] = []
            for m in messages:
                if m.get("event") == "game_event":
                    got.append(json.loads(m["data"]))
                    if len(got) == 2:
                        break
    finally:
        deaf.stop()
    assert [g["seq"] for g in got] == [version + 1, version + 2]
    assert [g["event"]["text"] for g in got] == ["one", "two"]


def test_bad_stream_requests_are_problems(server: AsgiServer) -> None:
    apis = [make_api() for _ in range(4)]
    game_id = new_game(apis, SHORT)
    url = f"{server.base_url}/api/v1/games/{game_id}/stream"
    auth = {"Authorization": f"Bearer {apis[0].token}"}

    def check(response: httpx.Response, status: int, code: str) -> None:
        assert response.status_code == status, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["code"] == code

    check(httpx.get(url, timeout=5), 401, "not_authenticated")
    check(
        httpx.get(url, headers={"Authorization": "Bearer gct_nope_nope"}, timeout=5),
        401,
        "authentication_failed",
    )
    check(
        httpx.get(f"{server.base_url}/api/v1/games/999999/stream", headers=auth, timeout=5),
        404,
        "game_not_found",
    )
    check(httpx.get(url, headers={**auth, "Last-Event-ID": "x1"}, timeout=5), 400, "invalid_cursor")
    check(httpx.get(url + "?after=-1", headers=auth, timeout=5), 400, "invalid_cursor")
    check(httpx.get(url + "?after=999999", headers=auth, timeout=5), 400, "invalid_cursor")
    check(httpx.post(url, headers=auth, timeout=5), 405, "method_not_allowed")
    # a private game is invisible to others (404, not 403)
    r = apis[0].post("/api/v1/games", {"seats": 4, "options": SHORT, "allow_spectators": False})
    private = r.json()["id"]
    for api in (make_api(), make_api(), make_api()):
        api.post(f"/api/v1/games/{private}/join")
    outsider = make_api()
    check(
        httpx.get(
            f"{server.base_url}/api/v1/games/{private}/stream",
            headers={"Authorization": f"Bearer {outsider.token}"},
            timeout=5,
        ),
        404,
        "game_not_found",
    )
    assert store.verify_chain(game_id)


def test_the_wsgi_process_refuses_the_stream(alice: Api) -> None:
    r = alice.post("/api/v1/games", {"seats": 4, "options": SHORT})
    assert_problem(alice.get(f"/api/v1/games/{r.json()['id']}/stream"), 503, "stream_needs_asgi")


def test_opening_streams_counts_against_the_tokens_rate_limit(tmp_path: Any) -> None:
    tight = AsgiServer(tmp_path / "tight.log", {"THROTTLE_USER_RATE": "2/min", "THROTTLE_ANON_RATE": "1/min"})
    tight.start()
    try:
        apis = [make_api() for _ in range(4)]
        game_id = new_game(apis, SHORT)
        version = Game.objects.get(pk=game_id).version
        url = f"{tight.base_url}/api/v1/games/{game_id}/stream?after={version}"
        _token, fresh = ApiToken.issue(apis[0].player, "streams only")  # a bucket the setup did not use
        auth = {"Authorization": f"Bearer {fresh}"}
        for _ in range(2):
            with httpx.stream("GET", url, headers=auth, timeout=10) as r:
                assert r.status_code == 200
        r = httpx.get(url, headers=auth, timeout=10)
        assert r.status_code == 429
        assert r.json()["code"] == "throttled"
        assert int(r.headers["Retry-After"]) > 0
        # another token has its own bucket; anonymous callers share one per address
        _token, other = ApiToken.issue(apis[1].player, "streams only")
        with httpx.stream("GET", url, headers={"Authorization": f"Bearer {other}"}, timeout=10) as r:
            assert r.status_code == 200
        anonymous = [httpx.get(url, timeout=10).status_code for _ in range(2)]  # 1/min (maybe used already)
        assert set(anonymous) <= {401, 429}
        assert anonymous[-1] == 429
    finally:
        tight.stop()


def test_a_stream_of_a_game_cancelled_before_its_start_ends(server: AsgiServer) -> None:
    creator = make_api()
    game_id = creator.post("/api/v1/games", {"seats": 4, "options": SHORT}).json()["id"]
    with httpx.stream(
        "GET",
        f"{server.base_url}/api/v1/games/{game_id}/stream",
        headers={"Authorization": f"Bearer {creator.token}"},
        timeout=10,
    ) as r:
        messages = (m for m in parse_sse(r.iter_lines()) if "comment" not in m)
        assert next(messages) == {"retry": "1000"}
        state = next(messages)
        assert state["event"] == "state"
        assert json.loads(state["data"])["game"]["status"] == "open"
        assert creator.post(f"/api/v1/games/{game_id}/cancel").status_code == 200
        end = next(messages)  # no event, no hint: the poller notices the cancellation
    assert end["event"] == "end"
    assert json.loads(end["data"]) == {
        "version": 0,
        "head_hash": None,
        "public_head": {"seq": 0, "hash": "0" * 64},
        "reason": "game_cancelled",
    }


def test_a_stream_resumes_on_a_new_server_process_with_nothing_skipped_or_repeated(tmp_path: Any) -> None:
    own = AsgiServer(tmp_path / "restarted.log")
    own.start()
    try:
        apis = [make_api() for _ in range(4)]
        game_id = new_game(apis, SHORT)
        apis = seated(apis, game_id)
        v0 = Game.objects.get(pk=game_id).version
        follower = Follower(own, game_id, apis[2].token, reconnect_after=None, survive_outages=True)
        follower.start()
        wait_for(lambda: follower.snapshots or follower.error, timeout=20)
        assert follower.snapshots[0]["version"] == v0
        for text in ("before", "the", "restart"):
            assert apis[0].command(game_id, "send-message", {"text": text}).status_code == 200
        wait_for(lambda: len(follower.events) >= 3 or follower.error, timeout=20)
        assert follower.error is None, repr(follower.error)
        own.stop()  # the process dies with the stream open
        for text in ("while", "down"):
            assert apis[1].command(game_id, "send-message", {"text": text}).status_code == 200
        own.start()  # a new process on the same address: the client resumes with Last-Event-ID
        play_over_http(apis, game_id)
        follower.join(timeout=60)
        assert not follower.is_alive(), "the stream did not end after the game"
        assert follower.error is None, repr(follower.error)
    finally:
        own.stop()
    game = Game.objects.get(pk=game_id)
    assert follower.outages >= 1
    assert follower.connections >= 2
    assert len(follower.snapshots) == 1
    assert follower.ids == [e["seq"] for e in follower.events] == list(range(v0 + 1, game.version + 1))
    texts = [e["event"]["text"] for e in follower.events if e["event"]["type"] == "MessageSent"]
    assert texts[:5] == ["before", "the", "restart", "while", "down"]
