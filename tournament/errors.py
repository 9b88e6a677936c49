"""What the event's storage refuses, each a sentence a director understands.

The HTTP layer turns these into problem+json and the CLI into exit codes; the store never
prints. `str(error)` is complete; attributes carry the detail a caller needs.
"""

from __future__ import annotations

from lexicon.errors import SHOWN, cut


class TournamentError(Exception):
    """Base of every error the event's storage raises on purpose."""


class NotAnEvent(TournamentError):
    """The file is missing, is not SQLite, or is not an event's state file."""


class EventExists(TournamentError):
    """`event init` never overwrites: an event's record is evidence."""


class PairingRefused(TournamentError):
    """A pairing code that is unknown, used, expired, or for a revoked device.

    `reason` is one of 'unknown', 'used', 'expired', 'revoked'; a page may show one message for
    all of them so that a guesser learns nothing.
    """

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


class StorageError(TournamentError):
    """The storage could not do it (disk full, the write lock held beyond the busy timeout, a
    damaged file): nothing was written, and the HTTP layer answers 503, never a verdict."""


class Unreadable(TournamentError):
    """A value stored in the event file that this service cannot read back (an edit by hand, as
    `sqlite3 event.db "update ..."`): what depends on it is refused, never guessed. `where` names
    the table, column and row, never the value (a row's value may be a word of a play)."""

    def __init__(self, where: str):
        super().__init__(f"{where} in the event file cannot be read back: it was edited by hand")
        self.where = where


class TableMissing(Unreadable):
    """A table device stored without its table (none, or one edited blank): each of its rows must
    carry its table, so it is refused, never answered with rows of no table. Nothing reads it back
    wrong, so unlike other edits no `records verify` mends it: the director revokes the device in
    the console and adds it again with its table (a device's table is set once, when it is added)."""

    def __init__(self, device_id: int):
        super().__init__(f"devices.table of device {device_id}")
        self.device_id = device_id


class EventMoved(StorageError):
    """The event was moved (`lexicon event move`) to another file or database: this copy of it is
    kept as it was and records nothing more (no verdict, pairing, round or session). `moved`: when;
    `to`: the identity of the event's live copy now (16 hex digits, as /readyz shows it), never its
    location (a database's URL names a host and a user)."""

    def __init__(self, location: str, moved: str, to: str):
        super().__init__(
            f"{location}: the event was moved at {moved} (its live copy is now file {to}): nothing more is "
            "recorded here; serve the event where it was moved"
        )
        self.moved = moved
        self.to = to


class DiskFailed(StorageError):
    """The disk failed a write or a sync of the event's file (a failed fsync, an I/O error), so a
    verdict may not be on disk: the store refuses every write and read until the service restarts
    and opens the file as it is on disk. Asking again cannot help, unlike LockBusy or a database
    away; a judge's phone judges offline meanwhile, and the director restarts the service."""


class FileDamaged(DiskFailed):
    """The event's file is damaged (truncated, or bytes overwritten: SQLite finds its pages
    malformed), found by a read or by the check a write makes when the files changed outside the
    service: nothing more is written or read from it here, as after a disk that failed. A restart
    does not mend it; the director restores the event from its last backup (docs/operations.md,
    "A damaged event file")."""


class LockBusy(StorageError):
    """The event's write lock held elsewhere for longer than the bound (storage.BUSY_SECONDS):
    the file is busy, not damaged; the same write later may succeed."""


class ReadOnly(TournamentError):
    """A write to an event opened read-only (to verify or export it without changing the file)."""


class RoundError(TournamentError):
    """Opening a round while one is open, a number already played, closing when none is open."""


class LastKeyMissing(TournamentError):
    """A device says its last recorded verdict had this idempotency key, and this event's record,
    read inside the write lock, does not hold it: another copy of the event's file recorded it (a
    copy served beside this one, or this one an older copy). Nothing was recorded."""

    def __init__(self, key: str):
        super().__init__(f"the record holds no verdict of idempotency key {key!r}, the device's last")
        self.key = key


