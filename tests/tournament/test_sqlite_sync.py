"""A FULL store's sync of its log, seen from outside: no reader is shown a row before it is on
disk, and a sync that fails leaves the store failed (nothing written or answered until the service
restarts) rather than inviting a retry the next, successful, sync would wrongly seem to cover.

The disk's fault is real to SQLite: a child process runs the store with sync_fault.c loaded
(LD_PRELOAD), which holds or fails the fsync/fdatasync calls on the event's -wal file while a
file the test creates exists. SQLite itself is not replaced, nor is any of its calls mocked."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from tests.support import sync_fault, until
from tournament import create_event, export, open_event

from .conftest import entry

CHILD = r"""
import sys
from tournament import StorageError, open_event
sys.path.insert(0, sys.argv[2])
from conftest import entry

db = open_event(sys.argv[1])  # synchronous=FULL, the default
print("ready", flush=True)
for line in sys.stdin:
    command, _, key = line.split()[0], None, line.split()[-1]
    try:
        if command == "append":
            answer = f"recorded {db.append(entry(idempotency_key=key)).seq}"
        else:
            answer = f"read {db.chain_state().last}"
    except StorageError as error:
        answer = f"refused {error}"
    print(answer.replace("\n", " "), flush=True)
"""


@pytest.fixture(scope="module")
def fault_library(tmp_path_factory):
    return sync_fault(tmp_path_factory.mktemp("fault"))


class Child:
    """The store in a child process whose disk syncs sync_fault.c holds or fails."""

    def __init__(self, path, library, hold, fail):
        env = {"LD_PRELOAD": str(library), "SYNC_FAULT_HOLD": str(hold), "SYNC_FAULT_FAIL": str(fail)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path), __file__.rsplit("/", 1)[0]],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**__import__("os").environ, **env},
        )
        assert self.process.stdout.readline() == "ready\n"

    def send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def answer(self) -> str:
        return self.process.stdout.readline().strip()

    def ask(self, line: str) -> str:
        self.send(line)
        return self.answer()

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


@pytest.fixture
def child(tmp_path, fault_library):
    path = tmp_path / "event.db"
    create_event(path, "Open", "a long enough password").close()
    started = Child(path, fault_library, tmp_path / "hold", tmp_path / "fail")
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.wait()


def rows(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM records").fetchone()[0]


def test_no_reader_sees_a_row_while_its_sync_is_in_flight(child, tmp_path):
    """Whatever publishes (the other worker's answers, the console's chain state, an export, `lexicon
    records verify`) reads through SQLite: while a commit's sync is held it is not there for any of
    them, and it is there for all once the sync returned (and only then is the answer given)."""
    path = tmp_path / "event.db"
    assert child.ask("append first").startswith("recorded 1")
    other = open_event(path)  # as the other worker's store, opened before
    (tmp_path / "hold").touch()
    child.send("append second")
    until(lambda: (tmp_path / "hold.held").exists(), "the second row's sync in flight")
    assert rows(path) == 1  # a plain reader, another process
    assert other.chain_state().last == 1  # the console's chain state, the other worker's store
    assert export(other).count("\n") == 2  # an export: its header and one row
    (tmp_path / "hold").unlink()
    assert child.answer().startswith("recorded 2")
    assert rows(path) == 2 and other.chain_state().last == 2
    other.close()
    child.close()


def test_a_failed_sync_leaves_the_store_failed_until_a_restart(child, tmp_path):
    path = tmp_path / "event.db"
    assert child.ask("append first").startswith("recorded 1")
    (tmp_path / "fail").touch()
    failed = child.ask("append second")
    assert failed.startswith("refused") and "restart" in failed and "send it again" not in failed
    (tmp_path / "fail").unlink()  # the next sync would succeed: no retry is taken all the same
    again = child.ask("append second")
    assert again.startswith("refused") and "could not be written to disk" in again
    assert child.ask("read -").startswith("refused")  # nor anything answered from the record
    assert rows(path) == 1  # the failed commit was never shown to a reader
    child.close()
    restarted = open_event(path)  # a restart: the store opens again, the record as it is on disk
    assert restarted.append(entry(idempotency_key="third")).seq == 2
    restarted.close()
