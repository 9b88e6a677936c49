"""The record's rows in the event file: appended, read back strictly, found by key, counted (the
rows of record.py), and the budget of plays of the callers the record cannot name (budget.py,
counted in the record's write lock with the plays it lets in).

Its own module because the record is the evidence for appeals: only inserted, never updated nor
deleted, read with rows.py's strict decoding; and because it is where a verdict's cost is spent,
so its INSERT is shaped for that (`_insert`). A file of an older schema read without migrating it
has fewer of its columns: RECORD_COLUMNS_OF says what a read of it selects instead.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from operator import itemgetter
from types import NoneType

from ...chain import GENESIS
from ...entry import SECOND_FIELDS, Record
from ...model import EVERY_ROW, RecordFilter
from ...rows import RECORD_COLUMNS, decode_record, record_filter, row_of

_SECOND = ", ".join(SECOND_FIELDS)
# A file of an older schema read without migrating it (readonly): the later fields as the
# migrations fill them (schema 2: the offline fields; schema 4: the second opinion; schema 9: the
# round an offline verdict's phone showed; schema 12: the verdict it showed).
_BEFORE_12 = RECORD_COLUMNS.replace(", shown_valid", ", NULL")
_BEFORE_9 = _BEFORE_12.replace(", shown_round", ", NULL")
_BEFORE_4 = _BEFORE_9.replace(_SECOND, ", ".join(["NULL"] * len(SECOND_FIELDS)))
UNSHOWN_VERSION = 17  # the schema that marks online rows whose second opinion was never shown (schema.py)
RECORD_COLUMNS_OF = {
    1: _BEFORE_4.replace("idempotency_key, offline, device_time", "NULL, 0, NULL"),
    2: _BEFORE_4,
    3: _BEFORE_4,
    4: _BEFORE_9,
    5: _BEFORE_9,
    6: _BEFORE_9,
    7: _BEFORE_9,
    8: _BEFORE_9,
    9: _BEFORE_12,
    10: _BEFORE_12,
    11: _BEFORE_12,
}
# RecordWrites._insert's statements, by the types of a row's values: (its SQL, the getter of its bound values)
_INSERTS: dict[tuple[type, ...], tuple[str, Callable[[tuple], tuple]]] = {}


class RecordReads:
    """The View's reads of the record (tables.py's SQLiteView: `conn`, `_one`, and `columns`, the
    record's columns as the file has them)."""

    __slots__ = ()

    def head(self) -> tuple[int, str]:
        head = self._one("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1")
        return head if head else (0, GENESIS)

    def record(self, seq: int) -> Record | None:
        row = self._one(f"SELECT {self.columns} FROM records WHERE seq = ?", (seq,))
        return None if row is None else decode_record(row)

    def record_by_key(self, idempotency_key: str) -> Record | None:
        row = self._one(f"SELECT {self.columns} FROM records WHERE idempotency_key = ?", (idempotency_key,))
        return None if row is None else decode_record(row)

    def holds(self, idempotency_key: str) -> bool:
        return self._one("SELECT 1 FROM records WHERE idempotency_key = ?", (idempotency_key,)) is not None

    def keys_and_holders(
        self, keys: Collection[str], device_ids: Collection[int]
    ) -> tuple[set[str], dict[int, tuple[str | None, str | None, str | None]]]:
        held: set[str] = set()
        holders: dict[int, tuple[str | None, str | None, str | None]] = {}
        keys, ids = list(keys), list(device_ids)
        for start in range(0, max(len(keys), len(ids)), 400):  # at most 800 parameters a statement
            some_keys, some_ids = keys[start : start + 400], ids[start : start + 400]
            parts = []
            if some_keys:
                marks = ", ".join("?" * len(some_keys))
                parts.append(
                    f"SELECT idempotency_key, NULL, NULL, NULL, NULL FROM records WHERE idempotency_key IN ({marks})"
                )
            if some_ids:
                marks = ", ".join("?" * len(some_ids))
                parts.append(
                    "SELECT NULL, id, token_hash, revoked, "
                    "(SELECT max(time) FROM refused_offline WHERE device_id = devices.id) "
                    f"FROM devices WHERE id IN ({marks})"
                )
            for key, device_id, token_hash, revoked, refused in self.conn.execute(
                " UNION ALL ".join(parts), some_keys + some_ids
            ):
                if key is not None:
                    held.add(key)
                else:
                    holders[device_id] = (token_hash, revoked, refused)
        return held, holders

    def last_of_device(self, device_id: int) -> tuple[int, object] | None:
        return self._one("SELECT seq, time FROM records WHERE device_id = ? ORDER BY seq DESC LIMIT 1", (device_id,))

    def records(self, which: RecordFilter = EVERY_ROW) -> Iterator[Record]:
        where, tail, args, newest_first = record_filter("?", which)
        sql = f"SELECT {self.columns} FROM records" + (" WHERE " + " AND ".join(where) if where else "") + tail
        rows = self.conn.execute(sql, args).fetchall()
        if newest_first:
            rows.reverse()
        return (decode_record(row) for row in rows)  # read now; a row edited into nonsense raises when reached

    def counts(self, round: int | None) -> dict[int | None, int]:
        rows = self.conn.execute(
            "SELECT device_id, COUNT(*) FROM records WHERE round IS ? GROUP BY device_id", (round,)
        )
        return dict(rows.fetchall())

    def last_verdicts(self) -> dict[int, tuple[object, str, str, bool, int | None]]:
        rows = self.conn.execute(
            "SELECT device_id, time, lexicon_id, lexicon_version, valid, round FROM records WHERE seq IN "
            "(SELECT MAX(seq) FROM records WHERE device_id IS NOT NULL GROUP BY device_id)"
        ).fetchall()
        return {
            device: (time_, lexicon, version, valid == 1, number)
            for device, time_, lexicon, version, valid, number in rows
        }

    def hashes(self, seqs: Sequence[int]) -> dict[int, str]:
        found: dict[int, str] = {}
        seqs = list(seqs)
        for start in range(0, len(seqs), 500):
            chunk = seqs[start : start + 500]
            found.update(
                self.conn.execute(
                    f"SELECT seq, hash FROM records WHERE seq IN ({', '.join('?' * len(chunk))})", chunk
                ).fetchall()
            )
        return found

    def unshown_seconds(self) -> dict[int, tuple[str | None, str]]:
        if self._one("PRAGMA user_version")[0] < UNSHOWN_VERSION:  # an older file, read only: none marked
            return {}
        rows = self.conn.execute("SELECT seq, device_time, time FROM unshown_seconds ORDER BY seq")
        return {seq: (device_time, time) for seq, device_time, time in rows}


