"""The production topology in docker-compose.yml is a valid Compose file that wires what it promises.

No Docker engine runs on the CI machines, so this is the check `docker compose config` would make: the file
is parsed with YAML merge keys resolved, validated against the Compose Specification (``compose-spec``, a
strict spec-compliant parser), and its cross references are checked.
"""

from __future__ import annotations

import json
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
    assert set(parsed.service_names()) == {"postgres", "redis", "migrate", "web", "stream", "worker", "beat"}


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
    app = [compose["services"][name] for name in ("migrate", "web", "stream", "worker", "beat")]
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
