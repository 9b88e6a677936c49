"""The record's state while the service runs: verified without a request waiting for every row.

The console's state of the record (the store's chain_state, GET /v1/records `chain`) is what this
process verified. Most looks hash only the rows added since the row verified last, while that can
be trusted: the row still has the hash it had, the append-only triggers are in place as schema.py
makes them (an edit by hand must drop or change them first), the file's schema version is the
one the last full verification read (dropping and making the triggers again moves it), and that
verification is recent.

A full verification, of every row from the first, is due at the first look after the service
starts (in each worker process), at every look while the triggers are gone or changed (proof of
an edit by hand, said as `guarded` false), when the schema version moved, when the row verified
last changed or is gone, and every FULL_CHECK_SECONDS. It reads and hashes every row, about a tenth of a millisecond each (`python
-m bench tournament`): seconds for a big event's record, which inside a request held the
director's console and, in a gevent worker, every connection of the worker. So it runs off the
request path, in a thread of its own (in a gevent worker a native thread of the hub's pool, so
the event loop goes on), reading the record in slices of SLICE rows, each in its own read
transaction. The look that found it due answers at once with what was verified before and
`checking` (never `intact` meanwhile: nothing confirmed the record as it is now; a row verified
last that changed is not counted verified); the looks after it ends show its result.

A full verification that fails (the file unreadable, or any other error) is said (`failed`,
never `intact`) and tried again RETRY_SECONDS later, not at every look.

A record of at most INLINE_ROWS rows is verified whole at every look, in the look itself (tens
of milliseconds): a small event sees any edit at once.

A longer record could be edited with the triggers dropped, the row changed and the triggers and
`PRAGMA schema_version` (which can be written) put back: nothing but the rows says so. So every
row verified is also kept as a fingerprint: the SHA-256 of each PRINT_ROWS rows' stored values,
as SQLite itself writes them out (`quote()` of every column, made in SQLite's C code: a few
microseconds a row, where verifying one is a tenth of a millisecond). A look that finds the last
comparison SWEEP_SECONDS old, and the file written since by something other than the service
(outside.py: the note every service write leaves in the lock file, any worker's, against the
size, time and inode of the file and its log; without a lock file, SQLite's `PRAGMA
data_version`), compares them again (a *sweep*), off the request path as a full verification
is, and waits for it a moment (SWEEP_WAIT): a group of rows whose fingerprint
differs was changed since it was verified, since rows are append-only; its rows are verified
again to name the row, and it is said as a break until the process ends, as below, and by every
worker (the note keeps the row's number for as long as that file is served). The console
asks every few seconds, so an UPDATE, a DELETE or an INSERT OR REPLACE of any row shows within
them, whatever was done to the schema (`python -m bench record` measures it at 50,000 rows).

A row this process verified that has another hash now (the record's tail rewritten with hashes
made again, so that the chain verifies) is an edit whatever the chain says: rows are append-only.
It is said as a break at that row (and logged) until the process ends (and by every worker,
through the note), even after a full
verification finds the new chain consistent; `lexicon records verify` and the round heads the
director copied show what was there.

Nothing is verified before the service is ready: a big record would not fit the start-to-ready
budget, and the first look starts its verification.

Looks run at once in the threads of a gthread worker, and a full verification beside them: one
lock (a native one, held only to compare and assign, so the event loop never waits on a read)
starts at most one verification at a time, and each result carries the generation of the
reading it stands on, so one read earlier never replaces one read later (a break found since is
never erased by an older verification ending after it).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ...chain import GENESIS, MalformedRow, missing, row_hash, verify_chain
from ...model import Break, ChainState, stamp
from ...rows import decode_record
from ...writer import cooperative
from . import outside
from .schema import MIGRATIONS, statements

log = logging.getLogger("service")
_monotonic = time.monotonic  # the clock the period is read on (a test moves its own)

# The whole chain is verified again at least this often (seconds), even when nothing suggests an
# edit: in between only the rows added since the last verification are.
FULL_CHECK_SECONDS = 300.0
INLINE_ROWS = 500  # a record this long or shorter is verified whole in the look that needs it (~50 ms)
SLICE = 2_000  # rows read and verified at a time by a full verification off the request path
RETRY_SECONDS = 60.0  # a full verification that failed is tried again this long after, not at every look
GUARDS = ("records_append_only_update", "records_append_only_delete")  # schema.py's triggers
PRINT_ROWS = 500  # the rows one fingerprint covers (a multiple of it is SLICE)
SWEEP_SECONDS = (
    2.0  # the verified rows' fingerprints are compared again at most this often, per process (and only after a change)
)
SWEEP_WAIT = 2.0  # the longest a look waits for the comparison it started (its result is for the next look otherwise)


def _words(sql: str) -> str:
    return " ".join(sql.rstrip().rstrip(";").split())


# Each trigger as schema.py creates it: one present under its name but saying something else
# (`WHEN 0`, another message) guards nothing.
GUARD_SQL = {
    name: _words(statement)
    for script in MIGRATIONS
    for statement in statements(script)
    for name in GUARDS
    if _words(statement).startswith(f"CREATE TRIGGER {name} ")
}
_HASH = 15  # the column of a row's hash in RECORD_COLUMNS


@dataclass(frozen=True)
class Known:
    """What this process verified last: rows 1 to `seq` chain (the last with `hash`), and the
    first break found, if any; when the last full verification finished (`full`: monotonic
    seconds, `full_at`: the store's time, for the console), and when the last one failed
    (`failed`, monotonic; None: it did not). `generation`: the reading this stands on (a full
    verification's own, taken as it started; a look that only added rows keeps its state's and
    adds its own), compared so that an older reading never replaces a newer one."""

    pid: int
    seq: int = 0
    hash: str = GENESIS
    broken: Break | None = None
    full: float | None = None
    full_at: str | None = None
    failed: float | None = None
    generation: tuple[int, int] = (0, 0)
    schema: int | None = None  # the file's schema_version when its full verification began
    prints: tuple[tuple[int, int, bytes], ...] = ()  # (first, last, digest) of rows 1 to `seq`, when unbroken


def _native_lock():
    """A lock of the OS: the result of a verification is kept from a native thread even in a
    gevent worker, where `threading.Lock` (patched) would be a greenlet's."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("threading"):
        return monkey.get_original("threading", "Lock")()
    return threading.Lock()


class Verification:
    """One store's verification in this process (see the module's docstring)."""

    def __init__(self) -> None:
        self._pid = os.getpid()
        self._lock = _native_lock()  # held only to compare and assign: never across a read or a spawn
        self.known = Known(self._pid)
        self._generations = 0  # the last generation given out
        self._busy = False  # a full verification runs off the request path
        self._task = None  # that verification: a Thread or an AsyncResult
        self._said: Break | None = None  # the break in the log last
        self._unguarded_said = False  # the triggers' absence is in the log
        self.failed: str | None = None  # the error a verification off the request path ended with, to log
        self.edited: Break | None = None  # a row verified here that changed since: said until the process ends
        self.swept: float | None = None  # when the verified rows' fingerprints were last compared (monotonic)
        self.swept_version: int | None = None  # the file's data_version then (a change since: compare again)
        self._watcher: sqlite3.Connection | None = None  # this process's own connection, for data_version

    def _here(self) -> None:
        """Forget everything in a process forked since (each worker verifies for itself)."""
        if self._pid != os.getpid():
            self.__init__()  # the parent's watcher connection is left alone: never used, nor closed, here

    def data_version(self, path) -> int:
        """SQLite's `PRAGMA data_version` of the event file, on a connection of this process's own:
        it moves whenever another connection (a worker's writer, a command, an edit by hand)
        commits, and only then."""
        with self._lock:
            if self._watcher is None:
                uri = f"{path.resolve().as_uri()}?mode=ro"
                self._watcher = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
            return self._watcher.execute("PRAGMA data_version").fetchone()[0]

    def current(self) -> Known:
        self._here()
        return self.known

    def generation(self) -> int:
        """A new generation, for a reading about to start."""
        with self._lock:
            self._generations += 1
            return self._generations

    @property
    def running(self) -> bool:
        self._here()
        return self._busy

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the full verification off the request path to end (tests, `make bench`): whether it has."""
        self._here()
        task = self._task
        if task is None:
            return not self._busy
        if isinstance(task, threading.Thread):
            task.join(timeout)
        else:
            task.wait(timeout)
        return not self.running

    def start(self, check: Callable[[int], None]) -> bool:
        """Run `check(generation)` off the request path unless a verification runs already: whether it was started."""
        self._here()
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

    def edit(self, broken: Break) -> None:
        """A row verified here changed since: said (the first such row) until the process ends."""
        with self._lock:
            if self.edited is None or broken.seq < self.edited.seq:
                self.edited = broken

    def found(self, known: Known) -> Known:
        """Keep what a reading found unless a newer reading's result is kept already: the state kept."""
        with self._lock:
            if known.generation > self.known.generation:
                self.known = known
            return self.known

    def failure(self, generation: int, error: str) -> None:
        """A full verification of `generation` ended with `error`: said, and tried again later."""
        with self._lock:
            self.failed = error
            if (generation, generation) > self.known.generation:
                self.known = replace(self.known, failed=_monotonic(), generation=(generation, generation))

    def said(self, state: ChainState) -> ChainState:
        """`state`, once a new break, the triggers' absence or a failed verification is in the
        log (the row's number only)."""
        if state.broken is not None and state.broken != self._said:
            log.warning("the event's record does not verify", extra={"fields": {"seq": state.broken.seq}})
        self._said = state.broken
        if not state.guarded and not self._unguarded_said:
            log.warning("the event's record lost its append-only triggers: the file was edited by hand")
        self._unguarded_said = not state.guarded
        with self._lock:
            failed, self.failed = self.failed, None
        if failed is not None:
            log.warning("the event's record could not be verified", extra={"fields": {"error": failed}})
        return state


def chain_state(file, columns: str, now: Callable[[], object], wait: bool = False) -> ChainState:
    """SQLiteStorage.chain_state: `file` is the store (its `_read` and `_verification`); `wait`:
    a full verification runs here whatever the record's length (a command's, not a request's)."""
    watch: Verification = file._verification
    replaced = file.replaced()  # before any new connection: one opened now would find no file, or another
    state = _look(file, watch, columns, now, wait)
    known = watch.current()
    seen = None if replaced else file.outside_note()  # before the sweep reads (outside.py)
    if not wait and not replaced and not state.checking and _sweep_due(watch, known):
        watch.swept = _monotonic()
        if seen is None:  # no note kept here: any other connection's commit (data_version)
            token, quiet = ("version", watch.data_version(file.path)), False
        else:
            token, quiet = seen, seen[0] is not None and not seen[0].outside and seen[0].files == seen[1]
        sweep = functools.partial(_sweep, file, columns, known, seen)
        if not quiet and token != watch.swept_version and watch.start(sweep):
            watch.swept_version = token
            watch.wait(SWEEP_WAIT)  # in a gevent worker the loop goes on meanwhile
    edited = watch.edited
    if edited is not None and seen is not None and not _shared(seen[0], seen[1], edited.seq):
        file.noted(functools.partial(outside.edited, seq=edited.seq))  # every worker says it
    if seen is not None and _shared(seen[0], seen[1], None):
        other = Break.of(
            "edited",
            seen[0].edited,
            f"row {seen[0].edited} changed after this service had verified it (a row is never changed): "
            "the record was edited by hand",
        )
        if edited is None or other.seq < edited.seq:
            edited = other
    if edited is not None and (state.broken is None or edited.seq < state.broken.seq):
        state = replace(state, broken=edited, verified=min(state.verified, edited.seq - 1))
    if replaced:
        state = replace(state, replaced=True)
    return watch.said(state)


def _shared(note, files: tuple[int, ...], seq: int | None) -> bool:
    """Whether the note names an edited row of this very file (its inode: a file put in its place
    later is another), at or before `seq` (None: any)."""
    if note is None or not note.edited or note.files[2] != files[2]:
        return False
    return seq is None or note.edited <= seq


def _sweep_due(watch: Verification, known: Known) -> bool:
    """Whether the fingerprints of the rows verified are to be compared again now."""
    if not known.prints or known.broken is not None or known.failed is not None:
        return False
    return watch.swept is None or _monotonic() - watch.swept >= SWEEP_SECONDS


def _due(known: Known, guards: bool, still: bool, schema: int, last: int) -> bool:
    """Whether a full verification is due (see the module's docstring). A schema changed since
    the last one (SQLite counts every CREATE and DROP) means the triggers were dropped and made
    again at least once: rows may have been edited meanwhile, whatever they say now."""
    if known.failed is not None:
        return _monotonic() - known.failed >= RETRY_SECONDS
    if last <= INLINE_ROWS:
        return True  # cheap enough to verify whole at every look
    stale = known.full is None or _monotonic() - known.full >= FULL_CHECK_SECONDS
    return stale or not guards or not still or known.schema != schema


def _guards(conn: sqlite3.Connection) -> tuple[bool, int]:
    """Whether both triggers are there as schema.py makes them, and the file's schema version."""
    present = dict(
        conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?)", GUARDS).fetchall()
    )
    guarded = all(_words(present.get(name) or "") == GUARD_SQL[name] for name in GUARDS)
    return guarded, conn.execute("PRAGMA schema_version").fetchone()[0]


