"""Every error is ``application/problem+json`` (RFC 9457) with a stable machine ``code``.

This module is the one place where errors become HTTP: DRF exceptions (the exception handler), rule errors
from a ruleset (``ErrorKind`` → status, :data:`RULE_ERROR_STATUS`), the hosting code's refusals
(:class:`games.errors.Refused`, ``Refusal`` → status, ``REFUSAL_STATUS``: :func:`as_problem`), the API's own
:class:`Problem`, and Django-level failures outside DRF (unknown URLs, oversized or suspicious requests,
500s, NUL bytes).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from critters_api.error_codes import REFUSAL_STATUS, RULE_ERROR_STATUS
from games.errors import Refused
from games.rules.core import ErrorKind, RuleError

PROBLEM_CONTENT_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:goodcritters:problem:"

TITLES: dict[int, str] = {
    400: "Bad request",
    401: "Not authenticated",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    409: "Conflict",
    412: "Precondition failed",
    413: "Request too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    428: "Precondition required",
    429: "Too many requests",
    500: "Internal server error",
    503: "Service unavailable",
}


class Problem(exceptions.APIException):
    """A service error with a status, a stable code and optional extra members."""

    def __init__(self, status_code: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail=detail, code=code)
        self.status_code = status_code
        self.code = code
        self.extra = extra
        self.headers: dict[str, str] = {}


def as_problem(exc: Problem | Refused) -> Problem:
    """A refusal of the hosting code as the API answers it (its status from ``REFUSAL_STATUS``); a
    :class:`Problem` as it is."""
    if isinstance(exc, Problem):
        return exc
    problem = Problem(REFUSAL_STATUS[exc.refusal], exc.code, exc.detail, **exc.extra)
    problem.__cause__ = exc
    return problem


def problem_body(
    status_code: int, code: str, detail: str, instance: str | None = None, **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": TYPE_PREFIX + code,
        "title": TITLES.get(status_code, "Error"),
        "status": status_code,
        "detail": detail,
        "instance": instance,
        "code": code,
    }
    body.update(extra)
    if "errors" in body:
        body["errors"] = field_errors(body["errors"])
    return body


def field_errors(detail: Any, path: str = "") -> dict[str, list[str]]:
    """DRF's error tree (dicts by field, dicts or lists by item index) → ``{dotted.path: [messages]}``."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            out.update(field_errors(value, f"{path}.{key}" if path else str(key)))
    elif isinstance(detail, list) and not all(isinstance(v, str) for v in detail):
        for index, value in enumerate(detail):
            if isinstance(value, dict | list):
                out.update(field_errors(value, f"{path}.{index}" if path else str(index)))
            elif value:
                out.setdefault(path or "non_field_errors", []).append(str(value))
    elif isinstance(detail, list):
        if detail:
            out[path or "non_field_errors"] = [str(v) for v in detail]
    else:
        out[path or "non_field_errors"] = [str(detail)]
    return out


def rule_error_problem(exc: RuleError, instance: str | None = None) -> tuple[int, dict[str, Any]]:
    status_code = RULE_ERROR_STATUS[ErrorKind(exc.kind)]
    extra: dict[str, Any] = {"kind": ErrorKind(exc.kind).value}
    if exc.details:
        extra["details"] = _jsonable(exc.details)
    return status_code, problem_body(status_code, exc.code, exc.message, instance, **extra)


