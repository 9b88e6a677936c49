"""The director's login and sessions: the limits on wrong passwords, the session tokens every
worker process shares (only their hashes are stored), a new password and one-time login links.

Wrong passwords are limited twice (docs/tournament.md, "Threat model"):

- per client address (service.proxies: the socket's, or what a trusted front end vouches for):
  five wrong in a row lock that address for a minute, as one login did before. An address is
  one client however many X-Forwarded-For headers it writes, so it cannot dodge its own limit,
  and its failures lock nobody else out;
- for everyone: at most GLOBAL_FAILURES wrong passwords in any minute (one more than a single
  address can make), so a guesser with many addresses is barely faster than with one. Only
  two or more addresses together can reach it, and only for as long as they keep guessing;
  the laptop's own browser (a loopback address, which nobody in the hall can have) is never
  held by it, so the director at the laptop is never kept out by the network.

Whoever holds the laptop is the director, whatever happens on the network: `lexicon event
password` sets a new password (and ends every session, and every address's count), and
`lexicon event login` makes a login link (`new_login_link`) that works once, for a few minutes,
whatever the limits.
"""

from __future__ import annotations

import ipaddress
import math
from datetime import datetime, timedelta

from . import credentials
from .connection import SQLiteFile, on_writer, storage_errors
from .model import Login, read_stamp, stamp

MAX_FAILURES = 5  # wrong director passwords in a row that lock the login for one address...
LOCKOUT = timedelta(minutes=1)  # ...for this long
GLOBAL_FAILURES = MAX_FAILURES + 1  # wrong passwords a LOCKOUT from all addresses, beyond which none is checked
SESSION_LIFETIME = timedelta(hours=12)  # a director's login lasts a day of play
LINK_LIFETIME = timedelta(minutes=5)  # a login link printed on the laptop, to open at once


def _is_laptop(client: str) -> bool:
    """Whether the login comes from the laptop itself: a loopback address (the service's own
    machine; behind a front end, what a trusted proxy vouches for, so never a hall client)."""
    try:
        return ipaddress.ip_address(client).is_loopback
    except ValueError:
        return False


