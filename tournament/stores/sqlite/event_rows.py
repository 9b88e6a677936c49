"""The event's own rows in the event file, and its director's: the event (its lexicon's pin, the
file's identity and marks), the director's password, sessions and login links, and the wrong
passwords counted per client address (the rows of keeper.py, sessions.py and transfer.py).

Its own module because these rows belong to the event and whoever holds the laptop, never to a
device or the record; and because a file of an older schema, read without migrating it, lacks
some of them (the schema versions below), which only these reads have to mind.
"""

from __future__ import annotations

from ...errors import NotAnEvent
from ...model import Event, EventFile, Pin
from ...storage import token_kind

PIN_VERSION = 5  # the schema that pins the event's lexicon (schema.py)
FILE_VERSION = 8  # the schema that gives the file its identity and marks a backup copy (schema.py)
MOVED_VERSION = 11  # the schema that marks a file whose event was moved (schema.py)
LANGUAGE_VERSION = 15  # the schema that keeps the pinned list's language (schema.py)


class EventReads:
    """The View's reads of the event and its director (tables.py's SQLiteView: `conn`, `_one`)."""

    __slots__ = ()

    def copied_beside(self, identity: str) -> tuple[str, bool, str | None] | None:
        return None  # a file holds its one event

    def live_twin(self, name: str, created: str, password_hash: str, source: str | None) -> str | None:
        return None  # a file holds its one event

    def event(self) -> Event:
        row = self._one("SELECT name, lexicon, created FROM event WHERE id = 1")
        if row is None:
            raise NotAnEvent(f"{self.location} has no event")
        version = self._one("PRAGMA user_version")[0]
        pin = None
        if version >= PIN_VERSION:  # an older file, read only, has no pin yet, nor its language before 15
            language = "lexicon_language" if version >= LANGUAGE_VERSION else "NULL"
            found = self._one(
                "SELECT lexicon_id, lexicon_version, lexicon_checksum, lexicon_file, "
                f"lexicon_pinned, lexicon_pinned_by, {language} FROM event WHERE id = 1"
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

    def link(self, token_hash: str) -> tuple[str, str | None] | None:
        return self._one("SELECT expires, used FROM login_links WHERE token_hash = ?", (token_hash,))

    def login_client(self, client: str) -> tuple[int, object] | None:
        return self._one("SELECT failures, locked_until FROM login_clients WHERE client = ?", (client,))

    def failed_attempts(self, after: str) -> list[object]:
        rows = self.conn.execute("SELECT time FROM login_attempts WHERE ok = 0 AND time > ? ORDER BY time", (after,))
        return [time for (time,) in rows]


class EventWrites:
    """The Tx's writes of the event and its director (tables.py's SQLiteTx)."""

    __slots__ = ()

    def set_pin(self, pin: Pin) -> None:
        self.conn.execute(
            "UPDATE event SET lexicon_id = ?, lexicon_version = ?, lexicon_checksum = ?, "
            "lexicon_file = ?, lexicon_pinned = ?, lexicon_pinned_by = ?, lexicon_language = ? WHERE id = 1",
            (pin.id, pin.version, pin.checksum, pin.file, pin.pinned, pin.by, pin.language),
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
            f"INSERT INTO {token_kind(kind)} (token_hash, created, expires) VALUES (?, ?, ?)",
            (token_hash, created, expires),
        )

    def drop_expired(self, kind: str, before: str) -> None:
        self.conn.execute(f"DELETE FROM {token_kind(kind)} WHERE expires < ?", (before,))

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
