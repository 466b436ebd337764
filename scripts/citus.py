"""A local Citus cluster for development, tests and the benchmark: a coordinator and workers on this machine.

`python scripts/citus.py up [--workers 2]` installs Citus into the machine's PostgreSQL 15 when it is missing
(with ``../shared/citus/install.sh`` beside the checkout, as root), then starts (or reuses) a coordinator and
the workers, each its own PostgreSQL server on its own free port with its data under ``var/citus/`` (or
``$CRITTERS_VAR_DIR/citus``), creates the ``critters`` database with the extension on every node and joins the
workers to the coordinator. It prints ``export DATABASE_URL=...`` (the coordinator) for a shell to eval, like
``scripts/embedded.py env``. ``env`` prints that line for a running cluster, ``add-worker`` starts one more
worker and joins it (rebalance with ``SELECT citus_rebalance_start()``), ``status`` lists the nodes, ``down``
stops every node (the data stays; ``down --purge`` removes it).

Then ``manage.py migrate`` and ``manage.py citus_distribute`` (which does nothing on a plain PostgreSQL)
give the service its distributed schema (docs/SCALING.md). ``scripts/citus`` is the shell entry point.

The servers run as a non-root user (PostgreSQL refuses root): the caller, or the ``postgres`` user when the
caller is root. Importable without Django (tests/citus and bench/citus.py drive a cluster with it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("CRITTERS_VAR_DIR", ROOT / "var"))
DB_NAME = "critters"
SHARED_INSTALL = ROOT.parent / "shared" / "citus" / "install.sh"
PG_CONFIG = os.environ.get("PG_CONFIG", "/usr/lib/postgresql/15/bin/pg_config")


class CitusUnavailable(RuntimeError):
    """Citus cannot run here; the message says why (tests skip with it)."""


def _pg_bindir() -> Path:
    if Path(PG_CONFIG).exists():
        return Path(subprocess.run([PG_CONFIG, "--bindir"], capture_output=True, text=True).stdout.strip())
    found = shutil.which("pg_config")
    if found is None:
        raise CitusUnavailable("no PostgreSQL server binaries here (pg_config not found)")
    return Path(subprocess.run([found, "--bindir"], capture_output=True, text=True).stdout.strip())


def _pg_libdir() -> Path:
    config = PG_CONFIG if Path(PG_CONFIG).exists() else shutil.which("pg_config")
    if config is None:
        raise CitusUnavailable("no PostgreSQL server binaries here (pg_config not found)")
    return Path(subprocess.run([config, "--pkglibdir"], capture_output=True, text=True).stdout.strip())


def installed() -> bool:
    """Whether the citus extension is installed into this machine's PostgreSQL."""
    try:
        return (_pg_libdir() / "citus.so").exists()
    except CitusUnavailable:
        return False


