"""An event file damaged under the service (truncated in place, bytes overwritten): found, and
then nothing more written to it.

SQLite does not look at the whole file before it writes: a connection answers from the pages it
holds in its cache and appends to its write-ahead log, so a file truncated while the service runs
went on taking a director's rounds, pairings and sessions, while a read that met a missing page
said "database disk image is malformed". Two ways to find it, and either fails the store
(connection.py) as a disk that failed a write does, with its own error (FileDamaged), so that no
write and no read of that process touches the file again:

- any statement of the store that meets SQLite's SQLITE_CORRUPT or SQLITE_NOTADB (`damaged`);
- every write, before it writes, when the files are not as the service's last write left them
  (outside.py's note: something else wrote, truncated or replaced bytes since), checks the file
  whole with SQLite's `PRAGMA quick_check` on a connection of its own (`check`), which reads every
  page from the files, not from a cache. So a worker that never read the damaged page is stopped
  at its next write too. That costs a read of the whole file (tens of milliseconds for a record of
  tens of thousands of rows), only after a change from outside (once at a start too: the stopped
  service's last close tidied the file), and once per worker when the file is damaged (the store
  is failed then, so nothing is checked again). /readyz checks the same (connection.py, `failed`).

A restart does not mend it: the director restores the event from its last backup
(docs/operations.md, "A damaged event file").
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ...storage import BUSY_SECONDS

DAMAGE = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def said(path: Path, why: str) -> str:
    """The store's failure for a damaged file, for the director (the laptop's /readyz, the log)."""
    return (
        f"{path}: the event's file is damaged ({why}), so nothing more is recorded in it or read from it; "
        "stop the service and restore the event from its last backup, keeping the damaged file aside "
        '(docs/operations.md, "A damaged event file")'
    )


def damaged(path: Path, error: BaseException, malformed_only: bool = False) -> str | None:
    """The store's failure when SQLite said `error` of a damaged file, or None for any other error.
    `malformed_only`: a file not yet known to be an event's (SQLITE_NOTADB is then a file of other
    bytes, never an event's, not a damaged one)."""
    if getattr(error, "sqlite_errorcode", 0) & 0xFF not in (DAMAGE[:1] if malformed_only else DAMAGE):
        return None
    return said(path, str(error))


def check(path: Path) -> str | None:
    """The store's failure when the file at `path` is not whole by SQLite's quick check, read from
    the files on a connection of its own, or None. An error that is not damage (the file busy,
    the disk) is raised: the write is refused this time, not the store failed."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
    try:
        found = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
        if found == ["ok"] and conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'event'").fetchone() is None:
            found = ["no event in it any more (emptied, or truncated to nothing)"]  # an empty file checks whole
    except sqlite3.DatabaseError as error:
        failure = damaged(path, error)
        if failure is None:
            raise
        return failure
    finally:
        conn.close()
    return None if found == ["ok"] else said(path, "; ".join(found))
