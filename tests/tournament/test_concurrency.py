"""SQLite's store killed right after an answer loses no row, and its lock held elsewhere too long
is a StorageError (its file, its lock: SQLite-only). Several processes and threads appending at
once, which every store must bear, are in the contract suite (contract/test_concurrent_appends.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys

import pytest

from tournament import StorageError, open_event, verify
from tournament.stores.sqlite import connection

from .conftest import entry

pytestmark = pytest.mark.slow  # several processes append at once

SERVICE = """
import os, sys
from tournament import Entry, open_event
os.fork()  # two writers, as two gunicorn workers
db = open_event(sys.argv[1], synchronous=sys.argv[2])
while True:
    row = db.append(Entry(lexicon_id="disc-ca", lexicon_version="2.9", lexicon_checksum="5f" * 32,
                          notation="spelling", words=("CASA",), tiles=("CASA",), valid=True))
    os.write(1, f"{row.seq} {row.hash}\\n".encode())  # the answer, after the append: one whole write
"""


SERVICE_GEVENT = """
import os, sys
from tournament import Entry, open_event
db = open_event(sys.argv[1], synchronous=sys.argv[2])  # in the master, before the fork
os.fork()  # two gunicorn gevent workers, each patched after the fork, each with 16 connections
from gevent import monkey
monkey.patch_all()
import gevent

def connection():
    while True:
        row = db.append(Entry(lexicon_id="disc-ca", lexicon_version="2.9", lexicon_checksum="5f" * 32,
                              notation="spelling", words=("CASA",), tiles=("CASA",), valid=True))
        os.write(1, f"{row.seq} {row.hash}\\n".encode())  # the answer, after the group's commit

gevent.joinall([gevent.spawn(connection) for _ in range(16)])
"""


@pytest.mark.parametrize("synchronous", ["FULL", "NORMAL"])
@pytest.mark.parametrize("script", [SERVICE, SERVICE_GEVENT], ids=["threads", "gevent"])
def test_the_whole_service_killed_right_after_an_answer_loses_no_row(db, event_path, synchronous, script):
    """Two writing processes in one process group, SIGKILLed together, as `kill -9` of the service.
    NORMAL too: in WAL mode it loses nothing to a killed process (only to a power cut). In gevent
    workers the answers of a group commit leave only after its COMMIT (writer.py)."""
    service = subprocess.Popen(
        [sys.executable, "-c", script, str(event_path), synchronous],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    answered = []
    try:
        for line in service.stdout:
            answered.append(line.split())
            if len(answered) == 60:
                os.killpg(service.pid, signal.SIGKILL)
                break
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(service.pid, signal.SIGKILL)
        service.wait()
    assert service.returncode == -signal.SIGKILL
    db.close()
    after = open_event(event_path)
    stored = {row.seq: row.hash for row in after.records()}
    assert all(stored.get(int(seq)) == digest for seq, digest in answered)
    assert len(stored) >= 60 and verify(after) is None


def test_a_write_lock_held_too_long_is_a_storage_error_and_the_store_recovers(db, event_path, monkeypatch):
    monkeypatch.setattr(connection, "BUSY_SECONDS", 0.2)
    impatient = open_event(event_path)
    holder = sqlite3.connect(event_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    with pytest.raises(StorageError, match="database is locked"):
        impatient.append(entry())
    holder.execute("COMMIT")
    holder.close()
    assert impatient.append(entry()).seq == 1  # the failed transaction left nothing open
    assert verify(impatient) is None
