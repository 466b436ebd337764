"""The replay page in a real headless Chromium (Debian's ``chromium`` package, driven by Playwright; no
browser download): it steps through a finished game round by round and shows what the record says (the
Boss, the cards played, the vote R4.1-R4.5, who robbed whom R3.4-R3.6, the Stash values), loads nothing from
anywhere else, and leaves a screenshot in test-artifacts/. A Loose Triggers and a Were-cats game played over
HTTP get the same page with their own chart (Loot value, Points) and one step per command."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from games.audit import replay
from games.rules.registry import get_ruleset
from tests.audit.test_record_api import finished_bot_game
from tests.conftest import make_api
from tests.table.test_games_api import play_to_end

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
RULESET = get_ruleset("goodcritters")


def expected_rounds(record: dict[str, Any]) -> list[dict[str, Any]]:
    """What each round should show, read straight from the record's events (the Stash values from the
    ruleset's fold of them)."""
    rounds: list[dict[str, Any]] = []
    state = RULESET.initial_state()
    for event in record["events"]:
        data = event["data"]
        state = RULESET.evolve(state, RULESET.event_from_json(data))
        if event["type"] == "RoundStarted":
            rounds.append(
                {
                    "round": data["round"],
                    "boss": data["boss"],
                    "actions": {},
                    "robs": [],
                    "vote": None,
                    "values": None,
                }
            )
        elif not rounds:
            continue
        elif event["type"] == "ActionRevealed":
            rounds[-1]["actions"][data["seat"]] = data["action"] or "none"
        elif event["type"] == "RobSucceeded":
            rounds[-1]["robs"].append((data["robber"], data["victim"], False))
        elif event["type"] == "RobGuarded":
            rounds[-1]["robs"].append((data["robber"], data["guard"], True))
        elif event["type"] == "VoteResolved":
            rounds[-1]["vote"] = (data["yes"], data["no"], data["outcome"])
        elif event["type"] in ("RoundEnded", "GameEnded"):
            view = RULESET.full_view(state)  # type: ignore[attr-defined]
            rounds[-1]["values"] = [str(seat["stash_value"]) for seat in view["seats"]]
    return rounds


def expected_samples(record: dict[str, Any]) -> list[list[int]]:
    """The chart's points: each seat's Stash value (from the ruleset's fold) after the first command, after
    every command that changed one (at the end of its batch of events), and at the end."""
    samples: list[list[int]] = []
    state = RULESET.initial_state()
    events = record["events"]
    for k, event in enumerate(events):
        state = RULESET.evolve(state, RULESET.event_from_json(event["data"]))
        if k + 1 < len(events) and events[k + 1]["command"] is None:
            continue
        values = [seat["stash_value"] for seat in RULESET.full_view(state)["seats"]]  # type: ignore[attr-defined]
        if not samples or values != samples[-1] or k == len(events) - 1:
            samples.append(values)
    return samples


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium under Playwright. Started only after the test's database work: Playwright's sync API
    runs an event loop in this thread, and Django refuses database calls from a thread with a running loop."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (scripts/test does it as root)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield instance
        finally:
            instance.close()


