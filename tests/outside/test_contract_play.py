"""Issue #24, done when: a client with no rule knowledge plays full games of all three rulesets over HTTP,
with several seats of its own (and bots in the others), choosing every move at random from the served legal
moves (``moves``) and their arguments, and every command it sends is accepted. The only 4xx it sees are the
races it provokes on purpose (an outdated ``If-Match``: 412, nothing applied). Twice: with plain JSON (httpx),
and with the classes of a client generated from the served spec (openapi-python-client).

What the client knows: the served ``acting`` and ``moves`` of each of its seats, and what the spec says of
each field kind (tests/movefill.py, docs/CLIENTS.md). Time passes by the service's own sweeper (the
deadlines), as in tests/outside/test_generated_client.py; the bots play through the service's bot runner.
"""

from __future__ import annotations

import random
import uuid
from datetime import timedelta
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests import movefill

from .conftest import HttpPlayer, sign_up
from .live import LiveServer
from .test_generated_client import Seat, generate_client, sub

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ANYTIME = {"Resign", "SendMessage", "VotePause", "TakeBackSeat"}
# the games: (ruleset, seats, of them the client's own, options); short deadlines are passed by the sweeper
GAMES: list[tuple[str, int, int, dict[str, Any]]] = [
    ("goodcritters", 4, 3, {"payoffs": True, "fuzz_depth": [0, 0.1], "deadlines": {"choose": 600}}),
    ("loose_triggers", 4, 3, {"countdown": 30}),
    ("were_cats", 3, 2, {"max_rounds": 4}),
]
MAX_COMMANDS = 600


def _absence() -> dict[str, Any]:
    return {"absence": {"extensions": 0, "autopilot_after": None}}


def _pick(rnd: random.Random, offered: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A move at random; the table's any-time commands seldom (a resignation very seldom: the game should be
    played out)."""
    step = [m for m in offered if m["command"] not in ANYTIME]
    r = rnd.random()
    if r < 0.003:
        pool = [m for m in offered if m["command"] == "Resign"]
    elif r < 0.05:
        pool = [m for m in offered if m["command"] in ANYTIME - {"Resign"}]
    else:
        pool = step
    pool = pool or step
    return rnd.choice(pool) if pool else None


def _step_moves(offered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in offered if m["command"] not in ANYTIME]


def _time_passes(game_id: int, *, stuck: bool, rnd: random.Random) -> None:
    """The bots play (up to 20 moves); else the deadline passes (the sweeper): always when none of the
    client's seats may act (``stuck``: then a deadline must run), now and then otherwise (a player's time
    runs out too)."""
    from games import deadlines
    from games.models import Game, GameStatus
    from games.services import bots

    if bots.bots_play(game_id, max_steps=20) or not (stuck or rnd.random() < 0.3):
        return
    game = Game.objects.get(pk=game_id)
    if game.status == GameStatus.OVER:
        return
    if stuck:
        assert game.deadline_at is not None, "no seat may act and no deadline runs"
    if game.deadline_at is not None:
        deadlines.sweep(now=game.deadline_at + timedelta(seconds=1))


class JsonSeat:
    """A seat of the client's, in plain JSON."""

    def __init__(self, player: HttpPlayer) -> None:
        self.player = player

    def state(self, game_id: int) -> tuple[dict[str, Any], str]:
        r = self.player.get(f"/api/v1/games/{game_id}/state")
        assert r.status_code == 200, r.text
        return r.json(), r.headers["ETag"]

    def send(self, game_id: int, move: dict[str, Any], body: dict[str, Any], etag: str) -> httpx.Response:
        return self.player.post(
            f"/api/v1/games/{game_id}/commands/{move['path']}",
            json=body,
            headers={"If-Match": etag, "Idempotency-Key": uuid.uuid4().hex},
        )


def _create(creator: HttpPlayer, slug: str, seats: int, own: int, options: dict[str, Any]) -> int:
    r = creator.post(
        "/api/v1/games",
        json={
            "ruleset": slug,
            "seats": seats,
            "options": {**options, **_absence()},
            "name": f"contract {slug}",
            "bots": ["random"] * (seats - own),
        },
    )
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def _play_json(live: LiveServer, slug: str, seats: int, own: int, options: dict[str, Any], seed: int) -> None:
    rnd = random.Random(seed)
    players = [JsonSeat(sign_up(live.url)) for _ in range(own)]
    game_id = _create(players[0].player, slug, seats, own, options)
    for p in players[1:]:
        r = p.player.post(f"/api/v1/games/{game_id}/join", json={})
        assert r.status_code == 200, r.text
    sent = raced = 0
    kinds: set[str] = set()
    waited: list[JsonSeat] = []
    for _ in range(MAX_COMMANDS * 4):
        # one of the client's seats reads its state and acts, if it may: mostly one the step waits on (as the
        # last read's `acting` says), to answer what the game waits for
        p = rnd.choice(waited if waited and rnd.random() < 0.7 else players)
        view, etag = p.state(game_id)
        if view["acting"] is not None:
            names = {s["player"] for s in view["acting"]["seats"] if s["waited_on"]}
            waited = [q for q in players if q.player.username in names]
        if view["over"]:
            break
        acting = view["acting"]
        assert acting is not None
        move = _pick(rnd, view["moves"])
        if move is None or rnd.random() < 0.1:
            stuck = move is None and not any(_step_moves(q.state(game_id)[0]["moves"]) for q in players)
            _time_passes(game_id, stuck=stuck, rnd=rnd)
            continue
        # acting lists the seat, with the step's commands its moves offer
        step_moves = {m["command"] for m in view["moves"]} - ANYTIME
        if step_moves:
            listed = {s["seat"]: s for s in acting["seats"]}
            assert step_moves <= set(listed[view["viewer"]]["commands"])
            assert acting["you"] is True
        body = movefill.body(move, rnd)
        if not raced and sent > 3:  # the race, on purpose: an outdated ETag is refused, nothing applied
            r = p.send(game_id, move, body, '"0.0"')
            assert r.status_code == 412, r.text
            assert p.state(game_id)[1] == etag
            raced = 1
        r = p.send(game_id, move, body, etag)
        assert r.status_code == 200, (move, body, r.status_code, r.text[:400])
        answer = r.json()
        assert answer["version"] > view["version"]
        assert isinstance(answer["moves"], list)
        sent += 1
        kinds.add(move["command"])
    else:
        raise AssertionError(f"{slug}: the game did not end ({sent} commands)")
    assert sent > 5, sent
    assert len(kinds - ANYTIME) >= 2, kinds
    print(f"{slug}: {sent} commands")
    final = players[0].state(game_id)[0]
    assert final["acting"] is None
    assert final["moves"] == []


