"""One POST endpoint per player command: ``/api/v1/games/{game_id}/commands/<command-name>``."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from critters_api.problems import PROBLEM_CONTENT_TYPE, Problem
from critters_api.schema import problem_response
from critters_api.serializers import StrictSerializer
from games.selectors import viewer_state
from games.services.commands import game_command

from . import examples
from .commands import command_specs, kebab, snake
from .serializers import ViewerStateOutput
from .views import ETAG, GAME_ID, IDEMPOTENCY_KEY, IF_MATCH, GameView, _player

_KEY_RE = re.compile(r"^[\x21-\x7e]{1,255}$")


class CommandView(GameView):
    access_checked_by_handler = True  # the command service resolves the seat first, under the game's lock
    command_type: str = ""
    input_class: type[StrictSerializer] = StrictSerializer
    problem_statuses = {"POST": (403, 409, 412)}

    def post(self, request: Request, game_id: int) -> Response:
        key = request.headers.get("Idempotency-Key")
        if key is not None and not _KEY_RE.match(key):
            raise Problem(
                400, "invalid_idempotency_key", "Idempotency-Key: 1 to 255 printable ASCII characters."
            )
        data = self.input_class(data=request.data)
        data.is_valid(raise_exception=True)
        command = {"type": self.command_type, **data.validated_data}
        result = game_command(
            game_id=game_id,
            player=_player(request),
            command_json=command,
            idempotency_key=key,
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


def _view_for(type_name: str, cls: type[Any], serializer: type[StrictSerializer]) -> type[CommandView]:
    doc = serializer.__doc__ or ""
    description = (
        f"Send the `{type_name}` command for your seat (the seat comes from your credentials; it is never a "
        f"field). {doc.strip()}\n\nSuccess returns your new view of the game and the new ETag. Rule "
        f"errors are "
        "problems with the rule's `code`: 422 (invalid as given), 409 (not now: wrong step, game over), "
        "403 (never for you, e.g. not the Boss)."
    )
    example = examples.COMMAND_EXAMPLES.get(type_name)
    request_examples = (
        [OpenApiExample(type_name, value=example, request_only=True)] if example is not None else []
    )
    schema = extend_schema(
        operation_id=f"games_commands_{snake(type_name)}",
        summary=f"{type_name}",
        description=description,
        parameters=[GAME_ID, IDEMPOTENCY_KEY, IF_MATCH, ETAG],
        request=serializer,
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
        {"command_type": type_name, "input_class": serializer, "post": schema(post), "__doc__": description},
    )


COMMAND_VIEWS: list[tuple[str, type[CommandView]]] = [
    (kebab(type_name), _view_for(type_name, cls, serializer))
    for type_name, cls, serializer in command_specs()
]
