"""The record's state while the service runs, for an event in a database (the store's
chain_state, GET /v1/records `chain`): verified without a request waiting for every row.

As for the event file (stores/sqlite/verification.py), each worker process keeps what it verified
last: rows 1 to `seq`, the last with `hash`. A look (a console's refresh, a records page) reads
the head, whether the record is still guarded, and the row verified last, and verifies only the
rows added since, in the look itself (they chain to that row).

A full verification, of every row from the first, is due at the first look of a process, every
FULL_CHECK_SECONDS, at every look while the record is not guarded (its trigger disabled or
dropped, or the service's role allowed to change rows: the store's `guarded`), when the row
verified last changed or is gone, and when PostgreSQL counts rows of the records' table updated
or deleted since the last one began (`pg_stat_user_tables`: the service never updates nor
deletes a recorded row, so any count that moves is an edit by hand, or the statistics reset).
It reads and hashes every row (a tenth of a millisecond each: seconds for a big event's
record), so a record longer than INLINE_ROWS is verified whole off the request path: in a
thread of its own (in a gevent worker a native thread of the hub's pool, with a connection of its
own: connections.py), reading the rows in slices of SLICE in one snapshot. The look that found it
due answers at once with what was verified before and `checking` (never `intact` meanwhile); the
looks after it ends show its result. One runs at a time per process; one that fails (the
database away) is said (`failed`) and tried again RETRY_SECONDS later, not at every look.

So an UPDATE of one row by the table's owner, its trigger disabled, shows on the console at the
first look after one full verification that began after it: the look that finds the record
unguarded (or the count moved) starts it, and the console asks every few seconds.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from ...chain import GENESIS, verify_chain
from ...model import Break, ChainState, stamp
from ...writer import cooperative

FULL_CHECK_SECONDS = 300.0  # the whole chain verified again at least this often, per process
INLINE_ROWS = 500  # a record this long or shorter is verified whole in the look itself
SLICE = 2_000  # rows read at a time by a verification of the whole record
RETRY_SECONDS = 60.0  # a full verification that failed is tried again this long after, not at every look
monotonic = time.monotonic  # the clock the periods are read on (a test moves its own)

# Rows of the records' table (every event's of the database) updated or deleted, as PostgreSQL
# counts them: None where it counts nothing (statistics off).
EDITS = "SELECT n_tup_upd + n_tup_del FROM pg_stat_user_tables WHERE relid = 'records'::regclass"


@dataclass(frozen=True)
class Known:
    """What this process verified last: rows 1 to `seq` chain (the last with `hash`), or the
    first break; when the last full verification ended (`full`, monotonic; `full_at`, the
    event's time), or failed (`failed`, monotonic); the edits PostgreSQL counted as it began;
    `generation`: the look or verification this stands on (an older never replaces a newer)."""

    seq: int = 0
    hash: str = GENESIS
    broken: Break | None = None
    full: float | None = None
    full_at: str | None = None
    failed: float | None = None
    edits: int | None = None
    generation: int = 0


def _native_lock():
    """A lock of the OS: the result is kept from a native thread even in a gevent worker, where
    `threading.Lock` (patched) would be a greenlet's. Held only to compare and assign."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("threading"):
        return monkey.get_original("threading", "Lock")()
    return threading.Lock()


class Verification:
    """One store's verification in this process: what it knows, and its one full verification at a time."""

    def __init__(self) -> None:
        self._pid = os.getpid()
        self._lock = _native_lock()
        self.known = Known()
        self._generations = 0
        self._busy = False
        self._task = None  # the running verification: a Thread or gevent's AsyncResult

    def here(self) -> None:
        """Forget what a parent process verified (each worker verifies for itself)."""
        if self._pid != os.getpid():
            self.__init__()

    def generation(self) -> int:
        with self._lock:
            self._generations += 1
            return self._generations

    @property
    def running(self) -> bool:
        self.here()
        return self._busy

    def found(self, known: Known) -> Known:
        """Keep `known` unless a newer look's or verification's is kept already: the state kept."""
        with self._lock:
            if known.generation > self.known.generation:
                self.known = known
            return self.known

    def start(self, check: Callable[[int], None]) -> bool:
        """Run `check(generation)` off the request path unless one runs already: whether it started."""
        with self._lock:
            if self._busy:
                return False
            self._busy = True
            self._generations += 1
            generation = self._generations

        def run() -> None:
            try:
                check(generation)
            finally:
                with self._lock:
                    self._busy = False

        try:
            if cooperative():
                from gevent import get_hub

                self._task = get_hub().threadpool.spawn(run)
            else:
                self._task = threading.Thread(target=run, name="record-verification", daemon=True)
                self._task.start()
        except BaseException:
            with self._lock:
                self._busy = False
            raise
        return True

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the full verification off the request path to end (tests): whether it has."""
        self.here()
        task = self._task
        if task is not None:
            task.join(timeout) if isinstance(task, threading.Thread) else task.wait(timeout)
        return not self._busy


def _due(known: Known, guarded: bool, still: bool, edits: int | None, last: int) -> bool:
    """Whether a full verification is due (see the module's docstring)."""
    if known.failed is not None:
        return monotonic() - known.failed >= RETRY_SECONDS
    return (
        last <= INLINE_ROWS
        or known.full is None
        or monotonic() - known.full >= FULL_CHECK_SECONDS
        or not guarded
        or not still
        or known.seq > last
        or edits != known.edits
    )


def _answer(known: Known, last: int, last_hash: str, guarded: bool, still: bool, checking: bool) -> ChainState:
    verified = known.broken.seq - 1 if known.broken is not None else known.seq if still else known.seq - 1
    return ChainState(
        last,
        last_hash,
        min(verified, last),
        known.broken,
        checking=checking,
        checked=known.full_at,
        guarded=guarded,
        failed=known.failed is not None,
    )


def _rows(view, after: int) -> Iterator:
    """The rows after `after`, in order, SLICE at a time, in the view's one snapshot (each decoded
    as it is reached: a row edited into nonsense is the break, MalformedRow, where it stands)."""
    while True:
        count = 0
        for record in view.records(after=after, limit=SLICE):
            count, after = count + 1, record.seq
            yield record
        if count < SLICE:
            return


def _verified(view, after: tuple[int, str]) -> Break | None:
    """The rows after `after` verified against the rounds' heads, in the view's snapshot."""
    anchors = [(n, s, h) for n, s, h in view.heads() if s is not None and s > after[0]]
    return verify_chain(_rows(view, after[0]), anchors, after=after, finals=view.final_heads())


def chain_state(storage, watch: Verification, now: Callable[[], object], wait: bool = False) -> ChainState:
    """PostgresStorage.chain_state (see the module's docstring). `wait`: every row verified here
    whatever the record's length (a command's, never a request's)."""
    watch.here()
    known = watch.known
    generation = watch.generation()  # before anything is read
    with storage.read() as view:
        guarded = storage.guarded(view.conn)
        edits = view.conn.execute(EDITS).fetchone()
        edits = None if edits is None else edits[0]
        last, last_hash = view.head()
        still = known.seq == 0 or view.hashes([known.seq]).get(known.seq) == known.hash
        due = _due(known, guarded, still, edits, last)
        if not due and (known.broken is not None or known.failed is not None):
            return _answer(known, last, last_hash, guarded, still, checking=False)  # until the next full one
        if due and last > INLINE_ROWS and not wait:
            started = watch.start(functools.partial(_full_check, storage, watch, now))
            return _answer(known, last, last_hash, guarded, still, checking=started or watch.running)
        broken = _verified(view, (0, GENESIS) if due else (known.seq, known.hash))
    if due:
        base = Known(full=monotonic(), full_at=stamp(now()), edits=edits, generation=generation)
    else:
        base = replace(known, generation=generation)
    kept = watch.found(
        replace(base, seq=0, hash=GENESIS, broken=broken) if broken else replace(base, seq=last, hash=last_hash)
    )
    return _answer(kept, last, last_hash, guarded, still=True, checking=False)


def _full_check(storage, watch: Verification, now: Callable[[], object], generation: int) -> None:
    """Every row verified, off the request path, in one snapshot: what was found kept, or that it
    failed (any error: the database away, or one this code did not foresee)."""
    try:
        with storage.read() as view:
            edits = view.conn.execute(EDITS).fetchone()
            last, last_hash = view.head()
            broken = _verified(view, (0, GENESIS))
        base = Known(
            full=monotonic(), full_at=stamp(now()), edits=None if edits is None else edits[0], generation=generation
        )
        watch.found(replace(base, broken=broken) if broken else replace(base, seq=last, hash=last_hash))
    except Exception:
        watch.found(replace(watch.known, failed=monotonic(), generation=generation))
