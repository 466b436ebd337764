"""The served spec, read once per module (tests/spec_tools.Spec)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.test import Client

from tests.spec_tools import Spec


@pytest.fixture(scope="module")
def spec(django_db_blocker: Any) -> Spec:
    with django_db_blocker.unblock():
        response = Client().get("/api/schema/")
    assert response.status_code == 200
    return Spec(yaml.safe_load(response.content))
