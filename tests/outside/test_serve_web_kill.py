"""A ``kill -9`` of the web server's master under the README's serve command (issue #26, item 1).

``scripts/serve`` (supervisor running gunicorn with uvicorn workers, PRODUCTION settings) on a private
PostgreSQL and Redis. The test kills the gunicorn master with SIGKILL and expects what an operator expects
of a supervised service: within 10 s the API is served again by a NEW master with ``WEB_CONCURRENCY``
workers, no worker of the old master is left behind (an orphan would keep the port, so that every new master
failed to bind and exited again while supervisor said RUNNING), and supervisor reports the new master."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import REPO_ROOT, http_ok

from .private import PrivateRedis, private_postgres
from .test_serve_faults import Serve, alive, children

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

BACK_WITHIN = 10.0
WORKERS = 2


def command(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


def is_gunicorn(pid: int) -> bool:
    return any(arg.endswith("gunicorn") for arg in command(pid)[:2])


def web_master(serve: Serve) -> int:
    """The gunicorn master that supervisor started for this run (0: none): a gunicorn process whose parent is
    not a gunicorn process."""
    for pid in sorted(serve.processes()):
        if is_gunicorn(pid) and not is_gunicorn(parent(pid)):
            return pid
    return 0


def gunicorn_processes(serve: Serve) -> list[int]:
    return [pid for pid in serve.processes() if is_gunicorn(pid)]


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    tmp = tmp_path_factory.mktemp("serve-web-kill")
    redis = PrivateRedis(tmp)
    redis.start()
    with private_postgres(tmp) as pg:
        run = Serve(tmp, pg, redis)
        run.env["WEB_CONCURRENCY"] = str(WORKERS)
        try:
            run.start()
            yield run
        finally:
            run.stop()
            run.kill_leftovers()
            redis.stop()


def test_a_killed_web_master_is_replaced_within_10s_with_its_workers_and_no_orphan(serve: Serve) -> None:
    old_master = web_master(serve)
    assert old_master, "no gunicorn master found"
    deadline = time.monotonic() + 30
    while len(children(old_master)) < WORKERS and time.monotonic() < deadline:
        time.sleep(0.2)
    old_workers = children(old_master)
    assert len(old_workers) == WORKERS, old_workers

    os.kill(old_master, signal.SIGKILL)
    killed = time.monotonic()
    new_master = 0
    while time.monotonic() - killed < BACK_WITHIN:
        new_master = web_master(serve)
        if (
            new_master not in (0, old_master)
            and len(children(new_master)) == WORKERS
            and http_ok(f"{serve.url}/healthz", timeout=2)
        ):
            break
        time.sleep(0.2)
    back = time.monotonic() - killed
    assert new_master not in (0, old_master), f"no new master within {BACK_WITHIN} s"
    assert back <= BACK_WITHIN, f"the API was served again only after {back:.1f} s"
    assert len(children(new_master)) == WORKERS

    # no worker of the old master outlives it, and nothing but the new master's tree runs gunicorn
    assert not [pid for pid in old_workers if alive(pid)], "orphaned workers of the killed master"
    assert sorted(gunicorn_processes(serve)) == sorted([new_master, *children(new_master)])

    # it stays up (a master that cannot bind exits after a few seconds), and supervisor tells the truth
    time.sleep(6)
    assert web_master(serve) == new_master
    assert http_ok(f"{serve.url}/healthz", timeout=2)
    supervisorctl = str(REPO_ROOT / ".venv" / "bin" / "supervisorctl")
    status = subprocess.run(
        [supervisorctl, "-s", f"unix://{serve.var}/supervisor.sock", "status", "web"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    assert "RUNNING" in status, status
    assert f"pid {new_master}," in status, status
