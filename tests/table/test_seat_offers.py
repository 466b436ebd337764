"""Issue #28, item 13 ("a seat can be pushed onto anyone") and item 14's way on for a game without deadlines,
over HTTP.

Item 13: the creator's hand-over of a seat to a person is an offer (202) that person accepts or declines;
until then nothing changes for the seat, the game's log and version stay as they were and the receiver gets
no game data and no webhook delivery; the creator may withdraw it; it lapses when the seat changes first (its
player takes it back). Accepted, it is the hand-over it always was (``AutopilotReleased``,
``SeatHandedOver``).

Item 14 (the table's ruling 13, R7.6's spirit): a seat that a step without a deadline has waited on for 7 days
without a move is stalled; its creator may hand it to a bot, or offer it to a player, as an abandoned one.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import deadlines
from games.models import Event, Game, Seat, SeatOffer
from games.rules.table.absence import STALL_SECONDS
from games.rules.table.ruleset import Table
from games.services import bots
from notifications.models import Delivery
from tests.audit.play import play_to_end
from tests.conftest import Api, assert_problem, make_api, start_table
from tests.conftest import Table as Tbl
from tests.table.helpers import open_game

pytestmark = pytest.mark.django_db

ABSENCE = {
    "deadlines": {"distribute": 60, "choose": 60},
    "absence": {"extensions": 0, "autopilot_after": 1},
}


def _due(game_id: int) -> Any:
    game = Game.objects.get(pk=game_id)
    assert game.deadline_at is not None
    return game.deadline_at


def _distribute(table: Tbl) -> None:
    state = table.state(0)["state"]
    shares: list[list[int]] = [[] for _ in state["seats"]]
    shares[state["boss"]] = [c["id"] for c in state["table"]]
    r = table.apis[state["boss"]].command(table.game_id, "distribute-loot", {"shares": shares})
    assert r.status_code == 200, r.content


def _choose_and_ready(api: Api, game_id: int) -> None:
    assert api.command(game_id, "choose-action", {"action": "vote_yes"}).status_code == 200
    assert api.command(game_id, "set-ready", {"ready": True}).status_code == 200


def _seat_1_on_autopilot() -> Tbl:
    """A game whose seat 1 missed the choice (seats 0 and 3 chose; seat 2 too, so only seat 1 missed)."""
    table = start_table(4, ABSENCE)
    gid = table.game_id
    _distribute(table)
    for seat in (0, 2, 3):
        _choose_and_ready(table.apis[seat], gid)
    deadlines.sweep(now=_due(gid) + timedelta(seconds=1))
    assert [e.data["seat"] for e in Event.objects.filter(game_id=gid, type="AutopilotEngaged")] == [1]
    return table


def _offer(creator: Api, game_id: int, seat: int, to: Api) -> dict[str, Any]:
    url = f"/api/v1/games/{game_id}/seats/{seat}/hand-over"
    r = creator.post(url, {"to": "player", "player": to.player.username})
    assert r.status_code == 202, r.content
    body: dict[str, Any] = r.json()
    return body


def _log(game_id: int) -> tuple[int, list[str]]:
    game = Game.objects.get(pk=game_id)
    return game.version, list(Event.objects.filter(game_id=game_id).values_list("type", flat=True))


def test_item13_a_hand_over_to_a_person_is_an_offer_that_changes_nothing_until_accepted() -> None:
    table = _seat_1_on_autopilot()
    gid, creator = table.game_id, table.apis[0]
    carol, dave = make_api("carol"), make_api("dave")
    r = carol.post("/api/v1/me/webhooks", {"url": "http://127.0.0.1:9/hook", "events": ["game.event"]})
    assert r.status_code == 201, r.content
    before = _log(gid)
    holder = Seat.objects.get(game_id=gid, position=1).player_id

    offer = _offer(creator, gid, 1, carol)
    assert {k: offer[k] for k in ("game", "seat", "player", "offered_by", "reason")} == {
        "game": gid,
        "seat": 1,
        "player": "carol",
        "offered_by": creator.player.username,
        "reason": "autopilot",
    }
    # nothing changed: the log, the seat, and carol has no game, no state, no webhook delivery
    assert _log(gid) == before
    assert Seat.objects.get(game_id=gid, position=1).player_id == holder
    assert carol.get("/api/v1/me/games").json()["results"] == []
    assert carol.get(f"/api/v1/games/{gid}/state").json()["viewer"] is None
    assert not Delivery.objects.filter(endpoint__player=carol.player).exists()
    # she sees the offer; nobody else can take it
    assert [o["id"] for o in carol.get("/api/v1/me/offers").json()["results"]] == [offer["id"]]
    assert dave.get("/api/v1/me/offers").json()["results"] == []
    assert_problem(dave.post(f"/api/v1/me/offers/{offer['id']}/accept"), 404, "offer_not_found")
    assert_problem(dave.post(f"/api/v1/me/offers/{offer['id']}/decline"), 404, "offer_not_found")
    # while the game goes on (the other seats act), she still gets nothing of it
    table.apis[2].command(gid, "send-message", {"text": "where is seat 1?"})
    assert not Delivery.objects.filter(endpoint__player=carol.player).exists()

    # accepted: the hand-over happens now, as it always did
    r = carol.post(f"/api/v1/me/offers/{offer['id']}/accept")
    assert r.status_code == 200, r.content
    assert r.json()["your_seat"] == 1
    assert _log(gid)[1][-2:] == ["AutopilotReleased", "SeatHandedOver"]
    assert carol.get(f"/api/v1/games/{gid}/state").json()["viewer"] == 1
    assert [g["id"] for g in carol.get("/api/v1/me/games").json()["results"]] == [gid]
    assert table.apis[1].get(f"/api/v1/games/{gid}/state").json()["viewer"] is None
    assert carol.get("/api/v1/me/offers").json()["results"] == []
    assert not SeatOffer.objects.filter(game_id=gid).exists()
    # and the game plays to its end and verifies (the conftest's check of every finished game, and here)
    players = {a.player.pk: a for a in (table.apis[0], table.apis[2], table.apis[3], carol)}
    assert play_to_end(gid, players).status == "over"
    verdict = creator.get(f"/api/v1/games/{gid}/verify").json()
    assert verdict["ok"] is True, verdict


def test_item13_declined_withdrawn_and_lapsed_offers_leave_the_seat_as_it_is() -> None:
    table = _seat_1_on_autopilot()
    gid, creator, absent = table.game_id, table.apis[0], table.apis[1]
    carol = make_api("carol")
    before = _log(gid)

    offer = _offer(creator, gid, 1, carol)
    r = carol.post(f"/api/v1/me/offers/{offer['id']}/decline")
    assert r.status_code == 204, r.content
    assert carol.get("/api/v1/me/offers").json()["results"] == []
    assert_problem(carol.post(f"/api/v1/me/offers/{offer['id']}/accept"), 404, "offer_not_found")

    offer = _offer(creator, gid, 1, carol)
    url = f"/api/v1/games/{gid}/seats/1/offer"
    assert_problem(table.apis[2].delete(url), 403, "not_creator")
    assert creator.delete(url).status_code == 204
    assert_problem(creator.delete(url), 404, "offer_not_found")
    assert_problem(carol.post(f"/api/v1/me/offers/{offer['id']}/accept"), 404, "offer_not_found")
    assert _log(gid) == before

    # the absent player takes the seat back: the offer lapses
    offer = _offer(creator, gid, 1, carol)
    assert absent.command(gid, "take-back-seat").status_code == 200
    assert carol.get("/api/v1/me/offers").json()["results"] == []
    after_take_back = _log(gid)
    assert_problem(carol.post(f"/api/v1/me/offers/{offer['id']}/accept"), 409, "offer_lapsed")
    assert _log(gid) == after_take_back
    assert Seat.objects.get(game_id=gid, position=1).player_id == absent.player.pk
    # a seat no longer abandoned cannot be offered at all
    r = creator.post(f"/api/v1/games/{gid}/seats/1/hand-over", {"to": "player", "player": "carol"})
    assert_problem(r, 409, "not_on_autopilot")


def test_item12_13_accepting_counts_against_the_running_cap_and_the_last_human_seat_stays_human(
    settings: Any,
) -> None:
    table = _seat_1_on_autopilot()
    gid, creator = table.game_id, table.apis[0]
    carol = make_api("carol")
    offer = _offer(creator, gid, 1, carol)
    settings.MAX_RUNNING_GAMES_PER_PLAYER = 1
    other = start_table(4)  # carol plays another running game: at her cap
    Seat.objects.filter(game_id=other.game_id, position=3).update(
        player=carol.player, uid=f"p{carol.player.pk}"
    )
    assert_problem(carol.post(f"/api/v1/me/offers/{offer['id']}/accept"), 409, "too_many_running_games")
    assert Seat.objects.get(game_id=gid, position=1).player_id == table.apis[1].player.pk
    # item 12: handing the last human seat to a bot would make a bot-only game, for operators only
    settings.BOT_ONLY_GAMES_STAFF_ONLY = True
    lone = start_table(4, ABSENCE)
    Seat.objects.filter(game_id=lone.game_id, position__in=(1, 2, 3)).update(
        player=None, bot_strategy="random"
    )
    url = f"/api/v1/games/{lone.game_id}/seats/0/hand-over"
    assert_problem(lone.apis[0].post(url, {"to": "bot"}), 403, "bot_only_game")


# --------------------------------------------------------------------------------------------------
# item 14: the way on for a game without deadlines (the table's ruling 13)
# --------------------------------------------------------------------------------------------------
@pytest.fixture
def later(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Move the server's clock on: ``later(seconds)``."""
    real = timezone.now
    shift = [timedelta(0)]
    monkeypatch.setattr(timezone, "now", lambda: real() + shift[0])

    def move(seconds: float) -> None:
        shift[0] = timedelta(seconds=seconds)

    return move


