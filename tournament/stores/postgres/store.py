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
- **Connections**: a pool (psycopg_pool) per process, made at its first use in that process,
  after any fork (gunicorn forks its workers after the app may have opened the store): a pool
  or connection inherited from a parent is never used nor closed (closing it would end the
  parent's sessions on the server). Each connection taken from the pool is checked first, so
  after a restart of the database the first request gets a new connection, not a dead one.
- **Errors**: psycopg's leave as tournament.errors: LockBusy for the lock, StorageError for
  everything else (the database away, a connection lost, no connection free within
  BUSY_SECONDS), which the service answers 503 `record-unavailable` and the CLI with exit 2.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import astuple, dataclass
from datetime import datetime

import psycopg
import psycopg.waiting
from psycopg import errors as pgerrors
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

from ...chain import GENESIS, verify_chain
from ...errors import EventExists, LockBusy, NotAnEvent, ReadOnly, StorageError
from ...model import Break, ChainState, EventFile, Pin, new_identity, stamp
from ...storage import BUSY_SECONDS
from .location import Target, parse, with_event
from .schema import GUARDS, MIGRATION_LOCK, MIGRATIONS, VERSION, WRITER
from .tables import PostgresTx, PostgresView

POOL_SIZE = 8  # connections a process keeps at most (a gevent worker's greenlets share them)
SLICE = 2_000  # rows read at a time by a verification of the whole record
INLINE_ROWS = 500  # a record this long or shorter is verified whole at every look
FULL_CHECK_SECONDS = 300.0  # the whole chain verified again at least this often, per process
_FORKED_AWAY: list[ConnectionPool] = []  # pools inherited through fork: never used, never closed


def _storage_error(target: Target, error: Exception) -> StorageError:
    if isinstance(error, pgerrors.LockNotAvailable):
        return LockBusy(
            f"{target.location}: the event's write lock was not free within {BUSY_SECONDS:g} s (another "
            "instance or a command holds it); nothing was written, try again"
        )
    detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return StorageError(f"{target.location}: the event's database failed ({detail})")


STUCK_SECONDS = 15  # a statement, or a transaction left idle, ended by the server past this (the event's lock freed)


def _options() -> dict:
    """How every connection is made: autocommit (transactions are explicit), a bounded connect, and
    TCP keepalives, so a database or an instance gone without a word (a machine off) is noticed
    in seconds rather than the system's two hours."""
    return {
        "autocommit": True,
        "connect_timeout": max(1, int(BUSY_SECONDS)),
        "keepalives": 1,
        "keepalives_idle": 5,
        "keepalives_interval": 2,
        "keepalives_count": 3,
    }


def _configure(conn: psycopg.Connection) -> None:
    """Each new connection's bounds on the server: a statement, and a transaction left open by an
    instance that stopped answering (which would hold the event's lock), end after STUCK_SECONDS.
    A commit waits for its WAL on disk (`synchronous_commit` on), whatever the server's or the
    role's default: a verdict answered is a verdict that survives the database's crash."""
    conn.execute("SET synchronous_commit = on")
    conn.execute(f"SET statement_timeout = {STUCK_SECONDS * 1000}")
    conn.execute(f"SET idle_in_transaction_session_timeout = {STUCK_SECONDS * 1000}")


def connect(target: Target) -> psycopg.Connection:
    """A connection of its own (a command's, or opening the event)."""
    conn = psycopg.connect(target.conninfo, **_options())
    _configure(conn)
    return conn


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
            f"({str(error).strip().splitlines()[0]}): run `lexicon event init` once as the database's "
            f"owner, with the role {WRITER} made first (docs/operations.md)"
        ) from None
    return VERSION


def event_ids(url: str) -> frozenset[str]:
    """The ids of the events in the database a URL names (a service serving them all looks up a
    path's id here, service/federation.py): one query on a connection of its own, closed after.
    StorageError when the database cannot be asked, or has no event schema yet (no event)."""
    target = parse(with_event(url, "x"))
    _cooperate()
    try:
        with connect(target) as conn:
            if schema_version(conn) == 0:
                return frozenset()
            return frozenset(row[0] for row in conn.execute("SELECT id FROM events"))
    except psycopg.Error as error:
        raise _storage_error(target, error) from error


