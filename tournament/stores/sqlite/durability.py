"""What makes a committed verdict survive a killed process and a power cut, in the event's SQLite
file: the settings of every connection that writes (connection.py's), and what a disk that fails a
write means for the store.

- `journal_mode=WAL`: readers (the console, an export) never block the workers that append,
  and an append is one write to the log, not a rewrite of the database pages.
- `synchronous=FULL`: in WAL mode, NORMAL already survives a killed process (a commit is in the
  log file, in the operating system's cache, before COMMIT returns; SIGKILL cannot lose it) but
  not a power cut, which can undo the last commits before a checkpoint. FULL syncs the log at
  every commit, so a verdict shown is a verdict kept even when the laptop's plug is pulled
  (`make bench` measures both). SQLite makes that sync inside COMMIT, before the commit is
  visible to any reader: the other worker, the console, an export or `lexicon records verify`
  never read a row a power cut could still take (an fsync of our own after COMMIT would let them:
  docs/tournament.md, Durability). A write the disk refuses (SQLITE_IOERR: a failed write or
  sync) leaves the store failed (`failure`): every write and read refuses until a restart.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ...errors import LockBusy, NotAnEvent
from .write_lock import tries

SYNCHRONOUS = ("FULL", "NORMAL")


def set_up(conn: sqlite3.Connection, path: Path, synchronous: str, bound: float) -> None:
    """A connection that writes: write-ahead logging (NotAnEvent where the file cannot have it)
    and `synchronous`, one of SYNCHRONOUS.

    A file still in a rollback journal (an older program's) is switched to the log by the first
    connection that writes to it, which needs the file to itself: while another connection holds
    its write lock (another worker switching or writing the same file at the same moment), SQLite
    answers "database is locked" at once, without its busy handler (the pragma holds a read lock
    as it asks for the write lock, which waiting could deadlock). So it is asked again, after the lock file's pauses, until `bound` seconds
    (BUSY_SECONDS) have passed: then LockBusy, and the file is left as it was."""
    for _ in tries(bound):
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            break
        except sqlite3.OperationalError as error:
            if getattr(error, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_BUSY:
                raise
    else:
        raise LockBusy(
            f"{path}: its journal could not be switched to write-ahead logging: another "
            f"connection (another worker or program writing the file) held its write lock for "
            f"{bound:g} s; nothing was changed, try again once it is done"
        )
    if mode.lower() != "wal":
        raise NotAnEvent(f"{path}: cannot use write-ahead logging here")
    conn.execute(f"PRAGMA synchronous = {synchronous}")


def failure(path: Path, error: sqlite3.Error) -> str | None:
    """Why the store is failed when a write met this error, or None when it does not fail it.

    The disk refused a write or a sync of the log or the database (SQLITE_IOERR): what that write
    made may be on disk or not, and on Linux the pages a failed fsync could not write are dropped
    while the next fsync can succeed, so a verdict retried then would be shown as recorded with
    nothing under it. The store refuses every write and read from then on, until the service
    restarts and opens the file as it is on disk."""
    if getattr(error, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_IOERR:
        return None
    return (
        f"{path}: the event's file could not be written to disk ({error}), so a verdict may "
        "not be on disk: this service records and answers nothing more from it until it is "
        "restarted; check the disk, then restart the service"
    )
