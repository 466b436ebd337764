"""What the service benchmarks share: percentiles and a scratch database of their own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by the nearest rank below; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def recreate_database(pg: str, dbname: str) -> str:
    """Drop and create ``dbname`` on the server at ``pg`` (``postgres://user@host:port``), migrate it, and
    return its URL. Benchmarks never touch the databases of the service or the tests."""
    with psycopg.connect(f"{pg}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{dbname}"')
    url = f"{pg}/{dbname}"
    env = {"DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "critters_api.settings_test"}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
    )
    return url
