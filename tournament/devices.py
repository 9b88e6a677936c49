"""Devices: adding one with its pairing code, pairing (code -> token), looking one up by its
token, revoking. Codes and tokens are stored only as hashes (credentials). The rules (a name
unique among the devices not revoked, a code that expires and pairs once) are decided here,
inside the store's write lock; the store only keeps the rows (storage.py)."""

from __future__ import annotations

import unicodedata
from datetime import timedelta

from . import credentials
from .errors import DeviceFieldRefused, DeviceNameTaken, PairingRefused, TableMissing, UnknownDevice, Unreadable
from .keeper import Keeper, on_writer
from .model import MAX_NUMBER, ROLES, Device, visible
from .stamps import read_stamp, stamp
from .storage import Tx, View

CODE_LIFETIME = timedelta(minutes=10)
MAX_NAME = 60


def _check_device_fields(name: str, role: str, table: str | None) -> None:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        raise DeviceFieldRefused("name", f"a device's name is 1 to {MAX_NAME} printable characters, not {name!r}")
    if not any(unicodedata.category(c)[0] in "LN" for c in visible(name)):
        raise DeviceFieldRefused("name", f"a device's name needs a letter or a digit one can see, not {name!r}")
    if role not in ROLES:
        raise DeviceFieldRefused("role", f"a device's role is one of {', '.join(ROLES)}, not {role!r}")
    if role == "table" and not (isinstance(table, str) and table.strip() and table.isprintable()):
        given = "none was given" if table is None else f"not {table!r}"  # never Python's None in a message
        raise DeviceFieldRefused("table", f"a table device needs its table (the mesa's number or name): {given}")
    if role != "table" and table is not None:
        raise DeviceFieldRefused("table", f"only a table device has a table; a {role} device has none")


def _answerable(device: Device) -> Device:
    """A device read to be answered, whose name and table (a table device's) go into each row it
    records: Unreadable, naming where, when one was edited into text no row holds (an empty one, or
    bytes that are no UTF-8, read with U+FFFD: a row would carry that, not what is stored),
    so that its requests are refused (409 `record-tampered`) rather than fail as its row is made;
    and never kept in a worker's cache of live devices in that state. A table device with no table
    (none stored, or one edited blank) is TableMissing: its rows would carry none."""
    if device.role == "table" and (device.table is None or not device.table.strip()):
        raise TableMissing(device.id)
    for column, value in (("name", device.name), ("table", device.table)):
        if value is None and column == "table":
            continue
        if type(value) is not str or not value.strip():  # exactly: text that is no UTF-8 is a str of its own type
            raise Unreadable(f"devices.{column} of device {device.id}")
    return device


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


