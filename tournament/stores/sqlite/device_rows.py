"""The devices' rows in the event file: each device, its pairing codes, its last contact, its
note of being answered by another copy of the event, and its offline verdicts refused (the rows
of devices.py and refused_offline.py).

Its own module because these rows are what the service knows of each phone, apart from what the
phone recorded (record_rows.py): they are replaced as a device is paired, revoked and heard from,
where a row of the record never is.
"""

from __future__ import annotations

from dataclasses import astuple

from ...model import REFUSED_VERDICT, Device, RefusedOffline
from ...rows import DEVICE_COLUMNS, REFUSED_COLUMNS, decode_device

REFUSED_VERSION = 13  # the schema that notes refused offline verdicts (schema.py); 14 says each one's reason
KEYS_VERSION = 16  # the schema that keeps every refused offline verdict's key, not only the latest


class DeviceReads:
    """The View's reads of the devices (tables.py's SQLiteView: `conn`, `_one`)."""

    __slots__ = ()

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

    def refused_key(self, device_id: int, key: str) -> bool:
        return (
            self._one("SELECT 1 FROM refused_keys WHERE device_id = ? AND key = ? LIMIT 1", (device_id, key))
            is not None
        )

    def refused_keys(self) -> frozenset[tuple[int, str, str]]:
        # An older file, read only: the latest key of each device and reason is all it kept, as
        # its migration to schema 16 takes them.
        if self._one("PRAGMA user_version")[0] < KEYS_VERSION:
            found = self.refused_offline_all()
            return frozenset(
                (d, refused.key, reason) for d, reasons in found.items() for reason, refused in reasons.items()
            )
        return frozenset(self.conn.execute("SELECT device_id, key, reason FROM refused_keys"))


class DeviceWrites:
    """The Tx's writes of the devices (tables.py's SQLiteTx)."""

    __slots__ = ()

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

    def add_refused_key(self, device_id: int, key: str, reason: str) -> bool:
        done = self.conn.execute(
            "INSERT INTO refused_keys (device_id, key, reason) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (device_id, key, reason),
        )
        return done.rowcount == 1
