"""Devices: adding one with its pairing code, pairing (code -> token), looking one up by its
token, revoking. Codes and tokens are stored only as hashes (credentials)."""

from __future__ import annotations

import sqlite3
import unicodedata
from datetime import timedelta

from . import credentials
from .connection import SQLiteFile, on_writer, storage_errors
from .errors import DeviceNameTaken, PairingRefused, UnknownDevice, Unreadable
from .model import MAX_NUMBER, ROLES, Device, read_stamp, stamp, visible
from .rows import DEVICE_COLUMNS, decode_device

CODE_LIFETIME = timedelta(minutes=10)
MAX_NAME = 60


def _check_device_fields(name: str, role: str, table: str | None) -> None:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(f"a device's name is 1 to {MAX_NAME} printable characters, not {name!r}")
    if not any(unicodedata.category(c)[0] in "LN" for c in visible(name)):
        raise ValueError(f"a device's name needs a letter or a digit one can see, not {name!r}")
    if role not in ROLES:
        raise ValueError(f"a device's role is one of {', '.join(ROLES)}, not {role!r}")
    if role == "table" and not (isinstance(table, str) and table.strip() and table.isprintable()):
        given = "none was given" if table is None else f"not {table!r}"  # never Python's None in a message
        raise ValueError(f"a table device needs its table (the mesa's number or name): {given}")
    if role != "table" and table is not None:
        raise ValueError(f"only a table device has a table; a {role} device has none")


def same_name(name: str) -> str:
    """A device's name as compared with the others': "Mesa 7", " mesa 7 ", "Mesa  7", "Ｍｅｓａ ７"
    and "Mesa 7" with an invisible character in it are one name (they look alike in the console
    and the record). Letters of other scripts that look like Latin ones (a Cyrillic "е") are not
    caught: only the director names devices, and a name is shown beside its role and table."""
    return " ".join(visible(unicodedata.normalize("NFKC", name)).split()).casefold()


def _usable(row: tuple | None, now) -> int:
    """The device a pairing code row (device_id, expires, used) pairs now; PairingRefused otherwise."""
    if row is None:
        raise PairingRefused("this pairing code is not known", "unknown")
    device_id, expires, used = row
    if used is not None:
        raise PairingRefused("this pairing code was already used", "used")
    if now >= read_stamp(expires, f"pairing_codes.expires of device {device_id}"):
        raise PairingRefused(
            f"this pairing code has expired (codes last {CODE_LIFETIME.total_seconds() / 60:g} minutes)", "expired"
        )
    return device_id


