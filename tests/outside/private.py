"""PRIVATE throwaway PostgreSQL and Redis servers (machine binaries, temp dirs, free ports) that a test may
stop and start at will. The shared servers on 5432/6379 are never touched."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import psycopg

from games import store

from .live import REPO_ROOT, free_port

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _as_postgres(cmd: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root: run them as the ``postgres`` user when we are root."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


class PrivatePostgres:
    def __init__(self, workdir: Path) -> None:
        # not under pytest's tmp dirs: those are private to root (mode 700) and the server runs as postgres
        self.root = Path(tempfile.mkdtemp(prefix="critters-pg-"))
        self.dir = self.root / "pgdata"
        self.sockets = self.root / "pgsock"
        self.log_path = self.root / "postgres.log"
        self.port = free_port()
        self.dbname = "critters"
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/{self.dbname}"

    def init(self) -> None:
        self.dir.mkdir(parents=True)
        self.sockets.mkdir(parents=True)
        self.log_path.touch()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
            for p in (self.dir, self.sockets, self.log_path):
                shutil.chown(p, "postgres")
        subprocess.run(
            _as_postgres(
                [
                    str(PG_BIN / "initdb"),
                    "-D",
                    str(self.dir),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-sync",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        self.start()
        with psycopg.connect(self.admin_dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.dbname}"')

    def admin_dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={self.dbname}"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(
            _as_postgres(
                [
                    str(PG_BIN / "pg_ctl"),
                    "-D",
                    str(self.dir),
                    "-o",
                    options,
                    "-l",
                    str(self.log_path),
                    "-w",
                    "-t",
                    "60",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=90,
        )

    def stop(self, mode: str = "fast") -> None:
        """``immediate`` is a crash (no shutdown checkpoint: recovery replays the WAL on the next start)."""
        subprocess.run(
            _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.dir), "-m", mode, "-w", "-t", "60", "stop"]),
            check=False,
            capture_output=True,
            timeout=90,
        )

    def running(self) -> bool:
        r = subprocess.run(
            _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.dir), "status"]),
            capture_output=True,
            check=False,
        )
        return r.returncode == 0

    def migrate(self) -> None:
        env = dict(os.environ, DATABASE_URL=self.url, DJANGO_SETTINGS_MODULE="critters_api.settings_test")
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=REPO_ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=300,
        )

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute("SET TIME ZONE 'UTC'")
            return list(conn.execute(sql, params).fetchall())


@contextlib.contextmanager
def private_postgres(workdir: Path) -> Iterator[PrivatePostgres]:
    pg = PrivatePostgres(workdir)
    try:
        pg.init()
        pg.migrate()
        yield pg
    finally:
        pg.stop("immediate")
        shutil.rmtree(pg.root, ignore_errors=True)


class PrivateRedis:
    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log_path = workdir / f"redis-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    "redis-server",
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--maxmemory-policy",
                    "noeviction",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if (
                "Ready to accept connections"
                in self.log_path.read_text(errors="replace").split("# Server initialized")[-1]
            ):
                return
            time.sleep(0.05)
        raise TimeoutError("the private redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=15)
        self.proc = None


def verify_chain(pg: PrivatePostgres, game_id: int) -> bool:
    """The game's hash chain, recomputed from the rows of the private database (games.store.event_hash)."""
    rows = pg.query(
        "SELECT seq, type, schema_version, data, created_at, command_id, actor_id, prev_hash, hash, command "
        "FROM games_event WHERE game_id = %s ORDER BY seq",
        (game_id,),
    )
    prev = store.GENESIS_HASH
    for n, (
        seq,
        kind,
        version,
        data,
        created_at,
        command_id,
        actor_id,
        prev_hash,
        digest,
        command,
    ) in enumerate(rows, start=1):
        if seq != n or prev_hash != prev:
            return False
        again = store.event_hash(
            game_id=game_id,
            seq=seq,
            type=kind,
            schema_version=version,
            data=data,
            created_at=created_at.astimezone(UTC),
            command_id=command_id,
            actor_id=actor_id,
            prev_hash=prev_hash,
            command=command,
        )
        if again != digest:
            return False
        prev = digest
    ((version, head),) = pg.query("SELECT version, head_hash FROM games_game WHERE id = %s", (game_id,))
    return bool(version == len(rows) and (head or store.GENESIS_HASH) == prev)
