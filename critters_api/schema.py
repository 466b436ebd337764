"""OpenAPI: every operation documents its problem+json errors; shared serializers for inputs and errors."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema_field
from rest_framework import serializers

from critters_api.error_codes import ErrorEntry, codes_by_status
from critters_api.problems import PROBLEM_CONTENT_TYPE, TITLES
from critters_api.serializers import StrictSerializer


@extend_schema_field(
    {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}
)
class FieldErrorsField(serializers.JSONField):
    pass


@extend_schema_field({"$ref": "#/components/schemas/RuleErrorDetails"})
class RuleErrorDetailsField(serializers.JSONField):
    pass


class ProblemSerializer(serializers.Serializer):
    """An RFC 9457 problem: ``code`` is the stable machine-readable error code."""

    type = serializers.CharField(
        help_text="A URI naming the problem type (`urn:goodcritters:problem:<code>`)."
    )
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    instance = serializers.CharField(allow_null=True, help_text="The request path.")
    code = serializers.CharField(help_text="Stable machine code, e.g. `not_your_turn`, `validation_error`.")
    # Named as the problem body names it; this serializer only describes responses (never validates), so
    # shadowing Serializer.errors is harmless.
    errors = FieldErrorsField(  # type: ignore[assignment]
        required=False,
        help_text="With `validation_error` and other input errors: the messages per field (a dotted path for "
        "nested fields and list items, e.g. `setup.seat_order.2`; `non_field_errors` for the whole body).",
    )
    kind = serializers.ChoiceField(
        choices=["invalid", "conflict", "forbidden"], required=False, help_text="With rule errors."
    )
    details = RuleErrorDetailsField(required=False, help_text="With some rule errors (see the codes).")
    retry_after = serializers.IntegerField(required=False, help_text="With `throttled`: seconds to wait.")
    etag = serializers.CharField(
        required=False, help_text="With `precondition_failed` (412): the game's current ETag."
    )

    class Meta:
        ref_name = "Problem"


_PROBLEM_EXAMPLES: dict[int, tuple[str, str]] = {
    400: ("malformed_request", "JSON parse error - Expecting value: line 1 column 1 (char 0)"),
    401: ("not_authenticated", "Authentication credentials were not provided."),
    403: ("permission_denied", "You do not have permission to perform this action."),
    404: ("not_found", "Not found."),
    409: ("wrong_step", "The game is not in a step where this is allowed."),
    412: ("precondition_failed", "The game has changed since the ETag you sent."),
    413: ("request_too_large", "The request body is too large."),
    415: ("unsupported_media_type", 'Unsupported media type "text/plain" in request.'),
    422: ("validation_error", "The request body is not valid."),
    428: ("precondition_required", "This request needs an If-Match header."),
    429: ("throttled", "Request was throttled. Expected available in 12 seconds."),
    503: ("database_unavailable", "The database is not available; retry shortly."),
}


def problem_response(
    status_code: int, description: str | None = None, code_detail: tuple[str, str] | None = None
) -> OpenApiResponse:
    """A problem+json response; ``code_detail`` names the example's code and detail (else a typical one)."""
    code, detail = code_detail or _PROBLEM_EXAMPLES.get(status_code, ("error", "Error."))
    example: dict[str, Any] = {
        "type": f"urn:goodcritters:problem:{code}",
        "title": TITLES.get(status_code, "Error"),
        "status": status_code,
        "detail": detail,
        "instance": "/api/v1/…",
        "code": code,
    }
    if code == "validation_error":
        example["errors"] = {"seats": ["Ensure this value is less than or equal to 8."]}
    return OpenApiResponse(
        response=ProblemSerializer,
        description=description or TITLES.get(status_code, "Error"),
        examples=[OpenApiExample(code, value=example, response_only=True, status_codes=[str(status_code)])],
    )


OPERATION_SCOPES: dict[str, tuple[str, ...]] = {
    "games_commands_": ("command", "rules"),  # a prefix: every player command
    "games_list": ("cursor",),
    "me_games_list": ("cursor",),
    "games_create": ("create", "caps", "bot_only"),
    "games_join": ("lobby", "caps"),
    "games_leave": ("lobby",),
    "games_bots_create": ("lobby", "bot_only"),
    "games_start": ("lobby", "create", "bot_only"),
    "games_cancel": ("lobby",),
    "games_pause": ("creator", "rules"),
    "games_resume": ("creator", "rules"),
    "games_seats_hand_over": ("creator", "rules", "bot_only"),
    "games_seats_offer_delete": ("offers", "offer_withdraw"),
    "me_offers_accept": ("offers", "offer_accept"),
    "me_offers_decline": ("offers",),
    "games_record_retrieve": ("audit",),
    "games_verify_retrieve": ("audit", "verify"),
    "games_states_retrieve": ("state_at",),
    "games_chart_retrieve": ("audit",),
    "auth_tokens_create": ("login",),
    "me_webhooks_create": ("webhook_create", "webhooks"),
    "me_webhooks_update": ("webhook_create", "webhooks"),
    "me_webhooks_retrieve": ("webhooks",),
    "me_webhooks_delete": ("webhooks",),
    "me_webhooks_deliveries_list": ("webhooks",),
    "me_email_set": ("email",),
    "me_notifications_update": ("notification_settings",),
    "email_verify": ("email_token",),
    "email_unsubscribe": ("email_token",),
}
"""The catalogue's scopes (critters_api.error_codes) an operation has beyond those its shape implies (a
token, a body, a path parameter, a game, query parameters): by operationId, or an operationId prefix."""


