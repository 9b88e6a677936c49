"""One event in a PostgreSQL database: its location (a URL), connections, the event's write lock,
transactions, errors, and the record's verification while the service runs.

Why so:

- **The location** is `postgresql://USER@HOST:PORT/DATABASE?event=ID` (or `postgres://`; the
  socket's folder as a `host=` query, as libpq reads it): the database, and one event in it.
  Everything but `event` goes to libpq as written (a password, `sslmode`…); messages name the
  event by the URL without its password (`location`).
- **One writer per event, in the database**: a write transaction starts by locking the event's row
  (`SELECT … FOR NO KEY UPDATE`), so writers of one event, in any process of any machine, queue
  on PostgreSQL's row lock and take turns, and the domain's reads and its writes (the chain's
  head, the next seq) are in one turn; other events' writers never wait for it. The wait is
  bounded by `lock_timeout` (BUSY_SECONDS): then LockBusy, and nothing written. NO KEY UPDATE,
  not UPDATE: the inserts of other tables' rows that name the event (their foreign key takes a
  KEY SHARE lock) do not wait for it. Several appends in one transaction (the writer's group
  commit, writer.py) take it once and commit once.
- **Durable on return**: COMMIT returns once PostgreSQL has flushed its log (synchronous_commit
  on, its default); the store never turns that off.
- **Reads** are a REPEATABLE READ, READ ONLY transaction: one snapshot, which never waits for a
  writer nor holds one up.
- **Connections** (connections.py): outside a gevent worker a pool per process, made at its first
  use there, after any fork (gunicorn forks its workers after the app may have opened the store);
  in a gevent worker no psycopg call waits on the event loop's thread and no lock is shared
  between it and a native thread. A connection inherited from a parent is never used nor closed
  (closing it would end the parent's sessions on the server). A connection is checked (or its
  transaction's first statement retried once on a new one), so after a restart of the database
  the first request gets a new connection, not a dead one.
- **The record's verification** (verification.py): the rows added since in each look, the whole
  record off the request path.
- **Errors**: psycopg's leave as tournament.errors: LockBusy for the lock, StorageError for
  everything else (the database away, a connection lost, no connection free within
  BUSY_SECONDS), which the service answers 503 `record-unavailable` and the CLI with exit 2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import astuple, replace
from datetime import datetime
from typing import TypeVar

import psycopg
from psycopg import errors as pgerrors

from ...errors import EventExists, LockBusy, NotAnEvent, ReadOnly, StorageError
from ...integrity import ChainState
from ...model import Device, EventFile, NewEvent, PinnedEvent, Round, new_identity
from ...storage import BUSY_SECONDS
from . import verification
from .connections import AUTOCOMMIT, Connections, blocking, connect
from .holders import guard_holder
from .location import Target, database_url, parse, shown_database, with_event
from .record_rows import HEAD
from .round_rows import CURRENT_ROUND
from .schema import COPY_LOCK, GUARDS, MIGRATION_LOCK, MIGRATIONS, VERSION, WRITER
from .tables import PostgresTx, PostgresView

T = TypeVar("T")


def _storage_error(target: Target, error: Exception) -> StorageError:
    if isinstance(error, pgerrors.LockNotAvailable):
        return LockBusy(
            f"{target.location}: the event's write lock was not free within {BUSY_SECONDS:g} s (another "
            "instance or a command holds it); nothing was written, try again"
        )
    detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return StorageError(f"{target.location}: the event's database failed ({detail})")


def schema_version(conn: psycopg.Connection) -> int:
    """The database's schema version: 0 when it has none of this program's tables yet."""
    if conn.execute("SELECT to_regclass('schema_version')").fetchone()[0] is None:
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    return 0 if row is None else row[0]


def migrate(conn: psycopg.Connection, location: str) -> int:
    """Bring the database's schema up to this program's, in one transaction under the migrations'
    advisory lock (instances starting at once migrate it once); the version reached. NotAnEvent for a
    database newer than this program, or one this role may not migrate (its owner must, once)."""
    version = schema_version(conn)
    if version > VERSION:
        raise NotAnEvent(f"{location}: the database has schema {version}, newer than this program's {VERSION}")
    if version == VERSION:
        return version
    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            version = schema_version(conn)  # another instance may have migrated it meanwhile
            if version == 0:
                conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                conn.execute("INSERT INTO schema_version (version) VALUES (0)")
            for number in range(version + 1, VERSION + 1):
                conn.execute(MIGRATIONS[number - 1])
                conn.execute("UPDATE schema_version SET version = %s", (number,))
    except (pgerrors.InsufficientPrivilege, pgerrors.UndefinedObject) as error:
        raise NotAnEvent(
            f"{location}: the database's tables cannot be made or brought up to date by this role "
            f"({str(error).strip().splitlines()[0]}): run `lexicon event upgrade` (or the first `lexicon event "
            f"init`) once as the database's owner, with the role {WRITER} made first (docs/operations.md)"
        ) from None
    return VERSION


def may_alter_guard(url: str) -> str | None:
    """guard_holder of the role the URL of a database (without `?event=`) connects as: one query,
    as event_ids. StorageError when the database cannot be asked."""
    return _asked(url, _may_alter_guard)


def _may_alter_guard(target: Target) -> str | None:
    with connect(target) as conn:
        return guard_holder(conn)


def event_ids(url: str) -> frozenset[str]:
    """The ids of the events in the database a URL names (a service serving them all looks up a
    path's id here, service/federation.py): one query (`_asked`).
    StorageError when the database cannot be asked, or has no event schema yet (no event)."""
    return _asked(url, _event_ids)


def pinned_events(url: str) -> list[PinnedEvent]:
    """The events of the database a URL names that are pinned to a lexicon (an event made without
    one is pinned at its first start) and live there, each with when its open round was opened
    (at most one is open: `rounds_one_open`), in id order: one query, as event_ids. StorageError as event_ids. Not an event moved out (`lexicon
    event move`): it is played where it went, and a round it left open here can no longer be
    closed here (every write of it is refused), so it would close its language's lookups for good."""
    return _asked(url, _pinned_events)


def _asked(url: str, ask: Callable[[Target], T]) -> T:
    """`ask` of the database a URL names, on a connection of its own, closed after (in a native
    thread when asked on a gevent worker's loop: connections.py); StorageError when it cannot be."""
    shown = shown_database(url)  # a message names the database alone (a refusal of the URL too)
    target = replace(parse(with_event(url, "x")), location=shown)
    try:
        return blocking(ask, target)
    except psycopg.Error as error:
        raise _storage_error(target, error) from error


def _pinned_events(target: Target) -> list[PinnedEvent]:
    with connect(target) as conn:
        if schema_version(conn) == 0:
            return []
        rows = conn.execute(
            "SELECT id, lexicon_id, lexicon_version, lexicon_checksum, lexicon_language, (SELECT opened FROM rounds "
            "WHERE rounds.event_id = events.id AND closed IS NULL) FROM events "
            "WHERE lexicon_checksum IS NOT NULL AND moved IS NULL ORDER BY id"
        )
        return [PinnedEvent(*row) for row in rows]


def _event_ids(target: Target) -> frozenset[str]:
    with connect(target) as conn:
        if schema_version(conn) == 0:
            return frozenset()
        return frozenset(row[0] for row in conn.execute("SELECT id FROM events"))


class PostgresStorage:
    """An event's storage in a PostgreSQL database (tournament/storage.py's Storage)."""

    busy_seconds = BUSY_SECONDS  # the longest a write waits for the event's lock (the Writer's bound too)

    def __init__(self, url: str, readonly: bool = False, remember: bool = False):
        """`remember`: what this process verified of the record is the event's in the process, kept
        by every store of it opened here (verification.remembered), not this store's own."""
        self.target = parse(url)
        self.location = self.target.location
        self.event_id = self.target.event_id
        self._readonly = readonly
        self._connections = Connections(self.target, f"lexicon-{self.event_id}")
        self._verification = (
            verification.remembered(self.location, self.event_id) if remember else verification.Verification()
        )
        try:
            blocking(self._open, readonly)
        except psycopg.Error as error:
            raise _storage_error(self.target, error) from error

    def _open(self, readonly: bool) -> None:
        with connect(self.target) as conn:
            self._holder = guard_holder(conn)  # as the role connects, before it migrates anything
            if not readonly:
                migrate(conn, self.location)
            elif schema_version(conn) != VERSION:
                raise NotAnEvent(f"{self.location}: the database has no event schema of this program's")
            PostgresView(conn, self.event_id, self.location).event()  # NotAnEvent when it has no such event

    @classmethod
    def upgrade(cls, url: str) -> tuple[int, int]:
        """Bring the database's schema (every event's in it) up to this program's, as its owner:
        (its version before, after). NotAnEvent for a database newer than this program, or a role
        that may not migrate it."""
        whole = database_url(url) is not None  # a whole database's URL: its events share the tables
        target = parse(with_event(url, "any") if whole else url)
        if whole:  # an event made up to connect with: a message names the URL as typed
            target = replace(target, location=shown_database(url))
        try:
            with connect(target) as conn:
                before = schema_version(conn)
                return before, migrate(conn, target.location)
        except psycopg.Error as error:
            raise _storage_error(target, error) from error

    @classmethod
    def create(cls, url: str, new: NewEvent, fill: Callable[[PostgresTx], None] | None = None) -> None:
        """A new event in the database (its schema made or brought up to date first), with the
        event's row, its director and its pin as given (the domain checked them), and an identity of
        its own, or `file`'s (a copy of an event: transfer.py). EventExists when the database has an
        event with that id already (never overwritten). `fill`: called in the creating transaction,
        which commits only if it returns (nothing of the event is left otherwise)."""
        target = parse(url)
        try:
            blocking(cls._create, target, new, new.file or EventFile(new_identity()), fill)
        except psycopg.Error as error:
            raise _storage_error(target, error) from error

    @staticmethod
    def _create(target: Target, new: NewEvent, file: EventFile, fill: Callable[[PostgresTx], None] | None) -> None:
        with connect(target) as conn:
            migrate(conn, target.location)
            with conn.transaction():
                made = conn.execute(
                    "INSERT INTO events (id, name, lexicon, created, identity, copy_of, copied, restored_from, moved, "
                    "moved_to) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING RETURNING id",
                    (target.event_id, new.name, new.lexicon, new.created, *astuple(file)),
                ).fetchone()
                if made is None:
                    raise EventExists(
                        f"{target.location}: the database has this event already (never overwritten): choose another id"
                    )
                conn.execute(
                    "INSERT INTO directors (event_id, password_hash, changed) VALUES (%s, %s, %s)",
                    (target.event_id, new.password_hash, new.created),
                )
                if new.pin is not None:
                    PostgresTx(conn, target.event_id, target.location).set_pin(new.pin)
                if fill is not None:  # a copy (transfer.py): its checks and its rows, one copy at a time
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (COPY_LOCK,))
                    fill(PostgresTx(conn, target.event_id, target.location))

    # -- connections (connections.py) ---------------------------------------------------------------

    @contextmanager
    def _transaction(self, begin: str, write: bool, then=()) -> Iterator[tuple]:
        try:
            with self._connections.transaction(begin, write, then) as opened:
                yield opened
        except psycopg.Error as error:
            raise _storage_error(self.target, error) from error
        except Exception as error:  # the pool's own: PoolTimeout (no connection within the bound)
            if type(error).__module__.startswith("psycopg_pool"):
                raise _storage_error(self.target, error) from error
            raise

    # -- the storage interface -----------------------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[PostgresTx]:
        """A transaction holding the event's row lock from its start (see the module's docstring).
        BEGIN, the lock's bound, the lock, and then the open round and the chain's head (read after
        the lock is held: each statement of a READ COMMITTED transaction reads what was committed
        when it starts) go in one round trip; the rest of the transaction rides the same pipeline,
        its COMMIT read as the block ends."""
        if self._readonly:
            raise ReadOnly(f"{self.location} is open read-only: nothing can be written")
        opening = (
            ("SELECT set_config('lock_timeout', %s, true)", (f"{int(BUSY_SECONDS * 1000)}ms",)),
            ("SELECT moved, moved_to FROM events WHERE id = %s FOR NO KEY UPDATE", (self.event_id,)),
            (CURRENT_ROUND, (self.event_id,)),
            (HEAD, (self.event_id,)),
        )
        with self._transaction("BEGIN", True, opening) as (conn, (_, locked, current, head)):
            if not locked:
                raise NotAnEvent(f"{self.location}: no such event in the database")
            tx = PostgresTx(conn, self.event_id, self.location)
            tx.held(locked[0], current[0] if current else None, head[0] if head else None)
            yield tx
            conn.execute("COMMIT")  # its failure raised as the block ends: nothing answered as written

    @contextmanager
    def read(self) -> Iterator[PostgresView]:
        """One snapshot of the event as last committed."""
        with self._transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", write=False) as (conn, _):
            yield PostgresView(conn, self.event_id, self.location)

    def device_by_token_hash(self, token_hash: str) -> Device | None:
        """storage.Storage.device_by_token_hash: one statement in autocommit (`_alone`)."""
        return self._alone(lambda view: view.device_by_token_hash(token_hash))

    def current_round(self) -> Round | None:
        """storage.Storage.current_round: one statement in autocommit (`_alone`)."""
        return self._alone(PostgresView.current_round)

    def _alone(self, read: Callable[[PostgresView], T]) -> T:
        """`read`, one statement of a view, in autocommit: its own snapshot, with no BEGIN nor
        ROLLBACK around it (one round trip where a read transaction takes two)."""
        with self._transaction(AUTOCOMMIT, write=False) as (conn, _):
            return read(PostgresView(conn, self.event_id, self.location))

    def replaced(self) -> bool:
        """Never: an event in a database is no file that could be moved or replaced under the service."""
        return False

    def failed(self) -> str | None:
        """Never: a commit PostgreSQL could not flush is an error of that commit, and the server
        itself stops (PANIC) rather than go on after a failed fsync of its log."""
        return None

    def may_alter_guard(self) -> str | None:
        """storage.Storage.may_alter_guard: whether the role this store connects as could switch the
        record's guard off (holders.py), as it was when the store was opened."""
        return self._holder

    def close(self) -> None:
        """Close this process's idle connections (a later use makes others)."""
        self._connections.close()

    # -- the record's verification -------------------------------------------------------------

    def guarded(self, conn: psycopg.Connection) -> bool:
        """Whether the database keeps the record append-only as the schema made it: both triggers
        there and enabled, and the service's role without UPDATE, DELETE or TRUNCATE on it."""
        triggers = conn.execute(
            "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'records'::regclass AND tgname = ANY(%s) "
            "AND tgenabled IN ('O', 'A')",
            (list(GUARDS),),
        ).fetchone()[0]
        privileges = conn.execute(  # the group's, and the connected role's own (a grant to it alone)
            "SELECT bool_or(has_table_privilege(who, 'records', what)) FROM unnest(ARRAY[%s, current_user]) AS who, "
            "unnest(ARRAY['UPDATE', 'DELETE', 'TRUNCATE']) AS what",
            (WRITER,),
        ).fetchone()[0]
        owner = conn.execute(
            "SELECT pg_get_userbyid(relowner) = current_user FROM pg_class WHERE oid = 'records'::regclass"
        ).fetchone()[0]
        # the owner may UPDATE by its grants, but the trigger still refuses it: the triggers are what count
        return triggers == len(GUARDS) and (owner or not privileges)

    def chain_state(self, now: Callable[[], datetime], wait: bool = False) -> ChainState:
        """The record's state as this process verifies it (verification.py in this folder): the rows
        added since the last look in the look, the whole record off the request path."""
        return verification.chain_state(self, self._verification, now, wait)
