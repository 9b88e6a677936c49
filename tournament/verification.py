"""The record's state while the service runs: verified without a request waiting for every row.

The console's state of the record (RecordBook.chain_state, GET /v1/records `chain`) is what this
process verified. Most looks hash only the rows added since the row verified last, while that can
be trusted: the row still has the hash it had, the append-only triggers are in place (an edit by
hand must drop them first), and the last full verification is recent.

A full verification, of every row from the first, is due at the first look after the service
starts (in each worker process), when the triggers are found gone (once: the edit they let in is
made by then), when the row verified last changed or is gone, and every FULL_CHECK_SECONDS. It
reads and hashes every row, about a tenth of a millisecond each (`python -m bench tournament`): seconds for
a big event's record, which inside a request held the director's console and, in a gevent worker,
every connection of the worker. So it runs off the request path, in a thread of its own (in a
gevent worker a native thread of the hub's pool, so the event loop goes on), reading the record
in slices of SLICE rows, each in its own read transaction. The look that found it due answers at
once with what was verified last and `checking`; the looks after it ends show its result.

A record of at most INLINE_ROWS rows is verified whole in the look itself (tens of milliseconds):
a small event sees an edit at once. Nothing is verified before the service is ready: a big record
would not fit the start-to-ready budget, and the first look starts its verification.

The state is replaced whole (one assignment, atomic in CPython) by the look or the thread that
computed it, so the event loop and a native thread share no lock; two looks in two threads of a
gthread worker may verify the same rows twice, never disagree.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time

_monotonic = time.monotonic  # the clock the period is read on (a test moves its own)
from collections.abc import Callable
from dataclasses import dataclass, replace

from .chain import GENESIS, MalformedRow, missing, row_hash, verify_chain
from .model import Break, ChainState, stamp
from .rows import decode_record
from .writer import cooperative

log = logging.getLogger("service")

# The whole chain is verified again at least this often (seconds), even when nothing suggests an
# edit: in between only the rows added since the last verification are.
FULL_CHECK_SECONDS = 300.0
INLINE_ROWS = 500  # a record this long or shorter is verified whole in the look that needs it (~50 ms)
SLICE = 2_000  # rows read and verified at a time by a full verification off the request path
GUARDS = ("records_append_only_update", "records_append_only_delete")  # schema.py's triggers
_HASH = 15  # the column of a row's hash in RECORD_COLUMNS


@dataclass(frozen=True)
class Known:
    """What this process verified last: rows 1 to `seq` chain (the last with `hash`), and the
    first break found, if any; when the last full verification finished (`full`: monotonic
    seconds, `full_at`: the store's time, for the console) and whether the triggers were there."""

    pid: int
    seq: int = 0
    hash: str = GENESIS
    broken: Break | None = None
    full: float | None = None
    full_at: str | None = None
    guarded: bool = True


class Verification:
    """One store's verification in this process (see the module's docstring)."""

    def __init__(self) -> None:
        self.known = Known(os.getpid())
        self._task = None  # the full verification running off the request path: a Thread or an AsyncResult
        self._task_pid = 0
        self._said: Break | None = None  # the break in the log last
        self.failed: str | None = None  # the error a verification off the request path ended with

    def current(self) -> Known:
        """The state, forgotten in a process forked since (each worker verifies for itself)."""
        if self.known.pid != os.getpid():
            self.known, self._task = Known(os.getpid()), None
        return self.known

    @property
    def running(self) -> bool:
        task = self._task if self._task_pid == os.getpid() else None
        if task is None:
            return False
        return task.is_alive() if isinstance(task, threading.Thread) else not task.ready()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the full verification off the request path to end (tests, `make bench`): whether it has."""
        task = self._task if self._task_pid == os.getpid() else None
        if task is None:
            return True
        if isinstance(task, threading.Thread):
            task.join(timeout)
        else:
            task.wait(timeout)
        return not self.running

    def start(self, check: Callable[[], None]) -> None:
        """Run `check` off the request path unless a verification runs already."""
        if self.running:
            return
        self._task_pid = os.getpid()
        if cooperative():
            from gevent import get_hub

            self._task = get_hub().threadpool.spawn(check)
        else:
            self._task = threading.Thread(target=check, name="record-verification", daemon=True)
            self._task.start()

    def found(self, known: Known) -> None:
        """Keep what a verification found (in the thread that ran it: nothing else here)."""
        self.known = known

    def said(self, state: ChainState) -> ChainState:
        """`state`, once a new break or a failed verification is in the log (the row's number
        only): written by the look, never by the thread, whose locks gevent did not make."""
        if state.broken is not None and state.broken != self._said:
            log.warning("the event's record does not verify", extra={"fields": {"seq": state.broken.seq}})
        self._said = state.broken
        failed, self.failed = self.failed, None
        if failed is not None:
            log.warning("the event's record could not be verified", extra={"fields": {"error": failed}})
        return state


def chain_state(file, columns: str, now: Callable[[], object], wait: bool = False) -> ChainState:
    """RecordBook.chain_state: `file` is the store (its `_read` and `_verification`); `wait`:
    a full verification runs here whatever the record's length (a command's, not a request's)."""
    watch: Verification = file._verification
    return watch.said(_look(file, watch, columns, now, wait))


def _look(file, watch: Verification, columns: str, now: Callable[[], object], wait: bool) -> ChainState:
    known = watch.current()
    with file._read() as conn:
        guards = conn.execute(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?)", GUARDS
        ).fetchone()[0] == len(GUARDS)
        head = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        last, last_hash = head if head else (0, GENESIS)
        if known.seq > last:
            broken = Break(
                last + 1,
                f"{missing(last + 1, known.seq)}: this service had verified the record up to {known.seq} (deleted)",
            )
            watch.found(replace(known, broken=broken))
            return ChainState(last, last_hash, last, broken, checked=known.full_at)
        due = (
            known.full is None
            or _monotonic() - known.full >= FULL_CHECK_SECONDS
            or (known.guarded and not guards)
            or not _still(conn, columns, known)
        )
        if due and last > INLINE_ROWS and not wait:
            rows = None
        else:
            after = (0, GENESIS) if due else (known.seq, known.hash)
            if not due and known.broken is not None:  # said until the next full verification
                return ChainState(last, last_hash, known.broken.seq - 1, known.broken, checked=known.full_at)
            rows = conn.execute(f"SELECT {columns} FROM records WHERE seq > ? ORDER BY seq", (after[0],)).fetchall()
            anchors = _anchors(conn, after[0], None)
    if rows is None:
        watch.start(lambda: _full_check(file, columns, now, guards))
        verified = known.seq if known.broken is None else known.broken.seq - 1
        return ChainState(last, last_hash, verified, known.broken, checking=True, checked=known.full_at)
    broken = verify_chain((decode_record(row) for row in rows), anchors, after=after)
    if due:
        known = Known(os.getpid(), full=_monotonic(), full_at=stamp(now()), guarded=guards)
    if broken is None:
        watch.found(replace(known, seq=last, hash=last_hash, broken=None))
        return ChainState(last, last_hash, last, None, checked=known.full_at)
    watch.found(replace(known, seq=0, hash=GENESIS, broken=broken))  # said until the next full verification
    return ChainState(last, last_hash, broken.seq - 1, broken, checked=known.full_at)


