"""The storage interface (tournament/storage.py) in SQL over one connection to the event file:
every row operation the rules ask for, and nothing decided here.

`SQLiteView` reads (within a read transaction, or the write transaction of `SQLiteTx`, which
reads as it does and writes). The transaction itself, the write lock and the errors are the
store's (connection.py in this folder); the columns of the record are rows.py's, and a file of an
older schema read without migrating it gives its own (RECORD_COLUMNS_OF).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import astuple
from operator import itemgetter
from types import NoneType

from ...chain import GENESIS
from ...entry import SECOND_FIELDS, Record
from ...errors import NotAnEvent
from ...model import REFUSED_VERDICT, Device, Event, EventFile, Pin, RefusedOffline, Round
from ...rows import (
    DEVICE_COLUMNS,
    RECORD_COLUMNS,
    REFUSED_COLUMNS,
    Undecodable,
    decode_device,
    decode_record,
    decode_round,
    row_of,
)
from .guards import final_heads

PIN_VERSION = 5  # the schema that pins the event's lexicon (schema.py)
FILE_VERSION = 8  # the schema that gives the file its identity and marks a backup copy (schema.py)
MOVED_VERSION = 11  # the schema that marks a file whose event was moved (schema.py)
REFUSED_VERSION = 13  # the schema that notes refused offline verdicts (schema.py); 14 says each one's reason
_SECOND = ", ".join(SECOND_FIELDS)
# A file of an older schema read without migrating it (readonly): the later fields as the
# migrations fill them (schema 2: the offline fields; schema 4: the second opinion; schema 9: the
# round an offline verdict's phone showed; schema 12: the verdict it showed).
_BEFORE_12 = RECORD_COLUMNS.replace(", shown_valid", ", NULL")
_BEFORE_9 = _BEFORE_12.replace(", shown_round", ", NULL")
_BEFORE_4 = _BEFORE_9.replace(_SECOND, ", ".join(["NULL"] * len(SECOND_FIELDS)))
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
_TOKENS = ("sessions", "login_links")  # the only tables a TokenKind names
# SQLiteTx._insert's statements, by the types of a row's values: (its SQL, the getter of its bound values)
_INSERTS: dict[tuple[type, ...], tuple[str, Callable[[tuple], tuple]]] = {}


def text_factory(data: bytes) -> str:
    """How every connection reads TEXT: a byte edited into invalid UTF-8 must not stop a read."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return Undecodable(data.decode("utf-8", "replace"))


def _kind(kind: str) -> str:
    if kind not in _TOKENS:  # a name put in SQL: never one a caller made up
        raise ValueError(f"a token's kind is one of {_TOKENS}, not {kind!r}")
    return kind


def _pending(pending: tuple[int, ...] | None) -> str | None:
    return None if pending is None else json.dumps(list(pending))


