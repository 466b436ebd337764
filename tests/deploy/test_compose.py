"""The production topology in docker-compose.yml is a valid Compose file that wires what it promises.

No Docker engine runs on the CI machines, so this is the check `docker compose config` would make: the file
is parsed with YAML merge keys resolved, validated against the Compose Specification (``compose-spec``, a
strict spec-compliant parser), and its cross references are checked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from compose_spec import PyCompose

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    # Top-level x- keys are YAML anchors for reuse; the spec allows them, the parser wants only the rest.
    return {key: value for key, value in data.items() if not key.startswith("x-")}


def test_compose_file_follows_the_compose_specification(compose: dict[str, Any]) -> None:
    parsed = PyCompose.from_json(json.dumps(compose))
    assert set(parsed.service_names()) == {
        "postgres",
        "redis",
        "migrate",
        "web",
        "stream",
        "worker",
        "notifications",
        "beat",
    }


def test_the_validator_rejects_what_compose_rejects() -> None:
    with pytest.raises(ValueError, match="imagee"):
        PyCompose.from_json(json.dumps({"services": {"web": {"imagee": "x"}}}))


def test_every_dependency_names_a_service_with_what_its_condition_needs(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name, service in services.items():
        for dep, spec in (service.get("depends_on") or {}).items():
            assert dep in services, f"{name} depends on unknown service {dep}"
            if spec["condition"] == "service_healthy":
                assert "healthcheck" in services[dep], f"{name} waits for {dep} to be healthy: no healthcheck"


def test_app_services_share_one_configuration_from_the_environment(compose: dict[str, Any]) -> None:
    app = [
        compose["services"][name] for name in ("migrate", "web", "stream", "worker", "notifications", "beat")
    ]
    for service in app:
        env = service["environment"]
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["REDIS_URL"].startswith("redis://")
        assert "SECRET_KEY" in env
        assert "${SECRET_KEY" in env["SECRET_KEY"], "no secret may be baked in"


def test_exactly_one_beat_and_the_broker_never_evicts(compose: dict[str, Any]) -> None:
    services = compose["services"]
    beats = [name for name, s in services.items() if "beat" in " ".join(map(str, s.get("command", [])))]
    assert beats == ["beat"]
    assert "noeviction" in services["redis"]["command"]


def _default(value: str) -> int:
    """``${NAME:-12}`` → 12 (the value Compose substitutes when NAME is unset), or a plain number."""
    match = re.fullmatch(r"\$\{\w+:-(\d+)\}", value.strip()) or re.fullmatch(r"(\d+)", value.strip())
    assert match, f"not a number or a defaulted variable: {value!r}"
    return int(match.group(1))


def test_database_connections_stay_under_max_connections(compose: dict[str, Any]) -> None:
    """Every process that talks to PostgreSQL, at its most (issue 13, item 4): the web container's gunicorn
    processes and the stream process each with a full pool, each Celery worker process with one connection
    (and one migration), under the server's max_connections less the 3 reserved for superusers."""
    services = compose["services"]
    env = services["web"]["environment"]
    pool_max = _default(env["DB_POOL_MAX_SIZE"])
    web_processes = _default(env["WEB_WORKERS"])
    assert '--workers \\"${WEB_WORKERS:-' in (ROOT / "Dockerfile").read_text(), (
        "the image's CMD reads WEB_WORKERS"
    )
    concurrency = next(c for c in services["worker"]["command"] if str(c).startswith("--concurrency="))
    worker_processes = _default(concurrency.split("=", 1)[1])
    concurrency = next(c for c in services["notifications"]["command"] if str(c).startswith("--concurrency="))
    notification_processes = _default(concurrency.split("=", 1)[1])
    postgres = " ".join(services["postgres"]["command"])
    max_connections = _default(re.search(r"max_connections=(\S+)", postgres).group(1))  # type: ignore[union-attr]
    threads = _default(env["WEB_THREADS"])
    assert pool_max <= threads, "a web process never runs more requests at once than it has threads"
    scales = [(1, 1)]  # replicas of web and worker: one each, and the README's scaled-out example
    example = re.search(r"--scale web=(\d+) --scale worker=(\d+)", (ROOT / "README.md").read_text())
    assert example, "the README shows how to scale out"
    scales.append((int(example.group(1)), int(example.group(2))))
    for web_replicas, worker_replicas in scales:
        used = (
            (web_replicas * web_processes + 1) * pool_max
            + worker_replicas * worker_processes
            + notification_processes
            + 1
        )
        assert used <= max_connections - 3, (web_replicas, worker_replicas, used, max_connections)
    for name in (
        "migrate",
        "web",
        "stream",
        "worker",
        "notifications",
        "beat",
    ):  # one configuration for every app service
        assert services[name]["environment"]["DB_POOL_MAX_SIZE"] == env["DB_POOL_MAX_SIZE"]


def test_no_server_takes_the_client_address_from_a_header_it_cannot_trust(compose: dict[str, Any]) -> None:
    """No proxy runs in this file: web and stream are published directly, so TRUSTED_PROXY_COUNT is 0 and
    the ASGI server does not rewrite the peer from X-Forwarded-For (uvicorn's proxy headers are off)."""
    services = compose["services"]
    assert not any(
        "nginx" in str(s.get("image", "")) or "traefik" in str(s.get("image", "")) for s in services.values()
    )
    assert _default(services["web"]["environment"]["TRUSTED_PROXY_COUNT"]) == 0
    assert "--no-proxy-headers" in services["stream"]["command"]
