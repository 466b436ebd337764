"""LT7.2 over HTTP: while a game of Loose Triggers runs, no seat and no spectator learns another seat's Pal,
hand, face-down choice or Loot stack, a face-down displayed card (the Bagman excepted), the deck orders or the
seed: not from ``/state``, the ``/events`` feed (and its long-poll), the step-through ``/states/{seq}``, nor
from error responses. Once the game is over, everything is public.

The secrets are read from the game's state on the server (``services.load_state``); the responses are
searched field by field (card ids and seats are small ints: a substring search would prove nothing), the seed
(64 hex digits) anywhere in the text, and every list of ints for a run of either deck in its secret order.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from games.models import Event
from tests.conftest import Api, make_api
from tests.table.helpers import Seated, drive, open_game, sweep_past

pytestmark = pytest.mark.django_db

OPTIONS: dict[str, Any] = {"deadlines": {"give": 40, "choose": 40, "pick": 40}, "countdown": 20}
RUN = 5  # a run of this many cards of a deck, in its order, is a leak of the order
PROBLEM_MEMBERS = {"type", "title", "status", "detail", "instance", "code", "kind", "errors", "etag"}


def _server(t: Seated) -> Any:
    state = t.server_state()
    return state.game  # the Loose Triggers state inside the table's


def _runs(deck: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {tuple(deck[i : i + RUN]) for i in range(len(deck) - RUN + 1)}


def _int_lists(value: Any) -> list[list[Any]]:
    out: list[list[Any]] = []
    if isinstance(value, dict):
        for v in value.values():
            out += _int_lists(v)
    elif isinstance(value, list):
        if len(value) >= RUN and all(type(x) is int for x in value):
            out.append(value)
        for v in value:
            out += _int_lists(v)
    return out


def _no_order_or_seed(payload: Any, g: Any, where: str) -> None:
    text = json.dumps(payload)
    assert g.seed.hex() not in text, f"{where}: the seed"
    secret = _runs(g.loot_deck) | _runs(g.action_deck)
    for values in _int_lists(payload):
        for i in range(len(values) - RUN + 1):
            assert tuple(values[i : i + RUN]) not in secret, f"{where}: a deck's order in {values}"


def _check_view(view: dict[str, Any], viewer: int | None, g: Any, where: str) -> dict[str, int]:
    """The state's view for ``viewer`` hides what LT7.2 hides; returns what it checked (counts)."""
    seen = {"own": 0, "hidden": 0, "face_down_hidden": 0, "face_down_bagman": 0, "picker": 0}
    assert view["seed"] is None, where
    assert view["loot_deck"] is None, where
    assert view["action_deck"] is None, where
    for s, seat in enumerate(view["seats"]):
        if s == viewer:  # the owner sees their own (so the checks below can fail)
            assert seat["pal"] == g.pals[s], where
            assert [c["card"] for c in seat["hand"]] == list(g.hands[s]), where
            assert [c["card"] for c in seat["stack"]] == list(g.stacks[s]), where
            seen["own"] += 1
            continue
        assert seat["pal"] is None, (where, s)
        assert seat["hand"] is None, (where, s)
        assert seat["chosen"] is None, (where, s)
        assert seat["stack_value"] is None, (where, s)
        picker = g.step == "pick" and viewer == g.pending_seat and s == g.pending_target
        if picker:  # LT4.1: a Gunner picking from a Sitting Duck sees that stack
            assert [c["card"] for c in seat["stack"]] == list(g.stacks[s]), where
            seen["picker"] += 1
        else:
            assert seat["stack"] is None, (where, s)
        seen["hidden"] += 1
    for i, slot in enumerate(view["display"]):
        assert slot["face_down"] == g.display_down[i], where
        if g.display_down[i] and viewer != g.bagman:
            assert slot["loot"] is None, (where, i)
            seen["face_down_hidden"] += 1
        else:
            assert slot["loot"]["card"] == g.display[i], (where, i)
            seen["face_down_bagman"] += g.display_down[i]
    return seen