class SQLiteView:
    """The View of tournament/storage.py on one connection, inside a transaction."""

    __slots__ = ("columns", "conn", "location")

    def __init__(self, conn: sqlite3.Connection, location: str, columns: str = RECORD_COLUMNS):
        self.conn = conn
        self.location = location
        self.columns = columns

    def _one(self, sql: str, args: tuple = ()):
        return self.conn.execute(sql, args).fetchone()

    # -- the event and its director --------------------------------------------------------

    def event(self) -> Event:
        row = self._one("SELECT name, lexicon, created FROM event WHERE id = 1")
        if row is None:
            raise NotAnEvent(f"{self.location} has no event")
        version = self._one("PRAGMA user_version")[0]
        pin = None
        if version >= PIN_VERSION:  # an older file, read only, has no pin yet
            found = self._one(
                "SELECT lexicon_id, lexicon_version, lexicon_checksum, lexicon_file, "
                "lexicon_pinned, lexicon_pinned_by FROM event WHERE id = 1"
            )
            pin = None if found[2] is None else Pin(*found)
        file = None
        if version >= FILE_VERSION:
            moved = ", moved, moved_to" if version >= MOVED_VERSION else ""
            found = self._one(f"SELECT identity, copy_of, copied, restored_from{moved} FROM file WHERE id = 1")
            file = None if found is None else EventFile(*found)
        return Event(*row, schema_version=version, pin=pin, file=file)

    def moved(self) -> tuple[str, str] | None:
        """Of a file the rules write to (migrated): when its event was moved and to which identity."""
        found = self._one("SELECT moved, moved_to FROM file WHERE id = 1 AND moved IS NOT NULL")
        return None if found is None else (found[0], found[1])

    def session(self, token_hash: str) -> tuple[str, str | None] | None:
        return self._one("SELECT expires, ended FROM sessions WHERE token_hash = ?", (token_hash,))

    def director(self) -> tuple[str, str]:
        return self._one("SELECT password_hash, changed FROM director")

    # -- devices ---------------------------------------------------------------------------

    def device(self, device_id: int) -> Device | None:
        row = self._one(f"SELECT {DEVICE_COLUMNS} FROM devices WHERE id = ?", (device_id,))
        return None if row is None else decode_device(row)

    def device_by_token_hash(self, token_hash: str) -> Device | None:
        row = self._one(f"SELECT {DEVICE_COLUMNS} FROM devices WHERE token_hash = ?", (token_hash,))
        return None if row is None else decode_device(row)

    def devices(self) -> list[Device]:
        return [decode_device(r) for r in self.conn.execute(f"SELECT {DEVICE_COLUMNS} FROM devices ORDER BY id")]

    def tokens(self) -> dict[int, str]:
        return dict(self.conn.execute("SELECT id, token_hash FROM devices WHERE token_hash IS NOT NULL").fetchall())

    def code(self, code_hash: str) -> tuple[int, str, str | None] | None:
        return self._one("SELECT device_id, expires, used FROM pairing_codes WHERE code_hash = ?", (code_hash,))

    def link(self, token_hash: str) -> tuple[str, str | None] | None:
        return self._one("SELECT expires, used FROM login_links WHERE token_hash = ?", (token_hash,))

    def login_client(self, client: str) -> tuple[int, object] | None:
        return self._one("SELECT failures, locked_until FROM login_clients WHERE client = ?", (client,))

    def failed_attempts(self, after: str) -> list[object]:
        rows = self.conn.execute("SELECT time FROM login_attempts WHERE ok = 0 AND time > ? ORDER BY time", (after,))
        return [time for (time,) in rows]

    def contacts(self) -> dict[int, object]:
        return dict(self.conn.execute("SELECT device_id, time FROM contacts").fetchall())

    def splits(self) -> dict[int, tuple[str, str, str | None, str]]:
        rows = self.conn.execute("SELECT device_id, seen, served, missing, time FROM splits")
        return {row[0]: tuple(row[1:]) for row in rows}

    def refused_offline(self, device_id: int, reason: str) -> RefusedOffline | None:
        row = self._one(
            f"SELECT {REFUSED_COLUMNS} FROM refused_offline WHERE device_id = ? AND reason = ?", (device_id, reason)
        )
        return None if row is None else RefusedOffline(*row)

    def refused_offline_all(self) -> dict[int, dict[str, RefusedOffline]]:
        # An older file, read only (a backup made by an earlier release, being restored): none
        # noted before schema 13, and 13's were all refused for the verdict their phone showed.
        version = self._one("PRAGMA user_version")[0]
        if version < REFUSED_VERSION:
            return {}
        column = "reason" if version > REFUSED_VERSION else f"'{REFUSED_VERDICT}'"
        found: dict[int, dict[str, RefusedOffline]] = {}
        for device_id, reason, *row in self.conn.execute(
            f"SELECT device_id, {column}, {REFUSED_COLUMNS} FROM refused_offline"
        ):
            found.setdefault(device_id, {})[reason] = RefusedOffline(*row)
        return found

    # -- rounds ----------------------------------------------------------------------------

    def round(self, number: int) -> Round | None:
        row = self._one("SELECT * FROM rounds WHERE number = ?", (number,))
        return None if row is None else decode_round(row)

    def current_round(self) -> Round | None:
        row = self._one("SELECT * FROM rounds WHERE closed IS NULL")
        return None if row is None else decode_round(row)

    def rounds(self) -> list[Round]:
        return [decode_round(r) for r in self.conn.execute("SELECT * FROM rounds ORDER BY number")]

    def last_round_number(self) -> int:
        return self._one("SELECT COALESCE(MAX(number), 0) FROM rounds")[0]

    # -- the record ------------------------------------------------------------------------

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

    def records(
        self,
        round: int | None = None,
        table: str | None = None,
        device_id: int | None = None,
        before: int | None = None,
        after: int | None = None,
        limit: int | None = None,
    ) -> Iterator[Record]:
        where, args = [], []
        for test, value in (
            ("round =", round),
            ('"table" =', table),
            ("device_id =", device_id),
            ("seq <", before),
            ("seq >", after),
        ):
            if value is not None:
                where.append(f"{test} ?")
                args.append(value)
        sql = f"SELECT {self.columns} FROM records"
        if where:
            sql += " WHERE " + " AND ".join(where)
        newest_first = limit is not None and after is None
        sql += " ORDER BY seq DESC" if newest_first else " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
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

    def heads(self) -> list[tuple[int, int | None, str | None]]:
        return self.conn.execute(
            "SELECT number, head_seq, head_hash FROM rounds WHERE closed IS NOT NULL ORDER BY number"
        ).fetchall()

    def final_heads(self) -> dict[int, int]:
        return final_heads(self.conn)


