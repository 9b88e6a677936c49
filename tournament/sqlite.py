"""The event's state in one SQLite file (the standard library's sqlite3): the default store.

`SQLiteEventStore` is the EventStore of store.py, put together from one module per concept:

| module | what it holds |
|---|---|
| `connection.py` | the file: connections, the write lock, transactions, and why SQLite is set up so |
| `writer.py` | who runs the writes: the calling thread, or a gevent worker's writer thread (group commit) |
| `rows.py` | the record's columns, and reading a stored row back strictly |
| `sessions.py` | the director's login, lockout and sessions |
| `devices.py` | devices, pairing codes and tokens |
| `rounds.py` | rounds, and the record's head kept when one closes |
| `record.py` | appending to the chained record and reading it |
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from . import credentials
from .connection import BUSY_SECONDS, SYNCHRONOUS
from .devices import CODE_LIFETIME, MAX_NAME, Devices
from .errors import EventExists
from .model import Clock, Pin, stamp, utc_now
from .record import RecordBook
from .rounds import Rounds
from .rows import decode_record
from .schema import migrate
from .sessions import GLOBAL_FAILURES, LINK_LIFETIME, LOCKOUT, MAX_FAILURES, SESSION_LIFETIME, DirectorLogins


class SQLiteEventStore(DirectorLogins, Devices, Rounds, RecordBook):
    """An event's state in one SQLite file, safe for several processes and threads at once.

    `clock` gives the time (UTC, aware): tests inject one to expire codes and locks.
    """

    @classmethod
    def create(
        cls,
        path: str | os.PathLike,
        name: str,
        password: str,
        lexicon: str | None = None,
        clock: Clock = utc_now,
        synchronous: str = "FULL",
        pin: Pin | None = None,
    ) -> SQLiteEventStore:
        """A new event file; EventExists if anything is at `path` already (never overwritten).
        `pin`: the lexicon `lexicon` names, by checksum (`lexicon event init` always gives it)."""
        path = Path(path)
        if not isinstance(name, str) or not name.strip() or not name.isprintable():
            raise ValueError(f"an event's name is printable text, not {name!r}")
        if lexicon is not None and not (isinstance(lexicon, str) and lexicon.strip() and lexicon.isprintable()):
            raise ValueError(f"an event's lexicon is an id or a language such as 'ca', not {lexicon!r}")
        password_hash = credentials.hash_password(password)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise EventExists(f"{path} already exists: an event's file is never overwritten") from None
        os.close(fd)
        try:
            conn = sqlite3.connect(path, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("BEGIN IMMEDIATE")
                migrate(conn)
                now = stamp(clock())
                conn.execute(
                    "INSERT INTO event (id, name, lexicon, created) VALUES (1, ?, ?, ?)", (name.strip(), lexicon, now)
                )
                if pin is not None:
                    conn.execute(
                        "UPDATE event SET lexicon_id = ?, lexicon_version = ?, lexicon_checksum = ?, "
                        "lexicon_file = ?, lexicon_pinned = ?, lexicon_pinned_by = 'init'",
                        (pin.id, pin.version, pin.checksum, pin.file, now),
                    )
                conn.execute("INSERT INTO director (id, password_hash, changed) VALUES (1, ?, ?)", (password_hash, now))
                conn.execute("INSERT INTO login (id, failures, locked_until) VALUES (1, 0, NULL)")
                conn.execute("COMMIT")
            finally:
                conn.close()
        except BaseException:
            for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                leftover.unlink(missing_ok=True)
            raise
        return cls(path, clock=clock, synchronous=synchronous)


__all__ = [
    "BUSY_SECONDS",
    "CODE_LIFETIME",
    "GLOBAL_FAILURES",
    "LINK_LIFETIME",
    "LOCKOUT",
    "MAX_FAILURES",
    "MAX_NAME",
    "SESSION_LIFETIME",
    "SYNCHRONOUS",
    "EventExists",
    "SQLiteEventStore",
    "decode_record",
]
