"""One Citus cluster (a coordinator and two workers on this machine) for the tests of this folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from .harness import cluster_module, running_cluster


@pytest.fixture(scope="session")
def citus_cluster() -> Iterator[Any]:
    """Started once, migrated and distributed (8 shards); removed at the end. Skips, saying why, where Citus
    cannot run (not installed, and ``../shared/citus/install.sh`` not beside the checkout or not root)."""
    mod = cluster_module()
    try:
        mod.ensure_installed()
    except mod.CitusUnavailable as exc:
        pytest.skip(f"no Citus cluster here: {exc}")
    with running_cluster(workers=2, shard_count=8) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def citus_url(request: pytest.FixtureRequest) -> str:
    """The coordinator's URL: ``CITUS_TEST_DATABASE_URL`` (a cluster already running, migrated and
    distributed, e.g. by ``scripts/citus up``) when set, else this session's cluster."""
    url = os.environ.get("CITUS_TEST_DATABASE_URL")
    if url:
        return url
    return str(request.getfixturevalue("citus_cluster").url)
