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

Every count and lock is decided here, inside the store's write lock; the store only keeps the
rows (storage.py).
"""

from __future__ import annotations

import ipaddress
import math
from datetime import datetime, timedelta

from . import credentials
from .errors import StorageError
from .keeper import Keeper, on_writer
from .model import Login
from .stamps import read_stamp, stamp
from .storage import TokenKind, View

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


def _held(view: View, now: datetime, client: str) -> tuple[Login | None, int, str]:
    """Whether `client`'s login is held now, as `view` reads it: (the Login refused while its
    address is locked, or while GLOBAL_FAILURES wrong passwords from all addresses are less than a
    minute old, but for the laptop's own; else None), its wrong passwords in a row, the stored hash."""
    failures, locked_until = view.login_client(client) or (0, None)
    until = None if locked_until is None else read_stamp(locked_until, "login_clients.locked_until")
    if until is not None and now < until:
        wait = math.ceil((until - now).total_seconds())
        return Login(False, locked=True, retry_after=wait, failures=failures), failures, ""
    stored, changed = view.director()
    recent = [  # a new password starts afresh
        read_stamp(time, "login_attempts.time") for time in view.failed_attempts(max(stamp(now - LOCKOUT), changed))
    ]
    if len(recent) >= GLOBAL_FAILURES and not _is_laptop(client):  # until enough are a minute old
        wait = math.ceil((recent[len(recent) - GLOBAL_FAILURES] + LOCKOUT - now).total_seconds())
        return Login(False, locked=True, retry_after=max(1, wait), failures=failures), failures, ""
    return None, failures, stored


def _usable_link(link: tuple[str, str | None] | None, now: datetime) -> bool:
    """Whether a login link row (expires, used) signs in at `now`: known, not used, not expired.
    Its expiry read as any stored time (read_stamp): one edited by hand is Unreadable (409), never
    compared as text, where '5' or 'zz' came after every date and signed in forever."""
    return link is not None and link[1] is None and read_stamp(link[0], "login_links.expires") > now


