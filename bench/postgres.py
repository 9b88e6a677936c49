"""A throwaway PostgreSQL for the tests and the bench: Debian's server, started in a temporary folder
as the tests start nginx (tests/deploy), never a mock. In the bench package because the bench must
not import the tests (as bench/server.py); tests/postgres.py is it as the tests use it.

`initdb` makes a cluster in the folder, and `postgres` runs it, a child of this process (not
through `pg_ctl start`, whose postmaster leaves in a session of its own and outlives a killed
run), listening on a Unix socket in that folder and on a free port of 127.0.0.1 only, with trust
authentication (nothing else can reach it); it is ready when a connection answers, and stopped
(`pg_ctl stop -m fast`'s signal, then SIGKILL if need be) when the session ends, whatever
happened, or with SIGQUIT (an immediate stop, which ends its children) if the process that started
it ends first, killed or not (bench/tether.py). PostgreSQL refuses to run as root: as root (CI,
this machine) it runs as Debian's `postgres` user, which owns the folder.

Roles as a federation's database has them (docs/operations.md, "A federation's service"): `postgres`
is the superuser, OWNER (`lexicon_owner`) owns the database and its tables (it runs `lexicon event
init`, which creates them), and SERVICE (`lexicon`, a member of `lexicon_writer`, the role the
tables' grants name) is what the instances log in as: it cannot UPDATE or DELETE a recorded row.

The `postgres` marker (tests/tiers.py) keeps every test using it out of `make check`.
A failure to start is PostgresFailed, with the program's words and the server's log.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from bench import tether
from bench.server import free_port

OWNER = "lexicon_owner"
SERVICE = "lexicon"
WRITER = "lexicon_writer"
DATABASE = "lexicon"


def binaries() -> Path | None:
    """The folder of Debian's PostgreSQL server programs (the newest version installed), or None."""
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return Path(folders[-1]).parent if folders else None


class PostgresFailed(RuntimeError):
    """The server could not be made or started (the program's words and the server's log)."""


class PostgresServer:
    """A PostgreSQL cluster in `folder`, started at once and ready when the constructor returns."""

    def __init__(self, folder: Path, bin: Path | None = None, connections: int = 200):
        """`connections`: the server's max_connections (every pool of every instance's workers)."""
        self.connections = connections
        found = bin or binaries()
        if found is None:
            raise PostgresFailed(
                "Debian's PostgreSQL is not installed: `make postgresql` (apt-get install postgresql) as root"
            )
        self.bin = found
        self.folder = folder
        self.data = folder / "data"
        self.socket = folder / "socket"  # the Unix socket's folder (its name is .s.PGSQL.PORT)
        self.log = folder / "postgres.log"
        self.port = free_port()
        self.socket.mkdir(parents=True)
        self.process: subprocess.Popen | None = None  # the postmaster, once started
        self._as = {}
        if os.geteuid() == 0:  # initdb and postgres refuse root: Debian's postgres user runs them
            user = pwd.getpwnam("postgres")
            for path in (folder, self.socket):
                os.chown(path, user.pw_uid, user.pw_gid)
            self._as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        self._run(
            "initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"
        )
        try:
            self.start()
            self.setup_roles()
        except BaseException:
            self.stop()
            raise

    def _run(self, program: str, *args) -> None:
        done = subprocess.run(
            [str(self.bin / program), *map(str, args)], capture_output=True, text=True, cwd=self.folder, **self._as
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise PostgresFailed(f"{program} failed ({done.returncode}): {done.stderr}{done.stdout}\n{log}")

    def _wait_ready(self, limit: float = 60) -> None:
        """A connection answering a query, within `limit` seconds (a condition, polled)."""
        import psycopg

        deadline = time.monotonic() + limit
        while True:
            try:
                with psycopg.connect(self.conninfo("postgres", "postgres"), connect_timeout=5) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError:
                if not self.running():
                    raise PostgresFailed(
                        f"postgres exited with {self.process.returncode}:\n{self.log.read_text()}"
                    ) from None
                if time.monotonic() > deadline:
                    raise PostgresFailed(f"PostgreSQL not answering after {limit} s:\n{self.log.read_text()}") from None
                time.sleep(0.05)

    # -- addresses -------------------------------------------------------------------------

    def conninfo(self, user: str, database: str) -> str:
        """A libpq connection string over the Unix socket."""
        return f"host={self.socket} port={self.port} user={user} dbname={database}"

    def url(self, user: str = SERVICE, database: str = DATABASE, event: str | None = None, tcp: bool = False) -> str:
        """A `postgresql://` URL as `lexicon` takes it: over TCP (127.0.0.1) or the socket (`host=`)."""
        query = [] if event is None else [f"event={event}"]
        if tcp:
            base = f"postgresql://{user}@127.0.0.1:{self.port}/{database}"
        else:
            base = f"postgresql://{user}@/{database}"
            query = [f"host={self.socket}", f"port={self.port}", *query]
        return base + ("?" + "&".join(query) if query else "")

    @contextlib.contextmanager
    def connect(self, user: str = "postgres", database: str = DATABASE) -> Iterator:
        """A psycopg connection (autocommit) as `user`, closed after the block."""
        import psycopg

        with psycopg.connect(self.conninfo(user, database), autocommit=True) as conn:
            yield conn

    def setup_roles(self) -> None:
        """The roles and the database of a federation's service (docs/operations.md)."""
        with self.connect(database="postgres") as conn:
            conn.execute(f"CREATE ROLE {WRITER} NOLOGIN")
            conn.execute(f"CREATE ROLE {OWNER} LOGIN")
            conn.execute(f"CREATE ROLE {SERVICE} LOGIN IN ROLE {WRITER}")
            conn.execute(f"CREATE DATABASE {DATABASE} OWNER {OWNER}")

    def create_database(self, name: str, owner: str = OWNER) -> str:
        """A new empty database owned by `owner`; its name."""
        with self.connect(database="postgres") as conn:
            conn.execute(f'CREATE DATABASE "{name}" OWNER {owner}')
        return name

    # -- stopping ---------------------------------------------------------------------------

    def postmaster(self) -> int | None:
        """The server's process id (None when it is not running)."""
        return self.process.pid if self.running() else None

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, mode: str = "fast", limit: float = 60) -> None:
        """Stop the server as `pg_ctl stop -m MODE` does, by the signal it sends the postmaster
        (fast, SIGINT: connections are ended, the data left consistent; immediate, SIGQUIT: a
        crash, recovered from the log at the next start), and SIGKILL it if it has not stopped
        within `limit` seconds. Starts no program (it runs in the session's teardown, after any
        test) and never fails: it runs when a test has failed already."""
        if not self.running():
            return
        self.process.send_signal({"fast": signal.SIGINT, "immediate": signal.SIGQUIT}[mode])
        try:
            self.process.wait(limit)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def start(self) -> None:
        """Start the server (again, after `stop`: on the same port and socket), ready when it returns."""
        with open(self.log, "ab") as log:
            self.process = tether.start(
                [
                    str(self.bin / "postgres"),
                    *("-D", self.data, "-k", self.socket, "-h", "127.0.0.1", "-p", str(self.port)),
                    *("-c", f"max_connections={self.connections}"),
                ],
                stop=signal.SIGQUIT,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd=self.folder,
                **self._as,
            )
        self._wait_ready()
