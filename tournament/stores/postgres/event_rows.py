"""One event's own rows in the database, and its director's: the event (its lexicon's pin, its
identity and marks), the director's password, sessions and login links, and the wrong passwords
counted per client address (the rows of keeper.py, sessions.py and transfer.py).

Its own module because these rows belong to the event and its director, never to a device or the
record. Every statement names the event (`event_id`, given first by tables.py's `_one`, `_all`
and `_do`); the event's row is `events`' own, so its statements name it by `id`.
"""

from __future__ import annotations

from ...errors import NotAnEvent
from ...model import Event, EventFile, Pin
from ...storage import token_kind
from .schema import VERSION


class EventReads:
    """The View's reads of the event and its director (tables.py's PostgresView: `conn`,
    `event_id`, `_one`, `_all`)."""

    def event(self) -> Event:
        row = self._one(
            "SELECT name, lexicon, created, lexicon_id, lexicon_version, lexicon_checksum, lexicon_file, "
            "lexicon_pinned, lexicon_pinned_by, lexicon_language, identity, copy_of, copied, restored_from, moved, "
            "moved_to FROM events WHERE id = %s"
        )
        if row is None:
            raise NotAnEvent(f"{self.location}: no such event in the database (create it with `lexicon event init`)")
        pin = None if row[5] is None else Pin(*row[3:10])
        return Event(*row[:3], schema_version=VERSION, pin=pin, file=EventFile(*row[10:16]))

    def moved(self) -> tuple[str, str] | None:
        """When the event was moved and to which identity; None: it was not."""
        found = self._one("SELECT moved, moved_to FROM events WHERE id = %s AND moved IS NOT NULL")
        return None if found is None else (found[0], found[1])

    def copied_beside(self, identity: str) -> tuple[str, bool, str | None] | None:
        return self.conn.execute(
            "SELECT id, identity = %s, moved FROM events WHERE id <> %s AND (identity = %s OR restored_from = %s) "
            "ORDER BY id LIMIT 1",
            (identity, self.event_id, identity, identity),
        ).fetchone()

    def live_twin(self, name: str, created: str, password_hash: str, source: str | None) -> str | None:
        found = self.conn.execute(
            "SELECT events.id FROM events JOIN directors ON directors.event_id = events.id "
            "WHERE events.id <> %s AND events.moved IS NULL AND events.name = %s AND events.created = %s "
            "AND directors.password_hash = %s AND events.identity IS DISTINCT FROM %s ORDER BY events.id LIMIT 1",
            (self.event_id, name, created, password_hash, source),
        ).fetchone()
        return None if found is None else found[0]

    def session(self, token_hash: str) -> tuple[str, str | None] | None:
        return self._one("SELECT expires, ended FROM sessions WHERE event_id = %s AND token_hash = %s", (token_hash,))

    def director(self) -> tuple[str, str]:
        return self._one("SELECT password_hash, changed FROM directors WHERE event_id = %s")

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


class EventWrites:
    """The Tx's writes of the event and its director (tables.py's PostgresTx)."""

    def set_pin(self, pin: Pin) -> None:
        self.conn.execute(
            "UPDATE events SET lexicon_id = %s, lexicon_version = %s, lexicon_checksum = %s, "
            "lexicon_file = %s, lexicon_pinned = %s, lexicon_pinned_by = %s, lexicon_language = %s WHERE id = %s",
            (pin.id, pin.version, pin.checksum, pin.file, pin.pinned, pin.by, pin.language, self.event_id),
        )

    def set_moved(self, moved: str, to: str) -> None:
        self.conn.execute("UPDATE events SET moved = %s, moved_to = %s WHERE id = %s", (moved, to, self.event_id))

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
            f"INSERT INTO {token_kind(kind)} (event_id, token_hash, created, expires) VALUES (%s, %s, %s, %s)",
            (token_hash, created, expires),
        )

    def drop_expired(self, kind: str, before: str) -> None:
        self._do(f"DELETE FROM {token_kind(kind)} WHERE event_id = %s AND expires < %s", (before,))

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
