"""Several worker processes and threads appending at once; a killed process loses no row."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections import Counter

import pytest

from tournament import StorageError, open_event, verify
from tournament.stores.sqlite import connection

from .conftest import entry

pytestmark = pytest.mark.slow  # several processes append at once

PROCESSES, APPENDS = 4, 250


def _append_many(store, worker: int, count: int, errors) -> None:
    try:
        for n in range(count):
            store.append(entry(table=str(worker), idempotency_key=f"{worker}-{n}"))
    except Exception as error:  # reported to the parent, which fails the test with it
        errors.put(f"worker {worker}: {error!r}")


def test_four_processes_append_a_thousand_rows_that_chain(db, event_path):
    """Like gunicorn workers: each process appends with the store it inherited through fork."""
    db.append(entry())  # the parent's connection is open when the workers fork
    ctx = multiprocessing.get_context("fork")
    errors = ctx.Queue()
    workers = [ctx.Process(target=_append_many, args=(db, w, APPENDS, errors)) for w in range(PROCESSES)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    reported = []
    while not errors.empty():
        reported.append(errors.get())
    assert reported == [] and [w.exitcode for w in workers] == [0] * PROCESSES
    rows = list(db.records())
    assert len(rows) == 1 + PROCESSES * APPENDS
    assert Counter(r.entry.table for r in rows[1:]) == {str(w): APPENDS for w in range(PROCESSES)}
    assert verify(db) is None
    assert db.append(entry()).seq == 2 + PROCESSES * APPENDS  # the parent's connection still works


def test_threads_of_one_process_append_without_losing_rows(db):
    errors = __import__("queue").Queue()
    threads = [threading.Thread(target=_append_many, args=(db, w, 50, errors)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors.empty()
    assert len(list(db.records())) == 200 and verify(db) is None


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
