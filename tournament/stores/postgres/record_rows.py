"""One event's record's rows in the database: appended, read back strictly, found by key, counted
(the rows of record.py), and the budget of plays of the callers the record cannot name
(budget.py, counted in the record's write lock with the plays it lets in).

Its own module because the record is the evidence for appeals: only inserted, never updated nor
deleted (the database's trigger, schema.py), read with rows.py's strict decoding. Its `seq` is
the event's own, so every read here names the event; a group commit's rows go in one
`executemany` (one round trip in the event's lock). HEAD is also what store.py's write() reads
with the event's lock, in the lock's round trip (tables.py's PostgresTx.held).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence

from ...chain import GENESIS
from ...entry import Record
from ...model import EVERY_ROW, RecordFilter
from ...rows import RECORD_COLUMNS, decode_record, record_filter, row_of

HEAD = "SELECT seq, hash FROM records WHERE event_id = %s ORDER BY seq DESC LIMIT 1"
_INSERT_RECORD = (
    f"INSERT INTO records (event_id, {RECORD_COLUMNS}) VALUES (%s{', %s' * len(RECORD_COLUMNS.split(','))})"
)


class RecordReads:
    """The View's reads of the record (tables.py's PostgresView: `conn`, `event_id`, `_one`, `_all`)."""

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

    def records(self, which: RecordFilter = EVERY_ROW) -> Iterator[Record]:
        where, tail, args, newest_first = record_filter("%s", which)
        sql = f"SELECT {RECORD_COLUMNS} FROM records WHERE " + " AND ".join(["event_id = %s", *where]) + tail
        rows = self._all(sql, tuple(args))  # (the event's id goes first)
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

    def unshown_seconds(self) -> dict[int, tuple[str | None, str]]:
        rows = self._all("SELECT seq, device_time, time FROM unshown_seconds WHERE event_id = %s ORDER BY seq")
        return {seq: (device_time, time) for seq, device_time, time in rows}


class RecordWrites:
    """The Tx's writes of the record, and the budget of plays it reads and writes (tables.py's PostgresTx)."""

    def insert_records(self, records: Sequence[Record]) -> None:
        if not records:
            return
        with self.conn.cursor() as cursor:
            cursor.executemany(_INSERT_RECORD, [(self.event_id, *row_of(record)) for record in records])

    def budget(self, client: str) -> tuple[object, int] | None:
        return self._one("SELECT started, plays FROM play_budget WHERE event_id = %s AND client = %s", (client,))

    def add_unshown_second(self, seq: int, device_time: str | None, time: str) -> None:
        self._do(
            "INSERT INTO unshown_seconds (event_id, seq, device_time, time) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (seq, device_time, time),
        )

    def put_budget(self, client: str, started: str, plays: int) -> None:
        self._do(
            "INSERT INTO play_budget (event_id, client, started, plays) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (event_id, client) DO UPDATE SET started = excluded.started, plays = excluded.plays",
            (client, started, plays),
        )