def _secret_fields(e: dict[str, Any], viewer: int | None, revealed_after: bool) -> list[str]:
    """The fields of event ``e`` that ``viewer`` may not know while the game runs (LT7.2)."""
    kind = e["type"]
    hidden: dict[str, bool] = {
        "GameStarted": True,  # the seed, the decks (and below: the others' Pals and hands)
        "LootGiven": e.get("face_down") is True and viewer not in (e.get("bagman"), e.get("to")),
        "ActionChosen": viewer != e.get("seat") and not revealed_after,
        "LootTaken": viewer not in (e.get("seat"), e.get("victim")),  # into a secret stack
        "Died": viewer != e.get("seat") and not (e.get("loot_to") == "killer" and viewer == e.get("killer")),
        "CardsDrawn": viewer != e.get("seat"),
        "ActionDeckRemade": True,
        "LootBurned": viewer != e.get("seat"),
        "SpoilsClaimed": e.get("face_down") is True and viewer not in (e.get("seat"), e.get("from_bagman")),
        "CardGrabbed": viewer != e.get("seat")
        and not (e.get("source") == "discard" or (e.get("source") == "display" and not e.get("face_down")))
        and not (e.get("source") == "display" and viewer == e.get("bagman")),
        "GameEnded": True,
    }
    fields = {
        "GameStarted": ["seed", "loot_deck", "action_deck"],
        "LootGiven": ["card"],
        "ActionChosen": ["card"],
        "LootTaken": ["card"],
        "Died": ["loot"],
        "CardsDrawn": ["cards"],
        "ActionDeckRemade": ["deck"],
        "LootBurned": ["loot"],
        "SpoilsClaimed": ["card"],
        "CardGrabbed": ["card"],
        "GameEnded": ["seed"],
    }
    return fields.get(kind, []) if hidden.get(kind, False) else []


def _check_event(e: dict[str, Any], viewer: int | None, revealed_after: bool, where: str) -> None:
    """One event of the feed as ``viewer`` sees it while the game runs (LT7.2)."""
    for name in _secret_fields(e, viewer, revealed_after):
        assert e[name] is None, (where, name, e)
    if e["type"] == "GameStarted":
        assert all(p is None for s, p in enumerate(e["pals"]) if s != viewer), where
        assert all(h is None for s, h in enumerate(e["hands"]) if s != viewer), where
    elif e["type"] == "LootDisplayed" and viewer != e["bagman"]:
        assert all(c is None for c, down in zip(e["cards"], e["face_down"], strict=True) if down), where


class Checker:
    """Reads everything each viewer may read and checks it against the server's secrets."""

    def __init__(self, t: Seated, spectator: Api) -> None:
        self.t = t
        self.viewers: list[tuple[int | None, Api]] = [*sorted(t.by_seat.items()), (None, spectator)]
        self.totals: dict[str, int] = {}
        self.events_checked = 0
        self.whispers: list[tuple[str, set[int]]] = []  # private messages: (text, the seats that may read it)

    def check(self) -> None:
        t = self.t
        g = _server(t)
        version = t.version()
        reveals = list(
            Event.objects.filter(game_id=t.game_id, type="ActionsRevealed").values_list("seq", flat=True)
        )
        last_reveal = max(reveals, default=0)
        for viewer, api in self.viewers:
            where = f"viewer {viewer} at {version}"
            body = t.body(api=api)
            assert body["viewer"] == viewer
            _no_order_or_seed(body, g, f"{where} /state")
            for key, n in _check_view(body["state"], viewer, g, f"{where} /state").items():
                self.totals[key] = self.totals.get(key, 0) + n
            r = api.get(f"{t.url}/states/{version}")
            assert r.status_code == 200, r.content
            assert r.json()["full"] is False
            _no_order_or_seed(r.json(), g, f"{where} /states")
            _check_view(r.json()["state"], viewer, g, f"{where} /states")
            feed = t.feed(api)
            text = json.dumps(feed)
            for whisper, readers in self.whispers:  # talk is secret too, when private (LT2.2)
                assert (whisper in text) == (viewer in readers), (where, whisper)
            polled = api.get(f"{t.url}/events", after=max(0, version - 5), wait=1)  # the long-poll
            assert polled.status_code == 200, polled.content
            for page in (feed, polled.json()):
                _no_order_or_seed(page, g, f"{where} /events")
                assert page["head_hash"] is None
                for item in page["events"]:
                    assert item["hash"] is None  # the private chain is hashed over the secrets
                    e = item["event"]
                    _check_event(e, viewer, item["seq"] < last_reveal, f"{where} /events {item['seq']}")
                    self.events_checked += 1
            self._errors(api, viewer, g, where)

    def _errors(self, api: Api, viewer: int | None, g: Any, where: str) -> None:
        """Refused commands and reads tell nothing either."""
        t = self.t
        version = t.version()
        for name, body in (  # each refused whatever the step (no such card, slot, seat)
            ("choose-action", {"card": 99}),
            ("pick-loot", {"card": 99}),
            ("give-loot", {"slot": 99, "to": 0}),
            ("grab", {"sources": ["loot", "action", "display:99"]}),
            ("burn-loot", {"card": 99, "loot": [0, 1]}),
            ("aim", {"target": 99}),
            ("elect-bagman", {"candidate": 99}),
        ):
            r = api.command(t.game_id, name, body)
            assert r.status_code in (403, 404, 409, 422), (where, name, r.content)
            problem = r.json()
            assert set(problem) <= PROBLEM_MEMBERS, (where, problem)
            _no_order_or_seed(problem, g, f"{where} {name}")
        assert t.version() == version
        for path in ("record", "verify"):
            r = api.get(f"{t.url}/{path}")
            assert r.status_code == 409, (path, r.content)
            assert r.json()["code"] == "game_not_over"
            _no_order_or_seed(r.json(), g, f"{where} /{path}")