class RoundRefused(TournamentError):
    """A verdict whose caller may be answered only in or only between rounds, and the round read
    inside the write lock (the one the row would carry) says otherwise: nothing was recorded.

    `current` is the open round's number then, or None when none was open."""

    def __init__(self, current: int | None):
        super().__init__("no round is open" if current is None else f"round {current} is open")
        self.current = current


class DeviceGone(TournamentError):
    """A verdict whose device, read by its token before the write (from a worker's cache of live
    devices), no longer holds that token, as the write reads it inside the write lock: revoked
    (`revoked` True), or paired again or gone (False: the token is no device's). Nothing was
    recorded."""

    def __init__(self, device_id: int, revoked: bool):
        super().__init__(
            f"device {device_id} was revoked" if revoked else f"the token of device {device_id} is no longer its own"
        )
        self.device_id = device_id
        self.revoked = revoked


class UnknownDevice(TournamentError):
    def __init__(self, device_id: object):
        super().__init__(f"there is no device {device_id!r}")
        self.device_id = device_id


class DeviceFieldRefused(TournamentError, ValueError):
    """A device's name, role or table that cannot be (`field`: which of the three), so that whoever
    typed it is pointed at that field: the console marks it, as it marks a name taken."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


class DeviceNameTaken(TournamentError):
    """A name already held by a device of the event that is not revoked (compared without case and
    surrounding spaces): the record's "device" column and the console's list must tell devices
    apart. `existing` is that device's id: its new code pairs a replacement phone."""

    def __init__(self, name: str, existing: int):
        super().__init__(
            f"a device named {name!r} is already in this event: choose another name, give the existing one "
            "a new code to pair a replacement phone, or revoke it first"
        )
        self.name = name
        self.existing = existing


class IdempotencyConflict(TournamentError):
    """The same idempotency key sent with a different verdict: the first one stands.

    `seq` is the first row's number when it is the sender's own (the same device); None when
    it is someone else's, of which a refusal says nothing, not even its number."""

    def __init__(self, key: str, seq: int | None):
        where = "" if seq is None else f" for record {seq}"
        super().__init__(
            f"idempotency key {key!r} was already used{where}, with other contents: a new verdict needs a new key"
        )
        self.key = key
        self.seq = seq


class OfflineRefused(TournamentError):
    """An offline verdict the record refused (refused_offline.py's reasons: `reason`), noted for
    the director's console: nothing recorded.

    `seq`: the row the record holds for the same play under the same key, recorded online for the
    same device (its phone gave up waiting for that answer and judged itself): a verdict the
    players may not have been shown (the phone showed another, or judged with another list), which
    the refusal names to that device; None otherwise."""

    def __init__(self, reason: str, seq: int | None = None):
        held = "" if seq is None else f"; record {seq} holds the play as judged online"
        super().__init__(f"an offline verdict refused ({reason}): nothing is recorded{held}")
        self.reason = reason
        self.seq = seq


class RateLimited(TournamentError):
    """A device asked again sooner than its role allows: nothing was recorded, no verdict given."""

    def __init__(self, retry_after: int):
        super().__init__(f"one challenge at a time: ask again in {retry_after} s")
        self.retry_after = retry_after


def shown(value: object) -> str:
    """A bad value quoted for a message: its repr, cut past SHOWN characters with its length said,
    so that an edited field of a hundred thousand characters gives a sentence, not a page.

    >>> shown("[1]")
    "'[1]'"
    >>> shown("x" * 1000)[-30:]
    'xxxxxxxxxx… (1,000 characters)'
    """
    quoted = repr(value)
    if isinstance(value, bytes):
        return cut(quoted, len(value), "bytes")
    if isinstance(value, str):
        return cut(quoted, len(value))
    return quoted if len(quoted) <= SHOWN else f"{quoted[:SHOWN]}…"