def _answer(
    known: Known, last: int, last_hash: str, guards: bool, still: bool = True, checking: bool = False
) -> ChainState:
    """The state said from `known`: rows verified up to the break, or to the row verified last
    (the one before it if that row changed since: `still` false)."""
    verified = known.broken.seq - 1 if known.broken is not None else known.seq if still else known.seq - 1
    return ChainState(
        last,
        last_hash,
        verified,
        known.broken,
        checking=checking,
        checked=known.full_at,
        guarded=guards,
        failed=known.failed is not None,
    )


def _look(file, watch: Verification, columns: str, now: Callable[[], object], wait: bool) -> ChainState:
    known = watch.current()
    generation = watch.generation()  # before anything is read
    with file._read() as conn:
        guards, schema = _guards(conn)
        head = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        last, last_hash = head if head else (0, GENESIS)
        if known.seq > last:
            broken = Break.of(
                "verified-deleted",
                last + 1,
                f"{missing(last + 1, known.seq)}: this service had verified the record up to {known.seq} (deleted)",
                first=last + 1,
                last=known.seq,
                verified=known.seq,
            )
            kept = watch.found(replace(known, broken=broken, generation=(generation, generation)))
            return _answer(kept, last, last_hash, guards)
        still = _still(conn, columns, known)
        if not still and known.seq <= last and watch.edited is None:
            watch.edited = Break.of(
                "edited",
                known.seq,
                f"row {known.seq} changed after this service had verified it (a row is never changed): "
                "the record was edited by hand",
            )
        due = _due(known, guards, still, schema, last)
        if not due and (known.failed is not None or known.broken is not None):
            return _answer(known, last, last_hash, guards, still)  # until the next full verification
        if due and last > INLINE_ROWS and not wait:
            rows = None
        else:
            after = (0, GENESIS) if due else (known.seq, known.hash)
            rows = conn.execute(f"SELECT {columns} FROM records WHERE seq > ? ORDER BY seq", (after[0],)).fetchall()
            anchors, finals = _anchors(conn, after[0], None), final_heads(conn)
            prints = _prints(conn, columns, 1, last) if due else _extend(conn, columns, known, last, watch)
    if rows is None:
        watch.start(lambda generation: _full_check(file, columns, now, generation, schema))
        return _answer(known, last, last_hash, guards, still, checking=True)
    broken = verify_chain((decode_record(row) for row in rows), anchors, after=after, finals=finals)
    if due:
        base = Known(
            os.getpid(), full=_monotonic(), full_at=stamp(now()), generation=(generation, generation), schema=schema
        )
    else:  # rows added to the state verified: as new as that state's reading
        base = replace(known, generation=(known.generation[0], generation))
    if broken is None and prints is not None:
        found = replace(base, seq=last, hash=last_hash, broken=None, prints=prints)
    elif broken is None:  # rows verified before changed (watch.edited): those added are not taken as verified
        return _answer(known, last, last_hash, guards, still)
    else:  # said until the next full verification
        found = replace(base, seq=0, hash=GENESIS, broken=broken, prints=())
    return _answer(watch.found(found), last, last_hash, guards)


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