@pytest.mark.parametrize(("slug", "seats", "own", "options"), GAMES)
def test_a_client_without_rules_plays_every_game_from_the_served_moves(
    live: LiveServer, slug: str, seats: int, own: int, options: dict[str, Any]
) -> None:
    _play_json(live, slug, seats, own, options, seed=len(slug))


# --------------------------------------------------------------------------------------------------
# the same with the generated client's typed classes
# --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client_package(service: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return generate_client(service.url, tmp_path_factory.mktemp("generated-contract"))


def _typed_field(models: ModuleType, field: Any) -> dict[str, Any]:
    """A typed field (one of the ``MoveField*`` classes) as the JSON the filler reads: the class says the
    kind (the discriminator)."""
    kinds = {
        models.MoveFieldChoice: "choice",
        models.MoveFieldSubset: "subset",
        models.MoveFieldMultiset: "multiset",
        models.MoveFieldInteger: "integer",
        models.MoveFieldText: "text",
        models.MoveFieldPartition: "partition",
        models.MoveFieldSequence: "sequence",
        models.MoveFieldCounts: "counts",
        models.MoveFieldGroups: "groups",
    }
    kind = next(k for cls, k in kinds.items() if isinstance(field, cls))
    data = field.to_dict()
    assert data["kind"] == kind
    return data


def _request_model(models: ModuleType, view: Any, command: str) -> Any:
    """The request class of ``command``: the game's own where rulesets share a name (``ChooseAction``), named
    after the view's class (``LooseTriggersView`` → ``LooseTriggersChooseActionCommandRequest``)."""
    game = type(view.state).__name__.removesuffix("View")
    own = getattr(models, f"{game}{command}CommandRequest", None)
    return own or getattr(models, f"{command}CommandRequest")


@pytest.mark.parametrize(("slug", "seats", "own", "options"), GAMES)
def test_a_generated_client_plays_every_game_from_the_typed_moves(
    live: LiveServer, client_package: ModuleType, slug: str, seats: int, own: int, options: dict[str, Any]
) -> None:
    pkg = client_package
    models = sub(pkg, "models")
    rnd = random.Random(len(slug) + 1)
    own = min(own, 2)  # fewer reads per command than the JSON client's three (the typed parse is slower)
    mine = [Seat(pkg, live.url, rnd) for _ in range(own)]
    created = sub(pkg, "api.lobby.games_create").sync_detailed(
        client=mine[0].client,
        body=models.GameCreateInputRequest.from_dict(
            {
                "ruleset": slug,
                "seats": seats,
                "options": {**options, **_absence()},
                "bots": ["random"] * (seats - own),
            }
        ),
    )
    assert created.status_code == 201, created.content
    game_id = created.parsed.id
    for seat in mine[1:]:
        joined = sub(pkg, "api.lobby.games_join").sync_detailed(
            game_id, client=seat.client, body=models.JoinInputRequest()
        )
        assert joined.status_code == 200, joined.content
    state_op = sub(pkg, "api.play.games_state_retrieve")
    sent = 0
    waited: list[Seat] = []
    for _ in range(MAX_COMMANDS * 4):
        seat = rnd.choice(waited if waited and rnd.random() < 0.7 else mine)
        view = state_op.sync(game_id, client=seat.client)
        assert isinstance(view, models.ViewerStateOutput)
        if view.over:
            break
        assert isinstance(view.acting, models.ActingOutput)
        names = {s.player for s in view.acting.seats if s.waited_on}
        waited = [q for q in mine if q.username in names]
        assert all(isinstance(m, models.MoveOutput) for m in view.moves)
        offered = [
            {"command": m.command, "path": m.path, "fields": [_typed_field(models, f) for f in m.fields]}
            for m in view.moves
        ]
        move = _pick(rnd, offered)
        if move is None or rnd.random() < 0.1:
            stuck = move is None and not any(
                _step_moves([m.to_dict() for m in state_op.sync(game_id, client=s.client).moves])
                for s in mine
            )
            _time_passes(game_id, stuck=stuck, rnd=rnd)
            continue
        body = _request_model(models, view, move["command"]).from_dict(movefill.body(move, rnd))
        r = seat.send_typed(game_id, move["command"], body)
        assert r.status_code == 200, (move, body, r.status_code, r.content[:400])
        assert isinstance(r.parsed, models.ViewerStateOutput)
        sent += 1
    else:
        raise AssertionError(f"{slug}: the game did not end ({sent} commands)")
    assert sent > 5, sent
    final = state_op.sync(game_id, client=mine[0].client)
    assert final.over is True
    assert final.moves == []
