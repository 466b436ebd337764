"""The live stream is a plain Django async view (DRF has no async views), so drf-spectacular cannot see it:
this post-processing hook documents it in the OpenAPI schema."""

from __future__ import annotations

from typing import Any

STREAM_EXAMPLE = (
    "retry: 1000\n\n"
    'id: 17\nevent: state\ndata: {"game":{"id":42,"status":"running"},"version":17,"viewer":2,'
    '"state":{},"legal_commands":["ChooseAction"],"waiting":{"step_no":4,"step":"choose",'
    '"seats":[0,2,3],"due_at":"2026-11-23T12:11:00Z","you":true},"over":false,"scores":null}\n\n'
    'id: 18\nevent: game_event\ndata: {"seq":18,"created_at":"2026-11-23T12:02:00Z",'
    '"event":{"type":"ActionChosen","seat":0,"action":null,"commitment":"9f2c…"},"hash":null}\n\n'
    ": keep-alive\n\n"
    'event: end\ndata: {"version":211,"head_hash":"5be1…","public_head":{"seq":211,"hash":"0d4e…"},'
    '"reason":"game_over"}\n\n'
)


def _problem(status: int, code: str, detail: str) -> dict[str, Any]:
    from critters_api.problems import TITLES

    return {
        "description": TITLES.get(status, "Error"),
        "content": {
            "application/problem+json": {
                "schema": {"$ref": "#/components/schemas/Problem"},
                "examples": {
                    code: {
                        "value": {
                            "type": f"urn:goodcritters:problem:{code}",
                            "title": TITLES.get(status, "Error"),
                            "status": status,
                            "detail": detail,
                            "instance": "/api/v1/games/42/stream",
                            "code": code,
                        }
                    }
                },
            }
        },
    }


def stream_operation() -> dict[str, Any]:
    return {
        "operationId": "games_stream",
        "summary": "Follow a game live (Server-Sent Events)",
        "description": " ".join(
            [
                "A `text/event-stream` that stays open: first `event: state` (your full view of the game,",
                "the body of `games_state_retrieve`, `id` = the version it reflects), then one",
                "`event: game_event` per new event redacted for you (the items of `games_events_list`,",
                "`id` = its seq), a `: keep-alive` comment line at least every 15 s, and `event: end` once",
                "the game is over and everything was sent (then the server closes). Who the stream speaks",
                "for is checked again before every batch: it ends at once, with `event: end` and a `reason`,",
                "when the token is revoked (`token_revoked`), when you lose or get a seat (`viewer_changed`:",
                "reconnect without `Last-Event-ID` for a new snapshot) or may no longer see the game",
                "(`game_not_visible`); `game_over` and `game_cancelled` otherwise. After a disconnect,",
                "reconnect with the last `id` you received as `Last-Event-ID` (or `?after=`): you get every",
                "later event, none skipped and none repeated, and no snapshot. Served by the ASGI process",
                "(503 `stream_needs_asgi` from a WSGI worker). Authenticate with the Bearer token; opening a",
                "stream counts against the token's rate limit like any request (429).",
            ]
        ),
        "tags": ["play"],
        "security": [{"bearerAuth": []}],
        "parameters": [
            {
                "in": "path",
                "name": "game_id",
                "required": True,
                "schema": {"type": "integer"},
                "description": "The game's id.",
            },
            {
                "in": "query",
                "name": "after",
                "required": False,
                "schema": {"type": "integer", "minimum": 0},
                "description": "Resume after this seq (no snapshot); `Last-Event-ID` wins over it.",
            },
            {
                "in": "header",
                "name": "Last-Event-ID",
                "required": False,
                "schema": {"type": "string", "pattern": "^[0-9]{1,10}$"},
                "description": "The `id` of the last message you received (what EventSource sends).",
            },
        ],
        "responses": {
            "200": {
                "description": "The stream (it ends when the game is over, when who it speaks for "
                "changes, or when you disconnect).",
                "content": {
                    "text/event-stream": {
                        "schema": {
                            "type": "string",
                            "description": "Server-Sent Events (see the description).",
                        },
                        "example": STREAM_EXAMPLE,
                    }
                },
            },
            "400": _problem(400, "invalid_cursor", "after must be an event seq (a whole number ≥ 0)."),
            "401": _problem(401, "not_authenticated", "Authentication credentials were not provided."),
            "404": _problem(404, "game_not_found", "No such game."),
            "405": _problem(405, "method_not_allowed", 'Method "POST" not allowed.'),
            "429": _problem(429, "throttled", "Request was throttled. Expected available in 12 seconds."),
            "503": _problem(503, "stream_needs_asgi", "The live stream is served by the ASGI process only."),
        },
    }


def add_stream_path(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Post-processing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    result.setdefault("paths", {})["/api/v1/games/{game_id}/stream"] = {"get": stream_operation()}
    return result