class Devices(SQLiteFile):
    """The event's devices and their pairing, in the event file."""

    def _issue_code(self, conn: sqlite3.Connection, device_id: int) -> str:
        now = self._now()
        code = credentials.new_code()
        conn.execute("DELETE FROM pairing_codes WHERE device_id = ? AND used IS NULL", (device_id,))
        conn.execute(
            "INSERT INTO pairing_codes (code_hash, device_id, created, expires) VALUES (?, ?, ?, ?)",
            (credentials.code_hash(code), device_id, stamp(now), stamp(now + CODE_LIFETIME)),
        )
        return code

    @storage_errors
    @on_writer
    def add_device(self, name: str, role: str, table: str | None = None) -> tuple[Device, str]:
        """A new device and its pairing code (single use, for CODE_LIFETIME). The code is not stored.

        Its name is unique among the devices not revoked (DeviceNameTaken otherwise), read inside
        the write lock so that two directors' tabs adding one name at once add it once: the
        record's "device" column and the console's list must tell two devices apart. A revoked
        device's name may be used again (the record keeps the old one's id)."""
        _check_device_fields(name, role, table)
        with self._write() as conn:
            wanted = same_name(name)
            for existing, held in conn.execute("SELECT id, name FROM devices WHERE revoked IS NULL"):
                if same_name(held) == wanted:
                    raise DeviceNameTaken(name.strip(), existing)
            cursor = conn.execute(
                'INSERT INTO devices (name, role, "table", created) VALUES (?, ?, ?, ?)',
                (name.strip(), role, table.strip() if table else None, stamp(self._now())),
            )
            code = self._issue_code(conn, cursor.lastrowid)
        return self.device(cursor.lastrowid), code

    @storage_errors
    @on_writer
    def new_code(self, device_id: int) -> str:
        """A fresh pairing code for a device (a phone replaced); its earlier unused code stops working."""
        with self._write() as conn:
            device = self._device_in(conn, device_id)
            if device.revoked is not None:
                raise PairingRefused(f"device {device.name!r} was revoked", "revoked")
            return self._issue_code(conn, device_id)

    @storage_errors
    def pair(self, code: str) -> tuple[Device, str]:
        """Use a pairing code: the device's new token (only its hash is kept). PairingRefused otherwise.

        Anyone may ask, without a login: an unknown, used or expired code is refused from a read
        connection, so a phone typing codes at random never takes the event's write lock, nor
        waits in line with the verdicts. Only a code that may still pair is used up under it
        (checked again there: two phones with one code, one wins)."""
        if not isinstance(code, str):
            raise PairingRefused("this pairing code is not known", "unknown")
        code_hash = credentials.code_hash(code)
        _usable(
            self._conn()
            .execute("SELECT device_id, expires, used FROM pairing_codes WHERE code_hash = ?", (code_hash,))
            .fetchone(),
            self._now(),
        )
        return self._use_code(code_hash)

    @on_writer
    def _use_code(self, code_hash: str) -> tuple[Device, str]:
        now = self._now()
        with self._write() as conn:
            device_id = _usable(
                conn.execute(
                    "SELECT device_id, expires, used FROM pairing_codes WHERE code_hash = ?", (code_hash,)
                ).fetchone(),
                now,
            )
            device = self._device_in(conn, device_id)
            if device.revoked is not None:
                raise PairingRefused(f"device {device.name!r} was revoked", "revoked")
            token = credentials.new_token()
            conn.execute(
                "UPDATE devices SET token_hash = ?, paired = ? WHERE id = ?",
                (credentials.token_hash(token), stamp(now), device_id),
            )
            conn.execute("UPDATE pairing_codes SET used = ? WHERE code_hash = ?", (stamp(now), code_hash))
            conn.execute("DELETE FROM splits WHERE device_id = ?", (device_id,))  # paired again: seen afresh
        return self.device(device_id), token

    @storage_errors
    def device_by_token(self, token: str) -> Device | None:
        """The device a token was given to (revoked ones too: check `active`), or None."""
        if not isinstance(token, str):
            return None
        row = (
            self._conn()
            .execute(f"SELECT {DEVICE_COLUMNS} FROM devices WHERE token_hash = ?", (credentials.token_hash(token),))
            .fetchone()
        )
        return None if row is None else decode_device(row)

    def _device_in(self, conn: sqlite3.Connection, device_id: int) -> Device:
        if not 0 < device_id <= MAX_NUMBER:  # no such id, and SQLite refuses one past 64 bits
            raise UnknownDevice(device_id)
        row = conn.execute(f"SELECT {DEVICE_COLUMNS} FROM devices WHERE id = ?", (device_id,)).fetchone()
        if row is None:
            raise UnknownDevice(device_id)
        return decode_device(row)

    @storage_errors
    def device(self, device_id: int) -> Device:
        return self._device_in(self._conn(), device_id)

    @storage_errors
    def devices(self) -> list[Device]:
        return [decode_device(r) for r in self._conn().execute(f"SELECT {DEVICE_COLUMNS} FROM devices ORDER BY id")]

    @storage_errors
    @on_writer
    def touch(self, contacts: dict[int, str]) -> None:
        """Devices' last requests ({device id: UTC stamp}) as a worker saw them since it last wrote
        them: kept where later than the one stored (another worker's may be). One transaction."""
        with self._write() as conn:
            conn.executemany(
                "INSERT INTO contacts (device_id, time) SELECT id, ? FROM devices WHERE id = ? "
                "ON CONFLICT (device_id) DO UPDATE SET time = excluded.time WHERE excluded.time > contacts.time",
                [(time, device_id) for device_id, time in contacts.items()],
            )

    @storage_errors
    def contacts(self) -> dict[int, str]:
        """Each device's last request as written by `touch` (UTC stamps), by device id. A time
        edited by hand, unreadable or later than now, is left out (no contact known) rather than
        kept: it would keep the device from ever looking silent."""
        now, known = self._now(), {}
        for device_id, time in self._conn().execute("SELECT device_id, time FROM contacts"):
            try:
                moment = read_stamp(time, f"contacts.time of device {device_id}")
            except Unreadable:
                continue
            if moment <= now:
                known[device_id] = time
        return known

    @storage_errors
    @on_writer
    def note_split(self, device_id: int, seen: str, served: str, missing: str | None) -> None:
        """A device answered by another file of the event (service.event.witness): the file it had
        seen (`seen`), this one (`served`), and the key of its last verdict when this file lacks it
        (`missing`); its latest note kept, for the console, until it is paired again. One transaction."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO splits (device_id, seen, served, missing, time) SELECT id, ?, ?, ?, ? FROM devices "
                "WHERE id = ? ON CONFLICT (device_id) DO UPDATE SET seen = excluded.seen, served = excluded.served, "
                "missing = excluded.missing, time = excluded.time",
                (seen, served, missing, stamp(self._now()), device_id),
            )

    @storage_errors
    def splits(self) -> dict[int, tuple[str, str, str | None, str]]:
        """Each device's latest note_split: (seen, served, missing, time), by device id."""
        rows = self._conn().execute("SELECT device_id, seen, served, missing, time FROM splits")
        return {row[0]: tuple(row[1:]) for row in rows}

    @storage_errors
    @on_writer
    def revoke(self, device_id: int) -> Device:
        """Revoke a device: its token stops working and its unused codes too. Revoking twice is harmless."""
        with self._write() as conn:
            self._device_in(conn, device_id)
            conn.execute(
                "UPDATE devices SET revoked = COALESCE(revoked, ?) WHERE id = ?", (stamp(self._now()), device_id)
            )
            conn.execute("DELETE FROM pairing_codes WHERE device_id = ? AND used IS NULL", (device_id,))
        return self.device(device_id)