def _stalled_at_choose() -> tuple[Tbl, int]:
    """A game without deadlines (the default) waiting in the choice on one seat that never moves."""
    table = start_table(4)
    gid = table.game_id
    _distribute(table)
    idle = 2
    for seat in (0, 1, 3):
        _choose_and_ready(table.apis[seat], gid)
    assert Game.objects.get(pk=gid).deadline_at is None
    return table, idle


def test_item14_ruling13_a_seat_stalled_7_days_without_deadlines_can_be_handed_to_a_bot(later: Any) -> None:
    table, idle = _stalled_at_choose()
    gid, creator = table.game_id, table.apis[0]
    url = f"/api/v1/games/{gid}/seats/{idle}/hand-over"
    before = _log(gid)
    assert_problem(creator.post(url, {"to": "bot"}), 409, "not_stalled")  # waited minutes only
    later(STALL_SECONDS - 60)
    assert_problem(creator.post(url, {"to": "bot"}), 409, "not_stalled")
    assert_problem(creator.post(f"/api/v1/games/{gid}/seats/1/hand-over", {"to": "bot"}), 409)  # it moved
    assert _log(gid) == before
    later(STALL_SECONDS + 60)
    r = creator.post(url, {"to": "bot", "strategy": "sensible"})
    assert r.status_code == 200, r.content
    handed = Event.objects.filter(game_id=gid).order_by("-seq").filter(type="SeatHandedOver").first()
    assert handed is not None
    assert (handed.data["seat"], handed.data["to"]) == (idle, "bot")
    assert handed.command is not None
    assert handed.command["type"] == "HandOverSeat"
    assert handed.command["idle_since"] is not None  # why the rules allowed it: in the record
    assert "AutopilotReleased" not in _log(gid)[1]
    # the game goes on: the bot plays the seat, and the game ends and verifies
    players = {a.player.pk: a for i, a in enumerate(table.apis) if i != idle}
    assert play_to_end(gid, players).status == "over"
    verdict = creator.get(f"/api/v1/games/{gid}/verify").json()
    assert verdict["ok"] is True, verdict