def _cooperate() -> None:
    """Waiting for the server without stopping a gevent worker's other connections. Psycopg chooses
    how it waits when it is imported: in gunicorn's master (the app is loaded there, before the
    workers fork), before a gevent worker patches `select`, it chooses its C wait, which would hold
    the worker's event loop for every round trip. In a process where gevent has patched `select`,
    its select-based wait is chosen instead, as psycopg itself does when imported after the patch."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("select"):
        psycopg.waiting.wait = psycopg.waiting.wait_select


@dataclass(frozen=True)
class _Known:
    """What this process verified last: rows 1 to `seq` chain (the last with `hash`), or the first
    break; when the last verification of every row ended (monotonic, and the event's time)."""

    pid: int
    seq: int = 0
    hash: str = GENESIS
    broken: Break | None = None
    full: float | None = None
    full_at: str | None = None


class PostgresStorage:
    """An event's storage in a PostgreSQL database (tournament/storage.py's Storage)."""

    busy_seconds = BUSY_SECONDS  # the longest a write waits for the event's lock (the Writer's bound too)

    def __init__(self, url: str, readonly: bool = False):
        self.target = parse(url)
        self.location = self.target.location
        self.event_id = self.target.event_id
        self._readonly = readonly
        self._pool: ConnectionPool | None = None
        self._pool_pid = 0
        self._pool_lock = threading.Lock()
        self._known = _Known(os.getpid())
        self._known_lock = threading.Lock()
        try:
            with connect(self.target) as conn:
                if not readonly:
                    migrate(conn, self.location)
                elif schema_version(conn) != VERSION:
                    raise NotAnEvent(f"{self.location}: the database has no event schema of this program's")
                PostgresView(conn, self.event_id, self.location).event()  # NotAnEvent when it has no such event
        except psycopg.Error as error:
            raise _storage_error(self.target, error) from error

    @classmethod
    def create(
        cls,
        url: str,
        name: str,
        lexicon: str | None,
        created: str,
        password_hash: str,
        pin: Pin | None,
        file: EventFile | None = None,
        fill: Callable[[PostgresTx], None] | None = None,
    ) -> None:
        """A new event in the database (its schema made or brought up to date first), with the
        event's row, its director and its pin as given (the domain checked them), and an identity of
        its own, or `file`'s (a copy of an event: transfer.py). EventExists when the database has an
        event with that id already (never overwritten). `fill`: called in the creating transaction,
        which commits only if it returns (nothing of the event is left otherwise)."""
        target = parse(url)
        file = file or EventFile(new_identity())
        try:
            with connect(target) as conn:
                migrate(conn, target.location)
                with conn.transaction():
                    made = conn.execute(
                        "INSERT INTO events (id, name, lexicon, created, identity, copy_of, copied, restored_from) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING RETURNING id",
                        (target.event_id, name, lexicon, created, *astuple(file)),
                    ).fetchone()
                    if made is None:
                        raise EventExists(f"{target.location}: the database has this event already (never overwritten)")
                    conn.execute(
                        "INSERT INTO directors (event_id, password_hash, changed) VALUES (%s, %s, %s)",
                        (target.event_id, password_hash, created),
                    )
                    if pin is not None:
                        PostgresTx(conn, target.event_id, target.location).set_pin(pin)
                    if fill is not None:
                        fill(PostgresTx(conn, target.event_id, target.location))
        except psycopg.Error as error:
            raise _storage_error(target, error) from error

    # -- connections -------------------------------------------------------------------------

    def _pool_here(self) -> ConnectionPool:
        """This process's pool, made at its first use here (never one inherited through fork)."""
        with self._pool_lock:
            if self._pool is not None and self._pool_pid != os.getpid():
                _FORKED_AWAY.append(self._pool)
                self._pool = None
            if self._pool is None:
                _cooperate()
                self._pool = ConnectionPool(
                    self.target.conninfo,
                    min_size=1,
                    max_size=POOL_SIZE,
                    kwargs=_options(),
                    configure=_configure,
                    timeout=BUSY_SECONDS,
                    check=ConnectionPool.check_connection,
                    name=f"lexicon-{self.event_id}",
                    open=False,
                )
                self._pool.open(wait=False)
                self._pool_pid = os.getpid()
            return self._pool

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        try:
            with self._pool_here().connection(timeout=BUSY_SECONDS) as conn:
                yield conn
        except psycopg.Error as error:
            raise _storage_error(self.target, error) from error
        except Exception as error:  # the pool's own: PoolTimeout (no connection within the bound)
            if type(error).__module__.startswith("psycopg_pool"):
                raise _storage_error(self.target, error) from error
            raise

    @staticmethod
    def _end(conn: psycopg.Connection, statement: str) -> None:
        if conn.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
            conn.execute(statement)

    # -- the storage interface -----------------------------------------------------------------

    @contextmanager
    def write(self) -> Iterator[PostgresTx]:
        """A transaction holding the event's row lock from its start (see the module's docstring)."""
        if self._readonly:
            raise ReadOnly(f"{self.location} is open read-only: nothing can be written")
        with self._connection() as conn:
            try:
                conn.execute("BEGIN")
                conn.execute(f"SET LOCAL lock_timeout = {int(BUSY_SECONDS * 1000)}")
                locked = conn.execute(
                    "SELECT 1 FROM events WHERE id = %s FOR NO KEY UPDATE", (self.event_id,)
                ).fetchone()
                if locked is None:
                    raise NotAnEvent(f"{self.location}: no such event in the database")
                yield PostgresTx(conn, self.event_id, self.location)
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(psycopg.Error):
                    self._end(conn, "ROLLBACK")
                raise

    @contextmanager
    def read(self) -> Iterator[PostgresView]:
        """One snapshot of the event as last committed."""
        with self._connection() as conn:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                yield PostgresView(conn, self.event_id, self.location)
            finally:
                with contextlib.suppress(psycopg.Error):
                    self._end(conn, "COMMIT")

    def replaced(self) -> bool:
        """Never: an event in a database is no file that could be moved or replaced under the service."""
        return False

    def close(self) -> None:
        """Close this process's pool (a later use opens another)."""
        with self._pool_lock:
            if self._pool is not None and self._pool_pid == os.getpid():
                self._pool.close()
            self._pool = None

    # -- the record's verification -------------------------------------------------------------

    def guarded(self, conn: psycopg.Connection) -> bool:
        """Whether the database keeps the record append-only as the schema made it: both triggers
        there and enabled, and the service's role without UPDATE, DELETE or TRUNCATE on it."""
        triggers = conn.execute(
            "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'records'::regclass AND tgname = ANY(%s) "
            "AND tgenabled IN ('O', 'A')",
            (list(GUARDS),),
        ).fetchone()[0]
        privileges = conn.execute(
            "SELECT has_table_privilege(%s, 'records', 'UPDATE') OR has_table_privilege(%s, 'records', 'DELETE') "
            "OR has_table_privilege(%s, 'records', 'TRUNCATE') OR has_table_privilege('records', 'UPDATE') "
            "OR has_table_privilege('records', 'DELETE')",
            (WRITER, WRITER, WRITER),
        ).fetchone()[0]
        owner = conn.execute(
            "SELECT pg_get_userbyid(relowner) = current_user FROM pg_class WHERE oid = 'records'::regclass"
        ).fetchone()[0]
        # the owner may UPDATE by its grants, but the trigger still refuses it: the triggers are what count
        return triggers == len(GUARDS) and (owner or not privileges)

    def chain_state(self, now: Callable[[], datetime], wait: bool = False) -> ChainState:
        """The record's state: every row verified from the first with chain.verify_chain against the
        rounds' heads, in one snapshot, at the first look of a process, every FULL_CHECK_SECONDS,
        whenever the row verified last changed or is gone, and at every look of a record of at most
        INLINE_ROWS rows; in between only the rows added since (they chain to the row verified last).
        The record no longer guarded (its trigger disabled) is said at every look, and verified whole
        no more often than otherwise: a full check at each look would run in every request then."""
        with self._known_lock, self.read() as view:
            conn = view.conn
            guarded = self.guarded(conn)
            last, last_hash = view.head()
            known = self._known
            still = known.seq == 0 or view.hashes([known.seq]).get(known.seq) == known.hash
            due = (
                known.pid != os.getpid()
                or known.full is None
                or time.monotonic() - known.full >= FULL_CHECK_SECONDS
                or last <= INLINE_ROWS
                or not still
                or known.seq > last
            )
            if not due and known.broken is not None:
                broken = known.broken
            else:
                after = (0, GENESIS) if due else (known.seq, known.hash)
                anchors = [(n, s, h) for n, s, h in view.heads() if s is not None and s > after[0]]
                broken = verify_chain(self._rows(view, after[0]), anchors, after=after, finals=view.final_heads())
                if due:
                    known = _Known(os.getpid(), full=time.monotonic(), full_at=stamp(now()))
                self._known = known = _Known(
                    known.pid,
                    seq=0 if broken else last,
                    hash=GENESIS if broken else last_hash,
                    broken=broken,
                    full=known.full,
                    full_at=known.full_at,
                )
        verified = broken.seq - 1 if broken is not None else last
        return ChainState(last, last_hash, verified, broken, checked=known.full_at, guarded=guarded)

    @staticmethod
    def _rows(view: PostgresView, after: int) -> Iterator:
        """The rows after `after`, in order, SLICE at a time, in the view's one snapshot (each decoded
        as it is reached: a row edited into nonsense is the break, MalformedRow, where it stands)."""
        while True:
            count = 0
            for record in view.records(after=after, limit=SLICE):
                count, after = count + 1, record.seq
                yield record
            if count < SLICE:
                return
