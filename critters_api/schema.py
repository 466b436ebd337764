"""OpenAPI: every operation documents its problem+json errors; shared serializers for inputs and errors."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema_field
from rest_framework import serializers

from critters_api.problems import PROBLEM_CONTENT_TYPE, TITLES


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


class AutoSchema(SpectacularAutoSchema):
    """Adds the problem+json responses each operation can produce (400/415/422 with a body, 401/403 when
    authenticated, 404 with a path parameter, 429 always, plus the view's ``problem_statuses``) to the
    responses declared with ``extend_schema``; a view's ``problem_examples`` (``{status: (code, detail)}``)
    names the example shown for a status."""

    def _get_response_bodies(self, direction: Any = "response") -> Any:
        responses = super()._get_response_bodies(direction)
        statuses: set[int] = {429, 503}  # 503: the database is restarting (critters_api.problems)
        view = self.view
        permission_classes = getattr(view, "permission_classes", [])
        if any(getattr(p, "__name__", "") != "AllowAny" for p in permission_classes):
            statuses |= {401, 403}
        if "{" in self.path:
            statuses.add(404)
        if self.method in ("POST", "PUT", "PATCH"):
            statuses |= {400, 415, 422}
        if self.method == "GET" and self.get_filter_backends() == [] and self._has_query_serializer():
            statuses.add(400)
        statuses |= set(getattr(view, "problem_statuses", {}).get(self.method, ()))
        for status_code in sorted(statuses):
            if str(status_code) not in responses:
                responses[str(status_code)] = self._get_response_for_code(
                    problem_response(
                        status_code, code_detail=getattr(view, "problem_examples", {}).get(status_code)
                    ),
                    str(status_code),
                    (PROBLEM_CONTENT_TYPE,),
                    direction,
                )
        return responses

    def _has_query_serializer(self) -> bool:
        return any(
            isinstance(p, type) and issubclass(p, serializers.Serializer)
            for p in getattr(self, "_critters_query_params", [])
        ) or bool(getattr(self.view, "query_params_documented", False))


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Post-processing hook: the components generated from the rulesets' types (games.api.schema)."""
    from games.api.schema import ruleset_components

    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(ruleset_components())
    return result
