"""The storage interface (tournament/storage.py) in SQL over one PostgreSQL connection, for one
event of the database: `PostgresView` and `PostgresTx`, put together from each concept's row
operations, and nothing decided here.

Every statement names the event (`event_id`): a View of event A never reads a row of event B.
`PostgresView` reads inside a transaction (REPEATABLE READ, read-only: one snapshot), or inside
the write transaction of `PostgresTx`, which reads as it does and writes. The transaction, the
event's lock and the errors are the store's (store.py in this folder); the record's columns and
the strict reading of a row are rows.py's, as for the event file.

Each concept's rows are a module of their own, as the rules that use them are (sessions.py,
devices.py, rounds.py, record.py): event_rows.py, device_rows.py, round_rows.py and
record_rows.py, each a class of its reads and one of its writes, mixed in here over one
connection. The event file's store (stores/sqlite/) has the same modules, to read side by side;
what only this one has stays here: what the write transaction read with the event's lock.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...chain import GENESIS
from ...entry import Record
from ...model import Round
from ...rows import decode_round
from .device_rows import DeviceReads, DeviceWrites
from .event_rows import EventReads, EventWrites
from .record_rows import RecordReads, RecordWrites
from .round_rows import RoundReads, RoundWrites


class PostgresView(EventReads, DeviceReads, RoundReads, RecordReads):
    """The View of tournament/storage.py: one event's rows, on one connection, in a transaction."""

    def __init__(self, conn, event_id: str, location: str):
        self.conn = conn
        self.event_id = event_id
        self.location = location

    def _one(self, sql: str, args: tuple = ()):
        return self.conn.execute(sql, (self.event_id, *args)).fetchone()

    def _all(self, sql: str, args: tuple = ()) -> list:
        return self.conn.execute(sql, (self.event_id, *args)).fetchall()

    def _do(self, sql: str, args: tuple = ()) -> None:
        self.conn.execute(sql, (self.event_id, *args))


class PostgresTx(EventWrites, DeviceWrites, RoundWrites, RecordWrites, PostgresView):
    """The Tx of tournament/storage.py: the view of the write transaction (which holds the event's
    lock, store.py), and its writes."""

    # What store.py's write() read with the event's row lock, in the lock's round trip: the event's
    # mark (`locked_moved`), the open round's row and the chain's head. No other transaction changes
    # them until this one ends, so the rules' look at them costs no query of its own; this one's own
    # writes to the rounds or the record end that (`_known`: held() to the first such write).
    locked = False
    locked_moved: tuple[str, str] | None = None
    _known = False
    _round_row: tuple | None = None
    _head_row: tuple | None = None

    def held(self, moved: tuple, round_row: tuple | None, head_row: tuple | None) -> None:
        """What the write transaction read as it took the event's lock (store.py's write)."""
        self.locked, self.locked_moved = True, None if moved[0] is None else (moved[0], moved[1])
        self._known, self._round_row, self._head_row = True, round_row, head_row

    def moved(self) -> tuple[str, str] | None:
        return self.locked_moved if self.locked else super().moved()

    def current_round(self) -> Round | None:
        if not self._known:
            return super().current_round()
        return None if self._round_row is None else decode_round(self._round_row)

    def head(self) -> tuple[int, str]:
        if not self._known:
            return super().head()
        return tuple(self._head_row) if self._head_row else (0, GENESIS)

    # -- this transaction's own writes to what held() gave ---------------------------------

    def set_moved(self, moved: str, to: str) -> None:
        super().set_moved(moved, to)
        self.locked_moved = (moved, to)  # as read again

    def add_round(self, number: int, opened: str) -> None:
        self._known = False  # the rounds or the record change: read them again
        super().add_round(number, opened)

    def close_round(self, number: int, closed: str, head: tuple[int, str], pending: tuple[int, ...] | None) -> None:
        self._known = False
        super().close_round(number, closed, head, pending)

    def set_pending(self, number: int, pending: tuple[int, ...]) -> None:
        self._known = False
        super().set_pending(number, pending)

    def set_final(self, number: int, head: tuple[int, str], final: str) -> None:
        self._known = False
        super().set_final(number, head, final)

    def insert_records(self, records: Sequence[Record]) -> None:
        self._known = False
        super().insert_records(records)
