"""Pagination cursors are opaque: a cursor the API did not hand out (crafted, garbage, huge, with NUL bytes
inside the base64) is a 400 ``invalid_cursor`` problem on both listings, never a 500, and the cursors the API
does hand out keep working."""

from __future__ import annotations

import base64
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.conftest import assert_problem, make_api


def b64(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return base64.b64encode(raw).decode("ascii")


BAD_CURSORS = [
    pytest.param(b64("p=x"), id="position-not-a-timestamp"),
    pytest.param(b64("o=1&r=0&p=x"), id="offset-and-bad-position"),
    pytest.param(b64("p=\x00"), id="nul-inside-the-base64"),
    pytest.param(b64("p=2026-11-24 07:00:00\x00+00:00"), id="nul-inside-a-timestamp"),
    pytest.param(b64("p=2026-13-45 99:00:00+00:00"), id="impossible-date"),
    pytest.param(b64("p=2026-11-24 07:00:00"), id="naive-timestamp"),
    pytest.param(b64("p=0001-01-01 00:00:00+05:00"), id="timestamp-out-of-range"),
    pytest.param(b64("p=" + "9" * 5000), id="huge-position"),
    pytest.param(b64("o=" + "9" * 400), id="huge-offset"),
    pytest.param(b64("o=-1"), id="negative-offset"),
    pytest.param(b64("r=x"), id="bad-reverse"),
    pytest.param(b64(b"p=\xff\xfe"), id="not-ascii-inside"),
    pytest.param("not base64 at all!", id="not-base64"),
    pytest.param("é" * 10, id="not-ascii"),
    pytest.param("A" * 100_000, id="huge"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("cursor", BAD_CURSORS)
@pytest.mark.parametrize(
    ("path", "status"), [("/api/v1/games", None), ("/api/v1/games", "running"), ("/api/v1/me/games", None)]
)
def test_a_cursor_the_api_did_not_hand_out_is_a_400_invalid_cursor(
    path: str, status: str | None, cursor: str
) -> None:
    api = make_api()
    r = api.get(path, cursor=cursor) if status is None else api.get(path, cursor=cursor, status=status)
    body = assert_problem(r, 400, "invalid_cursor")
    assert body["instance"].startswith(path)


@pytest.mark.django_db
def test_the_cursors_the_api_hands_out_still_page_through_every_game() -> None:
    creator = make_api()
    created = [creator.post("/api/v1/games", {"seats": 4}).json()["id"] for _ in range(5)]
    for path in ("/api/v1/games", "/api/v1/me/games"):
        seen: list[int] = []
        r = creator.get(path, page_size=2)
        while True:
            assert r.status_code == 200, r.content
            page = r.json()
            seen += [g["id"] for g in page["results"]]
            if not page["next"]:
                break
            cursor = parse_qs(urlsplit(page["next"]).query)["cursor"][0]
            r = creator.get(path, page_size=2, cursor=cursor)
        mine = [g for g in seen if g in created]
        assert mine == sorted(created, reverse=True), path
        # and back: the previous link of the last page
        if page["previous"]:
            cursor = parse_qs(urlsplit(page["previous"]).query)["cursor"][0]
            assert creator.get(path, page_size=2, cursor=cursor).status_code == 200