def _jsonable(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return str(value)


_DRF_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ParseError: "malformed_request",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


def _flatten_errors(detail: Any) -> Any:
    """DRF's ErrorDetail tree → plain JSON (messages as strings)."""
    if isinstance(detail, dict):
        return {str(k): _flatten_errors(v) for k, v in detail.items()}
    if isinstance(detail, list):
        return [_flatten_errors(v) for v in detail]
    return str(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    request = context.get("request")
    instance = request.get_full_path() if request is not None else None
    if isinstance(exc, RuleError):
        status_code, body = rule_error_problem(exc, instance)
        return _problem_response(body, status_code)
    if isinstance(exc, Refused):
        exc = as_problem(exc)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return None  # a bug: Django's handler500 answers with a problem too
    status_code = response.status_code
    if isinstance(exc, Problem):
        body = problem_body(status_code, exc.code, str(exc.detail), instance, **exc.extra)
        for name, value in exc.headers.items():
            response[name] = value
    elif isinstance(exc, exceptions.ValidationError):
        status_code = 422
        errors = _flatten_errors(exc.detail)
        if not isinstance(errors, dict):
            errors = {"non_field_errors": errors if isinstance(errors, list) else [errors]}
        body = problem_body(
            status_code, "validation_error", "The request body is not valid.", instance, errors=errors
        )
    else:
        code = _DRF_CODES.get(type(exc)) or str(getattr(exc, "default_code", "error"))
        detail = exc.detail if isinstance(exc.detail, str) else json.dumps(_flatten_errors(exc.detail))
        extra: dict[str, Any] = {}
        wait = getattr(exc, "wait", None) if isinstance(exc, exceptions.Throttled) else None
        if wait is not None:
            extra["retry_after"] = int(wait + 0.999)
        body = problem_body(status_code, code, str(detail), instance, **extra)
    response.data = body
    response.status_code = status_code
    response.content_type = PROBLEM_CONTENT_TYPE
    return response


def _problem_response(body: dict[str, Any], status_code: int) -> Response:
    response = Response(body, status=status_code)
    response.content_type = PROBLEM_CONTENT_TYPE
    return response


def problem_http_response(
    status_code: int, code: str, detail: str, request: HttpRequest | None
) -> HttpResponse:
    """A problem for plain Django views and handlers (outside DRF)."""
    instance = None
    if request is not None:
        try:
            instance = request.get_full_path()
        except Exception:  # a path we cannot even render
            instance = None
        if instance is not None and "\x00" in instance:
            instance = None
    body = problem_body(status_code, code, detail, instance)
    return HttpResponse(json.dumps(body), status=status_code, content_type=PROBLEM_CONTENT_TYPE)


# --- Django handlers (ROOT_URLCONF handler400/403/404/500) ----------------------------------------
DRAIN_MAX_BYTES = 1024 * 1024
"""A refused oversized body is read and discarded up to this size, so that the client's keep-alive connection
stays usable (gunicorn answers ``Connection: keep-alive`` and then drops a connection whose unread body
exceeds 64 KiB: the client's next request on it fails). Bigger bodies still lose the connection."""


def _discard_body(request: HttpRequest) -> None:
    stream = getattr(request, "_stream", None)
    if stream is None:
        return
    remaining = DRAIN_MAX_BYTES
    try:
        while remaining > 0:
            chunk = stream.read(min(64 * 1024, remaining))
            if not chunk:
                return
            remaining -= len(chunk)
    except OSError:  # the client went away: nothing to keep alive
        return


def handler400(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if isinstance(exception, RequestDataTooBig):
        _discard_body(request)
        return problem_http_response(413, "request_too_large", "The request body is too large.", request)
    return problem_http_response(400, "bad_request", "The request could not be understood.", request)


def handler403(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return problem_http_response(403, "permission_denied", "You may not do this.", request)


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return problem_http_response(404, "not_found", "There is nothing at this address.", request)


def handler500(request: HttpRequest) -> HttpResponse:
    # Django calls this while it handles the exception: a database that failed outside a view (in a
    # middleware) is the same 503 as in a view, not a 500
    exception = sys.exc_info()[1]
    if isinstance(exception, OperationalError | InterfaceError):
        return database_unavailable(request, exception)
    return problem_http_response(500, "server_error", "Something went wrong on our side.", request)


DATABASE_RETRY_AFTER_SECONDS = 2
logger = logging.getLogger(__name__)


def database_unavailable(request: HttpRequest, exception: Exception) -> HttpResponse:
    logger.warning("database unavailable: %s: %s", type(exception).__name__, exception)
    response = problem_http_response(
        503, "database_unavailable", "The database is not available; retry shortly.", request
    )
    response["Retry-After"] = str(DATABASE_RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    """The database is down or restarting (connection refused or lost), or every connection of the pool is
    busy for ``DB_POOL_TIMEOUT`` (psycopg_pool's ``PoolTimeout``): 503 problem with ``Retry-After`` instead of
    a 500. Nothing was applied (a command's transaction did not commit); the same request with the same
    Idempotency-Key can be sent again. Later requests reconnect by themselves (health checks, the pool's)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        return database_unavailable(request, exception)


class RefuseNulBytesMiddleware:
    """NUL bytes in the path or query string would reach PostgreSQL (a 500): refuse them with 400."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        raw_query = request.META.get("QUERY_STRING", "")
        if (
            "\x00" in request.path
            or "\x00" in request.path_info
            or "%00" in raw_query.lower()
            or "\x00" in raw_query
            or any("\x00" in k or any("\x00" in v for v in vs) for k, vs in request.GET.lists())
        ):
            return problem_http_response(400, "nul_byte", "NUL bytes are not allowed in URLs.", None)
        return self.get_response(request)


__all__ = [
    "PROBLEM_CONTENT_TYPE",
    "RULE_ERROR_STATUS",
    "DatabaseUnavailableMiddleware",
    "Problem",
    "as_problem",
    "exception_handler",
    "handler400",
    "handler403",
    "handler404",
    "handler500",
    "problem_body",
    "rule_error_problem",
    "status",
]