def _later(t: Seated, version: int) -> Callable[[Any], bool]:
    return lambda _state: t.version() >= version


def test_loose_triggers_secrets_stay_hidden_from_seats_and_spectators_until_the_end() -> None:
    """LT7.2 (as R8.3): Pals, hands, choices, stacks, face-down cards, deck orders and the seed."""
    t = open_game("loose_triggers", 6, [], OPTIONS)  # every seat a viewer: the Bagman is one of them
    spectator = make_api()
    checker = Checker(t, spectator)
    checker.check()  # the first display: two face-down cards (LT2.1)

    # a Discussion: a Gunner has chosen face down and is not ready yet
    creator = t.creator_seat
    a, b = [s for s in sorted(t.by_seat) if s != creator][:2]
    t.ok(a, "aim", {"target": b})
    t.ok(b, "aim", {"target": a})
    countdown = t.game().deadline_at
    assert countdown is not None
    sweep_past(countdown)
    assert t.play()["step"] == "choose"
    hand = [c["card"] for c in t.state(a)["seats"][a]["hand"]]
    t.ok(a, "choose-action", {"card": hand[-1]})
    assert t.state(a)["seats"][a]["chosen"] == hand[-1]
    whisper = f"the face-down card is a relic {uuid.uuid4().hex}"
    t.ok(a, "send-message", {"text": whisper, "to": [b]})
    checker.whispers.append((whisper, {a, b}))
    checker.check()

    # the rest of the game, checked every few events
    while True:
        drive(t, t.by_seat, until=_later(t, t.version() + 15))
        if t.game().status == "over":
            break
        checker.check()
    totals = checker.totals
    assert totals["own"] > 0
    assert totals["hidden"] > 0
    assert totals["face_down_hidden"] > 0
    assert totals["face_down_bagman"] > 0
    assert checker.events_checked > 500

    # --- after the end, everything is public
    g = _server(t)
    for viewer, api in checker.viewers:
        body = t.body(api=api)
        view = body["state"]
        assert view["over"] is True
        assert view["seed"] == g.seed.hex()
        assert view["loot_deck"] == list(g.loot_deck)
        for s, seat in enumerate(view["seats"]):
            assert seat["pal"] == g.pals[s], (viewer, s)
            assert [c["card"] for c in seat["hand"]] == list(g.hands[s]), (viewer, s)
            assert [c["card"] for c in seat["stack"]] == list(g.stacks[s]), (viewer, s)
        feed = t.feed(api)
        started = feed["events"][0]["event"]
        assert started["type"] == "GameStarted"
        assert started["seed"] == g.seed.hex()
        assert all(p is not None for p in started["pals"])
        assert all(h is not None for h in started["hands"])
        chosen = [i["event"] for i in feed["events"] if i["event"]["type"] == "ActionChosen"]
        assert chosen
        assert all(e["card"] is not None for e in chosen)
        assert feed["head_hash"] is not None
        assert whisper in json.dumps(feed)  # the talk is part of the public record once over
        assert all(i["hash"] is not None for i in feed["events"])
    record = spectator.get(f"{t.url}/record")
    assert record.status_code == 200, record.content
    assert record.json()["seed"] == g.seed.hex()
    verdict = spectator.get(f"{t.url}/verify")
    assert verdict.status_code == 200, verdict.content
    assert verdict.json()["ok"] is True
