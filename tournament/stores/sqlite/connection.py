"""The event's SQLite file, the default store: its connections, its write lock and its transactions.

`SQLiteStorage` is storage.Storage (tournament/storage.py) for one file on one machine, safe for
several worker processes and threads at once; the rules are the domain's, which calls it. Its
row operations are tables.py's (each concept's in a module of its own, *_rows.py); what only
SQLite has stays here and beside it: the schema and its migrations (schema.py), the verification
of the file while the service runs (verification.py: its data_version, the append-only triggers
and the rows' fingerprints) and the file's identity (identity.py).

Why these settings:

- `journal_mode=WAL` and `synchronous=FULL`, and a disk that fails a write: durability.py.
- `busy_timeout` of BUSY_SECONDS (5 s) and `BEGIN IMMEDIATE` for every write: a writer takes the write lock
  when its transaction starts, so concurrent writers from several gunicorn workers queue on the
  busy handler instead of failing with "database is locked" when a read turns into a write.
- One connection per process and thread, opened on first use: a connection is never carried
  across a fork (gunicorn forks its workers after the app may have opened the store).
- Writers queue on an exclusive `flock` of a lock file beside the event before `BEGIN
  IMMEDIATE`, tried until BUSY_SECONDS have passed: write_lock.py.
- Every write first checks, inside the lock, that the file at the event's path is still the one
  opened at start (device and inode). SQLite writes to the file it opened: deleted, or with
  another moved over it, every row would go where nobody reads it and be lost when the service
  stops, while the judge is told the verdict is recorded. Such a write fails (StorageError: no
  verdict is given, the judge is asked to try again) until the file is back at its path, or a
  `lexicon reload` opens the one there now.
- In a gevent worker every write runs in the event's writer thread (tournament/writer.py, used by
  the domain), and the verdicts waiting at one moment share one transaction and one fsync: waiting
  for the lock, the busy handler or the fsync never stops the worker's other connections.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import astuple
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from ...errors import DiskFailed, EventExists, FileDamaged, LockBusy, NotAnEvent, ReadOnly, StorageError
from ...integrity import ChainState
from ...model import Device, NewEvent, Round
from ...rows import RECORD_COLUMNS
from ...storage import BUSY_SECONDS
from . import damage, durability, outside, write_lock
from .durability import SYNCHRONOUS
from .progress import Verification
from .record_rows import RECORD_COLUMNS_OF
from .schema import VERSION, migrate
from .tables import SQLiteTx, SQLiteView, text_factory
from .verification import chain_state

T = TypeVar("T")
_FORKED_AWAY: list[sqlite3.Connection] = []  # connections inherited through fork, never used or closed


class _Reading:
    """SQLiteStorage.read: BEGIN on this thread's connection, a view of it, COMMIT at the end;
    sqlite3's errors leave as StorageError."""

    __slots__ = ("conn", "storage")

    def __init__(self, storage: SQLiteStorage):
        self.storage = storage

    def __enter__(self) -> SQLiteView:
        storage = self.storage
        if storage._failed is not None:
            raise storage._failure()
        try:
            self.conn = storage._conn()
            self.conn.execute("BEGIN")
        except sqlite3.Error as error:
            raise storage._storage_error(error) from error
        return SQLiteView(self.conn, storage.location, storage._columns)

    def __exit__(self, kind, error, traceback) -> None:
        try:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")
        except sqlite3.Error as failed:
            if error is None:
                raise self.storage._storage_error(failed) from failed
        if isinstance(error, sqlite3.Error):
            raise self.storage._storage_error(error) from error