class Devices(Keeper):
    """The event's devices and their pairing: the rules, over the store's rows (storage.py)."""

    def _issue_code(self, tx: Tx, device_id: int) -> str:
        now = self._now()
        code = credentials.new_code()
        tx.drop_unused_codes(device_id)
        tx.add_code(credentials.code_hash(code), device_id, stamp(now), stamp(now + CODE_LIFETIME))
        return code

    @on_writer
    def add_device(self, name: str, role: str, table: str | None = None) -> tuple[Device, str]:
        """A new device and its pairing code (single use, for CODE_LIFETIME). The code is not stored.

        Its name is unique among the devices not revoked (DeviceNameTaken otherwise), read inside
        the write lock so that two directors' tabs adding one name at once add it once: the
        record's "device" column and the console's list must tell two devices apart. A revoked
        device's name may be used again (the record keeps the old one's id)."""
        _check_device_fields(name, role, table)
        with self._write() as tx:
            wanted = same_name(name)
            for existing in tx.devices():
                if existing.revoked is None and same_name(existing.name) == wanted:
                    raise DeviceNameTaken(name.strip(), existing.id)
            device_id = tx.add_device(name.strip(), role, table.strip() if table else None, stamp(self._now()))
            code = self._issue_code(tx, device_id)
        return self.device(device_id), code

    @on_writer
    def new_code(self, device_id: int) -> str:
        """A fresh pairing code for a device (a phone replaced); its earlier unused code stops working."""
        with self._write() as tx:
            device = _device_in(tx, device_id)
            if device.revoked is not None:
                raise PairingRefused(f"device {device.name!r} was revoked", "revoked")
            return self._issue_code(tx, device_id)

    def pair(self, code: str) -> tuple[Device, str]:
        """Use a pairing code: the device's new token (only its hash is kept). PairingRefused otherwise.

        Anyone may ask, without a login: an unknown, used or expired code is refused from a read
        view, so a phone typing codes at random never takes the event's write lock, nor
        waits in line with the verdicts. Only a code that may still pair is used up under it
        (checked again there: two phones with one code, one wins)."""
        if not isinstance(code, str):
            raise PairingRefused("this pairing code is not known", "unknown")
        code_hash = credentials.code_hash(code)
        with self._storage.read() as view:
            _usable(view.code(code_hash), self._now())
        return self._use_code(code_hash)

    @on_writer
    def _use_code(self, code_hash: str) -> tuple[Device, str]:
        now = self._now()
        with self._write() as tx:
            device_id = _usable(tx.code(code_hash), now)
            device = _device_in(tx, device_id)
            if device.revoked is not None:
                raise PairingRefused(f"device {device.name!r} was revoked", "revoked")
            token = credentials.new_token()
            tx.set_token(device_id, credentials.token_hash(token), stamp(now))
            tx.use_code(code_hash, stamp(now))
            tx.drop_split(device_id)  # paired again: seen afresh
        return self.device(device_id), token

    def device_by_token(self, token: str) -> Device | None:
        """The device a token was given to (revoked ones too: check `active`), or None."""
        if not isinstance(token, str):
            return None
        return self.device_by_token_hash(credentials.token_hash(token))

    def device_by_token_hash(self, token_hash: str) -> Device | None:
        """The device whose token has this hash (credentials.token_hash), as stored now (revoked
        ones too), or None: one statement, no transaction. What a worker's cache of live devices
        reads on a miss (service.event.live_devices); the write checks that device again
        (record.py, `holder`). Unreadable for a name or table edited into text no row holds."""
        device = self._storage.device_by_token_hash(token_hash)
        return None if device is None else _answerable(device)

    def device(self, device_id: int) -> Device:
        with self._storage.read() as view:
            return _device_in(view, device_id)

    def devices(self) -> list[Device]:
        with self._storage.read() as view:
            return view.devices()

    @on_writer
    def touch(self, contacts: dict[int, str]) -> None:
        """Devices' last requests ({device id: UTC stamp}) as a worker saw them since it last wrote
        them: kept where later than the one stored (another worker's may be), for devices that
        exist. One transaction."""
        with self._write() as tx:
            stored, known = tx.contacts(), {device.id for device in tx.devices()}
            later = {
                device_id: time
                for device_id, time in contacts.items()
                if device_id in known and (device_id not in stored or time > stored[device_id])
            }
            if later:
                tx.put_contacts(later)

    def contacts(self) -> dict[int, str]:
        """Each device's last request as written by `touch` (UTC stamps), by device id. A time
        edited by hand, unreadable or later than now, is left out (no contact known) rather than
        kept: it would keep the device from ever looking silent."""
        now, known = self._now(), {}
        with self._storage.read() as view:
            stored = view.contacts()
        for device_id, time in stored.items():
            try:
                moment = read_stamp(time, f"contacts.time of device {device_id}")
            except Unreadable:
                continue
            if moment <= now:
                known[device_id] = time
        return known

    @on_writer
    def note_split(self, device_id: int, seen: str, served: str, missing: str | None) -> None:
        """A device answered by another file of the event (service.event.witness): the file it had
        seen (`seen`), this one (`served`), and the key of its last verdict when this file lacks it
        (`missing`); its latest note kept, for the console, until it is paired again (for a device
        that exists). One transaction."""
        with self._write() as tx:
            if 0 < device_id <= MAX_NUMBER and tx.device(device_id) is not None:
                tx.put_split(device_id, seen, served, missing, stamp(self._now()))

    def splits(self) -> dict[int, tuple[str, str, str | None, str]]:
        """Each device's latest note_split: (seen, served, missing, time), by device id."""
        with self._storage.read() as view:
            return view.splits()

    @on_writer
    def revoke(self, device_id: int) -> Device:
        """Revoke a device: its token stops working and its unused codes too. Revoking twice is harmless."""
        with self._write() as tx:
            if _device_in(tx, device_id).revoked is None:
                tx.set_revoked(device_id, stamp(self._now()))
            tx.drop_unused_codes(device_id)
        return self.device(device_id)


def _device_in(view: View, device_id: int) -> Device:
    if not 0 < device_id <= MAX_NUMBER:  # no such id (and a store may refuse one past 64 bits)
        raise UnknownDevice(device_id)
    device = view.device(device_id)
    if device is None:
        raise UnknownDevice(device_id)
    return device