def test_item14_ruling13_a_stalled_seat_offered_lapses_when_its_player_moves(later: Any) -> None:
    table, idle = _stalled_at_choose()
    gid, creator = table.game_id, table.apis[0]
    carol, erin = make_api("carol"), make_api("erin")
    later(STALL_SECONDS + 60)
    offer = _offer(creator, gid, idle, carol)
    assert offer["reason"] == "stalled"
    assert table.apis[idle].command(gid, "choose-action", {"action": "vote_no"}).status_code == 200
    assert_problem(carol.post(f"/api/v1/me/offers/{offer['id']}/accept"), 409, "offer_lapsed")
    assert Seat.objects.get(game_id=gid, position=idle).player_id == table.apis[idle].player.pk
    # chosen but never ready, the seat stalls the step again: 7 days after that move it may be offered again
    later(STALL_SECONDS + 120)
    assert_problem(creator.post(f"/api/v1/games/{gid}/seats/{idle}/hand-over", {"to": "bot"}), 409)
    later(2 * STALL_SECONDS + 120)
    offer = _offer(creator, gid, idle, erin)
    r = erin.post(f"/api/v1/me/offers/{offer['id']}/accept")
    assert r.status_code == 200, r.content
    assert r.json()["your_seat"] == idle
    assert erin.get(f"/api/v1/games/{gid}/state").json()["viewer"] == idle


