"""The live stream is a plain Django async view (DRF has no async views), so drf-spectacular cannot see it:
this post-processing hook documents it in the OpenAPI schema."""

from __future__ import annotations

import json
from typing import Any


def stream_example() -> str:
    """A stream's start, an event, a keep-alive and its end, made from the same examples as the JSON reads
    (so that each message's data validates against the schema its event names)."""
    from games.api.examples import feed_items, viewer_state_value

    state = viewer_state_value()
    item = feed_items(last=1)[0]
    end = {
        "version": state["version"] + 200,
        "head_hash": "5be1" + "0" * 60,
        "public_head": {"seq": state["version"] + 200, "hash": "0d4e" + "0" * 60},
        "reason": "game_over",
    }
    return (
        "retry: 1000\n\n"
        f"id: {state['version'] - 1}\nevent: state\ndata: {json.dumps(state, separators=(',', ':'))}\n\n"
        f"id: {item['seq']}\nevent: game_event\ndata: {json.dumps(item, separators=(',', ':'))}\n\n"
        ": keep-alive\n\n"
        f"event: end\ndata: {json.dumps(end, separators=(',', ':'))}\n\n"
    )


STREAM_MESSAGES = {"state": "ViewerStateOutput", "game_event": "FeedItemOutput", "end": "StreamEnd"}
"""Each message's ``event:`` name → the component its ``data:`` line is (a JSON document)."""

STREAM_END: dict[str, Any] = {
    "type": "object",
    "description": "The `data` of the stream's `event: end`: why the stream ends (`reason`), the last seq "
    "it sent, and, when it ends with the game, the heads of both chains (docs/AUDIT.md).",
    "properties": {
        "version": {"type": "integer", "description": "The seq of the last event this stream sent."},
        "head_hash": {
            "type": "string",
            "nullable": True,
            "description": "The hash chain's head once the game is over (docs/AUDIT.md); else null.",
        },
        "public_head": {
            "type": "object",
            "nullable": True,
            "description": "The public chain's head (a checkpoint a watcher may keep, docs/AUDIT.md) "
            "when the stream ends with the game (over or cancelled); null when it ends because its viewer "
            "lost the right to it.",
            "properties": {
                "seq": {"type": "integer", "minimum": 0},
                "hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            },
            "required": ["seq", "hash"],
            "additionalProperties": False,
        },
        "reason": {
            "type": "string",
            "enum": ["game_over", "game_cancelled", "token_revoked", "viewer_changed", "game_not_visible"],
            "description": "`game_over` and `game_cancelled`: nothing more will come. `token_revoked`, "
            "`viewer_changed` (the seat changed hands, or the caller lost it), `game_not_visible`: the "
            "stream ended before sending anything the caller may no longer see; reconnect without "
            "`Last-Event-ID` for a fresh snapshot as whoever you are now (docs/NOTIFICATIONS.md).",
        },
    },
    "required": ["version", "head_hash", "public_head", "reason"],
    "additionalProperties": False,
}


def stream_problems() -> dict[str, Any]:
    """The stream's problem responses: the catalogue's codes for its scopes (critters_api.error_codes)."""
    from critters_api.error_codes import codes_by_status
    from critters_api.schema import describe_codes

    out = {}
    scopes = ("any", "auth", "path", "game", "cursor", "stream")
    for status, entries in codes_by_status(scopes).items():
        response = _problem(status, entries[0].code, entries[0].meaning)
        response["description"] += "\n\nCodes:\n" + describe_codes(entries)
        response["x-codes"] = [e.code for e in entries]
        out[str(status)] = response
    return out


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


STREAM_HEADERS: dict[str, Any] = {
    "Cache-Control": {
        "schema": {"type": "string", "enum": ["no-cache, no-store"]},
        "description": "`no-cache, no-store`: a live stream is never cached.",
    },
    "X-Accel-Buffering": {
        "schema": {"type": "string", "enum": ["no"]},
        "description": "`no`: a proxy in front of the service (nginx) must not buffer the stream, so "
        "that each message reaches you as it is sent.",
    },
    "Vary": {
        "schema": {"type": "string", "enum": ["Authorization"]},
        "description": "`Authorization`: the stream is the token's viewer's.",
    },
}
"""The headers ``notifications.stream.game_stream`` sets on the stream (the others are HTTP's and the
site's)."""


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
                "headers": STREAM_HEADERS,
                "content": {
                    "text/event-stream": {
                        "schema": {
                            "type": "string",
                            "description": "Server-Sent Events (see the description). The `data` of each "
                            "message is one JSON document: `state` a `ViewerStateOutput`, `game_event` a "
                            "`FeedItemOutput`, `end` a `StreamEnd` (see `x-sse-messages`).",
                            "x-sse-messages": {
                                name: {"$ref": f"#/components/schemas/{component}"}
                                for name, component in STREAM_MESSAGES.items()
                            },
                        },
                        "example": stream_example(),
                    }
                },
            },
            **stream_problems(),
        },
    }


def add_stream_path(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Post-processing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    result.setdefault("paths", {})["/api/v1/games/{game_id}/stream"] = {"get": stream_operation()}
    from .serializers import WEBHOOK_DATA

    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["StreamEnd"] = STREAM_END
    schemas["WebhookData"] = WEBHOOK_DATA
    return result