def _still(conn: sqlite3.Connection, columns: str, known: Known) -> bool:
    """Whether the row verified last is still there with the hash it had (its contents too)."""
    if known.seq == 0:
        return True
    row = conn.execute(f"SELECT {columns} FROM records WHERE seq = ?", (known.seq,)).fetchone()
    try:
        return row is not None and row[_HASH] == known.hash == row_hash(decode_record(row))
    except MalformedRow:
        return False


def _anchors(conn: sqlite3.Connection, after: int, upto: int | None) -> list[tuple[int, int, str]]:
    """The heads kept when rounds closed, for the rows after `after` (up to `upto`; None: all)."""
    sql = "SELECT number, head_seq, head_hash FROM rounds WHERE closed IS NOT NULL AND head_seq > ?"
    args: tuple = (after,)
    if upto is not None:
        sql, args = sql + " AND head_seq <= ?", (after, upto)
    return conn.execute(sql + " ORDER BY number", args).fetchall()


def _full_check(file, columns: str, now: Callable[[], object], guards: bool) -> None:
    """Verify every row, slice by slice, off the request path; keep what was found."""
    watch: Verification = file._verification
    try:
        after, broken = (0, GENESIS), None
        while True:
            with file._read() as conn:
                rows = conn.execute(
                    f"SELECT {columns} FROM records WHERE seq > ? ORDER BY seq LIMIT ?", (after[0], SLICE)
                ).fetchall()
                final = len(rows) < SLICE
                anchors = _anchors(conn, after[0], None if final else rows[-1][0])
            broken = verify_chain((decode_record(row) for row in rows), anchors, after=after)
            if broken is not None or final:
                break
            after = (rows[-1][0], rows[-1][_HASH])
        if broken is not None:
            after = (0, GENESIS)  # the break is said until the next full verification
        elif rows:
            after = (rows[-1][0], rows[-1][_HASH])
        watch.found(Known(os.getpid(), *after, broken, _monotonic(), stamp(now()), guards))
    except Exception as error:  # the file unreadable now: the next look says so, and tries again
        watch.failed = type(error).__name__
    finally:
        file.close_connection()  # this thread's
