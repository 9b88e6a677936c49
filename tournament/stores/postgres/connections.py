"""Where the PostgreSQL store's connections come from in a process, and which thread waits on them.

Outside a gevent worker (the command line, gunicorn's sync and gthread workers, tests), threads
are the OS's: a psycopg_pool pool per process, made at its first use there (never one inherited
through fork), checked at each borrow so that after a restart of the database the first request
gets a new connection, not a dead one.

In a gevent worker (`threading` monkey-patched: cooperative.py) one OS thread runs every
connection of the worker, the event loop's, beside native threads: the writer thread (group
commit, writer.py) and the record's verification (verification.py). psycopg waits for the server
in whatever way it chose when it was imported, which in gunicorn's master (the app is loaded there,
before the workers fork and patch anything) is its C wait: on the loop's thread it would hold every
connection for each round trip. And a pool's locks, made in the worker after the patch, are
gevent's, which a native thread must not share with the loop. So there:

- **no psycopg call waits on the loop's thread**: a greenlet's read transaction holds one of
  LOOP_CONNECTIONS connections (a gevent semaphore bounds them: a greenlet that finds none waits
  cooperatively, up to BUSY_SECONDS), and each of its statements (the first sent with the BEGIN)
  runs in a native thread of the store's gevent ThreadPool (`apply`, gevent's documented way to run blocking code), where
  psycopg's own wait releases the interpreter's lock: the loop goes on meanwhile. Only the loop's
  thread touches that list and that semaphore;
- **a native thread uses connections of its own**, made and used in that thread only (one to
  write, one to read: a read never runs inside the thread's write transaction): the writer
  thread's, the verification's. Nothing is shared with the loop but the store object itself.

So no lock is ever taken by both kinds of thread, and no psycopg internals are changed: psycopg
chooses its wait as documented, and here it never matters which it chose.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import TypeVar

import psycopg
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

from ...cooperative import cooperative
from ...storage import BUSY_SECONDS
from .location import Target

T = TypeVar("T")

POOL_SIZE = 8  # connections a process keeps at most outside a gevent worker (its threads share them)
LOOP_CONNECTIONS = 5  # a gevent worker's read connections for its greenlets (plus the native threads' own)
STUCK_SECONDS = 15  # a statement, or a transaction left idle, ended by the server past this (the event's lock freed)
_FORKED_AWAY: list = []  # pools and connections inherited through fork: never used, never closed


def options() -> dict:
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


def configure(conn: psycopg.Connection) -> None:
    """Each new connection's bounds on the server: a statement, and a transaction left open by an
    instance that stopped answering (which would hold the event's lock), end after STUCK_SECONDS.
    A commit waits for its WAL on disk (`synchronous_commit` on), whatever the server's or the
    role's default: a verdict answered is a verdict that survives the database's crash."""
    conn.execute("SET synchronous_commit = on")
    conn.execute(f"SET statement_timeout = {STUCK_SECONDS * 1000}")
    conn.execute(f"SET idle_in_transaction_session_timeout = {STUCK_SECONDS * 1000}")


def connect(target: Target) -> psycopg.Connection:
    """A connection of its own (a command's, a native thread's, or opening the event)."""
    conn = psycopg.connect(target.conninfo, **options())
    configure(conn)
    return conn


def on_loop() -> bool:
    """Whether this runs in a greenlet of a gevent worker's event loop, where a call that blocks
    stops every connection of the worker (a native thread's code runs in no greenlet of the hub)."""
    if not cooperative():
        return False
    import greenlet
    from gevent.hub import Hub

    return isinstance(greenlet.getcurrent().parent, Hub)


def _returned(function: Callable[..., T], args: tuple) -> tuple[bool, T | BaseException]:
    """Run in a native thread: what `function` returned, or what it raised, as a value (gevent's
    hub would print a task's exception with its traceback on standard error)."""
    try:
        return True, function(*args)
    except Exception as error:
        return False, error


def blocking(function: Callable[..., T], *args) -> T:
    """`function(*args)`, which connects and waits for the server: in a native thread of gevent's
    hub when called on a gevent worker's loop (an event opened while the service runs), else here."""
    if not on_loop():
        return function(*args)
    from gevent import get_hub

    ok, value = get_hub().threadpool.apply(_returned, (function, args))
    if not ok:
        raise value
    return value


class _Rows:
    """A statement's result, read whole in the native thread that ran it."""

    __slots__ = ("_rows",)

    def __init__(self, rows: list):
        self._rows = rows

    def fetchone(self):
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list:
        return self._rows


def _run(conn: psycopg.Connection, sql: str, args) -> list:
    cursor = conn.execute(sql, args)
    return cursor.fetchall() if cursor.description is not None else []


Statement = tuple[str, tuple | None]  # SQL and its arguments
# A "transaction" with no BEGIN: its statements run each in autocommit, its own snapshot, and
# nothing is left open to end (one statement, one round trip: store.py's device_by_token_hash).
AUTOCOMMIT = ""


def _opening(
    conn: psycopg.Connection, begin: str, then: Sequence[Statement], keep: bool
) -> tuple[list, ExitStack | None]:
    """`begin` and the `then` statements sent together in psycopg's pipeline mode, one round trip
    for them all: each `then` statement's rows. `keep`: the pipeline is left open, in the ExitStack
    returned (the transaction's body rides it: its statements whose rows nobody reads are sent with
    the next that is read, or with the COMMIT as the pipeline closes)."""
    if not then and not keep:
        if begin:  # AUTOCOMMIT: nothing to send before the statements
            conn.execute(begin)
        return [], None
    stack = ExitStack()
    try:
        pipeline = stack.enter_context(conn.pipeline())
        if begin:
            conn.execute(begin)
        cursors = [conn.execute(sql, args) for sql, args in then]
        if keep:
            pipeline.sync()
        else:
            stack.close()  # the pipeline's Sync: the one round trip
            stack = None
    except BaseException:
        if stack is not None:
            with contextlib.suppress(Exception):
                stack.close()
        raise
    return [cursor.fetchall() if cursor.description is not None else [] for cursor in cursors], stack


def _begin(
    target: Target, conn: psycopg.Connection | None, statement: str, then: Sequence[Statement] = (), keep: bool = False
) -> tuple[psycopg.Connection, list, ExitStack | None]:
    """`statement` (a BEGIN) and `then` (_opening) on `conn`, or on a new connection when there is
    none or it is dead (the database restarted since): the connection they ran on, the rows of
    `then`, the pipeline left open with `keep`. A statement's own failure (the event's lock not free
    in time) is raised, never tried again: only a connection found broken is replaced."""
    if conn is not None and not conn.closed and conn.info.transaction_status == TransactionStatus.IDLE:
        try:
            return (conn, *_opening(conn, statement, then, keep))
        except psycopg.Error as error:
            if not (isinstance(error, psycopg.OperationalError) and (conn.closed or conn.broken)):
                _finish(conn)
                raise
            with contextlib.suppress(Exception):
                conn.close()
    conn = connect(target)
    try:
        return (conn, *_opening(conn, statement, then, keep))
    except BaseException:
        with contextlib.suppress(Exception):
            conn.close()
        raise


def _finish(conn: psycopg.Connection) -> bool:
    """Roll back what is still open (a write commits in its block; a read's snapshot only ends):
    whether the connection can serve again."""
    with contextlib.suppress(psycopg.Error):
        if conn.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
            conn.execute("ROLLBACK")
    if conn.closed or conn.info.transaction_status != TransactionStatus.IDLE:
        with contextlib.suppress(Exception):
            conn.close()
        return False
    return True


def _first(target: Target, conn: psycopg.Connection | None, begin: str, sql: str, args) -> tuple:
    """A loop's transaction's first statement, sent with its BEGIN (_begin): (the connection, its rows)."""
    conn, rows, _ = _begin(target, conn, begin, ((sql, args),))
    return conn, rows[0]


@contextmanager
def _closing(conn: psycopg.Connection, pipeline: ExitStack | None) -> Iterator[None]:
    """The transaction's block: its pipeline closed as it leaves (the COMMIT's outcome read then,
    and raised, when the block ended well), then what is still open rolled back (_finish)."""
    try:
        yield
    except BaseException:
        if pipeline is not None:
            with contextlib.suppress(Exception):
                pipeline.close()
        raise
    else:
        if pipeline is not None:
            pipeline.close()
    finally:
        _finish(conn)


class Remote:
    """A connection of the loop's, as PostgresView uses one: each statement run in a native thread,
    the first sent with the transaction's BEGIN (one round trip, one hop to a thread, for both)."""

    def __init__(self, target: Target, conn: psycopg.Connection | None, begin: str, threads):
        self._target = target
        self._conn = conn
        self._begin = begin  # not sent yet: with the first statement
        self._threads = threads

    def call(self, function: Callable[..., T], *args) -> T:
        ok, value = self._threads.apply(_returned, (function, args))
        if not ok:
            raise value
        return value

    def execute(self, sql: str, args=None) -> _Rows:
        if self._begin is not None:
            self._conn, rows = self.call(_first, self._target, self._conn, self._begin, sql, args)
            self._begin = None
            return _Rows(rows)
        return _Rows(self.call(_run, self._conn, sql, args))


class Connections:
    """One store's connections in this process (see the module's docstring)."""

    def __init__(self, target: Target, name: str):
        self.target = target
        self.name = name
        self._pid = os.getpid()
        self._pool: ConnectionPool | None = None
        self._loop = None  # (free connections, their semaphore, the native threads): a gevent worker's
        self._own = None  # each native thread's own connections, in a gevent worker
        self._made: list[psycopg.Connection] = []  # every such connection, for close()

    def _here(self) -> None:
        """Forget what a parent process made (each process makes its own at first use)."""
        if self._pid != os.getpid():
            _FORKED_AWAY.append((self._pool, self._loop, self._own, self._made))
            self._pid, self._pool, self._loop, self._own, self._made = os.getpid(), None, None, None, []

    # -- outside a gevent worker: the pool --------------------------------------------------------

    def _pool_here(self) -> ConnectionPool:
        if self._pool is None:
            self._pool = ConnectionPool(
                self.target.conninfo,
                min_size=1,
                max_size=POOL_SIZE,
                kwargs=options(),
                configure=configure,
                timeout=BUSY_SECONDS,
                check=ConnectionPool.check_connection,
                name=self.name,
                open=False,
            )
            self._pool.open(wait=False)
        return self._pool

    # -- the transactions -------------------------------------------------------------------------

    @contextmanager
    def transaction(self, begin: str, write: bool, then: Sequence[Statement] = ()) -> Iterator[tuple]:
        """A connection with `begin` run on it, and the rows of each `then` statement, sent with it
        (one round trip: _opening); what is still open as the block leaves is rolled back (a write
        commits in its block, so that its COMMIT's failure is raised there). A write's transaction
        rides psycopg's pipeline (_opening's `keep`) outside the loop. Raises psycopg's errors, and
        the pool's PoolTimeout (a connection not free within BUSY_SECONDS)."""
        self._here()
        if not cooperative():
            with self._pool_here().connection(timeout=BUSY_SECONDS) as conn:
                try:
                    rows, pipeline = _opening(conn, begin, then, keep=write)
                except BaseException:
                    _finish(conn)
                    raise
                with _closing(conn, pipeline):
                    yield conn, rows
        elif on_loop():
            if write or then:  # never: keeper.on_writer runs every write in the writer's native thread
                raise RuntimeError(f"a write transaction of {self.name} on a gevent worker's event loop")
            with self._loop_transaction(begin) as opened:
                yield opened
        else:
            with self._own_transaction(begin, write, then) as opened:
                yield opened

    @contextmanager
    def _own_transaction(self, begin: str, write: bool, then: Sequence[Statement]) -> Iterator[tuple]:
        """A native thread's own connection (gevent worker): made in this thread, used only here."""
        if self._own is None:
            from gevent import monkey

            self._own = monkey.get_original("_thread", "_local")()  # the OS thread's, not a greenlet's
        slot = "writer" if write else "reader"
        was = getattr(self._own, slot, None)
        try:
            conn, rows, pipeline = _begin(self.target, was, begin, then, keep=write)
        except BaseException:
            if was is not None and was.closed:
                self._forget(slot, was)
            raise
        if conn is not was:  # the first, or one made again (the database restarted since)
            if was is not None:
                with contextlib.suppress(ValueError):
                    self._made.remove(was)
            self._made.append(conn)
        setattr(self._own, slot, conn)
        try:
            with _closing(conn, pipeline):
                yield conn, rows
        finally:
            if conn.closed:
                self._forget(slot, conn)

    def _forget(self, slot: str, conn: psycopg.Connection) -> None:
        """A native thread's own connection found closed: no longer its, nor one for close() to close."""
        setattr(self._own, slot, None)
        with contextlib.suppress(ValueError):
            self._made.remove(conn)

    @contextmanager
    def _loop_transaction(self, begin: str) -> Iterator[tuple]:
        """A greenlet's read transaction (gevent worker): a connection of the loop's, each statement
        run in a native thread, BEGIN sent with the first (Remote)."""
        if self._loop is None:
            from gevent.lock import BoundedSemaphore
            from gevent.threadpool import ThreadPool

            self._loop = ([], BoundedSemaphore(LOOP_CONNECTIONS), ThreadPool(LOOP_CONNECTIONS))
        free, slots, threads = self._loop
        if not slots.acquire(timeout=BUSY_SECONDS):
            raise psycopg.OperationalError(f"no connection of {self.name} was free within {BUSY_SECONDS:g} s")
        try:
            remote = Remote(self.target, free.pop() if free else None, begin, threads)
            try:
                yield remote, []
            finally:
                conn = remote._conn
                if conn is not None:
                    try:
                        reusable = remote.call(_finish, conn)
                    except BaseException:  # killed meanwhile: the connection is not known to be free
                        reusable = False
                        threads.spawn(_finish, conn)
                    if reusable:
                        free.append(conn)
        finally:
            slots.release()

    def close(self) -> None:
        """Close this process's pool, the loop's idle connections and its threads, and the native
        threads' own connections (a later use makes others). Called with none of them in use (a
        command's end; an event's app a service of many closes: service/federation.py), so the
        event holds no connection of the database's after it."""
        self._here()
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._loop is not None:
            for conn in self._loop[0]:
                with contextlib.suppress(Exception):
                    conn.close()
            self._loop[0].clear()
            self._loop[2].kill()
            self._loop = None
        made, self._made, self._own = self._made, [], None
        for conn in made:
            with contextlib.suppress(Exception):
                conn.close()
