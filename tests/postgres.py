"""A throwaway PostgreSQL for the tests: Debian's server, started in a temporary folder as the tests
start nginx (tests/deploy), never a mock: bench/postgres.py's harness (the bench measures the
same server), installed here when missing, and a failure to start failing the test with its log.

The `postgres` marker (tests/tiers.py) keeps every test using it out of `make check`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bench import postgres
from bench.postgres import DATABASE, OWNER, SERVICE, WRITER, PostgresFailed, binaries

__all__ = ["DATABASE", "OWNER", "SERVICE", "WRITER", "PostgresServer", "binaries", "install"]


def install() -> Path:
    """The server's programs, installed with apt-get when missing (as root, as `make postgresql` does)."""
    found = binaries()
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (["apt-get", "install", "-y", "-qq", "postgresql"], ["apt-get", "update", "-qq"]) * 2:
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if (found := binaries()) is not None:
                break
    if found is None:
        pytest.fail(
            "Debian's PostgreSQL is not installed and could not be installed here: `make postgresql` "
            "(apt-get install postgresql) as root",
            pytrace=False,
        )
    return found


class PostgresServer(postgres.PostgresServer):
    """bench/postgres.py's server, its programs installed when missing; a start that fails fails the test."""

    def __init__(self, folder: Path, bin: Path | None = None, connections: int = 200):
        try:
            super().__init__(folder, bin or install(), connections)
        except PostgresFailed as failure:
            pytest.fail(str(failure), pytrace=False)

    def start(self) -> None:
        try:
            super().start()
        except PostgresFailed as failure:
            pytest.fail(str(failure), pytrace=False)


def recorded(server: PostgresServer, event_id: str) -> tuple[object, list]:
    """An event's record as the database holds it, read as the instances' role: (the first break
    its verification finds, None if none; its rows)."""
    from tournament import open_event

    db = open_event(server.url(SERVICE, event=event_id), readonly=True)
    try:
        return db.verify(), list(db.records())
    finally:
        db.close()
