"""One event's devices' rows in the database: each device, its pairing codes, its last contact,
its note of being answered by another copy of the event, and its offline verdicts refused (the
rows of devices.py and refused_offline.py).

Its own module because these rows are what the service knows of each phone, apart from what the
phone recorded (record_rows.py): they are replaced as a device is paired, revoked and heard from,
where a row of the record never is. A device's id is the event's own (1, 2, …), not the
database's: add_device counts it.
"""

from __future__ import annotations

from dataclasses import astuple

from ...model import Device, RefusedOffline
from ...rows import DEVICE_COLUMNS, REFUSED_COLUMNS, decode_device


class DeviceReads:
    """The View's reads of the devices (tables.py's PostgresView: `conn`, `event_id`, `_one`, `_all`)."""

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

    def refused_key(self, device_id: int, key: str) -> bool:
        found = self._one(
            "SELECT 1 FROM refused_keys WHERE event_id = %s AND device_id = %s AND key = %s LIMIT 1", (device_id, key)
        )
        return found is not None

    def refused_keys(self) -> frozenset[tuple[int, str, str]]:
        return frozenset(self._all("SELECT device_id, key, reason FROM refused_keys WHERE event_id = %s"))


class DeviceWrites:
    """The Tx's writes of the devices (tables.py's PostgresTx)."""

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

    def add_refused_key(self, device_id: int, key: str, reason: str) -> bool:
        # RETURNING, not rowcount: the write's pipeline (connections.py) knows a count only once read
        done = self._one(
            "INSERT INTO refused_keys (event_id, device_id, key, reason) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING RETURNING 1",
            (device_id, key, reason),
        )
        return done is not None