class DirectorLogins(Keeper):
    """The director's password check and sessions: the rules, over the store's rows (storage.py)."""

    def check_password(self, password: str, client: str = "") -> Login:
        """The director's login from `client` (its address). Five wrong passwords in a row lock
        that address for a minute; GLOBAL_FAILURES wrong in a minute from all, every address.

        An attempt is counted as wrong before the (slow) hash is checked, inside the write lock,
        so however many workers answer at once no more passwords than that are tried. A try while
        the login is held is refused from a read: nothing limits how often one comes, and it never
        takes the write lock the verdicts wait for.
        """
        if not isinstance(password, str):
            raise ValueError(f"a password is text, not {type(password).__name__}")
        if not isinstance(client, str):
            raise ValueError(f"a client address is text, not {type(client).__name__}")
        now = self._now()
        try:
            with self._storage.read() as view:  # held: refused from a read, never taking the write lock
                held = _held(view, now, client)[0]
        except StorageError:  # the write below says why (a file open read-only, of an older schema; the store away)
            held = None
        if held is not None:
            return held
        counted = self._writer.call(self._count_attempt, now, client)
        if isinstance(counted, Login):
            return counted
        failures, lock, stored, attempt = counted
        ok = self._writer.aside(credentials.password_matches, password, stored)  # slow: outside the lock
        return self._writer.call(self._settle_attempt, ok, client, failures, lock, attempt)

    def _count_attempt(self, now: datetime, client: str) -> Login | tuple[int, str | None, str, int]:
        """Count one attempt as wrong (locking the address at the fifth): the count, the lock's
        end, the stored hash to check and the attempt's row; or the Login refused while locked."""
        with self._write() as tx:
            held, failures, stored = _held(tx, now, client)  # again, in the lock: another may have counted since
            if held is not None:
                return held
            failures += 1
            lock = stamp(now + LOCKOUT) if failures >= MAX_FAILURES else None
            tx.put_login_client(client, 0 if lock else failures, lock)
            attempt = tx.add_attempt(stamp(now))
            return failures, lock, stored, attempt

    def _settle_attempt(self, ok: bool, client: str, failures: int, lock: str | None, attempt: int) -> Login:
        """A right password undoes its count (and the lock it set, not a later one)."""
        if ok:
            with self._write() as tx:
                tx.attempt_ok(attempt)
                found = tx.login_client(client)
                if found is not None:
                    tx.put_login_client(client, 0, None if found[1] == lock else found[1])
            return Login(True)
        if lock is not None:
            return Login(False, locked=True, retry_after=int(LOCKOUT.total_seconds()), failures=MAX_FAILURES)
        return Login(False, failures=failures)

    @on_writer
    def set_password(self, password: str) -> None:
        """A new director's password (`lexicon event password`): every session ends, every login
        link not used yet is used up (a link made before the change must not outlive it), every
        address's count of wrong passwords starts again, and so does the minute of all of them."""
        password_hash = credentials.hash_password(password)
        now = stamp(self._now())
        with self._write() as tx:
            tx.set_director(password_hash, now)
            tx.end_sessions(now)
            tx.use_up_links(now)
            tx.forget_login_clients()

    @on_writer
    def new_login_link(self) -> str:
        """A one-time login token (`lexicon event login`), valid for LINK_LIFETIME; only its hash is kept."""
        return self._mint("login_links", LINK_LIFETIME)

    def use_login_link(self, token: str) -> bool:
        """Whether `token` is a login link not used and not expired; it is used up now, whatever follows.

        Anyone may ask, as often as they like: an unknown, used or expired link is refused from a
        read view, so made-up links never take the event's write lock, nor wait in line with the
        verdicts. Only a link that may still sign in is used up under it (checked again there:
        two tabs with one link, one wins)."""
        if not isinstance(token, str) or not token:
            return False
        token_hash = credentials.token_hash(token)
        try:
            with self._storage.read() as view:
                if not _usable_link(view.link(token_hash), self._now()):
                    return False
        except StorageError:  # the write says why (a file open read-only, of an older schema; the store away)
            pass
        return self._use_link(token_hash)

    @on_writer
    def _use_link(self, token_hash: str) -> bool:
        now = self._now()
        with self._write() as tx:
            if not _usable_link(tx.link(token_hash), now):
                return False
            tx.use_link(token_hash, stamp(now))
            return True

    @on_writer
    def start_session(self) -> str:
        """A new session for the director (after `check_password`): its token; only its hash is kept."""
        return self._mint("sessions", SESSION_LIFETIME)

    def _mint(self, kind: TokenKind, lifetime: timedelta) -> str:
        """A new random token, valid for `lifetime`, of which the store keeps only the hash (a
        session or a login link: `kind`); the expired ones of its kind go."""
        token = credentials.new_token()
        now = self._now()
        with self._write() as tx:
            tx.drop_expired(kind, stamp(now))
            tx.add_token(kind, credentials.token_hash(token), stamp(now), stamp(now + lifetime))
        return token

    def session_active(self, token: str) -> bool:
        return self.session_left(token) is not None

    def session_left(self, token: str) -> timedelta | None:
        """How long the director's session `token` has left, or None when it is no live session
        (unknown, ended or expired): the console signs out when it is over, without asking."""
        if not isinstance(token, str) or not token:
            return None
        with self._storage.read() as view:
            row = view.session(credentials.token_hash(token))
        if row is None or row[1] is not None:
            return None
        left = read_stamp(row[0], "sessions.expires") - self._now()
        return left if left > timedelta(0) else None

    def end_session(self, token: str) -> None:
        """Log out: the session's token stops working at once, in every worker. Anyone may ask,
        with any token, as often as they like: a token that is no live session is let go from a
        read, never taking the event's write lock the verdicts wait for."""
        if not isinstance(token, str) or not token:
            return
        token_hash = credentials.token_hash(token)
        try:
            with self._storage.read() as view:
                row = view.session(token_hash)
            if row is None or row[1] is not None:  # unknown, or ended already
                return
        except StorageError:  # the write says why (a file open read-only; the store away)
            pass
        self._end_session(token_hash)

    @on_writer
    def _end_session(self, token_hash: str) -> None:
        with self._write() as tx:
            tx.end_session(token_hash, stamp(self._now()))