class DirectorLogins(SQLiteFile):
    """The director's password check and sessions, in the event file."""

    @storage_errors
    def check_password(self, password: str, client: str = "") -> Login:
        """The director's login from `client` (its address). Five wrong passwords in a row lock
        that address for a minute; GLOBAL_FAILURES wrong in a minute from all, every address.

        An attempt is counted as wrong before the (slow) hash is checked, inside the write lock,
        so however many workers answer at once no more passwords than that are tried.
        """
        if not isinstance(password, str):
            raise ValueError(f"a password is text, not {type(password).__name__}")
        if not isinstance(client, str):
            raise ValueError(f"a client address is text, not {type(client).__name__}")
        now = self._now()
        counted = self._writer.call(self._count_attempt, now, client)
        if isinstance(counted, Login):
            return counted
        failures, lock, stored, attempt = counted
        ok = self._writer.aside(credentials.password_matches, password, stored)  # slow: outside the lock
        return self._writer.call(self._settle_attempt, ok, client, failures, lock, attempt)

    def _count_attempt(self, now: datetime, client: str) -> Login | tuple[int, str | None, str, int]:
        """Count one attempt as wrong (locking the address at the fifth): the count, the lock's
        end, the stored hash to check and the attempt's row; or the Login refused while locked."""
        with self._write() as conn:
            found = conn.execute(
                "SELECT failures, locked_until FROM login_clients WHERE client = ?", (client,)
            ).fetchone()
            failures, locked_until = found if found is not None else (0, None)
            until = None if locked_until is None else read_stamp(locked_until, "login_clients.locked_until")
            if until is not None and now < until:
                wait = math.ceil((until - now).total_seconds())
                return Login(False, locked=True, retry_after=wait, failures=failures)
            stored, changed = conn.execute("SELECT password_hash, changed FROM director").fetchone()
            recent = [
                read_stamp(row[0], "login_attempts.time")
                for row in conn.execute(  # a new password starts afresh
                    "SELECT time FROM login_attempts WHERE ok = 0 AND time > ? AND time > ? ORDER BY time",
                    (stamp(now - LOCKOUT), changed),
                )
            ]
            if len(recent) >= GLOBAL_FAILURES and not _is_laptop(client):  # until enough are a minute old
                wait = math.ceil((recent[len(recent) - GLOBAL_FAILURES] + LOCKOUT - now).total_seconds())
                return Login(False, locked=True, retry_after=max(1, wait), failures=failures)
            failures += 1
            lock = stamp(now + LOCKOUT) if failures >= MAX_FAILURES else None
            conn.execute(
                "INSERT INTO login_clients (client, failures, locked_until) VALUES (?, ?, ?) "
                "ON CONFLICT (client) DO UPDATE SET failures = excluded.failures, "
                "locked_until = excluded.locked_until",
                (client, 0 if lock else failures, lock),
            )
            attempt = conn.execute("INSERT INTO login_attempts (time, ok) VALUES (?, 0)", (stamp(now),)).lastrowid
            return failures, lock, stored, attempt

    def _settle_attempt(self, ok: bool, client: str, failures: int, lock: str | None, attempt: int) -> Login:
        """A right password undoes its count (and the lock it set, not a later one)."""
        if ok:
            with self._write() as conn:
                conn.execute("UPDATE login_attempts SET ok = 1 WHERE rowid = ?", (attempt,))
                conn.execute(
                    "UPDATE login_clients SET failures = 0, locked_until = CASE WHEN locked_until = ? "
                    "THEN NULL ELSE locked_until END WHERE client = ?",
                    (lock, client),
                )
            return Login(True)
        if lock is not None:
            return Login(False, locked=True, retry_after=int(LOCKOUT.total_seconds()), failures=MAX_FAILURES)
        return Login(False, failures=failures)

    @storage_errors
    @on_writer
    def set_password(self, password: str) -> None:
        """A new director's password (`lexicon event password`): every session ends, every login
        link not used yet is used up (a link made before the change must not outlive it), every
        address's count of wrong passwords starts again, and so does the minute of all of them."""
        password_hash = credentials.hash_password(password)
        now = stamp(self._now())
        with self._write() as conn:
            conn.execute("UPDATE director SET password_hash = ?, changed = ?", (password_hash, now))
            conn.execute("UPDATE sessions SET ended = ? WHERE ended IS NULL", (now,))
            conn.execute("UPDATE login_links SET used = ? WHERE used IS NULL", (now,))
            conn.execute("DELETE FROM login_clients")

    @storage_errors
    @on_writer
    def new_login_link(self) -> str:
        """A one-time login token (`lexicon event login`), valid for LINK_LIFETIME; only its hash is kept."""
        return self._mint("login_links", LINK_LIFETIME)

    @storage_errors
    @on_writer
    def use_login_link(self, token: str) -> bool:
        """Whether `token` is a login link not used and not expired; it is used up now, whatever follows."""
        if not isinstance(token, str) or not token:
            return False
        now = stamp(self._now())
        with self._write() as conn:
            used = conn.execute(
                "UPDATE login_links SET used = ? WHERE token_hash = ? AND used IS NULL AND expires > ?",
                (now, credentials.token_hash(token), now),
            )
            return used.rowcount == 1

    @storage_errors
    @on_writer
    def start_session(self) -> str:
        """A new session for the director (after `check_password`): its token; only its hash is kept."""
        return self._mint("sessions", SESSION_LIFETIME)

    def _mint(self, table: str, lifetime: timedelta) -> str:
        """A new random token, valid for `lifetime`, of which `table` (login_links or sessions, a
        name from this module, never from a caller) keeps only the hash; its expired rows go."""
        token = credentials.new_token()
        now = self._now()
        with self._write() as conn:
            conn.execute(f"DELETE FROM {table} WHERE expires < ?", (stamp(now),))
            conn.execute(
                f"INSERT INTO {table} (token_hash, created, expires) VALUES (?, ?, ?)",
                (credentials.token_hash(token), stamp(now), stamp(now + lifetime)),
            )
        return token

    def session_active(self, token: str) -> bool:
        return self.session_left(token) is not None

    @storage_errors
    def session_left(self, token: str) -> timedelta | None:
        """How long the director's session `token` has left, or None when it is no live session
        (unknown, ended or expired): the console signs out when it is over, without asking."""
        if not isinstance(token, str) or not token:
            return None
        row = (
            self._conn()
            .execute("SELECT expires, ended FROM sessions WHERE token_hash = ?", (credentials.token_hash(token),))
            .fetchone()
        )
        if row is None or row[1] is not None:
            return None
        left = read_stamp(row[0], "sessions.expires") - self._now()
        return left if left > timedelta(0) else None

    @storage_errors
    @on_writer
    def end_session(self, token: str) -> None:
        """Log out: the session's token stops working at once, in every worker."""
        if not isinstance(token, str) or not token:
            return
        with self._write() as conn:
            conn.execute(
                "UPDATE sessions SET ended = ? WHERE token_hash = ? AND ended IS NULL",
                (stamp(self._now()), credentials.token_hash(token)),
            )
