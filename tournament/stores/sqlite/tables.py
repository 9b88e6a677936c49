"""The storage interface (tournament/storage.py) in SQL over one connection to the event file:
`SQLiteView` and `SQLiteTx`, put together from each concept's row operations, and nothing
decided here.

`SQLiteView` reads (within a read transaction, or the write transaction of `SQLiteTx`, which
reads as it does and writes). The transaction itself, the write lock and the errors are the
store's (connection.py in this folder); the columns of the record are rows.py's, and a file of an
older schema read without migrating it gives its own (record_rows.py's RECORD_COLUMNS_OF).

Each concept's rows are a module of their own, as the rules that use them are (sessions.py,
devices.py, rounds.py, record.py): event_rows.py, device_rows.py, round_rows.py and
record_rows.py, each a class of its reads and one of its writes, mixed in here over one
connection. The PostgreSQL store (stores/postgres/) has the same modules, to read side by side.
"""

from __future__ import annotations

import sqlite3

from ...rows import RECORD_COLUMNS, Undecodable
from .device_rows import DeviceReads, DeviceWrites
from .event_rows import EventReads, EventWrites
from .record_rows import RecordReads, RecordWrites
from .round_rows import RoundReads, RoundWrites


def text_factory(data: bytes) -> str:
    """How every connection reads TEXT: a byte edited into invalid UTF-8 must not stop a read."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return Undecodable(data.decode("utf-8", "replace"))


class SQLiteView(EventReads, DeviceReads, RoundReads, RecordReads):
    """The View of tournament/storage.py on one connection, inside a transaction."""

    __slots__ = ("columns", "conn", "location")

    def __init__(self, conn: sqlite3.Connection, location: str, columns: str = RECORD_COLUMNS):
        self.conn = conn
        self.location = location
        self.columns = columns

    def _one(self, sql: str, args: tuple = ()):
        return self.conn.execute(sql, args).fetchone()


class SQLiteTx(EventWrites, DeviceWrites, RoundWrites, RecordWrites, SQLiteView):
    """The Tx of tournament/storage.py: the view of the write transaction, and its writes."""
