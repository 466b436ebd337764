"""Secrets (R8.3) from outside: random complete games over HTTP (payoffs on: open, peek and hidden bundles,
gifts, trades), and after every command EVERY seat and a spectator read their state (also with If-None-
Match) and their part of the event feed; every response (and the command responses and rule errors,
status line, headers and ETags included) is searched for anything the oracle in ``secrets.py`` says that
viewer may not know."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from games import store
from games.api.commands import kebab

from .conftest import HttpPlayer
from .live import LiveServer
from .secrets import RULESET, LeakFound, Oracle, card_ids_in, check_response

pytestmark = pytest.mark.django_db(transaction=True)


class Table:
    def __init__(self, game_id: int, seats: list[HttpPlayer], spectator: HttpPlayer) -> None:
        self.game_id = game_id
        self.seats = seats
        self.spectator = spectator
        self.oracle = Oracle(game_id)
        self.after: dict[int | None, int] = {}
        self.etag: dict[int | None, str] = {}
        self.responses = 0

    def viewers(self) -> list[tuple[int | None, HttpPlayer]]:
        return [*enumerate(self.seats), (None, self.spectator)]

    def check(self, viewer: int | None, response: httpx.Response, sent: set[int] | None = None) -> None:
        # the game only changes when a seat sends a command (no bots, no deadlines here): the oracle is
        # advanced after each send, not for every response
        check_response(self.oracle, viewer, response, sent_cards=sent or ())
        self.responses += 1

    def read_all(self, *, states: bool = True) -> None:
        """Every viewer reads its new events (always) and its state (when ``states``)."""
        base = f"/api/v1/games/{self.game_id}"
        for viewer, player in self.viewers():
            if states:
                r = player.get(f"{base}/state")
                assert r.status_code == 200, r.text
                self.check(viewer, r)
                if viewer is None:  # a conditional read: 304, headers only (checked too)
                    again = player.get(f"{base}/state", headers={"If-None-Match": r.headers["ETag"]})
                    assert again.status_code == 304
                    self.check(viewer, again)
            feed = player.get(f"{base}/events", params={"after": self.after.get(viewer, 0), "limit": 1000})
            assert feed.status_code == 200, feed.text
            self.check(viewer, feed)
            self.after[viewer] = feed.json()["next_after"]

    def send(self, seat: int, body: dict[str, Any]) -> httpx.Response:
        kind = body.pop("type")
        sent = card_ids_in({"loot": [v for k, v in body.items() if k in ("loot", "give_loot", "shares")]})
        r = self.seats[seat].post(
            f"/api/v1/games/{self.game_id}/commands/{kebab(kind)}",
            body,
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )
        assert r.status_code < 500, r.text
        self.oracle.advance()
        self.check(seat, r, sent)
        return r


def probe_errors(table: Table, rnd: random.Random) -> None:
    """A seat sends a wrong command (cards it does not hold, unknown trades, not its step): the problem it
    gets back must not tell it anything either."""
    seat = rnd.randrange(len(table.seats))
    card = rnd.randrange(140)
    other = (seat + 1 + rnd.randrange(len(table.seats) - 1)) % len(table.seats)
    wrong: list[dict[str, Any]] = [
        {"type": "GiveGift", "to": other, "loot": [card]},
        {
            "type": "OfferPayoff",
            "token": 0,
            "side": "yes",
            "target": other,
            "loot": [card],
            "visibility": "hidden",
        },
        {"type": "AcceptTrade", "trade_id": rnd.randrange(50), "loot": [card]},
        {"type": "OfferTrade", "to": other, "give_loot": [card], "want_values": [5000]},
        {"type": "DistributeLoot", "shares": [[card]] + [[] for _ in table.seats[1:]]},
        {"type": "PlaceThreat", "target": seat},
    ]
    table.send(seat, rnd.choice(wrong))


def play_and_watch(table: Table, rnd: random.Random, *, state_every: int, max_commands: int = 3000) -> int:
    """Play to the end; after every command every viewer reads its new events (so every event is checked for
    every viewer while the game runs), and every ``state_every`` commands its state too (the actor's new
    state comes back with each command and is always checked)."""
    sent = 0
    table.oracle.advance()
    table.read_all()
    while sent < max_commands:
        table.oracle.advance()
        state = table.oracle.state
        if RULESET.is_terminal(state):
            return sent
        order = list(range(len(table.seats)))
        rnd.shuffle(order)
        for seat in order:
            command = RULESET.bot_command(
                state, seat, strategy="random" if rnd.random() < 0.6 else "sensible", salt=sent
            )
            if command is None:
                continue
            body = dict(RULESET.command_to_json(command))
            r = table.send(seat, body)
            assert r.status_code == 200, r.text
            sent += 1
            break
        else:
            raise AssertionError("no seat has anything to do but the game is not over")
        if rnd.random() < 0.15:
            probe_errors(table, rnd)
        table.read_all(states=sent % state_every == 0)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    ("players", "options", "seed", "state_every"),
    [
        (4, {"payoffs": True, "fuzz_depth": "short"}, 1, 4),
        pytest.param(
            6,
            {"payoffs": True, "no_vote_rule": "russian", "fuzz_depth": "short"},
            2,
            1,
            marks=pytest.mark.slow,
        ),
    ],
)
def test_no_response_shows_a_seat_what_r8_3_hides(
    live: LiveServer,
    http_players: Callable[[int], list[HttpPlayer]],
    players: int,
    options: dict[str, Any],
    seed: int,
    state_every: int,
) -> None:
    rnd = random.Random(seed)
    people = http_players(players + 1)
    creator, spectator = people[0], people[-1]
    created = creator.post("/api/v1/games", {"seats": players, "options": options})
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    for p in people[1:players]:
        assert p.post(f"/api/v1/games/{game_id}/join").status_code == 200
    seat_of = {}
    for p in people[:players]:
        state = p.get(f"/api/v1/games/{game_id}/state").json()
        seat_of[p.username] = state["viewer"]
    seats = sorted(people[:players], key=lambda p: seat_of[p.username])
    table = Table(game_id, seats, spectator)

    sent = play_and_watch(table, rnd, state_every=state_every)
    assert sent > players
    assert table.oracle.over
    assert table.responses > (len(seats) + 1) * sent
    assert store.verify_chain(game_id)

    # over: everything is public now, the seed and the chain included
    final = spectator.get(f"/api/v1/games/{game_id}/state").json()
    assert final["state"]["seed"] == table.oracle.seed.hex()


def test_the_oracle_catches_a_leak(live: LiveServer, http_players: Callable[[int], list[HttpPlayer]]) -> None:
    """The checker is not blind: the FULL view of a running game (what only the end may show) is refused."""
    people = http_players(4)
    created = people[0].post("/api/v1/games", {"seats": 4, "options": {}})
    game_id = created.json()["id"]
    for p in people[1:]:
        p.post(f"/api/v1/games/{game_id}/join")
    oracle = Oracle(game_id)
    oracle.advance()
    state = oracle.state
    leaky = httpx.Response(
        200,
        json={"state": RULESET.view_for(state, 0), "other": RULESET.view_for(state, 1)},
        request=httpx.Request("GET", f"{live.url}/x"),
    )
    with pytest.raises(LeakFound):
        check_response(oracle, 0, leaky)
    seed_in_header = httpx.Response(
        200, json={}, headers={"ETag": oracle.seed.hex()}, request=httpx.Request("GET", f"{live.url}/x")
    )
    with pytest.raises(LeakFound, match="secret string"):
        check_response(oracle, 0, seed_in_header)
    honest = httpx.Response(
        200, json={"state": RULESET.view_for(state, 0)}, request=httpx.Request("GET", f"{live.url}/x")
    )
    check_response(oracle, 0, honest)

    # real served responses, judged as if another seat had received them: each is a leak for that seat
    by_seat = {p.get(f"/api/v1/games/{game_id}/state").json()["viewer"]: p for p in people}
    mine = by_seat[0].get(f"/api/v1/games/{game_id}/state")
    feed = by_seat[0].get(f"/api/v1/games/{game_id}/events", params={"after": 0})
    check_response(oracle, 0, mine)
    check_response(oracle, 0, feed)
    for response in (mine, feed):
        with pytest.raises(LeakFound, match=r"R8\.3"):
            check_response(oracle, 1, response)
        with pytest.raises(LeakFound, match=r"R8\.3"):
            check_response(oracle, None, response)
    # the unredacted first event (what boardgame.io once sent to every client) is caught on every count
    raw_start = httpx.Response(
        200, json={"events": [{"event": oracle_first_event(game_id)}]}, request=httpx.Request("GET", live.url)
    )
    with pytest.raises(LeakFound):
        check_response(oracle, 2, raw_start)


def oracle_first_event(game_id: int) -> dict[str, Any]:
    data: dict[str, Any] = store.load_stream(game_id, limit=1)[0].data
    return data
