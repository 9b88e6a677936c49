"""The event's state in one SQLite file (the standard library's sqlite3): the default store.

Why these settings:

- `journal_mode=WAL`: readers (the console, an export) never block the workers that append,
  and an append is one write to the log, not a rewrite of the database pages.
- `synchronous=FULL`: in WAL mode, NORMAL already survives a killed process (a commit is in the
  log file, in the operating system's cache, before COMMIT returns; SIGKILL cannot lose it) but
  not a power cut, which can undo the last commits before a checkpoint. FULL syncs the log at
  every commit, so a verdict shown is a verdict kept even when the laptop's plug is pulled; it
  costs well under a millisecond on an SSD (`make bench` measures both).
- `busy_timeout` of 10 s and `BEGIN IMMEDIATE` for every write: a writer takes the write lock
  when its transaction starts, so concurrent writers from several gunicorn workers queue on the
  busy handler instead of failing with "database is locked" when a read turns into a write.
- One connection per process and thread, opened on first use: a connection is never carried
  across a fork (gunicorn forks its workers after the app may have opened the store).
- Writers queue on an exclusive `flock` of a lock file beside the event (`EVENT.db-lock`, empty)
  before `BEGIN IMMEDIATE`: a writer waiting in SQLite's busy handler sleeps in steps of up to
  100 ms and may oversleep the lock's release by that much (`make bench`, section event, saw
  p99 of 0.2 to 0.5 s at 16 connections with two workers); a writer waiting on `flock` is woken
  by the kernel the moment the lock is released. `busy_timeout` stays as the safety net (another
  program writing the file, a system without `flock`).
"""

from __future__ import annotations

import functools
import json
import math
import os
import sqlite3
import threading

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: SQLite's busy handler alone
    fcntl = None
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Iterator, Sequence

from . import credentials
from .chain import GENESIS, MalformedRow, canonical_bytes, seal, verify_chain
from .errors import (EventExists, IdempotencyConflict, NotAnEvent, PairingRefused, RateLimited, ReadOnly,
                     RoundError, StorageError, UnknownDevice)
from .model import (FORMAT, ROLES, Break, Clock, Device, Entry, Event, Login, Record, Round,
                    parse_stamp, stamp, utc_now)
from .schema import VERSION, migrate

BUSY_SECONDS = 10.0
SYNCHRONOUS = ("FULL", "NORMAL")
CODE_LIFETIME = timedelta(minutes=10)
MAX_FAILURES = 5  # wrong director passwords in a row that lock the login...
LOCKOUT = timedelta(minutes=1)  # ...for this long
MAX_NAME = 60
SESSION_LIFETIME = timedelta(hours=12)  # a director's login lasts a day of play

_RECORD_COLUMNS = ('seq, time, round, device_id, device_name, role, "table", lexicon_id, lexicon_version, '
                   "lexicon_checksum, notation, words, tiles, valid, prev, hash, format, idempotency_key, "
                   "offline, device_time")
# A file of schema 1 read without migrating it (readonly): the offline fields as schema 2 fills them.
_RECORD_COLUMNS_1 = _RECORD_COLUMNS.replace("idempotency_key, offline, device_time",
                                            "NULL, 0, NULL")
_DEVICE_COLUMNS = 'id, name, role, "table", created, paired, revoked'
_FORKED_AWAY: list[sqlite3.Connection] = []  # connections inherited through fork, never used or closed


class Undecodable(str):
    """Stored text that is not UTF-8 (only an edit by hand makes one): shown with U+FFFD, and
    never read as a field of a record, which must be exactly `str`."""


