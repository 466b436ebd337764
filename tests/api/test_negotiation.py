"""The short cut of critters_api.negotiation chooses what DRF's own negotiation chooses."""

from __future__ import annotations

import pytest
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from critters_api.negotiation import ContentNegotiation
from critters_api.renderers import JSONRenderer


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "*/*",
        "application/json",
        "application/json; indent=4",
        "application/*",
        "text/html",
        "",
        "*/*;q=0.5",
    ],
)
def test_the_same_choice_as_drf(accept: str | None) -> None:
    factory = APIRequestFactory()
    made = factory.get("/api/v1/me") if accept is None else factory.get("/api/v1/me", HTTP_ACCEPT=accept)
    request = Request(made)
    renderers = [JSONRenderer()]

    def choose(negotiation: DefaultContentNegotiation) -> object:
        try:
            renderer, media_type = negotiation.select_renderer(request, renderers)
        except NotAcceptable:
            return "406"
        return type(renderer), media_type

    assert choose(ContentNegotiation()) == choose(DefaultContentNegotiation())


def test_an_unacceptable_type_is_still_refused() -> None:
    request = Request(APIRequestFactory().get("/api/v1/me", HTTP_ACCEPT="text/html"))
    with pytest.raises(NotAcceptable):
        ContentNegotiation().select_renderer(request, [JSONRenderer()])