def scopes_for(operation_id: str, *, method: str, path: str, authenticated: bool, query: bool) -> set[str]:
    scopes = {"any"}
    if authenticated:
        scopes.add("auth")
    if "{" in path:
        scopes.add("path")
    if "{game_id}" in path:
        scopes.add("game")
    if method in ("POST", "PUT", "PATCH"):
        scopes.add("body")
    if query:
        scopes.add("query")
    for key, more in OPERATION_SCOPES.items():
        if operation_id == key or (key.endswith("_") and operation_id.startswith(key)):
            scopes |= set(more)
    return scopes


def describe_codes(entries: list[ErrorEntry]) -> str:
    return "\n".join(f"- `{e.code}`: {e.meaning}" for e in entries)


def _header(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"schema": schema or {"type": "string"}, "description": description}


RETRY_AFTER = _header("Seconds to wait before retrying.", {"type": "integer", "minimum": 0})
ETAG_HEADER = _header("The game's entity tag: it changes with every change to the game.")
REPLAYED = _header(
    "`true` when this is the stored response to an earlier request with the same Idempotency-Key "
    "(nothing was applied again).",
    {"type": "string", "enum": ["true"]},
)
WWW_AUTHENTICATE = _header("The authentication scheme to use (`Bearer`).")


def response_headers(status: int, scopes: set[str], method: str) -> dict[str, dict[str, Any]]:
    """The headers the service sends with a response (declared so that a client, and schemathesis, know)."""
    out: dict[str, dict[str, Any]] = {}
    if status in (429, 503):
        out["Retry-After"] = RETRY_AFTER
    if status == 401:
        out["WWW-Authenticate"] = WWW_AUTHENTICATE
    reads_game = "game" in scopes and not scopes & {"state_at", "audit"}  # the audit's reads carry none
    if reads_game and method == "GET" and status in (200, 304):
        out["ETag"] = ETAG_HEADER
    if "command" in scopes and status in (200, 403, 409, 422):  # a rule error carries the game's ETag
        out["ETag"] = ETAG_HEADER
        out["Idempotent-Replayed"] = REPLAYED
    return out


NO_NUL = "^[^\\x00]*$"
"""The JSON parser refuses NUL characters in any string (PostgreSQL's jsonb cannot store them): a 400."""


def _no_nul(schema: dict[str, Any]) -> None:
    """Declares, on every free string of a request body, that it holds no NUL character."""
    if schema.get("type") == "string" and not {"enum", "format", "pattern"} & set(schema):
        schema["pattern"] = NO_NUL
    for sub in schema.get("properties", {}).values():
        _no_nul(sub)
    if isinstance(schema.get("items"), dict):
        _no_nul(schema["items"])


class AutoSchema(SpectacularAutoSchema):
    """Adds the problem+json responses each operation can produce to the responses declared with
    ``extend_schema``: for each status, the codes of the error catalogue (critters_api.error_codes) in the
    operation's scopes, listed in ``x-codes`` and in the description (plus the view's ``problem_statuses``).
    A view's ``problem_examples`` (``{status: (code, detail)}``) names the example shown for a status."""

    def _get_response_bodies(self, direction: Any = "response") -> Any:
        responses = super()._get_response_bodies(direction)
        view = self.view
        permission_classes = getattr(view, "permission_classes", [])
        authenticated = any(getattr(p, "__name__", "") != "AllowAny" for p in permission_classes)
        query = self.method == "GET" and self.get_filter_backends() == [] and self._has_query_serializer()
        scopes = scopes_for(
            self.get_operation_id(),
            method=self.method,
            path=self.path,
            authenticated=authenticated,
            query=query,
        )
        command_type = getattr(view, "command_type", "")
        if command_type and "rules" in scopes:  # a player command: the rule errors of its rulesets
            scopes = (scopes - {"rules"}) | {f"rules:{command_type}"}
        codes = codes_by_status(scopes)
        statuses = set(codes) | set(getattr(view, "problem_statuses", {}).get(self.method, ()))
        examples = getattr(view, "problem_examples", {})
        for status_code in sorted(statuses):
            listed = codes.get(status_code, [])
            key = str(status_code)
            if key not in responses:
                code_detail = examples.get(status_code)
                if code_detail is not None and listed and code_detail[0] not in {e.code for e in listed}:
                    code_detail = None  # the view's example is of another of its methods (GET's cursor)
                if code_detail is None and listed:
                    code_detail = _PROBLEM_EXAMPLES.get(status_code)
                    if code_detail is None or code_detail[0] not in {e.code for e in listed}:
                        code_detail = (listed[0].code, listed[0].meaning)
                responses[key] = self._get_response_for_code(
                    problem_response(status_code, code_detail=code_detail),
                    key,
                    (PROBLEM_CONTENT_TYPE,),
                    direction,
                )
            if listed and PROBLEM_CONTENT_TYPE in responses[key].get("content", {}):
                responses[key]["x-codes"] = [e.code for e in listed]
                responses[key]["description"] = (
                    responses[key].get("description", "") + "\n\nCodes:\n" + describe_codes(listed)
                )
        for key, response in responses.items():
            for name, header in response_headers(int(key), scopes, self.method).items():
                response.setdefault("headers", {}).setdefault(name, header)
        return responses

    def _map_serializer(self, serializer: Any, direction: Any, bypass_extensions: bool = False) -> Any:
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        if direction == "request":
            if isinstance(serializer, StrictSerializer):
                schema["additionalProperties"] = False  # unknown fields are refused (422 validation_error)
            _no_nul(schema)
        return schema

    def _has_query_serializer(self) -> bool:
        return any(
            isinstance(p, type) and issubclass(p, serializers.Serializer)
            for p in getattr(self, "_critters_query_params", [])
        ) or bool(getattr(self.view, "query_params_documented", False))
