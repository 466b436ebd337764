"""The production topology in docker-compose.yml is a valid Compose file that wires what it promises.

The checks `docker compose config` would make, in a second: the file is parsed with YAML merge keys
resolved, validated against the Compose Specification (``compose-spec``, a strict spec-compliant parser),
and its cross references are checked. ``test_compose_up.py`` runs it for real on a Docker engine.
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


def interpolate(value: Any, env: dict[str, str]) -> Any:
    """Compose's variable interpolation, for the forms the file uses: ``${NAME:-default}``,
    ``${NAME:?error}``, ``${NAME}`` and ``$$`` (a literal ``$``)."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, op, word = match.group(1), match.group(2), match.group(3)
        if env.get(name):
            return env[name]
        assert op != ":?", f"{name} must be set: {word}"
        return word if op == ":-" else ""

    return re.sub(r"\$\$|\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", one, value)


def long_form_host_ranges(compose: dict[str, Any]) -> dict[str, Any]:
    """A published host port range for one container port (``"8010-8019:8000"``) in the long syntax, which
    means the same. The specification lists ``"8000-9000:80"`` among its short-syntax examples and Compose
    takes it, but the ``compose-spec`` parser (0.2.1) wants as many container ports as host ports there; a
    range in the long syntax is what Debian's docker-compose 1.29 refuses, so the file keeps the short one.
    """
    services = {}
    for name, service in compose["services"].items():
        ports = []
        for port in service.get("ports", []):
            match = re.fullmatch(r"(\d+-\d+):(\d+)", str(port))
            ports.append({"target": int(match.group(2)), "published": match.group(1)} if match else port)
        services[name] = {**service, **({"ports": ports} if "ports" in service else {})}
    return {**compose, "services": services}


@pytest.mark.parametrize(
    "env",
    [
        pytest.param({"SECRET_KEY": "s"}, id="public-images"),
        pytest.param(
            {
                "SECRET_KEY": "s",
                "BASE_IMAGE": "critters-local/python:3.11",
                "POSTGRES_IMAGE": "critters-local/postgres:15",
                "REDIS_IMAGE": "critters-local/redis:7",
                "APP_IMAGE": "critters-compose-1:test",
                "WEB_PORTS": "20000-20005",
                "STREAM_PORT": "20006",
            },
            id="local-images-scaled",
        ),
    ],
)
def test_compose_file_follows_the_compose_specification(compose: dict[str, Any], env: dict[str, str]) -> None:
    """As Compose reads it: variables interpolated first (the defaults; as test_compose_up sets them)."""
    parsed = PyCompose.from_json(json.dumps(long_form_host_ranges(interpolate(compose, env))))
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


def test_a_missing_secret_key_stops_compose() -> None:
    with pytest.raises(AssertionError, match="SECRET_KEY must be set"):
        interpolate({"k": "${SECRET_KEY:?set SECRET_KEY (e.g. in .env)}"}, {})


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


def test_images_are_the_public_ones_unless_named_and_scaled_web_replicas_get_ports(
    compose: dict[str, Any],
) -> None:
    """Issue #26: the images are variables whose defaults are the public images (local stand-ins built by
    scripts/docker-images where no registry answers), and web publishes a port range, one port a replica,
    so that ``--scale web=N`` does not clash on one host port."""
    services = compose["services"]
    assert services["postgres"]["image"] == "${POSTGRES_IMAGE:-postgres:16}"
    assert services["redis"]["image"] == "${REDIS_IMAGE:-redis:7}"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "ARG BASE_IMAGE=python:3.11-slim\nFROM ${BASE_IMAGE:-python:3.11-slim} AS app\n" in dockerfile
    for name in ("migrate", "web", "stream", "worker", "notifications", "beat"):
        assert "BASE_IMAGE" in services[name]["build"]["args"]  # passed only when set (list form)
    assert services["web"]["ports"] == ["${WEB_PORTS:-8000}:8000"]
    assert services["stream"]["ports"] == ["${STREAM_PORT:-8001}:8001"]


def test_every_server_keeps_idle_connections_longer_than_a_client(compose: dict[str, Any]) -> None:
    """Issue #26: common clients keep an idle connection 5 s; a server that closes first resets a request the
    client sends on it. The web image's gunicorn keeps them 75 s (Dockerfile), and so does the stream."""
    assert "--keep-alive 75" in (ROOT / "Dockerfile").read_text()
    command = [str(part) for part in compose["services"]["stream"]["command"]]
    assert int(command[command.index("--timeout-keep-alive") + 1]) > 5