class RecordWrites:
    """The Tx's writes of the record, and the budget of plays it reads and writes (tables.py's SQLiteTx)."""

    __slots__ = ()

    def insert_records(self, records: Sequence[Record]) -> None:
        """One INSERT for each run of rows with their NULLs in the same columns (`_insert`): a
        group commit's rows are nearly always one run."""
        run: list[tuple] = []
        kinds = None
        for record in records:
            row = row_of(record)
            these = tuple(map(type, row))
            if these != kinds and run:
                self._insert(kinds, run)
                run = []
            kinds = these
            run.append(row)
        if run:
            self._insert(kinds, run)

    def _insert(self, kinds: tuple[type, ...], rows: list[tuple]) -> None:
        """Rows whose values are of these types, in one statement that writes NULL where a row
        holds None rather than binding it: Python's sqlite3 binds a None through its adaptation
        protocol (two attribute lookups), and a verdict's row holds about ten, half of what its
        INSERT cost. The row stored is the same."""
        statement = _INSERTS.get(kinds)
        if statement is None:
            marks = ", ".join("NULL" if kind is NoneType else "?" for kind in kinds)
            given = [i for i, kind in enumerate(kinds) if kind is not NoneType]
            values = itemgetter(*given) if len(given) > 1 else lambda row: tuple(row[i] for i in given)  # a tuple
            statement = (f"INSERT INTO records ({RECORD_COLUMNS}) VALUES ({marks})", values)
            if len(_INSERTS) < 64:  # the few shapes a service writes (a row's types by its fields)
                _INSERTS[kinds] = statement
        sql, values = statement
        self.conn.executemany(sql, [values(row) for row in rows])

    def budget(self, client: str) -> tuple[object, int] | None:
        return self._one("SELECT started, plays FROM play_budget WHERE client = ?", (client,))

    def add_unshown_second(self, seq: int, device_time: str | None, time: str) -> None:
        self.conn.execute(
            "INSERT INTO unshown_seconds (seq, device_time, time) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (seq, device_time, time),
        )

    def put_budget(self, client: str, started: str, plays: int) -> None:
        self.conn.execute(
            "INSERT INTO play_budget (client, started, plays) VALUES (?, ?, ?) ON CONFLICT (client) DO UPDATE "
            "SET started = excluded.started, plays = excluded.plays",
            (client, started, plays),
        )