def ensure_installed() -> None:
    """Install Citus with ``../shared/citus/install.sh`` when it is missing; raise ``CitusUnavailable``
    saying why when it cannot be installed here."""
    if installed():
        return
    if not SHARED_INSTALL.exists():
        raise CitusUnavailable(
            f"Citus is not installed in this machine's PostgreSQL and {SHARED_INSTALL} (which installs "
            "it) is not beside the checkout"
        )
    if os.geteuid() != 0:
        raise CitusUnavailable(
            f"Citus is not installed in this machine's PostgreSQL; `{SHARED_INSTALL}` installs it but must "
            "run as root"
        )
    done = subprocess.run(["bash", str(SHARED_INSTALL)], capture_output=True, text=True)
    if done.returncode != 0 or not installed():
        raise CitusUnavailable(f"{SHARED_INSTALL} failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server_user() -> str | None:
    """The user the servers run as: None (the caller) unless the caller is root, then ``postgres``."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError as exc:
        raise CitusUnavailable(
            "running as root and there is no `postgres` user to run PostgreSQL as"
        ) from exc
    return "postgres"


@dataclass
class Node:
    name: str
    port: int
    datadir: Path

    def url(self, db: str = DB_NAME) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{db}"


@dataclass
class Cluster:
    """The nodes of one cluster under ``base`` (their ports kept in ``base/cluster.json``)."""

    base: Path
    citus: bool = True
    nodes: list[Node] = field(default_factory=list)
    settings: dict[str, str] = field(default_factory=dict)

    # -- state -------------------------------------------------------------------------------------
    @property
    def state_file(self) -> Path:
        return self.base / "cluster.json"

    @classmethod
    def load(cls, base: Path) -> Cluster:
        state = base / "cluster.json"
        if not state.exists():
            return cls(base)
        data = json.loads(state.read_text())
        nodes = [Node(n["name"], int(n["port"]), Path(n["datadir"])) for n in data["nodes"]]
        return cls(base, bool(data.get("citus", True)), nodes, dict(data.get("settings", {})))

    def save(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        data = {
            "citus": self.citus,
            "settings": self.settings,
            "nodes": [{"name": n.name, "port": n.port, "datadir": str(n.datadir)} for n in self.nodes],
        }
        self.state_file.write_text(json.dumps(data, indent=2))

    @property
    def coordinator(self) -> Node:
        return self.nodes[0]

    @property
    def workers(self) -> list[Node]:
        return self.nodes[1:]

    @property
    def url(self) -> str:
        return self.coordinator.url()

    # -- processes ---------------------------------------------------------------------------------
    def _run(self, args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        user = _server_user()
        command = (["runuser", "-u", user, "--"] if user else []) + args
        return subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]

    def _check(self, args: list[str]) -> str:
        done = self._run(args)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        return str(done.stdout)

    def _prepare_base(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)
        user = _server_user()
        if user:  # the postgres user must reach its data directories
            entry = pwd.getpwnam(user)
            os.chown(self.base, entry.pw_uid, entry.pw_gid)
            path = self.base.resolve()
            for parent in path.parents:
                mode = parent.stat().st_mode
                if not mode & 0o001:
                    raise CitusUnavailable(
                        f"{parent} is not searchable by the `postgres` user the servers run as: put the "
                        "cluster elsewhere (CRITTERS_VAR_DIR)"
                    )

    def _init_node(self, name: str) -> Node:
        datadir = self.base / name
        node = Node(name, _free_port(), datadir)
        if not (datadir / "PG_VERSION").exists():
            bindir = _pg_bindir()
            self._check(
                [str(bindir / "initdb"), "-D", str(datadir), "-U", "postgres", "--auth=trust", "-E", "UTF8"]
            )
            conf = {
                "listen_addresses": "'127.0.0.1'",
                "unix_socket_directories": f"'{datadir}'",
                "max_connections": "200",
                "shared_buffers": "'128MB'",
                "logging_collector": "off",
                "log_min_messages": "warning",
                # logical WAL: the rebalancer moves shards by logical replication while they are written
                **({"shared_preload_libraries": "'citus'", "wal_level": "logical"} if self.citus else {}),
                **self.settings,
            }
            with (datadir / "postgresql.conf").open("a") as f:
                f.write("\n# scripts/citus.py\n" + "".join(f"{k} = {v}\n" for k, v in conf.items()))
        return node

    def _start_node(self, node: Node) -> None:
        bindir = _pg_bindir()
        if (node.datadir / "postmaster.pid").exists() and self._alive(node):
            return
        with contextlib.suppress(FileNotFoundError):
            (node.datadir / "postmaster.pid").unlink()
        self._check(
            [
                str(bindir / "pg_ctl"),
                "-D",
                str(node.datadir),
                "-o",
                f"-p {node.port}",
                "-l",
                str(node.datadir / "server.log"),
                "-w",
                "-t",
                "60",
                "start",
            ]
        )

    def _alive(self, node: Node) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", node.port), timeout=0.5):
                return True
        except OSError:
            return False

    def psql(self, node: Node, sql: str, db: str = DB_NAME) -> str:
        """Run ``sql`` on ``node`` (unaligned, tuples only); raise with its error if it fails."""
        psql = _pg_bindir() / "psql"
        done = subprocess.run(
            [
                str(psql),
                "-h",
                "127.0.0.1",
                "-p",
                str(node.port),
                "-U",
                "postgres",
                "-d",
                db,
                "-v",
                "ON_ERROR_STOP=1",
                "-At",
                "-c",
                sql,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"psql on {node.name}: {sql}\n{done.stderr}")
        return done.stdout.strip()

    def _create_db(self, node: Node) -> None:
        if self.psql(node, f"SELECT 1 FROM pg_database WHERE datname = '{DB_NAME}'", db="postgres") != "1":  # noqa: S608
            self.psql(node, f"CREATE DATABASE {DB_NAME}", db="postgres")
        if self.citus:
            self.psql(node, "CREATE EXTENSION IF NOT EXISTS citus")

    def _join(self, worker: Node) -> None:
        self.psql(self.coordinator, f"SELECT citus_add_node('127.0.0.1', {worker.port})")

    # -- commands ----------------------------------------------------------------------------------
    def up(self, workers: int = 2) -> None:
        """Start (or reuse) the coordinator and ``workers`` workers; idempotent."""
        if self.citus:
            ensure_installed()
        self._prepare_base()
        if not self.nodes:
            names = ["coordinator"] + [f"worker{i + 1}" for i in range(workers if self.citus else 0)]
            self.nodes = [self._init_node(name) for name in names]
            fresh = True
        else:
            fresh = False
        self.save()
        for node in self.nodes:
            self._start_node(node)
        for node in self.nodes:
            self._create_db(node)
        if self.citus and fresh:
            self.psql(
                self.coordinator, f"SELECT citus_set_coordinator_host('127.0.0.1', {self.coordinator.port})"
            )
            for worker in self.workers:
                self._join(worker)

    def add_worker(self) -> Node:
        """Start one more worker and join it to the cluster (its shards come with a rebalance)."""
        node = self._init_node(f"worker{len(self.nodes)}")
        self.nodes.append(node)
        self.save()
        self._start_node(node)
        self._create_db(node)
        self._join(node)
        return node

    def down(self, purge: bool = False) -> None:
        bindir = _pg_bindir()
        for node in reversed(self.nodes):
            if (node.datadir / "postmaster.pid").exists():
                self._run(
                    [str(bindir / "pg_ctl"), "-D", str(node.datadir), "-m", "fast", "-w", "-t", "30", "stop"]
                )
        if purge:
            shutil.rmtree(self.base, ignore_errors=True)

    def status(self) -> list[tuple[str, int, bool]]:
        return [(n.name, n.port, self._alive(n)) for n in self.nodes]


def default_base() -> Path:
    return VAR / "citus"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("action", choices=["up", "env", "add-worker", "status", "down"])
    parser.add_argument("--workers", type=int, default=2, help="workers to start with (up)")
    parser.add_argument("--purge", action="store_true", help="down: remove the data too")
    parser.add_argument("--dir", type=Path, default=default_base(), help="where the nodes' data lives")
    args = parser.parse_args(argv[1:])
    cluster = Cluster.load(args.dir)
    try:
        if args.action == "up":
            cluster.up(args.workers)
            print(f"export DATABASE_URL='{cluster.url}'")
        elif args.action == "env":
            if not cluster.nodes:
                print("no cluster here: `scripts/citus up` starts one", file=sys.stderr)
                return 1
            print(f"export DATABASE_URL='{cluster.url}'")
        elif args.action == "add-worker":
            node = cluster.add_worker()
            print(f"{node.name} on 127.0.0.1:{node.port} joined; rebalance: SELECT citus_rebalance_start();")
        elif args.action == "status":
            for name, port, alive in cluster.status():
                print(f"{name:12} 127.0.0.1:{port}  {'up' if alive else 'down'}")
        else:
            cluster.down(purge=args.purge)
    except CitusUnavailable as exc:
        print(f"citus: {exc}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
