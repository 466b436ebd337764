"""Helpers of the table's end-to-end tests: open a game over HTTP, find who sits where, read the log and the
clock the deadlines run on (the sweeper is called with an explicit ``now``, as in tests/deadlines)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from critters_api import error_codes
from games import deadlines, loading, roster
from games.api.commands import kebab
from games.models import Event, Game, GameStatus
from games.services import bots
from tests.conftest import Api, assert_problem
from tests.table.test_games_api import _open, play_to_end

__all__ = ["Seated", "drive", "open_game", "play_to_end"]


class Seated:
    """A running table game over HTTP: ``by_seat[seat]`` is the human's client in that seat."""

    def __init__(self, game_id: int, apis: list[Api]) -> None:
        self.game_id = game_id
        self.apis = apis
        body = apis[0].get(f"/api/v1/games/{game_id}/state").json()
        seat_of = {p["player"]: p["seat"] for p in body["game"]["players"]}
        self.by_seat: dict[int, Api] = {seat_of[a.player.username]: a for a in apis}
        self.creator = apis[0]
        self.creator_seat = seat_of[apis[0].player.username]
        self.bots = sorted(p["seat"] for p in body["game"]["players"] if p["bot"])

    @property
    def url(self) -> str:
        return f"/api/v1/games/{self.game_id}"

    def body(self, seat: int | None = None, api: Api | None = None) -> dict[str, Any]:
        client = api if api is not None else self.by_seat[seat if seat is not None else self.creator_seat]
        r = client.get(f"{self.url}/state")
        assert r.status_code == 200, r.content
        data: dict[str, Any] = r.json()
        return data

    def state(self, seat: int | None = None) -> dict[str, Any]:
        data: dict[str, Any] = self.body(seat)["state"]
        return data

    def play(self, seat: int | None = None) -> dict[str, Any]:
        data: dict[str, Any] = self.state(seat)["play"]
        return data

    def command(self, seat: int, name: str, body: Any = None, api: Api | None = None) -> Any:
        client = api if api is not None else self.by_seat[seat]
        return client.command(self.game_id, name, body)

    def ok(self, seat: int, name: str, body: Any = None, api: Api | None = None) -> dict[str, Any]:
        r = self.command(seat, name, body, api)
        assert r.status_code == 200, (seat, name, body, r.content)
        data: dict[str, Any] = r.json()
        return data

    def game(self) -> Game:
        return Game.objects.get(pk=self.game_id)

    def server_state(self) -> Any:
        game = self.game()
        return loading.load_state(game, loading.ruleset_for(game))

    def events(self, *types: str, after: int = 0) -> list[dict[str, Any]]:
        rows = Event.objects.filter(game_id=self.game_id, seq__gt=after).order_by("seq")
        if types:
            rows = rows.filter(type__in=types)
        return [dict(row.data) for row in rows]

    def version(self) -> int:
        return self.game().version

    def etag(self) -> str:
        return str(self.game().etag)

    def feed(self, api: Api, **params: Any) -> dict[str, Any]:
        r = api.get(f"{self.url}/events", after=0, limit=500, **params)
        assert r.status_code == 200, r.content
        data: dict[str, Any] = r.json()
        return data


def open_game(ruleset: str, humans: int, bots: list[str], options: dict[str, Any]) -> Seated:
    game_id, apis = _open(ruleset, humans, bots, options)
    return Seated(game_id, apis)


def due(play: dict[str, Any]) -> datetime:
    """``state.play.due_at`` as a datetime."""
    assert play["due_at"] is not None, play
    return datetime.fromisoformat(play["due_at"])


TIMERS = ("deadline_at", "warn_at")


def sweep(at: datetime) -> deadlines.SweepReport:
    """The sweeper runs at ``at``: every deadline and warning due by then is applied. Not its safety net for
    bot turns whose task was lost (tests play the machine seats by calling ``bots.bots_play`` where they
    mean them to play, so a scripted scene stays the same whoever the seed makes the Bagman)."""
    return deadlines.sweep(now=at, timers=TIMERS)


def sweep_past(at: datetime) -> deadlines.SweepReport:
    return sweep(at + timedelta(seconds=1))


DOCUMENTED: frozenset[str] = frozenset(e.code for e in error_codes.catalogue())


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    """A problem response with a code the error catalogue (docs/ERRORS.md) documents."""
    body = assert_problem(response, status, code)
    assert code in DOCUMENTED, f"{code} is not in the error catalogue"
    return body


def drive(
    t: Seated,
    active: Mapping[int, Api],
    *,
    until: Callable[[Any], bool] | None = None,
    max_steps: int = 3_000,
    salt: int = 0,
) -> Any:
    """Play on over HTTP: the seats in ``active`` send what the sensible bot would, the machine seats are
    played by the service, every other seat stays away; when nobody moves, the sweeper runs at the step's
    deadline. Stops when the game is over or ``until(server state)`` holds; returns the server state."""
    for _ in range(max_steps):
        bots.bots_play(t.game_id, max_steps=100_000)
        game = t.game()
        rs = loading.ruleset_for(game)
        state = loading.load_state(game, rs)
        if game.status == GameStatus.OVER or (until is not None and until(state)):
            return state
        machines = roster.machine_seats(game, rs, state)
        moved = False
        for seat, api in sorted(active.items()):
            if seat in machines:
                continue
            command: Any = rs.bot_command(state, seat, strategy="sensible", salt=salt)
            if command is None:
                continue
            body = {k: v for k, v in rs.command_to_json(command).items() if k not in ("type", "reason")}
            response = api.command(t.game_id, kebab(command.TYPE), body)
            assert response.status_code == 200, (command, response.content)
            moved = True
            break
        if not moved:
            assert game.deadline_at is not None, f"game {t.game_id}: nobody can move and no deadline runs"
            sweep_past(game.deadline_at)
    raise AssertionError(f"game {t.game_id} did not get there in {max_steps} steps")