def final_heads(conn: sqlite3.Connection) -> dict[int, int]:
    """The closed rounds whose head is final (no phone waited for), by number: their head's row
    number. A file of a schema before 9 (read as it is) has no `pending`: every head was final."""
    final = {}
    for row in conn.execute("SELECT * FROM rounds WHERE closed IS NOT NULL"):
        if (len(row) < 6 or row[5] is None) and type(row[3]) is int and type(row[0]) is int:
            final[row[0]] = row[3]
    return final


def _full_check(file, columns: str, now: Callable[[], object], generation: int, schema: int) -> None:
    """Verify every row, slice by slice, off the request path; keep what was found, or that it
    failed (any error: the file unreadable now, or one this code did not foresee), never a
    state it did not confirm."""
    watch: Verification = file._verification
    try:
        after, broken, prints = (0, GENESIS), None, []
        while True:
            with file._read() as conn:
                rows = conn.execute(
                    f"SELECT {columns} FROM records WHERE seq > ? ORDER BY seq LIMIT ?", (after[0], SLICE)
                ).fetchall()
                final = len(rows) < SLICE
                anchors = _anchors(conn, after[0], None if final else rows[-1][0])
                finals = final_heads(conn)
                if rows:  # the rows as read here: what is verified below
                    prints += _prints(conn, columns, rows[0][0], rows[-1][0])
            broken = verify_chain((decode_record(row) for row in rows), anchors, after=after, finals=finals)
            if broken is not None or final:
                break
            after = (rows[-1][0], rows[-1][_HASH])
        if broken is not None:
            after = (0, GENESIS)  # the break is said until the next full verification
        elif rows:
            after = (rows[-1][0], rows[-1][_HASH])
        full = Known(
            os.getpid(),
            *after,
            broken,
            _monotonic(),
            stamp(now()),
            generation=(generation, generation),
            schema=schema,
            prints=() if broken is not None else tuple(prints),
        )
        watch.found(full)
    except Exception as error:
        watch.failure(generation, type(error).__name__)
    finally:
        file.close_connection()  # this thread's


