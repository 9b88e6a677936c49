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
last changed or is gone, and every FULL_CHECK_SECONDS. It reads and hashes every row, about a tenth of a millisecond each
(`python -m bench tournament`): seconds for a big event's record, which inside a request held the
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
`PRAGMA schema_version` (which can be written) put back: nothing but the rows says so. The rows
verified are also kept as fingerprints, compared again off the request path while the file is
written by something other than the service (a *sweep*, fingerprints.py): an UPDATE, a DELETE or
an INSERT OR REPLACE of any row shows within seconds, whatever was done to the schema (`python -m
bench record` measures it at 50,000 rows).

A row this process verified that has another hash now (the record's tail rewritten with hashes
made again, so that the chain verifies) is an edit whatever the chain says: rows are append-only.
It is said as a break at that row (and logged) until the process ends (and by every worker,
through the note), even after a full
verification finds the new chain consistent; `lexicon records verify` and the round heads the
director copied show what was there.

Nothing is verified before the service is ready: a big record would not fit the start-to-ready
budget, and the first look starts its verification.

What this process verified, and the one verification off the request path at a time, are
progress.py's; the triggers and the rounds' heads a verification reads besides the rows, guards.py's.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable
from dataclasses import replace

from ...chain import GENESIS, MalformedRow, edited_since, row_hash, verified_deleted, verify_chain
from ...integrity import Break, ChainState
from ...rows import decode_record
from ...stamps import stamp
from . import fingerprints, outside, progress
from .guards import final_heads, guarded, heads_after
from .progress import Known, Verification

# The whole chain is verified again at least this often (seconds), even when nothing suggests an
# edit: in between only the rows added since the last verification are.
FULL_CHECK_SECONDS = 300.0
INLINE_ROWS = 500  # a record this long or shorter is verified whole in the look that needs it (~50 ms)
SLICE = 2_000  # rows read and verified at a time by a full verification off the request path
RETRY_SECONDS = 60.0  # a full verification that failed is tried again this long after, not at every look
SWEEP_SECONDS = (
    2.0  # the verified rows' fingerprints are compared again at most this often, per process (and only after a change)
)
SWEEP_WAIT = 2.0  # the longest a look waits for the comparison it started (its result is for the next look otherwise)
_HASH = 15  # the column of a row's hash in RECORD_COLUMNS


def chain_state(file, columns: str, now: Callable[[], object], wait: bool = False) -> ChainState:
    """SQLiteStorage.chain_state: `file` is the store (its `_read` and `_verification`); `wait`:
    a full verification runs here whatever the record's length (a command's, not a request's)."""
    watch: Verification = file._verification
    replaced = file.replaced()  # before any new connection: one opened now would find no file, or another
    state = _look(file, watch, columns, now, wait)
    known = watch.current()
    seen = None if replaced else file.outside_note()  # before the sweep reads (outside.py)
    if not wait and not replaced and not state.checking and _sweep_due(watch, known):
        watch.swept = progress.monotonic()
        if seen is None:  # no note kept here: any other connection's commit (data_version)
            token, quiet = ("version", watch.data_version(file.path)), False
        else:
            token, quiet = seen, seen[0] is not None and not seen[0].outside and seen[0].files == seen[1]
        sweep = functools.partial(fingerprints.sweep, file, columns, known, seen)
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
    return watch.swept is None or progress.monotonic() - watch.swept >= SWEEP_SECONDS


def _due(known: Known, guards: bool, still: bool, schema: int, last: int) -> bool:
    """Whether a full verification is due (see the module's docstring). A schema changed since
    the last one (SQLite counts every CREATE and DROP) means the triggers were dropped and made
    again at least once: rows may have been edited meanwhile, whatever they say now."""
    if known.failed is not None:
        return progress.monotonic() - known.failed >= RETRY_SECONDS
    if last <= INLINE_ROWS:
        return True  # cheap enough to verify whole at every look
    stale = known.full is None or progress.monotonic() - known.full >= FULL_CHECK_SECONDS
    return stale or not guards or not still or known.schema != schema


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
        guards, schema = guarded(conn)
        head = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        last, last_hash = head if head else (0, GENESIS)
        if known.seq > last:
            broken = verified_deleted(last, known.seq)
            kept = watch.found(replace(known, broken=broken, generation=(generation, generation)))
            return _answer(kept, last, last_hash, guards)
        still = _still(conn, columns, known)
        if not still and known.seq <= last and watch.edited is None:
            watch.edited = edited_since(known.seq)
        due = _due(known, guards, still, schema, last)
        if not due and (known.failed is not None or known.broken is not None):
            return _answer(known, last, last_hash, guards, still)  # until the next full verification
        if due and last > INLINE_ROWS and not wait:
            rows = None
        else:
            after = (0, GENESIS) if due else (known.seq, known.hash)
            rows = conn.execute(f"SELECT {columns} FROM records WHERE seq > ? ORDER BY seq", (after[0],)).fetchall()
            anchors, finals = heads_after(conn, after[0], None), final_heads(conn)
            prints = (
                fingerprints.of_rows(conn, columns, 1, last)
                if due
                else fingerprints.extend(conn, columns, known, last, watch)
            )
    if rows is None:
        watch.start(lambda generation: _full_check(file, columns, now, generation, schema))
        return _answer(known, last, last_hash, guards, still, checking=True)
    broken = verify_chain((decode_record(row) for row in rows), anchors, after=after, finals=finals)
    if due:
        base = Known(
            os.getpid(),
            full=progress.monotonic(),
            full_at=stamp(now()),
            generation=(generation, generation),
            schema=schema,
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
                anchors = heads_after(conn, after[0], None if final else rows[-1][0])
                finals = final_heads(conn)
                if rows:  # the rows as read here: what is verified below
                    prints += fingerprints.of_rows(conn, columns, rows[0][0], rows[-1][0])
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
            progress.monotonic(),
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
