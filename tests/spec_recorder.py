"""A pytest plugin: at the end of the session, every response the service gave in this process (recorded by
``critters_api.testing.Record500Middleware``: method, path, status, problem code, header names) is checked
against the served OpenAPI spec: its status is documented for the operation, its problem ``code`` is listed
there (``x-codes``), and every header it carries is declared (but the standard ones of HTTP and of the
security middleware). It only checks what this run observed, so any subset of the tests can run; under
pytest-xdist each worker checks its own observations and hands its findings to the controller, which fails
the run. Responses outside any documented operation (unknown URLs, the schema itself, the admin, the replay
page) are not checked."""

from __future__ import annotations

import sys
from typing import Any

import pytest

IGNORED_HEADERS = {
    # HTTP itself and content negotiation
    "content-type",
    "content-length",
    "content-language",
    "vary",
    "allow",
    "date",
    "server",
    "connection",
    "cache-control",
    "expires",
    "pragma",
    # Django's security middleware and CORS-free defaults, the same on every response
    "x-frame-options",
    "x-content-type-options",
    "referrer-policy",
    "cross-origin-opener-policy",
    "content-security-policy",
    "strict-transport-security",
}


def check(observed: list[tuple[str, str, int, str | None, tuple[str, ...]]], spec: Any) -> list[str]:
    from tests.spec_tools import problem_codes

    failures: set[str] = set()
    for method, path, status, code, headers in observed:
        if not path.startswith("/api/v1/") or status == 500:
            continue
        found = spec.operation_for(method, path)
        if found is None:
            continue
        _template, op = found
        name = op["operationId"]
        response = op["responses"].get(str(status)) or op["responses"].get("default")
        if response is None:
            failures.add(f"{name}: status {status} is not documented (code {code})")
            continue
        if code is not None and code not in problem_codes(response):
            failures.add(
                f"{name}: {status} `{code}` is not listed (x-codes: {sorted(problem_codes(response))})"
            )
        declared = {h.lower() for h in response.get("headers", {})}
        for header in set(headers) - IGNORED_HEADERS - declared:
            failures.add(f"{name}: {status} header {header} is not declared")
    return sorted(failures)


def served_spec() -> Any:
    from drf_spectacular.generators import SchemaGenerator

    from tests.spec_tools import Spec

    return Spec(SchemaGenerator().get_schema(request=None, public=True))


_FROM_WORKERS: list[str] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist, on the controller: a worker's findings (see ``workeroutput`` below)."""
    _FROM_WORKERS.extend(getattr(node, "workeroutput", {}).get("spec_recorder", []))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    failures = list(_FROM_WORKERS)
    testing = sys.modules.get(
        "critters_api.testing"
    )  # loaded with Django's settings, else nothing was served
    observed: list[Any] = list(testing.OBSERVED) if testing is not None else []
    if observed:
        failures += check(observed, served_spec())
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller reports (its exit status is the run's)
        workeroutput["spec_recorder"] = failures
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if failures:
        message = "responses the spec does not document:\n  " + "\n  ".join(sorted(set(failures)))
        if reporter is not None:
            reporter.write_sep("=", "spec recorder", red=True)
            reporter.write_line(message)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    elif observed and reporter is not None:
        reporter.write_line(f"spec recorder: {len(observed)} responses, all as the spec documents them")