@pytest.mark.django_db(transaction=True)
def test_the_replay_page_steps_through_a_game_as_the_record_says(live_server: Any) -> None:
    api = make_api()
    game = finished_bot_game(api, 5, {"payoffs": True})
    record = api.get(f"/api/v1/games/{game.pk}/record").json()
    names = {s["seat"]: s["display_name"] for s in record["seats"]}
    rounds = expected_rounds(record)
    assert len(rounds) >= 2
    samples = expected_samples(record)
    final_values = samples[-1]

    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        response = page.goto(f"{live_server.url}/games/{game.pk}/replay")
        assert response is not None
        assert response.status == 200
        assert page.locator("#verdict").get_attribute("data-ok") == "true"
        assert page.locator("#seed").inner_text() == record["seed"]

        # the chart: one line per player, a point at the start and at each change of a Stash's value, ending
        # at the final Stash values
        assert page.locator("#chart-label").inner_text() == "Stash value over the game"
        lines = page.locator("svg polyline.chart-line")
        assert lines.count() == 5
        for seat in range(5):
            line = lines.nth(seat)
            assert line.get_attribute("data-last") == str(final_values[seat])
            # a step line: the first point, then two per later sample (the old value, then the new one)
            assert len((line.get_attribute("points") or "").split()) == 2 * len(samples) - 1

        for index, expected in enumerate(rounds):
            shown = page.locator("section.step:not([hidden])")
            assert shown.count() == 1, "exactly one round is shown at a time"
            assert shown.get_attribute("data-round") == str(expected["round"])
            assert (
                page.locator("#position").inner_text()
                == f"Round {expected['round']} ({index + 1} of {len(rounds)})"
            )
            assert shown.locator(".boss").inner_text() == names[expected["boss"]]
            played = {
                int(row.get_attribute("data-seat") or -1): row.locator(".action").inner_text()
                for row in shown.locator("table.actions tr[data-seat]").all()
            }
            assert played == expected["actions"]
            if expected["vote"] is not None:
                yes, no, outcome = expected["vote"]
                assert shown.locator(".vote .yes").inner_text() == str(yes)
                assert shown.locator(".vote .no").inner_text() == str(no)
                assert shown.locator(".vote .outcome").inner_text() == outcome
            robs = [
                (
                    int(li.get_attribute("data-robber") or -1),
                    int(li.get_attribute("data-victim") or -1),
                    li.get_attribute("data-guarded") == "true",
                )
                for li in shown.locator("ul.robs li").all()
            ]
            assert robs == expected["robs"]
            cells = shown.locator("table.stashes td.value").all()
            assert [cell.get_attribute("data-value") for cell in cells] == expected["values"]
            for robber, victim, guarded in expected["robs"]:
                text = shown.locator("ul.robs").inner_text()
                assert names[robber] in text
                assert names[victim] in text
                assert ("guarded" in text) or not guarded
            if index == len(rounds) - 1:
                assert page.locator("#next").is_disabled()
                winners = [names[s] for s in record["events"][-1]["data"]["winners"]]
                assert (
                    shown.locator(".winners").inner_text()
                    == f"Winner{'s' if len(winners) != 1 else ''}: {', '.join(winners) or 'nobody'}"
                )
                ARTIFACTS.mkdir(exist_ok=True)
                shot = ARTIFACTS / "replay-page.png"
                page.screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 10_000
            else:
                page.locator("#next").click()

        page.locator("#prev").click()
        assert page.locator("section.step:not([hidden])").get_attribute("data-round") == str(
            rounds[-2]["round"]
        )
        page.keyboard.press("ArrowRight")
        assert page.locator("section.step:not([hidden])").get_attribute("data-round") == str(
            rounds[-1]["round"]
        )
        # everything the page needed came from us (no CDN)
        assert requested
        assert all(url.startswith(live_server.url) for url in requested), requested


@pytest.mark.django_db
def test_the_replay_page_of_an_unknown_game_is_a_problem(client: Any) -> None:
    response = client.get("/games/987654/replay")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/problem+json")
    assert client.post("/games/987654/replay").status_code in (403, 405)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("slug", "players", "label", "field"),
    [("loose_triggers", 5, "Loot value", "values"), ("were_cats", 4, "Points", "scores")],
)
def test_the_replay_page_of_another_game_has_its_chart(
    live_server: Any, slug: str, players: int, label: str, field: str
) -> None:
    # played over HTTP to its end: two people (each seat's sensible move, sent with their token) and bots
    apis = [make_api(), make_api()]
    bots = ["sensible" if s % 2 else "random" for s in range(players - len(apis))]
    created = apis[0].post("/api/v1/games", {"ruleset": slug, "seats": players, "options": {}, "bots": bots})
    assert created.status_code == 201, created.content
    assert apis[1].post(f"/api/v1/games/{created.json()['id']}/join").status_code == 200
    game = play_to_end(created.json()["id"], {api.player.pk: api for api in apis})
    api = apis[0]
    response = api.get(f"/api/v1/games/{game.pk}/record")
    assert response.status_code == 200, response.content
    record = response.json()
    assert record["game"]["ruleset"] == slug
    final = record["events"][-1]["data"][field]
    samples = replay.build(record)["chart"]["series"]
    commands = sum(1 for e in record["events"] if e["command"] is not None)

    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        loaded = page.goto(f"{live_server.url}/games/{game.pk}/replay")
        assert loaded is not None
        assert loaded.status == 200
        assert page.locator("#verdict").get_attribute("data-ok") == "true"
        assert page.locator("#seed").inner_text() == record["seed"]
        assert page.locator("#chart-label").inner_text() == f"{label} over the game"
        lines = page.locator("svg polyline.chart-line")
        assert lines.count() == players
        for seat in range(players):
            line = lines.nth(seat)
            assert line.get_attribute("data-last") == str(final[seat])
            assert len((line.get_attribute("points") or "").split()) == 2 * len(samples) - 1
            assert line.locator("title").text_content() == record["seats"][seat]["display_name"]
        # one step per command, one shown at a time
        assert page.locator("section.step").count() == commands
        shown = page.locator("section.step:not([hidden])")
        assert shown.count() == 1
        assert shown.get_attribute("data-first-seq") == "1"
        assert "StartGame" in shown.locator("h2").inner_text()
        assert "GameStarted" in shown.inner_text()
        page.locator("#last").click()
        shown = page.locator("section.step:not([hidden])")
        assert shown.get_attribute("data-last-seq") == str(len(record["events"]))
        assert "GameEnded" in shown.inner_text()
        assert page.locator("#position").inner_text().endswith(f"({commands} of {commands})")
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / f"replay-page-{slug}.png"
        page.screenshot(path=str(shot), full_page=False)
        assert shot.stat().st_size > 10_000
        assert all(url.startswith(live_server.url) for url in requested), requested
