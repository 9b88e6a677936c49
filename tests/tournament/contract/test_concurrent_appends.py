"""Several worker processes and threads appending to one event at once: one chain, no row lost."""

from __future__ import annotations

import multiprocessing
import threading
from collections import Counter

import pytest

from tournament import verify

from ..conftest import entry

pytestmark = pytest.mark.slow  # several processes append at once

PROCESSES, APPENDS = 4, 250


def _append_many(store, worker: int, count: int, errors) -> None:
    try:
        for n in range(count):
            store.append(entry(table=str(worker), idempotency_key=f"{worker}-{n}"))
    except Exception as error:  # reported to the parent, which fails the test with it
        errors.put(f"worker {worker}: {error!r}")


def test_four_processes_append_a_thousand_rows_that_chain(db):
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