def test_item14_a_seat_with_a_deadline_is_never_stalled(later: Any) -> None:
    """Ruling 12 is for steps without a deadline: with one, the absence policy applies (autopilot)."""
    table = start_table(4, {"deadlines": {"distribute": None, "choose": 7 * 24 * 3600}})
    gid = table.game_id
    _distribute(table)
    for seat in (0, 1, 3):
        _choose_and_ready(table.apis[seat], gid)
    later(STALL_SECONDS + 60)
    r = table.apis[0].post(f"/api/v1/games/{gid}/seats/2/hand-over", {"to": "bot"})
    assert_problem(r, 409, "not_on_autopilot")


def test_item13_a_record_with_an_old_direct_hand_over_still_verifies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Records written before the offers: the HandOverSeat command's JSON had no ``idle_since``. A game whose
    hand-over is stored so (as main wrote it) plays to its end and verifies."""
    original = Table.command_to_json

    def old_form(self: Table, command: Any) -> dict[str, Any]:
        out: dict[str, Any] = dict(original(self, command))
        if out.get("type") == "HandOverSeat":
            assert out.pop("idle_since") is None
        return out

    monkeypatch.setattr(Table, "command_to_json", old_form)
    table = _seat_1_on_autopilot()
    gid, creator = table.game_id, table.apis[0]
    r = creator.post(f"/api/v1/games/{gid}/seats/1/hand-over", {"to": "bot", "strategy": "random"})
    assert r.status_code == 200, r.content
    stored = Event.objects.filter(game_id=gid, type="AutopilotReleased").get().command
    assert stored is not None
    assert "idle_since" not in stored
    players = {a.player.pk: a for a in (table.apis[0], table.apis[2], table.apis[3])}
    assert play_to_end(gid, players).status == "over"
    monkeypatch.undo()
    verdict = creator.get(f"/api/v1/games/{gid}/verify").json()
    assert verdict["ok"] is True, verdict


@pytest.mark.parametrize(("ruleset", "humans"), [("loose_triggers", 4), ("were_cats", 3)])
def test_item14_ruling13_every_table_game_without_deadlines_goes_on(
    later: Any, ruleset: str, humans: int
) -> None:
    """Ruling 12 is the table's, for every game: a Loose Triggers or Were-cats game without deadlines,
    waiting on a seat that never moves, gets it handed to a bot after 7 days (the step's opening is the
    table's ``DeadlineSet``), and the game goes on."""
    # no deadline at all: Loose Triggers' LT2.5 aim window (20 s by default) is one too
    t = open_game(ruleset, humans, [], {"deadlines": {"aim": 0}} if ruleset == "loose_triggers" else {})
    waiting = t.play()["waiting_on"]
    assert waiting, t.play()
    assert t.play()["due_at"] is None
    seat = waiting[0]
    url = f"{t.url}/seats/{seat}/hand-over"
    assert_problem(t.creator.post(url, {"to": "bot"}), 409, "not_stalled")
    later(STALL_SECONDS + 60)
    others = [s for s in range(humans) if s != seat]
    assert others
    r = t.creator.post(url, {"to": "bot", "strategy": "random"})
    assert r.status_code == 200, r.content
    assert t.events("SeatHandedOver")[-1]["seat"] == seat
    assert t.play()["seats"][seat]["player"].startswith("bot")
    version = t.version()
    bots.bots_play(t.game_id, max_steps=50)
    assert t.version() > version  # the bot plays the seat: the game goes on
