"""The director's login and sessions: the lockout after wrong passwords, and the session tokens
every worker process shares (only their hashes are stored)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from . import credentials
from .connection import SQLiteFile, on_writer, storage_errors
from .model import Login, parse_stamp, stamp

MAX_FAILURES = 5  # wrong director passwords in a row that lock the login...
LOCKOUT = timedelta(minutes=1)  # ...for this long
SESSION_LIFETIME = timedelta(hours=12)  # a director's login lasts a day of play


class DirectorLogins(SQLiteFile):
    """The director's password check and sessions, in the event file."""

    @storage_errors
    def check_password(self, password: str) -> Login:
        """The director's login. Five wrong passwords in a row lock it for a minute.

        An attempt is counted as wrong before the (slow) hash is checked, inside the write lock,
        so however many workers answer at once no more than five passwords a minute are tried.
        """
        if not isinstance(password, str):
            raise ValueError(f"a password is text, not {type(password).__name__}")
        now = self._now()
        counted = self._writer.call(self._count_attempt, now)
        if isinstance(counted, Login):
            return counted
        failures, lock, stored = counted
        ok = self._writer.aside(credentials.password_matches, password, stored)  # slow: outside the lock
        return self._writer.call(self._settle_attempt, now, ok, failures, lock)

    def _count_attempt(self, now: datetime) -> Login | tuple[int, str | None, str]:
        """Count one attempt as wrong (locking the login at the fifth): the count, the lock's end
        and the stored hash to check; or the Login refused because the login is locked."""
        with self._write() as conn:
            failures, locked_until = conn.execute("SELECT failures, locked_until FROM login").fetchone()
            if locked_until is not None and now < parse_stamp(locked_until):
                wait = math.ceil((parse_stamp(locked_until) - now).total_seconds())
                return Login(False, locked=True, retry_after=wait, failures=failures)
            failures += 1
            lock = stamp(now + LOCKOUT) if failures >= MAX_FAILURES else None
            conn.execute("UPDATE login SET failures = ?, locked_until = ?", (0 if lock else failures, lock))
            return failures, lock, conn.execute("SELECT password_hash FROM director").fetchone()[0]

    def _settle_attempt(self, now: datetime, ok: bool, failures: int, lock: str | None) -> Login:
        """Keep the attempt; a right password undoes its count (and the lock it set, not a later one)."""
        with self._write() as conn:
            conn.execute("INSERT INTO login_attempts (time, ok) VALUES (?, ?)", (stamp(now), int(ok)))
            if ok:
                conn.execute("UPDATE login SET failures = 0, locked_until = CASE WHEN locked_until = ? "
                             "THEN NULL ELSE locked_until END", (lock,))
                return Login(True)
        if lock is not None:
            return Login(False, locked=True, retry_after=int(LOCKOUT.total_seconds()), failures=MAX_FAILURES)
        return Login(False, failures=failures)

    @storage_errors
    @on_writer
    def start_session(self) -> str:
        """A new session for the director (after `check_password`): its token; only its hash is kept."""
        token = credentials.new_token()
        now = self._now()
        with self._write() as conn:
            conn.execute("DELETE FROM sessions WHERE expires < ?", (stamp(now),))
            conn.execute("INSERT INTO sessions (token_hash, created, expires) VALUES (?, ?, ?)",
                         (credentials.token_hash(token), stamp(now), stamp(now + SESSION_LIFETIME)))
        return token

    @storage_errors
    def session_active(self, token: str) -> bool:
        if not isinstance(token, str) or not token:
            return False
        row = self._conn().execute("SELECT expires, ended FROM sessions WHERE token_hash = ?",
                                   (credentials.token_hash(token),)).fetchone()
        return row is not None and row[1] is None and self._now() < parse_stamp(row[0])

    @storage_errors
    @on_writer
    def end_session(self, token: str) -> None:
        """Log out: the session's token stops working at once, in every worker."""
        if not isinstance(token, str) or not token:
            return
        with self._write() as conn:
            conn.execute("UPDATE sessions SET ended = ? WHERE token_hash = ? AND ended IS NULL",
                         (stamp(self._now()), credentials.token_hash(token)))