# -- fingerprints of the rows verified ----------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _print_sql(columns: str) -> str:
    """One query for the stored values of rows ? to ?, every column as SQLite writes it out
    (`quote()`: its type shows too), in one blob made in SQLite's C code."""
    values = "||char(31)||".join(f"quote({column.strip()})" for column in columns.split(","))
    return (
        "SELECT CAST(group_concat(x, char(30)) AS BLOB) FROM "
        f"(SELECT {values} AS x FROM records WHERE seq BETWEEN ? AND ? ORDER BY seq)"
    )


def _digest(conn: sqlite3.Connection, columns: str, first: int, last: int) -> bytes:
    blob = conn.execute(_print_sql(columns), (first, last)).fetchone()[0]
    return hashlib.sha256(blob or b"").digest()


def _prints(conn: sqlite3.Connection, columns: str, first: int, last: int) -> tuple[tuple[int, int, bytes], ...]:
    """The fingerprints of rows `first` to `last`, in groups ending on multiples of PRINT_ROWS."""
    prints = []
    while first <= last:
        end = min(last, (first - 1) // PRINT_ROWS * PRINT_ROWS + PRINT_ROWS)
        prints.append((first, end, _digest(conn, columns, first, end)))
        first = end + 1
    return tuple(prints)


def _extend(conn: sqlite3.Connection, columns: str, known: Known, last: int, watch: Verification):
    """`known`'s fingerprints with the rows up to `last` added (its last group made again, once it
    is found unchanged, when it is not full); None when that group changed (said to `watch`)."""
    prints = list(known.prints)
    first = known.seq + 1
    if prints and prints[-1][1] % PRINT_ROWS:
        start, end, digest = prints.pop()
        if _digest(conn, columns, start, end) != digest:
            watch.edit(_changed(conn, columns, start, end))
            return None
        first = start
    return tuple(prints) + _prints(conn, columns, first, last)


def _changed(conn: sqlite3.Connection, columns: str, first: int, last: int) -> Break:
    """Rows `first` to `last` changed after they were verified (their fingerprint differs): the row
    their chain names (verified from the row before them to the one after them), or, when it
    names none (their hashes made again to match), the group."""
    before = conn.execute("SELECT hash FROM records WHERE seq = ?", (first - 1,)).fetchone()
    after = (first - 1, GENESIS if first == 1 else before[0] if before else "")
    rows = conn.execute(
        f"SELECT {columns} FROM records WHERE seq BETWEEN ? AND ? ORDER BY seq", (first, last + 1)
    ).fetchall()
    anchors = _anchors(conn, first - 1, last + 1)
    broken = verify_chain((decode_record(row) for row in rows), anchors, after=after, finals=final_heads(conn))
    if broken is not None:
        return broken
    return Break.of(
        "edited",
        first,
        f"records {first} to {last} changed after this service had verified them (a row is never changed): "
        "the record was edited by hand",
    )


def _sweep(file, columns: str, known: Known, seen, generation: int) -> None:
    """Compare the fingerprints of the rows `known` verified with those rows as they are now, off
    the request path: the first group that differs is an edit, said until the process ends (and
    by every worker, through the note: outside.py). None differs: the note is settled, unless the
    files changed since the look that started this saw them."""
    watch: Verification = file._verification
    try:
        with file._read() as conn:
            for first, last, digest in known.prints:
                if _digest(conn, columns, first, last) != digest:
                    broken = _changed(conn, columns, first, last)
                    watch.edit(broken)
                    file.noted(functools.partial(outside.edited, seq=broken.seq))
                    break
            else:
                if seen is not None:
                    file.noted(functools.partial(outside.settle, path=file.path, seen=seen[0], files=seen[1]))
    except Exception as error:
        watch.failure(generation, type(error).__name__)
    finally:
        file.close_connection()  # this thread's
