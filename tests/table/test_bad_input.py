"""Malformed commands on the table's games, over HTTP: unknown fields, wrong types, a ``reason`` (the table's
alone) on a Were-cats command, ``ChooseAction`` in the shape of another game, -2 as a card, a command of
another game. Each is a 4xx problem with a code the error catalogue documents (docs/ERRORS.md), and changes
nothing: the game's ETag and version are the same afterwards."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game
from tests.conftest import Api, make_api, start_table
from tests.table.helpers import Seated, drive, open_game, problem, sweep_past

pytestmark = pytest.mark.django_db

Case = tuple[str, Any, int, str, str | None]  # command, body, status, code, the field named in `errors`

LT_ANY_STEP: list[Case] = [
    ("aim", {"target": 1, "extra": 2}, 422, "validation_error", "extra"),
    ("aim", {"target": "1"}, 422, "validation_error", "target"),
    ("aim", {"target": True}, 422, "validation_error", "target"),
    ("aim", {"target": 1.0}, 422, "validation_error", "target"),
    ("aim", {"target": None}, 422, "validation_error", "target"),
    ("aim", {}, 422, "validation_error", "target"),
    ("aim", [1], 422, "validation_error", "non_field_errors"),
    ("choose-action", {"action": "vote_yes"}, 422, "validation_error", "action"),  # GoodCritters' shape
    ("choose-action", {"card": -2}, 422, "validation_error", "card"),
    ("choose-action", {"card": "3"}, 422, "validation_error", "card"),
    ("pick-loot", {"card": -2}, 422, "validation_error", "card"),
    ("claim-spoils", {"slot": -2, "bagman": True}, 422, "validation_error", "slot"),
    ("claim-spoils", {"slot": 0, "bagman": 1}, 422, "validation_error", "bagman"),
    ("give-loot", {"slot": 0, "to": "0"}, 422, "validation_error", "to"),
    ("give-loot", {"slot": -1, "to": 0}, 422, "validation_error", "slot"),
    ("grab", {"sources": "loot"}, 422, "validation_error", "sources"),
    ("burn-loot", {"card": 36, "loot": "ab"}, 422, "validation_error", "loot"),
    ("elect-bagman", {"candidate": -2}, 422, "validation_error", "candidate"),
    ("set-ready", {"ready": "yes"}, 422, "validation_error", "ready"),
    ("finish-placing", {"reason": "timeout"}, 422, "validation_error", "reason"),
    # commands of the other games: their endpoints exist, the game does not know them
    ("finish-placing", {}, 422, "invalid_command", None),
    ("pass", {}, 422, "invalid_command", None),
    ("distribute-loot", {"shares": []}, 422, "invalid_command", None),
]
LT_BAGMAN_AT_GIVE: list[Case] = [
    ("give-loot", {"slot": 0, "to": 99}, 422, "invalid_seat", None),
    ("give-loot", {"slot": 99, "to": 0}, 422, "invalid_slot", None),
]
LT_GUNNER_AT_CHOOSE: list[Case] = [
    ("choose-action", {"card": -2}, 422, "validation_error", "card"),
    ("choose-action", {"card": 99}, 422, "card_not_in_hand", None),
    ("choose-action", {"action": "rob"}, 422, "validation_error", "action"),
    ("choose-action", {"card": 3, "reason": "timeout"}, 422, "validation_error", "reason"),
    ("set-ready", {"ready": True}, 409, "action_not_chosen", None),
]
WC_ANY_STEP: list[Case] = [
    ("finish-placing", {"reason": "timeout"}, 422, "validation_error", "reason"),
    ("pass", {"reason": "resigned"}, 422, "validation_error", "reason"),
    ("populate-city", {"kind": "penny", "reason": "timeout"}, 422, "validation_error", "reason"),
    ("choose-starting-coins", {"kind": "penny", "reason": "timeout"}, 422, "validation_error", "reason"),
    ("populate-city", {"kind": 1}, 422, "validation_error", "kind"),
    ("place-victims", {"eat": {"penny": -1}, "scare": {}}, 422, "validation_error", "eat.penny"),
    ("place-victims", {"eat": {"gold": 1}, "scare": {}}, 422, "validation_error", "eat.gold"),
    ("place-victims", {"eat": [1, 0, 0], "scare": {}}, 422, "validation_error", "eat.non_field_errors"),
    ("make-cat", {"kind": "penny", "slot": "3"}, 422, "validation_error", "slot"),
    ("make-cat", {"kind": "penny", "slot": -2}, 422, "validation_error", "slot"),
    ("take-victim", {"kind": "penny", "eat": {"penny": 1, "gold": 2}}, 422, "validation_error", "eat.gold"),
    ("repopulate", {"eat": None}, 422, "validation_error", "eat"),
    ("choose-action", {"card": 3}, 422, "validation_error", "card"),  # Loose Triggers' shape
    ("choose-action", {"card": -2}, 422, "validation_error", "card"),
    ("choose-action", {"action": "vote_yes"}, 422, "invalid_command", None),  # GoodCritters' command
    ("aim", {"target": 1}, 422, "invalid_command", None),  # Loose Triggers' command
    ("set-ready", {"ready": True}, 409, "wrong_step", None),  # no step with ready flags in Were-cats
]
WC_CHOOSER_AT_SETUP: list[Case] = [
    ("choose-starting-coins", {"kind": "quarter"}, 422, "validation_error", "kind"),  # an enum in the spec
    ("choose-starting-coins", {}, 422, "validation_error", "kind"),
]
WC_AT_POPULATE: list[Case] = [
    ("populate-city", {"kind": "quarter"}, 422, "validation_error", "kind"),  # an enum in the spec
    ("populate-city", {"kind": "penny", "reason": "timeout"}, 422, "validation_error", "reason"),
]
GC_CASES: list[Case] = [
    ("choose-action", {"card": 3}, 422, "validation_error", "card"),  # Loose Triggers' shape
    ("choose-action", {"card": -2}, 422, "validation_error", "card"),
    ("choose-action", {"action": -2}, 422, "validation_error", "action"),
    ("aim", {"target": 1}, 422, "invalid_command", None),
    ("pass", {}, 422, "invalid_command", None),
]


def _etag(api: Api, game_id: int) -> tuple[str, int]:
    r = api.get(f"/api/v1/games/{game_id}/state")
    assert r.status_code == 200, r.content
    return r["ETag"], r.json()["version"]


def _refused(api: Api, game_id: int, cases: list[Case]) -> None:
    before = _etag(api, game_id)
    for name, body, status, code, field in cases:
        r = api.command(game_id, name, body)
        found = problem(r, status, code)
        if field is not None:
            assert field in found["errors"], (name, body, found)
        assert _etag(api, game_id) == before, (name, body)


def _raw(api: Api, game_id: int) -> None:
    """Not JSON, no such command, not seated: problems too, and nothing changes."""
    before = _etag(api, game_id)
    r = api.post(
        f"/api/v1/games/{game_id}/commands/aim", raw=b'{"target": 1', content_type="application/json"
    )
    problem(r, 400, "malformed_request")
    problem(api.command(game_id, "fly", {}), 404, "not_found")
    problem(make_api().command(game_id, "aim", {"target": 1}), 403, "not_seated")
    assert _etag(api, game_id) == before


def test_malformed_loose_triggers_commands_are_refused_and_change_nothing() -> None:
    # no aim window (LT2.5): the Bagman's give is open at once
    t = open_game("loose_triggers", 4, [], {"deadlines": {"give": 40, "choose": 40, "pick": 40, "aim": 0}})
    bagman = t.state()["bagman"]
    other = next(s for s in t.by_seat if s != bagman)
    for seat in (bagman, other):
        _refused(t.by_seat[seat], t.game_id, LT_ANY_STEP)
    _refused(t.by_seat[bagman], t.game_id, LT_BAGMAN_AT_GIVE)
    _raw(t.by_seat[other], t.game_id)

    target = next(s for s in t.by_seat if s != other)
    t.ok(other, "aim", {"target": target})
    countdown = t.game().deadline_at
    assert countdown is not None
    sweep_past(countdown)
    assert t.play()["step"] == "choose"
    _refused(t.by_seat[other], t.game_id, [*LT_GUNNER_AT_CHOOSE, *LT_ANY_STEP])
    assert t.state(other)["seats"][other]["chose"] is False  # nothing was chosen


def _waiting_seat(t: Seated) -> int:
    play = t.play()
    assert play["waiting_on"], play
    seat: int = play["waiting_on"][0]
    return seat


def test_malformed_were_cats_commands_are_refused_and_change_nothing() -> None:
    t = open_game("were_cats", 3, [], {})
    chooser = _waiting_seat(t)
    _refused(t.by_seat[chooser], t.game_id, [*WC_CHOOSER_AT_SETUP, *WC_ANY_STEP])
    _raw(t.by_seat[chooser], t.game_id)
    drive(t, t.by_seat, until=lambda s: s.game.phase == "populate")
    seat = _waiting_seat(t)
    _refused(t.by_seat[seat], t.game_id, [*WC_AT_POPULATE, *WC_ANY_STEP])


def test_loose_triggers_shapes_on_a_goodcritters_game_are_refused_and_change_nothing() -> None:
    table = start_table(4)
    _refused(table.apis[0], table.game_id, GC_CASES)


@pytest.mark.parametrize(
    ("ruleset", "options", "key"),
    [
        ("loose_triggers", {"deadlines": {"give": 0}}, "deadlines.give"),
        ("loose_triggers", {"deadlines": {"give": 1.5}}, "deadlines.give"),
        ("loose_triggers", {"deadlines": {"countdown": 10}}, "deadlines.countdown"),  # the game's option
        ("loose_triggers", {"deadlines": []}, "deadlines"),
        ("loose_triggers", {"countdown": "30"}, "countdown"),
        ("loose_triggers", {"max_retargets": 11}, "max_retargets"),
        ("loose_triggers", {"max_rounds": 3}, "max_rounds"),  # Were-cats'
        ("loose_triggers", {"absence": {"extensions": -1}}, "absence.extensions"),
        ("were_cats", {"deadlines": {"give": 10}}, "deadlines.give"),  # Loose Triggers' step
        ("were_cats", {"deadlines": {"act": True}}, "deadlines.act"),
        ("were_cats", {"max_rounds": 0}, "max_rounds"),
        ("were_cats", {"pause_by": "anyone"}, "pause_by"),
    ],
)
def test_bad_options_of_the_table_games_are_refused_with_their_key(
    ruleset: str, options: dict[str, Any], key: str
) -> None:
    """LT7.1, WC4.1: the options are validated as GoodCritters' are (422 ``invalid_options`` naming the key);
    no game is made."""
    api = make_api()
    seats = 4 if ruleset == "loose_triggers" else 2
    r = api.post("/api/v1/games", {"ruleset": ruleset, "seats": seats, "options": options})
    body = problem(r, 422, "invalid_options")
    assert body["details"]["key"] == key
    assert not Game.objects.exists()
