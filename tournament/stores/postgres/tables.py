"""The storage interface (tournament/storage.py) in SQL over one PostgreSQL connection, for one
event of the database: every row operation the rules ask for, and nothing decided here.

Every statement names the event (`event_id`): a View of event A never reads a row of event B.
`PostgresView` reads inside a transaction (REPEATABLE READ, read-only: one snapshot), or inside
the write transaction of `PostgresTx`, which reads as it does and writes. The transaction, the
event's lock and the errors are the store's (store.py in this folder); the record's columns and
the strict reading of a row are rows.py's, as for the event file.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from dataclasses import astuple

from ...chain import GENESIS
from ...entry import Record
from ...errors import NotAnEvent
from ...model import Device, Event, EventFile, Pin, RefusedOffline, Round
from ...rows import DEVICE_COLUMNS, RECORD_COLUMNS, REFUSED_COLUMNS, decode_device, decode_record, decode_round, row_of
from .schema import VERSION

ROUND_COLUMNS = "number, opened, closed, head_seq, head_hash, pending, final"
CURRENT_ROUND = f"SELECT {ROUND_COLUMNS} FROM rounds WHERE event_id = %s AND closed IS NULL"
HEAD = "SELECT seq, hash FROM records WHERE event_id = %s ORDER BY seq DESC LIMIT 1"
_TOKENS = ("sessions", "login_links")  # the only tables a TokenKind names
_INSERT_RECORD = (
    f"INSERT INTO records (event_id, {RECORD_COLUMNS}) VALUES (%s{', %s' * len(RECORD_COLUMNS.split(','))})"
)


def _kind(kind: str) -> str:
    if kind not in _TOKENS:  # a name put in SQL: never one a caller made up
        raise ValueError(f"a token's kind is one of {_TOKENS}, not {kind!r}")
    return kind


def _pending(pending: tuple[int, ...] | None) -> str | None:
    return None if pending is None else json.dumps(list(pending))


class PostgresView:
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

    # -- the event and its director --------------------------------------------------------

    def event(self) -> Event:
        row = self._one(
            "SELECT name, lexicon, created, lexicon_id, lexicon_version, lexicon_checksum, lexicon_file, "
            "lexicon_pinned, lexicon_pinned_by, identity, copy_of, copied, restored_from, moved, moved_to "
            "FROM events WHERE id = %s"
        )
        if row is None:
            raise NotAnEvent(f"{self.location}: no such event in the database (create it with `lexicon event init`)")
        pin = None if row[5] is None else Pin(*row[3:9])
        return Event(*row[:3], schema_version=VERSION, pin=pin, file=EventFile(*row[9:15]))

    def moved(self) -> tuple[str, str] | None:
        """When the event was moved and to which identity; None: it was not."""
        found = self._one("SELECT moved, moved_to FROM events WHERE id = %s AND moved IS NOT NULL")
        return None if found is None else (found[0], found[1])

    def session(self, token_hash: str) -> tuple[str, str | None] | None:
        return self._one("SELECT expires, ended FROM sessions WHERE event_id = %s AND token_hash = %s", (token_hash,))

    def director(self) -> tuple[str, str]:
        return self._one("SELECT password_hash, changed FROM directors WHERE event_id = %s")

    # -- devices ---------------------------------------------------------------------------

    def device(self, device_id: int) -> Device | None:
        row = self._one(f"SELECT {DEVICE_COLUMNS} FROM devices WHERE event_id = %s AND id = %s", (device_id,))
        return None if row is None else decode_device(row)

    def device_by_token_hash(self, token_hash: str) -> Device | None:
        row = self._one(f"SELECT {DEVICE_COLUMNS} FROM devices WHERE event_id = %s AND token_hash = %s", (token_hash,))
        return None if row is None else decode_device(row)

    def devices(self) -> list[Device]:
        return [
            decode_device(r) for r in self._all(f"SELECT {DEVICE_COLUMNS} FROM devices WHERE event_id = %s ORDER BY id")
        ]

    def tokens(self) -> dict[int, str]:
        return dict(self._all("SELECT id, token_hash FROM devices WHERE event_id = %s AND token_hash IS NOT NULL"))

    def code(self, code_hash: str) -> tuple[int, str, str | None] | None:
        return self._one(
            "SELECT device_id, expires, used FROM pairing_codes WHERE event_id = %s AND code_hash = %s", (code_hash,)
        )

    def link(self, token_hash: str) -> tuple[str, str | None] | None:
        return self._one("SELECT expires, used FROM login_links WHERE event_id = %s AND token_hash = %s", (token_hash,))

    def login_client(self, client: str) -> tuple[int, object] | None:
        return self._one(
            "SELECT failures, locked_until FROM login_clients WHERE event_id = %s AND client = %s", (client,)
        )

    def failed_attempts(self, after: str) -> list[object]:
        rows = self._all(
            "SELECT time FROM login_attempts WHERE event_id = %s AND ok = 0 AND time > %s ORDER BY time", (after,)
        )
        return [time for (time,) in rows]

    def contacts(self) -> dict[int, object]:
        return dict(self._all("SELECT device_id, time FROM contacts WHERE event_id = %s"))

    def splits(self) -> dict[int, tuple[str, str, str | None, str]]:
        rows = self._all("SELECT device_id, seen, served, missing, time FROM splits WHERE event_id = %s")
        return {row[0]: tuple(row[1:]) for row in rows}

    def refused_offline(self, device_id: int, reason: str) -> RefusedOffline | None:
        row = self._one(
            f"SELECT {REFUSED_COLUMNS} FROM refused_offline WHERE event_id = %s AND device_id = %s AND reason = %s",
            (device_id, reason),
        )
        return None if row is None else RefusedOffline(*row)

    def refused_offline_all(self) -> dict[int, dict[str, RefusedOffline]]:
        found: dict[int, dict[str, RefusedOffline]] = {}
        for device_id, reason, *row in self._all(
            f"SELECT device_id, reason, {REFUSED_COLUMNS} FROM refused_offline WHERE event_id = %s"
        ):
            found.setdefault(device_id, {})[reason] = RefusedOffline(*row)
        return found

    # -- rounds ----------------------------------------------------------------------------

    def round(self, number: int) -> Round | None:
        row = self._one(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE event_id = %s AND number = %s", (number,))
        return None if row is None else decode_round(row)

    def current_round(self) -> Round | None:
        row = self._one(CURRENT_ROUND)
        return None if row is None else decode_round(row)

    def rounds(self) -> list[Round]:
        return [
            decode_round(r)
            for r in self._all(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE event_id = %s ORDER BY number")
        ]

    def last_round_number(self) -> int:
        return self._one("SELECT COALESCE(MAX(number), 0) FROM rounds WHERE event_id = %s")[0]

    # -- the record ------------------------------------------------------------------------

    def head(self) -> tuple[int, str]:
        head = self._one(HEAD)
        return head if head else (0, GENESIS)

    def record(self, seq: int) -> Record | None:
        row = self._one(f"SELECT {RECORD_COLUMNS} FROM records WHERE event_id = %s AND seq = %s", (seq,))
        return None if row is None else decode_record(row)

    def record_by_key(self, idempotency_key: str) -> Record | None:
        row = self._one(
            f"SELECT {RECORD_COLUMNS} FROM records WHERE event_id = %s AND idempotency_key = %s", (idempotency_key,)
        )
        return None if row is None else decode_record(row)

    def holds(self, idempotency_key: str) -> bool:
        return (
            self._one("SELECT 1 FROM records WHERE event_id = %s AND idempotency_key = %s", (idempotency_key,))
            is not None
        )

    def keys_and_holders(
        self, keys: Collection[str], device_ids: Collection[int]
    ) -> tuple[set[str], dict[int, tuple[str | None, str | None, str | None]]]:
        held: set[str] = set()
        holders: dict[int, tuple[str | None, str | None, str | None]] = {}
        if not keys and not device_ids:
            return held, holders
        rows = self._all(
            "SELECT idempotency_key, NULL::bigint, NULL::text, NULL::text, NULL::text FROM records "
            "WHERE event_id = %s AND idempotency_key = ANY(%s::text[]) "
            "UNION ALL SELECT NULL, id, token_hash, revoked, (SELECT max(r.time) FROM refused_offline r "
            "WHERE r.event_id = devices.event_id AND r.device_id = devices.id) "
            "FROM devices WHERE event_id = %s AND id = ANY(%s::bigint[])",
            (list(keys), self.event_id, list(device_ids)),
        )
        for key, device_id, token_hash, revoked, refused in rows:
            if key is not None:
                held.add(key)
            else:
                holders[device_id] = (token_hash, revoked, refused)
        return held, holders

    def last_of_device(self, device_id: int) -> tuple[int, object] | None:
        return self._one(
            "SELECT seq, time FROM records WHERE event_id = %s AND device_id = %s ORDER BY seq DESC LIMIT 1",
            (device_id,),
        )

    def records(
        self,
        round: int | None = None,
        table: str | None = None,
        device_id: int | None = None,
        before: int | None = None,
        after: int | None = None,
        limit: int | None = None,
    ) -> Iterator[Record]:
        where, args = ["event_id = %s"], []
        for test, value in (
            ("round =", round),
            ('"table" =', table),
            ("device_id =", device_id),
            ("seq <", before),
            ("seq >", after),
        ):
            if value is not None:
                where.append(f"{test} %s")
                args.append(value)
        sql = f"SELECT {RECORD_COLUMNS} FROM records WHERE " + " AND ".join(where)
        newest_first = limit is not None and after is None
        sql += " ORDER BY seq DESC" if newest_first else " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT %s"
            args.append(limit)
        rows = self._all(sql, tuple(args))
        if newest_first:
            rows.reverse()
        return (decode_record(row) for row in rows)  # read now; a row edited into nonsense raises when reached

    def counts(self, round: int | None) -> dict[int | None, int]:
        rows = self._all(
            "SELECT device_id, COUNT(*) FROM records WHERE event_id = %s AND round IS NOT DISTINCT FROM %s "
            "GROUP BY device_id",
            (round,),
        )
        return dict(rows)

    def last_verdicts(self) -> dict[int, tuple[object, str, str, bool, int | None]]:
        rows = self._all(
            "SELECT DISTINCT ON (device_id) device_id, time, lexicon_id, lexicon_version, valid, round FROM records "
            "WHERE event_id = %s AND device_id IS NOT NULL ORDER BY device_id, seq DESC"
        )
        return {
            device: (time_, lexicon, version, valid == 1, number)
            for device, time_, lexicon, version, valid, number in rows
        }

    def hashes(self, seqs: Sequence[int]) -> dict[int, str]:
        return dict(self._all("SELECT seq, hash FROM records WHERE event_id = %s AND seq = ANY(%s)", (list(seqs),)))

    def heads(self) -> list[tuple[int, int | None, str | None]]:
        return self._all(
            "SELECT number, head_seq, head_hash FROM rounds WHERE event_id = %s AND closed IS NOT NULL ORDER BY number"
        )

    def final_heads(self) -> dict[int, int]:
        return dict(
            self._all(
                "SELECT number, head_seq FROM rounds WHERE event_id = %s AND closed IS NOT NULL "
                "AND pending IS NULL AND head_seq IS NOT NULL"
            )
        )


class PostgresTx(PostgresView):
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

    # -- the event and its director --------------------------------------------------------

    def set_pin(self, pin: Pin) -> None:
        self.conn.execute(
            "UPDATE events SET lexicon_id = %s, lexicon_version = %s, lexicon_checksum = %s, "
            "lexicon_file = %s, lexicon_pinned = %s, lexicon_pinned_by = %s WHERE id = %s",
            (pin.id, pin.version, pin.checksum, pin.file, pin.pinned, pin.by, self.event_id),
        )

    def set_moved(self, moved: str, to: str) -> None:
        self.conn.execute("UPDATE events SET moved = %s, moved_to = %s WHERE id = %s", (moved, to, self.event_id))
        self.locked_moved = (moved, to)  # as read again

    def set_director(self, password_hash: str, changed: str) -> None:
        self.conn.execute(
            "UPDATE directors SET password_hash = %s, changed = %s WHERE event_id = %s",
            (password_hash, changed, self.event_id),
        )

    def end_sessions(self, ended: str) -> None:
        self.conn.execute(
            "UPDATE sessions SET ended = %s WHERE event_id = %s AND ended IS NULL", (ended, self.event_id)
        )

    def end_session(self, token_hash: str, ended: str) -> None:
        self.conn.execute(
            "UPDATE sessions SET ended = %s WHERE event_id = %s AND token_hash = %s AND ended IS NULL",
            (ended, self.event_id, token_hash),
        )

    def add_token(self, kind: str, token_hash: str, created: str, expires: str) -> None:
        self._do(
            f"INSERT INTO {_kind(kind)} (event_id, token_hash, created, expires) VALUES (%s, %s, %s, %s)",
            (token_hash, created, expires),
        )

    def drop_expired(self, kind: str, before: str) -> None:
        self._do(f"DELETE FROM {_kind(kind)} WHERE event_id = %s AND expires < %s", (before,))

    def use_link(self, token_hash: str, used: str) -> None:
        self.conn.execute(
            "UPDATE login_links SET used = %s WHERE event_id = %s AND token_hash = %s",
            (used, self.event_id, token_hash),
        )

    def use_up_links(self, used: str) -> None:
        self.conn.execute(
            "UPDATE login_links SET used = %s WHERE event_id = %s AND used IS NULL", (used, self.event_id)
        )

    def put_login_client(self, client: str, failures: int, locked_until: str | None) -> None:
        self._do(
            "INSERT INTO login_clients (event_id, client, failures, locked_until) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (event_id, client) DO UPDATE SET failures = excluded.failures, "
            "locked_until = excluded.locked_until",
            (client, failures, locked_until),
        )

    def forget_login_clients(self) -> None:
        self._do("DELETE FROM login_clients WHERE event_id = %s")

    def add_attempt(self, time: str) -> int:
        return self._one("INSERT INTO login_attempts (event_id, time, ok) VALUES (%s, %s, 0) RETURNING id", (time,))[0]

    def attempt_ok(self, attempt: int) -> None:
        self._do("UPDATE login_attempts SET ok = 1 WHERE event_id = %s AND id = %s", (attempt,))

    # -- devices ---------------------------------------------------------------------------

    def add_device(self, name: str, role: str, table: str | None, created: str) -> int:
        # the next id of this event's devices: no other writer of the event runs (its lock is held)
        return self._one(
            'INSERT INTO devices (event_id, id, name, role, "table", created) '
            "SELECT %s, COALESCE(MAX(id), 0) + 1, %s, %s, %s, %s FROM devices WHERE event_id = %s RETURNING id",
            (name, role, table, created, self.event_id),
        )[0]

    def set_token(self, device_id: int, token_hash: str, paired: str) -> None:
        self.conn.execute(
            "UPDATE devices SET token_hash = %s, paired = %s WHERE event_id = %s AND id = %s",
            (token_hash, paired, self.event_id, device_id),
        )

    def set_revoked(self, device_id: int, revoked: str) -> None:
        self.conn.execute(
            "UPDATE devices SET revoked = %s WHERE event_id = %s AND id = %s", (revoked, self.event_id, device_id)
        )

    def add_code(self, code_hash: str, device_id: int, created: str, expires: str) -> None:
        self._do(
            "INSERT INTO pairing_codes (event_id, code_hash, device_id, created, expires) VALUES (%s, %s, %s, %s, %s)",
            (code_hash, device_id, created, expires),
        )

    def drop_unused_codes(self, device_id: int) -> None:
        self._do("DELETE FROM pairing_codes WHERE event_id = %s AND device_id = %s AND used IS NULL", (device_id,))

    def use_code(self, code_hash: str, used: str) -> None:
        self.conn.execute(
            "UPDATE pairing_codes SET used = %s WHERE event_id = %s AND code_hash = %s",
            (used, self.event_id, code_hash),
        )

    def put_contacts(self, contacts: dict[int, str]) -> None:
        if not contacts:
            return
        with self.conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO contacts (event_id, device_id, time) VALUES (%s, %s, %s) "
                "ON CONFLICT (event_id, device_id) DO UPDATE SET time = excluded.time",
                [(self.event_id, device, time) for device, time in contacts.items()],
            )

    def put_split(self, device_id: int, seen: str, served: str, missing: str | None, time: str) -> None:
        self._do(
            "INSERT INTO splits (event_id, device_id, seen, served, missing, time) VALUES (%s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (event_id, device_id) DO UPDATE SET seen = excluded.seen, served = excluded.served, "
            "missing = excluded.missing, time = excluded.time",
            (device_id, seen, served, missing, time),
        )

    def drop_split(self, device_id: int) -> None:
        self._do("DELETE FROM splits WHERE event_id = %s AND device_id = %s", (device_id,))

    def put_refused_offline(self, device_id: int, reason: str, refused: RefusedOffline) -> None:
        self._do(
            f"INSERT INTO refused_offline (event_id, device_id, reason, {REFUSED_COLUMNS}) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (event_id, device_id, reason) DO UPDATE SET count = excluded.count, key = excluded.key, "
            "shown_round = excluded.shown_round, device_time = excluded.device_time, time = excluded.time",
            (device_id, reason, *astuple(refused)),
        )

    # -- rounds ----------------------------------------------------------------------------

    def add_round(self, number: int, opened: str) -> None:
        self._known = False  # the rounds or the record change: read them again
        self._do("INSERT INTO rounds (event_id, number, opened) VALUES (%s, %s, %s)", (number, opened))

    def close_round(self, number: int, closed: str, head: tuple[int, str], pending: tuple[int, ...] | None) -> None:
        self._known = False  # the rounds or the record change: read them again
        self.conn.execute(
            "UPDATE rounds SET closed = %s, head_seq = %s, head_hash = %s, pending = %s WHERE event_id = %s AND number = %s",
            (closed, *head, _pending(pending), self.event_id, number),
        )

    def set_pending(self, number: int, pending: tuple[int, ...]) -> None:
        self._known = False  # the rounds or the record change: read them again
        self.conn.execute(
            "UPDATE rounds SET pending = %s WHERE event_id = %s AND number = %s",
            (_pending(pending), self.event_id, number),
        )

    def set_final(self, number: int, head: tuple[int, str], final: str) -> None:
        self._known = False  # the rounds or the record change: read them again
        self.conn.execute(
            "UPDATE rounds SET head_seq = %s, head_hash = %s, pending = NULL, final = %s "
            "WHERE event_id = %s AND number = %s",
            (*head, final, self.event_id, number),
        )

    # -- the record ------------------------------------------------------------------------

    def insert_records(self, records: Sequence[Record]) -> None:
        self._known = False  # the rounds or the record change: read them again
        if not records:
            return
        with self.conn.cursor() as cursor:
            cursor.executemany(_INSERT_RECORD, [(self.event_id, *row_of(record)) for record in records])

    def budget(self, client: str) -> tuple[object, int] | None:
        return self._one("SELECT started, plays FROM play_budget WHERE event_id = %s AND client = %s", (client,))

    def put_budget(self, client: str, started: str, plays: int) -> None:
        self._do(
            "INSERT INTO play_budget (event_id, client, started, plays) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (event_id, client) DO UPDATE SET started = excluded.started, plays = excluded.plays",
            (client, started, plays),
        )