class SQLiteTx(SQLiteView):
    """The Tx of tournament/storage.py: the view of the write transaction, and its writes."""

    # -- the event and its director --------------------------------------------------------

    def set_pin(self, pin: Pin) -> None:
        self.conn.execute(
            "UPDATE event SET lexicon_id = ?, lexicon_version = ?, lexicon_checksum = ?, "
            "lexicon_file = ?, lexicon_pinned = ?, lexicon_pinned_by = ? WHERE id = 1",
            (pin.id, pin.version, pin.checksum, pin.file, pin.pinned, pin.by),
        )

    def set_moved(self, moved: str, to: str) -> None:
        self.conn.execute("UPDATE file SET moved = ?, moved_to = ? WHERE id = 1", (moved, to))

    def set_director(self, password_hash: str, changed: str) -> None:
        self.conn.execute("UPDATE director SET password_hash = ?, changed = ?", (password_hash, changed))

    def end_sessions(self, ended: str) -> None:
        self.conn.execute("UPDATE sessions SET ended = ? WHERE ended IS NULL", (ended,))

    def end_session(self, token_hash: str, ended: str) -> None:
        self.conn.execute("UPDATE sessions SET ended = ? WHERE token_hash = ? AND ended IS NULL", (ended, token_hash))

    def add_token(self, kind: str, token_hash: str, created: str, expires: str) -> None:
        self.conn.execute(
            f"INSERT INTO {_kind(kind)} (token_hash, created, expires) VALUES (?, ?, ?)", (token_hash, created, expires)
        )

    def drop_expired(self, kind: str, before: str) -> None:
        self.conn.execute(f"DELETE FROM {_kind(kind)} WHERE expires < ?", (before,))

    def use_link(self, token_hash: str, used: str) -> None:
        self.conn.execute("UPDATE login_links SET used = ? WHERE token_hash = ?", (used, token_hash))

    def use_up_links(self, used: str) -> None:
        self.conn.execute("UPDATE login_links SET used = ? WHERE used IS NULL", (used,))

    def put_login_client(self, client: str, failures: int, locked_until: str | None) -> None:
        self.conn.execute(
            "INSERT INTO login_clients (client, failures, locked_until) VALUES (?, ?, ?) "
            "ON CONFLICT (client) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until",
            (client, failures, locked_until),
        )

    def forget_login_clients(self) -> None:
        self.conn.execute("DELETE FROM login_clients")

    def add_attempt(self, time: str) -> int:
        return self.conn.execute("INSERT INTO login_attempts (time, ok) VALUES (?, 0)", (time,)).lastrowid

    def attempt_ok(self, attempt: int) -> None:
        self.conn.execute("UPDATE login_attempts SET ok = 1 WHERE rowid = ?", (attempt,))

    # -- devices ---------------------------------------------------------------------------

    def add_device(self, name: str, role: str, table: str | None, created: str) -> int:
        return self.conn.execute(
            'INSERT INTO devices (name, role, "table", created) VALUES (?, ?, ?, ?)', (name, role, table, created)
        ).lastrowid

    def set_token(self, device_id: int, token_hash: str, paired: str) -> None:
        self.conn.execute("UPDATE devices SET token_hash = ?, paired = ? WHERE id = ?", (token_hash, paired, device_id))

    def set_revoked(self, device_id: int, revoked: str) -> None:
        self.conn.execute("UPDATE devices SET revoked = ? WHERE id = ?", (revoked, device_id))

    def add_code(self, code_hash: str, device_id: int, created: str, expires: str) -> None:
        self.conn.execute(
            "INSERT INTO pairing_codes (code_hash, device_id, created, expires) VALUES (?, ?, ?, ?)",
            (code_hash, device_id, created, expires),
        )

    def drop_unused_codes(self, device_id: int) -> None:
        self.conn.execute("DELETE FROM pairing_codes WHERE device_id = ? AND used IS NULL", (device_id,))

    def use_code(self, code_hash: str, used: str) -> None:
        self.conn.execute("UPDATE pairing_codes SET used = ? WHERE code_hash = ?", (used, code_hash))

    def put_contacts(self, contacts: dict[int, str]) -> None:
        self.conn.executemany(
            "INSERT INTO contacts (device_id, time) VALUES (?, ?) "
            "ON CONFLICT (device_id) DO UPDATE SET time = excluded.time",
            list(contacts.items()),
        )

    def put_split(self, device_id: int, seen: str, served: str, missing: str | None, time: str) -> None:
        self.conn.execute(
            "INSERT INTO splits (device_id, seen, served, missing, time) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (device_id) DO UPDATE SET seen = excluded.seen, served = excluded.served, "
            "missing = excluded.missing, time = excluded.time",
            (device_id, seen, served, missing, time),
        )

    def drop_split(self, device_id: int) -> None:
        self.conn.execute("DELETE FROM splits WHERE device_id = ?", (device_id,))

    def put_refused_offline(self, device_id: int, reason: str, refused: RefusedOffline) -> None:
        self.conn.execute(
            f"INSERT INTO refused_offline (device_id, reason, {REFUSED_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (device_id, reason) DO UPDATE SET count = excluded.count, key = excluded.key, "
            "shown_round = excluded.shown_round, device_time = excluded.device_time, time = excluded.time",
            (device_id, reason, *astuple(refused)),
        )

    # -- rounds ----------------------------------------------------------------------------

    def add_round(self, number: int, opened: str) -> None:
        self.conn.execute("INSERT INTO rounds (number, opened) VALUES (?, ?)", (number, opened))

    def close_round(self, number: int, closed: str, head: tuple[int, str], pending: tuple[int, ...] | None) -> None:
        self.conn.execute(
            "UPDATE rounds SET closed = ?, head_seq = ?, head_hash = ?, pending = ? WHERE number = ?",
            (closed, *head, _pending(pending), number),
        )

    def set_pending(self, number: int, pending: tuple[int, ...]) -> None:
        self.conn.execute("UPDATE rounds SET pending = ? WHERE number = ?", (_pending(pending), number))

    def set_final(self, number: int, head: tuple[int, str], final: str) -> None:
        self.conn.execute(
            "UPDATE rounds SET head_seq = ?, head_hash = ?, pending = NULL, final = ? WHERE number = ?",
            (*head, final, number),
        )

    # -- the record ------------------------------------------------------------------------

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

    def put_budget(self, client: str, started: str, plays: int) -> None:
        self.conn.execute(
            "INSERT INTO play_budget (client, started, plays) VALUES (?, ?, ?) ON CONFLICT (client) DO UPDATE "
            "SET started = excluded.started, plays = excluded.plays",
            (client, started, plays),
        )