class SQLiteStorage:
    """One event file, safe for several processes and threads at once: storage.Storage.

    `synchronous`: FULL or NORMAL (see the module's docstring); `readonly`: nothing is written,
    not even a migration, and `write` raises ReadOnly.
    """

    def __init__(self, path: str | os.PathLike, synchronous: str = "FULL", readonly: bool = False):
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous is one of {SYNCHRONOUS}, not {synchronous!r}")
        self.path = Path(path)
        self.location = str(self.path)  # storage.Storage.location
        self._synchronous = synchronous
        self._failed: str | None = None  # why nothing more is written or read (`_fail_on`)
        self._failed_as: type[DiskFailed] = DiskFailed  # FileDamaged when the file was found damaged
        self._whole_at: tuple[int, ...] | None = None  # the files as last found whole by damage.check
        self._readonly = readonly
        self._local = threading.local()
        self._writers = threading.Lock()  # the threads of one process, before the file lock
        self._lock_fd: int | None = None
        self._lock_pid = 0
        version = self._probe()
        self._identity: tuple[int, int] | None = None  # the file's, once SQLite has opened it to write
        self._columns = RECORD_COLUMNS if not readonly else RECORD_COLUMNS_OF.get(version, RECORD_COLUMNS)
        if readonly:
            try:
                self._event()
            except (sqlite3.DatabaseError, StorageError) as error:  # read() converts sqlite3's
                self.close()
                raise NotAnEvent(f"{self.path} cannot be read ({error})") from None
            return
        try:
            with self._write() as conn:
                if conn.execute("PRAGMA user_version").fetchone()[0] > VERSION:  # since the probe
                    raise NotAnEvent(f"{self.path} has a schema newer than this program's {VERSION}")
                migrate(conn)
            self._event()
        except LockBusy:  # a file busy elsewhere, not a file that is no event's
            self.close()
            raise
        except FileDamaged as error:  # its own sentence: what to do with it
            self.close()
            raise NotAnEvent(str(error)) from None
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
            said = damage.damaged(self.path, error, malformed_only=True)  # a file of other bytes is no event's
            raise NotAnEvent(said or f"{self.path} is not an event file ({error})") from None
        if version == 0 or not has_event:
            raise NotAnEvent(f"{self.path} is not an event file (create one with `lexicon event init`)")
        if version > VERSION:
            raise NotAnEvent(
                f"{self.path} has schema {version}, newer than this program's {VERSION}: update Lexicon Judge"
            )
        return version

    def _file_identity(self) -> tuple[int, int] | None:
        """The device and inode of the file at the event's path now; None when there is none."""
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            return None
        return status.st_dev, status.st_ino

    def replaced(self) -> bool:
        """Whether the file at the event's path is no longer the one this store opened (deleted,
        moved, or another moved over it): every write refuses then (`_write`), so no verdict is
        given, and /readyz and the console say so rather than call the record intact."""
        return self._identity is not None and self._file_identity() != self._identity

    def outside_note(self) -> tuple[outside.Note | None, tuple[int, ...]] | None:
        """The note of the service's last write (outside.py) and the files now; None when this
        store cannot keep one (read-only, no lock file)."""
        fd = None if self._readonly else self._lock_file()
        if fd is None:
            return None
        return outside.read(fd), outside.signature(self.path)

    def noted(self, change) -> bool:
        """Run `change(fd)` on the note while holding the lock file (outside.py's `edited`,
        `settle`): whether it could be."""
        fd = None if self._readonly else self._lock_file()
        if fd is None:
            return False
        with self._writers:
            write_lock.take(fd, self.path, BUSY_SECONDS)
            try:
                return change(fd) is not False
            finally:
                write_lock.release(fd)

    # -- connections and transactions ----------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid != os.getpid():
            _FORKED_AWAY.append(conn)  # the parent's: closing it here could drop the parent's locks
            conn = None
        if conn is None:
            uri = f"{self.path.resolve().as_uri()}?mode={'ro' if self._readonly else 'rw'}"
            conn = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=True)
            try:
                conn.text_factory = text_factory
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
                if not self._readonly:
                    durability.set_up(conn, self.path, self._synchronous, BUSY_SECONDS)
                    conn.execute("PRAGMA foreign_keys = ON")
            except BaseException:  # LockBusy, NotAnEvent: a connection never kept is closed here
                conn.close()
                raise
            self._local.conn, self._local.pid, self._local.log = conn, os.getpid(), None
        return conn

    def _lock_file(self) -> int | None:
        """This process's descriptor of the lock file (a flock belongs to an open file, so a child
        process opens its own rather than share its parent's)."""
        if self._lock_fd is None or self._lock_pid != os.getpid():
            self._lock_fd = write_lock.open_file(self.path)
            if self._lock_fd is None:
                return None
            self._lock_pid = os.getpid()
            # A store dropped without close() (the app a reload replaces, in the master) closes it too.
            self._lock_closer = weakref.finalize(self, write_lock.close_in, self._lock_fd, self._lock_pid)
        return self._lock_fd

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, holding the write lock from its start (BEGIN IMMEDIATE)."""
        if self._readonly:
            raise ReadOnly(f"{self.path} is open read-only: nothing can be written")
        if self._failed is not None:
            raise self._failure()
        conn = self._conn()
        with self._writers:
            fd = self._lock_file()
            if fd is not None:
                write_lock.take(fd, self.path, BUSY_SECONDS)
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    if fd is not None:  # no one else commits now: the files as the last write left them?
                        now, before = outside.files(self.path)  # one stat of the file for both
                        version = conn.execute("PRAGMA data_version").fetchone()[0]
                    else:
                        now = self._file_identity()
                    self._same_file(now)  # before anything is written
                    if fd is not None:
                        self._same_log(before[5])
                        self._whole(fd, before)
                    yield conn
                    conn.execute("COMMIT")
                    if fd is not None:  # the note of this write, for the sweep (outside.py)
                        after = outside.signature(self.path)  # first the files, then whether anyone
                        gap = conn.execute("PRAGMA data_version").fetchone()[0] != version  # committed since
                        outside.after_commit(fd, before, after, gap)
                        self._local.log = after[5] or None  # the log this connection writes, once there
                except BaseException as error:
                    if isinstance(error, sqlite3.Error):
                        self._fail_on(error)
                    if conn.in_transaction:  # a failed COMMIT may have rolled back already, or not
                        try:
                            conn.execute("ROLLBACK")
                        except sqlite3.Error:
                            if self._failed is None:
                                raise
                    if self._failed is not None:
                        raise self._failure() from error
                    raise
            finally:
                if fd is not None:
                    write_lock.release(fd)

    def _same_file(self, now: tuple[int, int] | None) -> None:
        """StorageError unless `now`, the identity of the file at the event's path (read inside the
        write transaction), is the file this store writes to (see the module's docstring)."""
        if self._identity is None:  # the first write (the migration at open): after SQLite opened
            self._identity = now  # it read-write, which on some file systems copies it first
        if now is None or now != self._identity:
            raise StorageError(
                f"{self.path}: the event file was deleted or replaced while the service "
                "ran, so nothing can be recorded in it; put it back, or `lexicon reload` "
                "to use the file there now"
            )

    def _same_log(self, inode: int) -> None:
        """DiskFailed, the store failed, unless the write-ahead log at `EVENT.db-wal` (its inode
        now, 0: none) is the one this connection wrote its last commit to. SQLite keeps that log
        for as long as any connection to the file is open (this one is), and writes on into the
        log it opened: deleted (a tidy-up of what looks like a temporary file) or replaced, every
        verdict since its last checkpoint would be where nobody reads it, the file at the path
        ending before them at the next start, while the judges were told they were recorded. So
        nothing more is written or read here, as after a disk that failed a write."""
        noted = getattr(self._local, "log", None)
        if noted is not None and inode != noted and self._failed is None:
            self._failed = (
                f"{self.path}-wal, the event file's log of its last verdicts, was deleted or replaced while the "
                "service ran: the verdicts written since its last checkpoint are no longer in the files at the "
                "event's path, so this service records and answers nothing more from it; tell the director, "
                "who checks the record's last numbers against the phones and the slips before a restart"
            )
        if self._failed is not None:
            raise self._failure()

    def _whole(self, fd: int, files: tuple[int, ...]) -> None:
        """FileDamaged, the store failed, when the files are not as the service's last write left
        them (`files`: now, inside the write lock) and SQLite's check of the file finds it damaged
        (damage.py): a truncation or an overwrite is never written into."""
        try:
            self._check_whole(outside.read(fd), files)
        except sqlite3.Error as error:
            raise StorageError(f"{self.path}: the event's file could not be checked ({error})") from error
        if self._failed is not None:
            raise self._failure()

    def _check_whole(self, note: outside.Note | None, files: tuple[int, ...]) -> None:
        """Unless `files` (the files now) are as the service's last write left them (`note`) or as
        they were last found whole, check them (damage.check): the store failed if damaged."""
        if (note is not None and note.files == files) or files == self._whole_at:
            return
        failure = damage.check(self.path)
        if failure is None:
            self._whole_at = files
        elif self._failed is None:
            self._failed, self._failed_as = failure, FileDamaged

    def _fail_on(self, error: sqlite3.Error) -> None:
        """Mark the store failed when a write met the disk failing (durability.failure) or the file
        damaged (damage.py): nothing is written or read here again (`failed`); a restart mends the
        first, a backup restored the second."""
        if self._failed is None:
            self._failed = durability.failure(self.path, error)
        self._damaged_by(error)

    def _damaged_by(self, error: BaseException) -> None:
        """Mark the store failed, its file damaged, when SQLite said so (`error`), on any statement."""
        failure = damage.damaged(self.path, error)
        if failure is not None and self._failed is None:
            self._failed, self._failed_as = failure, FileDamaged

    def _storage_error(self, error: sqlite3.Error) -> StorageError:
        """What the store raises for SQLite's `error`: the store's failure once it failed (a damaged
        file said so, `_damaged_by`), else the error of this one attempt."""
        self._damaged_by(error)
        if self._failed is not None:
            return self._failure()
        return StorageError(f"{self.path}: the event's storage failed ({error})")

    def _failure(self) -> DiskFailed:
        """The error every write and read raises once the store failed (`_failed`)."""
        return self._failed_as(self._failed)

    def failed(self) -> str | None:
        """storage.Storage.failed: why this store refuses every write and read until a restart
        (`_fail_on`), or None. Asked by /readyz: the files changed from outside since the service's
        last write are checked here too (`_check_whole`, once for each state of the files), so a file
        damaged under the service is said before any write meets it."""
        seen = None if self._failed is not None else self.outside_note()
        if seen is not None and not self.replaced():
            with contextlib.suppress(sqlite3.Error):  # no file there now, or busy: said by replaced() or the next write
                self._check_whole(*seen)
        return self._failed

    def may_alter_guard(self) -> str | None:
        """storage.Storage.may_alter_guard: never. A file has no roles: whoever can edit it is the
        threat model's holder of the laptop, whom no connection of this store stands for."""
        return None

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every query in it sees the same snapshot; a damaged file it meets
        fails the store (`_damaged_by`)."""
        if self._failed is not None:
            raise self._failure()
        try:
            conn = self._conn()
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")
        except sqlite3.Error as error:
            self._damaged_by(error)
            raise

    # -- the storage interface (tournament/storage.py) -----------------------------------

    @contextmanager
    def write(self) -> Iterator[SQLiteTx]:
        """storage.Storage.write: a transaction under the event's write lock (`_write`)."""
        try:
            with self._write() as conn:
                yield SQLiteTx(conn, self.location, self._columns)
        except sqlite3.Error as error:
            raise self._storage_error(error) from error

    def read(self) -> _Reading:
        """storage.Storage.read: one read transaction, as `_read` (on every request's path: a
        context manager of its own, not a generator's, costs a few microseconds less a read)."""
        return _Reading(self)

    def device_by_token_hash(self, token_hash: str) -> Device | None:
        """storage.Storage.device_by_token_hash: one SELECT outside a transaction (`_alone`)."""
        return self._alone(lambda view: view.device_by_token_hash(token_hash))

    def current_round(self) -> Round | None:
        """storage.Storage.current_round: one SELECT outside a transaction (`_alone`)."""
        return self._alone(SQLiteView.current_round)

    def _alone(self, read: Callable[[SQLiteView], T]) -> T:
        """`read`, one statement of a view on this thread's connection, which in autocommit is its
        own read transaction: a BEGIN and a COMMIT less than `read()`'s."""
        if self._failed is not None:
            raise self._failure()
        try:
            return read(SQLiteView(self._conn(), self.location, self._columns))
        except sqlite3.Error as error:
            raise self._storage_error(error) from error

    @functools.cached_property
    def _verification(self) -> Verification:
        return Verification()

    def chain_state(self, now: Callable[[], datetime], wait: bool = False) -> ChainState:
        """storage.Storage.chain_state: verification.py's incremental verification of this file."""
        try:
            return chain_state(self, self._columns, now, wait)
        except sqlite3.Error as error:
            raise self._storage_error(error) from error

    def close_connection(self) -> None:
        """Close this thread's connection only (a thread that read the file and ends)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            conn.close()
        self._local.conn = None

    def close(self) -> None:
        """Close this thread's connection (others close when their thread or process ends)."""
        self.close_connection()
        with self._writers:  # after any write of another thread: its lock is released first
            if self._lock_fd is not None and self._lock_pid == os.getpid():
                self._lock_closer()  # closes it, once: never again a number the system may reuse
            self._lock_fd = None

    def _event(self):
        with self.read() as view:
            return view.event()

    @property
    def busy_seconds(self) -> float:
        return BUSY_SECONDS  # read when asked: a test shortens it

    @classmethod
    def upgrade(cls, path: str | os.PathLike) -> tuple[int, int]:
        """Bring the event file's schema up to this program's (as opening it to write does, whoever
        opens it first): (its version before, after). NotAnEvent as for opening it."""
        storage = cls(path, readonly=True)
        try:
            with storage.read() as view:
                before = view.event().schema_version
        finally:
            storage.close()
        cls(path).close()
        return before, VERSION

    @classmethod
    def create(cls, path: str | os.PathLike, new: NewEvent, fill: Callable[[SQLiteTx], None] | None = None) -> None:
        """A new event file with the event's row, its director and its pin as given (the domain
        checked them); EventExists if anything is at `path` already (never overwritten). `file`:
        its identity and marks as given (a copy of an event: transfer.py), else a new identity;
        `fill`: called in the creating transaction, which commits only if it returns (nothing of
        the file is left otherwise)."""
        path = Path(path)
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
                conn.execute(
                    "INSERT INTO event (id, name, lexicon, created) VALUES (1, ?, ?, ?)",
                    (new.name, new.lexicon, new.created),
                )
                if new.pin is not None:
                    SQLiteTx(conn, str(path)).set_pin(new.pin)
                conn.execute(
                    "INSERT INTO director (id, password_hash, changed) VALUES (1, ?, ?)",
                    (new.password_hash, new.created),
                )
                conn.execute("INSERT INTO login (id, failures, locked_until) VALUES (1, 0, NULL)")
                if new.file is not None:
                    conn.execute(
                        "UPDATE file SET identity = ?, copy_of = ?, copied = ?, restored_from = ?, moved = ?, "
                        "moved_to = ? WHERE id = 1",
                        astuple(new.file),
                    )
                if fill is not None:
                    fill(SQLiteTx(conn, str(path)))
                conn.execute("COMMIT")
            finally:
                conn.close()
        except BaseException:
            for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                leftover.unlink(missing_ok=True)
            raise
