"""One POST endpoint per player command: ``/api/v1/games/{game_id}/commands/<command-name>``."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from critters_api.problems import PROBLEM_CONTENT_TYPE, Problem
from critters_api.schema import problem_response
from critters_api.serializers import StrictSerializer
from games.models import Game
from games.selectors import viewer_state
from games.services.commands import game_command

from . import examples
from .commands import command_specs, kebab, snake
from .serializers import ViewerStateOutput
from .views import ETAG, GAME_ID, IDEMPOTENCY_KEY, IF_MATCH, GameView, _player

_KEY_RE = re.compile(r"^[\x21-\x7e]{1,255}$")


class CommandView(GameView):
    # Access first, body second: the body's shape can depend on the game's ruleset, so a body checked before
    # access would tell a hidden game (and its ruleset) from a missing id (R8.3). The command service locks
    # and reads the game with its roster (one statement), answers a caller who may not know of it as for a
    # missing id, and only then calls :meth:`parse` (the Idempotency-Key's form, then the body).
    access_checked_by_handler = True
    token_checked_with_game = ("POST",)  # the command service locks the game with the token checked
    command_type: str = ""
    input_class: type[StrictSerializer] = StrictSerializer
    # where rulesets give this command name different shapes: each ruleset's serializer (the game's is used)
    input_by_ruleset: dict[str, type[StrictSerializer]] = {}
    problem_statuses = {"POST": (403, 409, 412)}

    def parse(self, request: Request, game: Game) -> dict[str, Any]:
        """The command's JSON from the request (the caller may know of ``game``)."""
        key = request.headers.get("Idempotency-Key")
        if key is not None and not _KEY_RE.match(key):
            raise Problem(
                400, "invalid_idempotency_key", "Idempotency-Key: 1 to 255 printable ASCII characters."
            )
        input_class = self.input_by_ruleset.get(game.ruleset, self.input_class)
        data = input_class(data=request.data)
        data.is_valid(raise_exception=True)
        return {"type": self.command_type, **data.validated_data}

    def post(self, request: Request, game_id: int) -> Response:
        result = game_command(
            game_id=game_id,
            player=_player(request),
            credential=self.credential(request),
            check_caller=lambda game: self.check_caller(request, game),
            parse=lambda game: self.parse(request, game),
            idempotency_key=request.headers.get("Idempotency-Key"),
            if_match=request.headers.get("If-Match"),
            render=viewer_state,
        )
        body = result.body
        if result.status >= 400:  # a rule's problem, made (and maybe stored) without the request
            body = {**body, "instance": request.get_full_path()}
        response = Response(body, status=result.status)
        if result.status >= 400:
            response.content_type = PROBLEM_CONTENT_TYPE
        if result.etag:
            response["ETag"] = result.etag
        if result.replayed:
            response["Idempotent-Replayed"] = "true"
        return response


CHECK_ORDER = (
    "**Order of checks** (the first that fails answers; nothing is applied): "
    "1. the token (401 `not_authenticated`; 429 `throttled`); "
    "2. the game: 404 `game_not_found` when you may not see it; "
    "3. the request: 400 `invalid_idempotency_key`, then the body (400 `malformed_request`, 422 "
    "`validation_error`); "
    "4. an `Idempotency-Key` already used: its stored answer (or 409 `idempotency_key_in_use`, 422 "
    "`idempotency_key_reused`); "
    "5. your seat: 403 `not_seated`; "
    "6. `If-Match`: 412 `precondition_failed`; "
    "7. the game's status: 409 `not_started`, `game_over` (a deadline that has passed is applied first, "
    "which may answer 412 or 409 `game_over`); "
    "8. the rules, in this order: your seat on autopilot (409 `autopilot_on`), then whether the command "
    "may be sent now, in this step (409: `wrong_step` and the other `conflict` codes), then whether your "
    "seat may send it (403: e.g. `not_boss`, `not_bagman`), then its arguments (422). So a command sent "
    "out of its step is 409 `wrong_step` whoever sends it, and a seat that may never send it is 403 "
    "whatever the arguments: e.g. a `GiveLoot` from a seat that is not the Bagman is 409 `wrong_step` "
    "during a Discussion and 403 `not_bagman` during the deal. Two commands differ: `SetReady`'s step is "
    "each seat's (409 `wrong_step` for a seat the step does not wait on); `AcceptTrade` and `DeclineTrade` "
    "look the trade they name up first (409 `no_such_trade`), then whether it is offered to you (403 "
    "`not_your_trade`)."
)
"""How a command is checked, in order (every command operation's description ends with it)."""


def _view_for(type_name: str, by_slug: dict[str, type[StrictSerializer]]) -> type[CommandView]:
    distinct = list(dict.fromkeys(by_slug.values()))
    serializer = distinct[0]
    request: Any = serializer
    doc = serializer.__doc__ or ""
    if len(distinct) > 1:
        request = PolymorphicProxySerializer(
            component_name=f"{type_name}Command",
            serializers=distinct,
            resource_type_field_name=None,
        )
        doc = "The body is the shape of the game's ruleset: " + "; ".join(
            f"`{slug}`: {(s.__doc__ or '').strip()}" for slug, s in sorted(by_slug.items())
        )
    description = (
        f"Send the `{type_name}` command for your seat (the seat comes from your credentials; it is never a "
        f"field). {doc.strip()}\n\nSuccess returns your new view of the game and the new ETag. Rule "
        f"errors are "
        "problems with the rule's `code`: 422 (invalid as given), 409 (not now: wrong step, game over), "
        "403 (never for you, e.g. not the Boss).\n\n" + CHECK_ORDER
    )
    request_examples = [
        OpenApiExample(label, value=value, request_only=True)
        for label, value in examples.command_examples(
            type_name, sorted(by_slug) if len(distinct) > 1 else [sorted(by_slug)[0]]
        )
    ]
    schema = extend_schema(
        operation_id=f"games_commands_{snake(type_name)}",
        summary=f"{type_name}",
        description=description,
        parameters=[GAME_ID, IDEMPOTENCY_KEY, IF_MATCH, ETAG],
        request=request,
        responses={
            200: OpenApiResponse(ViewerStateOutput, description="Applied: your new view of the game."),
            (409, PROBLEM_CONTENT_TYPE): problem_response(
                409, "Not now (wrong step, game over) or the same Idempotency-Key is still in flight."
            ),
            (412, PROBLEM_CONTENT_TYPE): problem_response(412, "If-Match does not match: nothing applied."),
        },
        examples=[*request_examples, examples.VIEWER_STATE],
        tags=["commands"],
    )

    def post(self: CommandView, request: Request, game_id: int) -> Response:
        return CommandView.post(self, request, game_id)

    return type(
        f"{type_name}View",
        (CommandView,),
        {
            "command_type": type_name,
            "input_class": serializer,
            "input_by_ruleset": dict(by_slug) if len(distinct) > 1 else {},
            "post": schema(post),
            "__doc__": description,
        },
    )


COMMAND_VIEWS: list[tuple[str, type[CommandView]]] = [
    (kebab(type_name), _view_for(type_name, by_slug)) for type_name, by_slug in command_specs()
]