def _text(data: bytes) -> str:
    """How every connection reads TEXT: a byte edited into invalid UTF-8 must not stop a read."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return Undecodable(data.decode("utf-8", "replace"))


def _json_list(text: object, seq: int, name: str) -> tuple[str, ...]:
    """A stored array of words, which must be in canonical form: any other spelling was an edit."""
    if type(text) is not str:
        raise MalformedRow(seq, f"{name} is not UTF-8 text: {text!r}")
    try:
        value = json.loads(text)
    except ValueError:
        raise MalformedRow(seq, f"{name} is not JSON: {text!r}") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise MalformedRow(seq, f"{name} is not a list of words: {text!r}")
    if canonical_bytes(value).decode("utf-8") != text:
        raise MalformedRow(seq, f"{name} is not written canonically: {text!r}")
    return tuple(value)


def _flag(value: object, seq: int, name: str) -> bool:
    if type(value) is not int or value not in (0, 1):
        raise MalformedRow(seq, f"{name} is {value!r}, not 0 or 1")
    return value == 1


def _typed(value: object, kinds: tuple[type, ...], seq: int, name: str) -> object:
    if isinstance(value, Undecodable):
        raise MalformedRow(seq, f"{name} is not UTF-8 text: {value!r}")
    if type(value) not in kinds:
        raise MalformedRow(seq, f"{name} is {value!r}, of the wrong type")
    return value


def decode_record(row: Sequence[object]) -> Record:
    """A stored row (in _RECORD_COLUMNS order) as a Record, read strictly: MalformedRow otherwise."""
    (seq, time, round_number, device_id, device_name, role, table, lexicon_id, lexicon_version,
     lexicon_checksum, notation, words, tiles, valid, prev, hash_, format_, key, offline, device_time) = row
    if type(seq) is not int:
        raise MalformedRow(-1, f"a row number is {seq!r}")
    text, maybe_text, maybe_int = (str,), (str, type(None)), (int, type(None))
    try:
        entry = Entry(
            lexicon_id=_typed(lexicon_id, text, seq, "lexicon_id"),
            lexicon_version=_typed(lexicon_version, text, seq, "lexicon_version"),
            lexicon_checksum=_typed(lexicon_checksum, text, seq, "lexicon_checksum"),
            notation=_typed(notation, text, seq, "notation"),
            words=_json_list(words, seq, "words"),
            tiles=_json_list(tiles, seq, "tiles"),
            valid=_flag(valid, seq, "valid"),
            device_id=_typed(device_id, maybe_int, seq, "device_id"),
            device_name=_typed(device_name, maybe_text, seq, "device_name"),
            role=_typed(role, maybe_text, seq, "role"),
            table=_typed(table, maybe_text, seq, "table"),
            idempotency_key=_typed(key, maybe_text, seq, "idempotency_key"),
            offline=_flag(offline, seq, "offline"),
            device_time=_typed(device_time, maybe_text, seq, "device_time"),
        )
    except ValueError as error:
        if isinstance(error, MalformedRow):
            raise
        raise MalformedRow(seq, str(error)) from None
    return Record(seq, _typed(time, text, seq, "time"), _typed(round_number, maybe_int, seq, "round"),
                  entry, _typed(prev, text, seq, "prev"), _typed(hash_, text, seq, "hash"),
                  _typed(format_, (int,), seq, "format"))


def _device(row: Sequence[object]) -> Device:
    return Device(*row)


def _round(row: Sequence[object]) -> Round:
    return Round(*row)


def _check_device_fields(name: str, role: str, table: str | None) -> None:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(f"a device's name is 1 to {MAX_NAME} printable characters, not {name!r}")
    if role not in ROLES:
        raise ValueError(f"a device's role is one of {', '.join(ROLES)}, not {role!r}")
    if role == "table" and not (isinstance(table, str) and table.strip() and table.isprintable()):
        raise ValueError(f"a table device needs its table, not {table!r}")
    if role != "table" and table is not None:
        raise ValueError(f"only a table device has a table; a {role} device has none")


def _storage(method):
    """sqlite3's own errors leave a method as StorageError: callers never see the storage's types."""

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as error:
            raise StorageError(f"{self.path}: the event's storage failed ({error})") from error

    return guarded


class SQLiteEventStore:
    """An event's state in one SQLite file, safe for several processes and threads at once.

    `clock` gives the time (UTC, aware): tests inject one to expire codes and locks.
    """

    def __init__(self, path: str | os.PathLike, clock: Clock = utc_now, synchronous: str = "FULL",
                 readonly: bool = False):
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous is one of {SYNCHRONOUS}, not {synchronous!r}")
        self.path = Path(path)
        self._clock = clock
        self._synchronous = synchronous
        self._readonly = readonly
        self._local = threading.local()
        self._writers = threading.Lock()  # the threads of one process, before the file lock
        self._lock_fd: int | None = None
        self._lock_pid = 0
        version = self._probe()
        self._columns = _RECORD_COLUMNS if version >= 2 or not readonly else _RECORD_COLUMNS_1
        if readonly:
            try:
                self.event()
            except (sqlite3.DatabaseError, StorageError) as error:  # @_storage converts sqlite3's
                self.close()
                raise NotAnEvent(f"{self.path} cannot be read ({error})") from None
            return
        try:
            with self._write() as conn:
                if conn.execute("PRAGMA user_version").fetchone()[0] > VERSION:  # since the probe
                    raise NotAnEvent(f"{self.path} has a schema newer than this program's {VERSION}")
                migrate(conn)
            self.event()
        except (sqlite3.DatabaseError, StorageError) as error:
            self.close()
            raise NotAnEvent(f"{self.path} is not an event file ({error})") from None
        except NotAnEvent:
            self.close()
            raise

    def _probe(self) -> int:
        """The file's schema version; NotAnEvent, changing nothing, for a file that is not an event's."""
        if not self.path.is_file():
            raise NotAnEvent(f"{self.path}: no such event file (create it with `lexicon event init`)")
        try:
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                has_event = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event'")
                has_event = has_event.fetchone() is not None
            finally:
                conn.close()
        except sqlite3.DatabaseError as error:
            raise NotAnEvent(f"{self.path} is not an event file ({error})") from None
        if version == 0 or not has_event:
            raise NotAnEvent(f"{self.path} is not an event file (create one with `lexicon event init`)")
        if version > VERSION:
            raise NotAnEvent(f"{self.path} has schema {version}, newer than this program's {VERSION}: "
                             "update Lexicon Judge")
        return version

    # -- connections and transactions ----------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid != os.getpid():
            _FORKED_AWAY.append(conn)  # the parent's: closing it here could drop the parent's locks
            conn = None
        if conn is None:
            uri = f"{self.path.resolve().as_uri()}?mode={'ro' if self._readonly else 'rw'}"
            conn = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None,
                                   check_same_thread=True)
            conn.text_factory = _text
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
            if not self._readonly:
                if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                    raise NotAnEvent(f"{self.path}: cannot use write-ahead logging here")
                conn.execute(f"PRAGMA synchronous = {self._synchronous}")
                conn.execute("PRAGMA foreign_keys = ON")
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def _lock_file(self) -> int | None:
        """This process's descriptor of the lock file (a flock belongs to an open file, so a child
        process opens its own rather than share its parent's)."""
        if fcntl is None:
            return None
        if self._lock_fd is None or self._lock_pid != os.getpid():
            try:
                self._lock_fd = os.open(f"{self.path}-lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError:
                return None  # a folder we cannot write in: SQLite will say so at BEGIN
            self._lock_pid = os.getpid()
        return self._lock_fd

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, holding the write lock from its start (BEGIN IMMEDIATE)."""
        if self._readonly:
            raise ReadOnly(f"{self.path} is open read-only: nothing can be written")
        conn = self._conn()
        with self._writers:
            fd = self._lock_file()
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:  # a failed COMMIT may have rolled back already, or not
                        conn.execute("ROLLBACK")
                    raise
            finally:
                if fd is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every query in it sees the same snapshot."""
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    def close(self) -> None:
        """Close this thread's connection (others close when their thread or process ends)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            conn.close()
        self._local.conn = None
        with self._writers:  # after any write of another thread: its lock is released first
            if self._lock_fd is not None and self._lock_pid == os.getpid():
                os.close(self._lock_fd)
            self._lock_fd = None

    def _now(self):
        return self._clock()

    # -- the event and its director ------------------------------------------------------

    @classmethod
    def create(cls, path: str | os.PathLike, name: str, password: str, lexicon: str | None = None,
               clock: Clock = utc_now, synchronous: str = "FULL") -> SQLiteEventStore:
        """A new event file; EventExists if anything is at `path` already (never overwritten)."""
        path = Path(path)
        if not isinstance(name, str) or not name.strip() or not name.isprintable():
            raise ValueError(f"an event's name is printable text, not {name!r}")
        if lexicon is not None and not (isinstance(lexicon, str) and lexicon.strip() and lexicon.isprintable()):
            raise ValueError(f"an event's lexicon is an id or a language such as 'ca', not {lexicon!r}")
        password_hash = credentials.hash_password(password)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise EventExists(f"{path} already exists: an event's file is never overwritten") from None
        os.close(fd)
        try:
            conn = sqlite3.connect(path, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("BEGIN IMMEDIATE")
                migrate(conn)
                now = stamp(clock())
                conn.execute("INSERT INTO event (id, name, lexicon, created) VALUES (1, ?, ?, ?)",
                             (name.strip(), lexicon, now))
                conn.execute("INSERT INTO director (id, password_hash, changed) VALUES (1, ?, ?)",
                             (password_hash, now))
                conn.execute("INSERT INTO login (id, failures, locked_until) VALUES (1, 0, NULL)")
                conn.execute("COMMIT")
            finally:
                conn.close()
        except BaseException:
            for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                leftover.unlink(missing_ok=True)
            raise
        return cls(path, clock=clock, synchronous=synchronous)

    @_storage
    def event(self) -> Event:
        conn = self._conn()
        row = conn.execute("SELECT name, lexicon, created FROM event WHERE id = 1").fetchone()
        if row is None:
            raise NotAnEvent(f"{self.path} has no event")
        return Event(*row, schema_version=conn.execute("PRAGMA user_version").fetchone()[0])

    @_storage
    def check_password(self, password: str) -> Login:
        """The director's login. Five wrong passwords in a row lock it for a minute.

        An attempt is counted as wrong before the (slow) hash is checked, inside the write lock,
        so however many workers answer at once no more than five passwords a minute are tried.
        """
        if not isinstance(password, str):
            raise ValueError(f"a password is text, not {type(password).__name__}")
        now = self._now()
        with self._write() as conn:
            failures, locked_until = conn.execute("SELECT failures, locked_until FROM login").fetchone()
            if locked_until is not None and now < parse_stamp(locked_until):
                wait = math.ceil((parse_stamp(locked_until) - now).total_seconds())
                return Login(False, locked=True, retry_after=wait, failures=failures)
            failures += 1
            lock = stamp(now + LOCKOUT) if failures >= MAX_FAILURES else None
            conn.execute("UPDATE login SET failures = ?, locked_until = ?", (0 if lock else failures, lock))
            stored = conn.execute("SELECT password_hash FROM director").fetchone()[0]
        ok = credentials.password_matches(password, stored)
        with self._write() as conn:
            conn.execute("INSERT INTO login_attempts (time, ok) VALUES (?, ?)", (stamp(now), int(ok)))
            if ok:
                conn.execute("UPDATE login SET failures = 0, locked_until = CASE WHEN locked_until = ? "
                             "THEN NULL ELSE locked_until END", (lock,))
                return Login(True)
        if lock is not None:
            return Login(False, locked=True, retry_after=int(LOCKOUT.total_seconds()), failures=MAX_FAILURES)
        return Login(False, failures=failures)

    # -- the director's sessions -------------------------------------------------------

    @_storage
    def start_session(self) -> str:
        """A new session for the director (after `check_password`): its token; only its hash is kept."""
        token = credentials.new_token()
        now = self._now()
        with self._write() as conn:
            conn.execute("DELETE FROM sessions WHERE expires < ?", (stamp(now),))
            conn.execute("INSERT INTO sessions (token_hash, created, expires) VALUES (?, ?, ?)",
                         (credentials.token_hash(token), stamp(now), stamp(now + SESSION_LIFETIME)))
        return token

    @_storage
    def session_active(self, token: str) -> bool:
        if not isinstance(token, str) or not token:
            return False
        row = self._conn().execute("SELECT expires, ended FROM sessions WHERE token_hash = ?",
                                   (credentials.token_hash(token),)).fetchone()
        return row is not None and row[1] is None and self._now() < parse_stamp(row[0])

    @_storage
    def end_session(self, token: str) -> None:
        """Log out: the session's token stops working at once, in every worker."""
        if not isinstance(token, str) or not token:
            return
        with self._write() as conn:
            conn.execute("UPDATE sessions SET ended = ? WHERE token_hash = ? AND ended IS NULL",
                         (stamp(self._now()), credentials.token_hash(token)))

    # -- devices -------------------------------------------------------------------------

    def _issue_code(self, conn: sqlite3.Connection, device_id: int) -> str:
        now = self._now()
        code = credentials.new_code()
        conn.execute("DELETE FROM pairing_codes WHERE device_id = ? AND used IS NULL", (device_id,))
        conn.execute("INSERT INTO pairing_codes (code_hash, device_id, created, expires) VALUES (?, ?, ?, ?)",
                     (credentials.code_hash(code), device_id, stamp(now), stamp(now + CODE_LIFETIME)))
        return code

    @_storage
    def add_device(self, name: str, role: str, table: str | None = None) -> tuple[Device, str]:
        """A new device and its pairing code (single use, 10 minutes). The code is not stored."""
        _check_device_fields(name, role, table)
        with self._write() as conn:
            cursor = conn.execute('INSERT INTO devices (name, role, "table", created) VALUES (?, ?, ?, ?)',
                                  (name.strip(), role, table.strip() if table else None, stamp(self._now())))
            code = self._issue_code(conn, cursor.lastrowid)
        return self.device(cursor.lastrowid), code

    @_storage
    def new_code(self, device_id: int) -> str:
        """A fresh pairing code for a device (a phone replaced); its earlier unused code stops working."""
        with self._write() as conn:
            device = self._device_in(conn, device_id)
            if device.revoked is not None:
                raise PairingRefused(f"device {device.name!r} was revoked", "revoked")
            return self._issue_code(conn, device_id)

    @_storage
    def pair(self, code: str) -> tuple[Device, str]:
        """Use a pairing code: the device's new token (only its hash is kept). PairingRefused otherwise."""
        if not isinstance(code, str):
            raise PairingRefused("this pairing code is not known", "unknown")
        now = self._now()
        with self._write() as conn:
            row = conn.execute("SELECT device_id, expires, used FROM pairing_codes WHERE code_hash = ?",
                               (credentials.code_hash(code),)).fetchone()
            if row is None:
                raise PairingRefused("this pairing code is not known", "unknown")
            device_id, expires, used = row
            if used is not None:
                raise PairingRefused("this pairing code was already used", "used")
            if now >= parse_stamp(expires):
                raise PairingRefused("this pairing code has expired (codes last 10 minutes)", "expired")
            device = self._device_in(conn, device_id)
            if device.revoked is not None:
                raise PairingRefused(f"device {device.name!r} was revoked", "revoked")
            token = credentials.new_token()
            conn.execute("UPDATE devices SET token_hash = ?, paired = ? WHERE id = ?",
                         (credentials.token_hash(token), stamp(now), device_id))
            conn.execute("UPDATE pairing_codes SET used = ? WHERE code_hash = ?",
                         (stamp(now), credentials.code_hash(code)))
        return self.device(device_id), token

    @_storage
    def device_by_token(self, token: str) -> Device | None:
        """The device a token was given to (revoked ones too: check `active`), or None."""
        if not isinstance(token, str):
            return None
        row = self._conn().execute(f"SELECT {_DEVICE_COLUMNS} FROM devices WHERE token_hash = ?",
                                   (credentials.token_hash(token),)).fetchone()
        return None if row is None else _device(row)

    def _device_in(self, conn: sqlite3.Connection, device_id: int) -> Device:
        row = conn.execute(f"SELECT {_DEVICE_COLUMNS} FROM devices WHERE id = ?", (device_id,)).fetchone()
        if row is None:
            raise UnknownDevice(device_id)
        return _device(row)

    @_storage
    def device(self, device_id: int) -> Device:
        return self._device_in(self._conn(), device_id)

    @_storage
    def devices(self) -> list[Device]:
        return [_device(r) for r in self._conn().execute(f"SELECT {_DEVICE_COLUMNS} FROM devices ORDER BY id")]

    @_storage
    def revoke(self, device_id: int) -> Device:
        """Revoke a device: its token stops working and its unused codes too. Revoking twice is harmless."""
        with self._write() as conn:
            self._device_in(conn, device_id)
            conn.execute("UPDATE devices SET revoked = COALESCE(revoked, ?) WHERE id = ?",
                         (stamp(self._now()), device_id))
            conn.execute("DELETE FROM pairing_codes WHERE device_id = ? AND used IS NULL", (device_id,))
        return self.device(device_id)

    # -- rounds --------------------------------------------------------------------------

    @_storage
    def open_round(self, number: int | None = None) -> Round:
        """Open round `number` (default: the next one). At most one round is open."""
        if number is not None and (type(number) is not int or number < 1):
            raise ValueError(f"a round's number is a whole number from 1, not {number!r}")
        with self._write() as conn:
            current = conn.execute("SELECT number FROM rounds WHERE closed IS NULL").fetchone()
            if current is not None:
                raise RoundError(f"round {current[0]} is open: close it first")
            if number is None:
                number = conn.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM rounds").fetchone()[0]
            elif conn.execute("SELECT 1 FROM rounds WHERE number = ?", (number,)).fetchone():
                raise RoundError(f"round {number} was already played")
            conn.execute("INSERT INTO rounds (number, opened) VALUES (?, ?)", (number, stamp(self._now())))
        return self.round(number)

    @_storage
    def close_round(self) -> Round:
        """Close the open round, keeping the record's head (number and hash) with it."""
        with self._write() as conn:
            current = conn.execute("SELECT number FROM rounds WHERE closed IS NULL").fetchone()
            if current is None:
                raise RoundError("no round is open")
            head = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
            head_seq, head_hash = head if head else (0, GENESIS)
            conn.execute("UPDATE rounds SET closed = ?, head_seq = ?, head_hash = ? WHERE number = ?",
                         (stamp(self._now()), head_seq, head_hash, current[0]))
        return self.round(current[0])

    @_storage
    def round(self, number: int) -> Round | None:
        row = self._conn().execute("SELECT * FROM rounds WHERE number = ?", (number,)).fetchone()
        return None if row is None else _round(row)

    @_storage
    def current_round(self) -> Round | None:
        row = self._conn().execute("SELECT * FROM rounds WHERE closed IS NULL").fetchone()
        return None if row is None else _round(row)

    @_storage
    def rounds(self) -> list[Round]:
        return [_round(r) for r in self._conn().execute("SELECT * FROM rounds ORDER BY number")]

    # -- the record ----------------------------------------------------------------------

    def append(self, entry: Entry, min_gap: float = 0) -> Record:
        """Record one verdict, durably, before the answer leaves; its row (with `seq` for the slip)."""
        return self.append_many([entry], min_gap)[0]

    @_storage
    def append_many(self, entries: Sequence[Entry], min_gap: float = 0) -> list[Record]:
        """Record a batch, one row per play, in one transaction: all rows or none.

        The time and the round are read inside the write lock, so they follow the row numbers.
        An entry whose idempotency key is already recorded is not written again: its existing
        row is returned (IdempotencyConflict if that row says something else).

        `min_gap` (seconds) is a device's rate limit: RateLimited, and nothing written, when its
        last row is more recent than that. It is read inside the write lock, so several worker
        processes cannot let two challenges through together.
        """
        for entry in entries:
            if not isinstance(entry, Entry):
                raise TypeError(f"an entry to record, not {entry!r}")
        with self._write() as conn:
            moment = self._now()
            now = stamp(moment)
            device_id = entries[0].device_id if entries else None
            if min_gap > 0 and device_id is not None and not self._replays(conn, entries):
                last = conn.execute("SELECT time FROM records WHERE device_id = ? ORDER BY seq DESC LIMIT 1",
                                    (device_id,)).fetchone()
                if last is not None:
                    waited = (moment - parse_stamp(last[0])).total_seconds()
                    if waited < min_gap:
                        raise RateLimited(max(1, math.ceil(min_gap - waited)))
            head = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
            seq, prev = head if head else (0, GENESIS)
            current = conn.execute("SELECT number FROM rounds WHERE closed IS NULL").fetchone()
            round_number = current[0] if current else None
            done = []
            for entry in entries:
                if entry.idempotency_key is not None:
                    row = conn.execute(f"SELECT {_RECORD_COLUMNS} FROM records WHERE idempotency_key = ?",
                                       (entry.idempotency_key,)).fetchone()
                    if row is not None:
                        existing = decode_record(row)
                        if existing.entry != entry:
                            raise IdempotencyConflict(entry.idempotency_key, existing.seq)
                        done.append(existing)
                        continue
                seq += 1
                record = seal(seq, now, round_number, entry, prev, FORMAT)
                conn.execute(f"INSERT INTO records ({_RECORD_COLUMNS}) VALUES ({', '.join('?' * 20)})",
                             _row_of(record))
                prev = record.hash
                done.append(record)
        return done

    @staticmethod
    def _replays(conn: sqlite3.Connection, entries: Sequence[Entry]) -> bool:
        """Whether every entry is one recorded already (an offline queue sent again): no new challenge."""
        keys = [e.idempotency_key for e in entries]
        if not keys or None in keys:
            return False
        return all(conn.execute("SELECT 1 FROM records WHERE idempotency_key = ?", (k,)).fetchone() for k in keys)

    @_storage
    def record(self, seq: int) -> Record | None:
        row = self._conn().execute(f"SELECT {self._columns} FROM records WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else decode_record(row)

    @_storage
    def records(self, round: int | None = None, table: str | None = None,
                device_id: int | None = None) -> Iterator[Record]:
        """The record in order, filtered by round, table and device (None: any)."""
        where, args = [], []
        for column, value in (("round", round), ('"table"', table), ("device_id", device_id)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = f"SELECT {self._columns} FROM records"
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._read() as conn:
            rows = conn.execute(sql + " ORDER BY seq", args).fetchall()
        return (decode_record(row) for row in rows)  # read now; a row edited into nonsense raises when reached

    @_storage
    def counts(self, round: int | None) -> dict[int | None, int]:
        """Challenges per device in one round, or outside rounds (None); the key None: without a device."""
        rows = self._conn().execute("SELECT device_id, COUNT(*) FROM records WHERE round IS ? GROUP BY device_id",
                                    (round,))
        return dict(rows.fetchall())

    @_storage
    def verify(self) -> Break | None:
        """The first row that does not chain (or contradicts a closed round's head), or None."""
        with self._read() as conn:
            rows = conn.execute(f"SELECT {self._columns} FROM records ORDER BY seq").fetchall()
            anchors = conn.execute("SELECT number, head_seq, head_hash FROM rounds "
                                   "WHERE closed IS NOT NULL AND head_seq > 0 ORDER BY number").fetchall()
        return verify_chain((decode_record(row) for row in rows), anchors)


def _row_of(record: Record) -> tuple[object, ...]:
    e = record.entry
    return (record.seq, record.time, record.round, e.device_id, e.device_name, e.role, e.table, e.lexicon_id,
            e.lexicon_version, e.lexicon_checksum, e.notation, canonical_bytes(list(e.words)).decode("utf-8"),
            canonical_bytes(list(e.tiles)).decode("utf-8"), int(e.valid), record.prev, record.hash,
            record.format, e.idempotency_key, int(e.offline), e.device_time)


__all__ = ["SQLiteEventStore", "EventExists", "decode_record"]
