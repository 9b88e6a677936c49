"""Fingerprints of the rows verified, and their comparison again (a *sweep*): an edit of a long
record with its triggers and schema version put back, seen within seconds (verification.py).

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
"""

from __future__ import annotations

import functools
import hashlib
import sqlite3

from ...chain import GENESIS, verify_chain
from ...integrity import Break
from ...rows import decode_record
from . import outside
from .guards import final_heads, heads_after
from .progress import Known, Verification

PRINT_ROWS = 500  # the rows one fingerprint covers (a multiple of it is verification.SLICE)


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


def of_rows(conn: sqlite3.Connection, columns: str, first: int, last: int) -> tuple[tuple[int, int, bytes], ...]:
    """The fingerprints of rows `first` to `last`, in groups ending on multiples of PRINT_ROWS."""
    prints = []
    while first <= last:
        end = min(last, (first - 1) // PRINT_ROWS * PRINT_ROWS + PRINT_ROWS)
        prints.append((first, end, _digest(conn, columns, first, end)))
        first = end + 1
    return tuple(prints)


def extend(conn: sqlite3.Connection, columns: str, known: Known, last: int, watch: Verification):
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
    return tuple(prints) + of_rows(conn, columns, first, last)


def _changed(conn: sqlite3.Connection, columns: str, first: int, last: int) -> Break:
    """Rows `first` to `last` changed after they were verified (their fingerprint differs): the row
    their chain names (verified from the row before them to the one after them), or, when it
    names none (their hashes made again to match), the group."""
    before = conn.execute("SELECT hash FROM records WHERE seq = ?", (first - 1,)).fetchone()
    after = (first - 1, GENESIS if first == 1 else before[0] if before else "")
    rows = conn.execute(
        f"SELECT {columns} FROM records WHERE seq BETWEEN ? AND ? ORDER BY seq", (first, last + 1)
    ).fetchall()
    anchors = heads_after(conn, first - 1, last + 1)
    broken = verify_chain((decode_record(row) for row in rows), anchors, after=after, finals=final_heads(conn))
    if broken is not None:
        return broken
    return Break.of(
        "edited",
        first,
        f"records {first} to {last} changed after this service had verified them (a row is never changed): "
        "the record was edited by hand",
    )


def sweep(file, columns: str, known: Known, seen, generation: int) -> None:
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
