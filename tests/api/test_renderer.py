"""The JSON renderer (critters_api/renderers.py) writes the same bytes as DRF's JSONRenderer: for the bodies
the API really serves (a game played over the API: states, feeds, lobby, problems, compared with DRF's
rendering of the data the view returned) and for the values DRF's encoder handles (datetimes, decimals, lazy
strings, UUIDs, integer keys, separators U+2028/U+2029)."""

from __future__ import annotations

import datetime
import decimal
import json
import uuid
from typing import Any

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer as DrfJSONRenderer

from critters_api.renderers import JSONRenderer
from tests.conftest import Table

pytestmark = pytest.mark.django_db

OURS, DRFS = JSONRenderer(), DrfJSONRenderer()


def same_bytes(data: Any, media_type: str | None = None) -> bytes:
    ours = OURS.render(data, media_type, {})
    assert ours == DRFS.render(data, media_type, {})
    return ours


@pytest.mark.parametrize(
    "value",
    [
        {"text": "line\u2028para\u2029end", "emoji": "ß🦝", "quote": '"\\/'},
        {"at": datetime.datetime(2026, 11, 23, 19, 15, 22, 712889, tzinfo=datetime.UTC)},
        {"naive": datetime.datetime(2026, 1, 2, 3, 4, 5)},
        {
            "at": datetime.datetime(
                2026, 11, 23, 19, 15, tzinfo=datetime.timezone(datetime.timedelta(hours=2))
            )
        },
        {
            "day": datetime.date(2026, 11, 23),
            "time": datetime.time(7, 5),
            "span": datetime.timedelta(seconds=90),
        },
        {"price": decimal.Decimal("1.50"), "id": uuid.UUID(int=7), "lazy": gettext_lazy("Invalid token.")},
        {0: "seat zero", 1: [1, 2, (3, 4)], "none": None, "yes": True, "pi": 3.25, "big": 2**62},
        [],
        {"nested": [{"deep": [{"deeper": {}}]}]},
    ],
)
def test_values_render_as_drf_renders_them(value: Any) -> None:
    same_bytes(value)


def test_beyond_what_orjson_encodes_and_indentation_fall_back_to_drf() -> None:
    assert same_bytes({"huge": 2**70}) == b'{"huge":1180591620717411303424}'
    assert same_bytes({"a": [1]}, "application/json; indent=2") == b'{\n  "a": [\n    1\n  ]\n}'
    assert OURS.render(None) == b""


def test_the_api_serves_the_bytes_drf_would(table: Table) -> None:
    """Responses of a real game, compared with DRF's rendering of the same body."""
    api = table.apis[0]
    api.command(table.game_id, "send-message", {"text": "bonjour\u2028à tous", "to": None})
    urls = [
        f"/api/v1/games/{table.game_id}/state",
        f"/api/v1/games/{table.game_id}/events",
        f"/api/v1/games/{table.game_id}",
        "/api/v1/games?status=running",
        "/api/v1/games/999999/state",  # a problem
    ]
    for url in urls:
        response = api.get(url)
        assert response.content == DRFS.render(response.data), url  # the body as the view returned it
        assert json.loads(response.content)
