"""Who runs the store's writes: the calling thread, or, in a gevent worker, one writer thread per
process that commits every verdict waiting at that moment in one transaction (group commit).

Why: a write takes the event's one write lock (`flock`, then `BEGIN IMMEDIATE`) and, with
synchronous=FULL, an fsync of the log at COMMIT (stores/sqlite/durability.py). Each of those blocks the OS thread that calls it, and in
gunicorn's gevent worker that thread runs every connection of the worker: one verdict waiting
for the lock held the whole worker, and each verdict paid its own fsync (`make bench`, section
event, measures the recorded challenge's tail).

So in a gevent worker (the `threading` module monkey-patched), writes leave the event loop:

- a verdict to record is put in a queue of pending appends and its greenlet waits on its own
  `gevent.event.AsyncResult`; one flusher greenlet (spawned when the queue fills from empty)
  hands one transaction to a `gevent.threadpool.ThreadPool` of one native thread with `apply`,
  which gevent documents as the way to run blocking code without blocking the loop: the calling
  greenlet waits, the other connections go on;
- in that thread the store takes the lock, and only then takes *every* pending append
  (`_Batch`): the verdicts that arrived while the lock was held
  elsewhere (the other worker's commit) join this transaction rather than wait for the lock
  again in the next one, so batches grow exactly when the lock is busy, with no wait added. It
  writes them in order in one transaction (a refused one, rate-limited or an idempotency
  conflict, writes nothing and the others stand: record.py's _commit), commits once (one fsync
  for them all) and returns; only then does the flusher wake each greenlet it took with its
  rows or its refusal, from the loop's thread, so no answer leaves before its row is durable.
  Appends that arrive after it took them are the next one's;
- the director's writes (login, devices, rounds) run in the same thread, one by one; the slow
  check of the director's password runs in gevent's own thread pool (`Writer.aside`), in
  neither the loop nor the writer thread.

The writer thread shares the interpreter's lock (the GIL) with the event loop's thread, which under
load is always running some connection's Python: a thread that waited (for the flock's pause, for
SQLite's fsync, for its next task) gets the GIL back only once the running thread is asked to let
it go, after the switch interval, 5 ms by default. A batch waits so at each of those points, with
the write lock held for the last ones (the other worker waits too): the recorded challenge's tail at
16 connections was several times the unrecorded one's. So the process that starts a writer thread
sets the switch interval to SWITCH_SECONDS (0.2 ms, `sys.setswitchinterval`), which costs only when
two threads want to run at once: the loop's thread is asked to yield at most every 0.2 ms while the
writer has work.

The lock between the two worker processes is unchanged, and the rate limits and idempotency
keys are still read inside it, row after row, so two workers behave as one.

A write waits for the event's write lock at most `seconds` (storage.Storage.busy_seconds, storage.BUSY_SECONDS: 5 s), whoever
holds it: the lock file (tried until that bound, stores/sqlite/write_lock.py) or SQLite's lock (`busy_timeout`,
the same seconds). The greenlet waits for its outcome that long, then gives
up and is answered 503 (StorageError), while the writer thread may still be waiting for the lock.
The deadlines are kept by one watcher greenlet per process (`Writer._watch`), not by a gevent
Timeout per verdict: a timer started and stopped on the loop for every verdict (about 5 µs of the
loop's CPU each, for a deadline almost never met) where the watcher wakes once at the oldest
waiting verdict's deadline, gives up on those past theirs, and sleeps until the next one's; every
verdict waits the same `seconds` from its append, so the oldest waiting is always the first due
(a director's write, one at a time, keeps its own timeout: `call`).
So that a verdict it gave up on is never recorded, each write carries a `Ticket`: the writer
claims it once it holds both locks, just before writing; the caller abandons it at its deadline;
whichever comes first settles it. A write claimed in time is waited for to its commit (a few
milliseconds: the locks are held by then); one abandoned is skipped, and writes nothing. If the
flusher greenlet is killed (nothing in the service kills it; a worker's end may), every verdict not
yet answered is answered that it is not known to be recorded, and its ticket abandoned: one the
writer thread has not claimed yet is never written, even once the lock comes free. Each caller reads
its outcome from what the flusher hands it (its AsyncResult), never from the Append the writer thread
may still be filling in; and a killed flusher's transaction keeps the queue it was given, so a later
verdict goes to the next flusher's transaction, not to one whose caller was already answered.

Without gevent (the sync and gthread workers, Flask's test client, the CLI, tests), every call
runs directly in the calling thread, as it always did: its threads block only themselves, and
the same bound ends their wait for either lock (stores/sqlite/connection.py).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from .errors import StorageError
from .model import Entry, Record

T = TypeVar("T")

# The interpreter's thread switch interval in a process with a writer thread (see the docstring):
# how long the writer, ready to run again, may wait for the loop's thread to yield the GIL.
SWITCH_SECONDS = 0.0002


class Ticket:
    """Who settles a write whose caller may stop waiting (see the module's docstring): the writer
    thread, holding the write lock and about to write (`claim`), or the caller at its deadline
    (`abandon`). Each side appends its name to one list and reads the first: `list.append` is
    atomic in CPython, so the event loop and the writer thread share no lock for it."""

    __slots__ = ("_turns", "deadline")

    def __init__(self) -> None:
        self._turns: list[str] = []
        # when its caller gives up (time.monotonic), kept by Writer._watch; None: no deadline, or
        # claimed by then (its caller waits for its commit)
        self.deadline: float | None = None

    def claim(self) -> bool:
        """The writer's turn: True if it may write (again, for a write in several transactions)."""
        self._turns.append("writer")
        return self._turns[0] == "writer"

    def abandon(self) -> bool:
        """The caller's, at its deadline: True if nothing will be written for it."""
        self._turns.append("caller")
        return self._turns[0] == "caller"


_running = threading.local()  # the Ticket of the call the writer thread runs (None outside one)


def claim_current() -> bool:
    """For a write transaction, once it holds the lock: whether the call it serves still waits."""
    ticket = getattr(_running, "ticket", None)
    return ticket is None or ticket.claim()


def _ticketed(ticket: Ticket, function: Callable[..., T], args: tuple, kwargs: dict) -> tuple[bool, T | Exception]:
    """`_returned` in the writer thread, with `ticket` as the current call's (claim_current)."""
    _running.ticket = ticket
    try:
        return _returned(function, args, kwargs)
    finally:
        _running.ticket = None


def _gave_up(seconds: float) -> StorageError:
    return StorageError(
        f"the event's write lock was not free within {seconds:g} s (another process holds it); nothing was written"
    )


@dataclass
class Append:
    """One request's appends (one verdict, or a batch's plays), and what became of them."""

    entries: Sequence[Entry]
    min_gap: float = 0
    round_open: bool | None = None
    budget: tuple[str, int] | None = None  # (client address, plays a minute): budget.py
    last_key: str | None = None  # the device's last recorded verdict, which the record must hold
    holder: tuple[int, str] | None = None  # (device id, its token's hash): still its own, and not revoked
    outcome: list[Record] | Exception | None = field(default=None, compare=False)
    ticket: Ticket = field(default_factory=Ticket, compare=False, repr=False)


def cooperative() -> bool:
    """Whether blocking calls here would stop other greenlets: gevent has patched `threading`
    (gunicorn's gevent worker does, in each worker process after it forks)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and monkey.is_module_patched("threading")


def _returned(function: Callable[..., T], args: tuple, kwargs: dict) -> tuple[bool, T | Exception]:
    """Run in a gevent pool's thread: what `function` returned, or the exception it raised, as a
    value. A task that raises is printed with its traceback by gevent's hub, to standard error,
    as it passes the exception on: every refused director action (a round already open) and
    every failed transaction would write lines that are not the service's JSON log lines."""
    try:
        return True, function(*args, **kwargs)
    except Exception as error:
        return False, error


def _apply(pool, function: Callable[..., T], *args, **kwargs) -> T:
    """`pool.apply(function, …)`, its exception raised here without gevent printing it."""
    ok, value = pool.apply(_returned, (function, args, kwargs))
    if not ok:
        raise value
    return value


class _Batch(Sequence):
    """The appends of one group commit, taken from the pending ones when the transaction that
    writes them first looks at them (record.py's _commit, once it holds the write lock): every
    append pending then, rather than those pending when it was handed to the writer thread. So the
    verdicts that came while the lock was held elsewhere (the other worker's commit) join this
    transaction, not the next one: batches grow as the lock gets busier, with no wait added. Taken
    once, then the same appends however often the transaction reads them (a first pass collects
    their keys). `deque.popleft` is atomic, so the loop's thread appends while the writer thread
    takes, without a lock; the greenlets are woken from the loop's thread (`Writer._flush`)."""

    __slots__ = ("_pending", "_taken", "waiting")

    def __init__(self, pending: deque):
        self._pending = pending
        self.waiting = len(pending)  # pending when it was handed over (the loop's thread)
        self._taken: list[tuple[Append, object]] | None = None

    @property
    def taken(self) -> list[tuple[Append, object]]:
        """(append, its AsyncResult) in order, as the transaction took them; none if it never looked."""
        return self._taken or []

    def _take(self) -> list[tuple[Append, object]]:
        if self._taken is None:
            taken: list[tuple[Append, object]] = []
            for _ in range(len(self._pending)):
                try:
                    taken.append(self._pending.popleft())
                except IndexError:  # emptied by a flusher killed meanwhile (Writer._flush)
                    break
            self._taken = taken
        return self._taken

    def __len__(self) -> int:
        return len(self._take())

    def __getitem__(self, index):
        taken = self._take()
        return [append for append, _ in taken[index]] if isinstance(index, slice) else taken[index][0]

    def __iter__(self) -> Iterator[Append]:
        return (append for append, _ in self._take())


class Writer:
    """Runs a store's writes (see the module's docstring); one per store, used by every thread.

    `batches` and `appended` count the transactions and the appends the group commit wrote
    in this process (for tests and `make bench`). `seconds`: how long a caller waits for its
    write in a gevent worker before it gives up (StorageError).
    """

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._pending: deque[tuple[Append, object]] = deque()  # the loop appends, the writer thread takes
        self._waiting: dict[int, tuple[Append, object]] = {}  # not yet answered, by id (the loop's thread only)
        self._flushing = False
        self._flusher = None  # the flusher greenlet, while there is one
        self._watcher = None  # the greenlet giving up on verdicts past their deadline, while one waits
        self._pool = None
        self._pid = 0
        self.batches = 0
        self.appended = 0

    def call(self, method: Callable[..., T], *args, **kwargs) -> T:
        """`method(*args, **kwargs)`, in the writer thread when cooperative, else here."""
        if not cooperative():
            return method(*args, **kwargs)
        from gevent import Timeout

        ticket = Ticket()
        result = self._thread().spawn(_ticketed, ticket, method, args, kwargs)
        try:
            ok, value = result.get(timeout=self.seconds)
        except Timeout:
            if ticket.abandon():
                raise _gave_up(self.seconds) from None
            ok, value = result.get()  # claimed in time: it holds the lock, and is writing
        if not ok:
            raise value
        return value

    @staticmethod
    def aside(function: Callable[..., T], *args) -> T:
        """`function(*args)`, slow CPU work that releases the GIL (the director's scrypt, a
        sixth of a second): in a gevent worker on the hub's own thread pool (gevent's documented
        `get_hub().threadpool.apply`), so the worker's other connections go on meanwhile and the
        writer thread is not held either; elsewhere here."""
        if not cooperative():
            return function(*args)
        from gevent import get_hub

        return _apply(get_hub().threadpool, function, *args)

    def append(self, request: Append, commit: Callable[[Sequence[Append]], None]) -> list[Record]:
        """Write one request's appends, durably, with others waiting at the same moment; its rows.

        `commit(appends)` writes a sequence of Append in one transaction and fills in each
        outcome, skipping those whose ticket it cannot claim; it is the same function for every
        append of one store, and looks at `appends` only once it holds the write lock (_Batch).

        Raises what refused it (RateLimited, IdempotencyConflict) or what failed the whole
        transaction (StorageError)."""
        if not cooperative():
            commit([request])
        else:
            from gevent import spawn
            from gevent.event import AsyncResult

            done = AsyncResult()
            request.ticket.deadline = time.monotonic() + self.seconds
            self._waiting[id(request)] = request, done
            self._pending.append((request, done))
            if not self._flushing:
                self._flushing = True
                self._flusher = spawn(self._flush, commit)
            if self._watcher is None:
                self._watcher = spawn(self._watch)
            # the outcome the flusher handed over (or the watcher's StorageError at the deadline),
            # never request.outcome, which the writer thread of a killed flusher may still set after
            # this caller was answered
            outcome = done.get()
            if isinstance(outcome, Exception):
                raise outcome
            return outcome
        if isinstance(request.outcome, Exception):
            raise request.outcome
        return request.outcome

    def _flush(self, commit: Callable[[Sequence[Append]], None]) -> None:
        """The flusher greenlet: transactions in the writer thread until no append is pending, each
        taking every append pending once it holds the lock (_Batch); then it answers those."""
        try:
            while self._pending:
                batch = _Batch(self._pending)
                failed = None
                try:
                    _apply(self._thread(), commit, batch)
                except Exception as error:  # the transaction failed: no row of the batch was written
                    failed = error
                taken = batch.taken
                if not taken:  # refused before it took them (the lock not free in time): those that waited for it
                    taken = [self._pending.popleft() for _ in range(min(batch.waiting, len(self._pending)))]
                    failed = failed or StorageError("the event's transaction ended before it took this verdict")
                for request, done in taken:
                    if self._waiting.pop(id(request), None) is not None:  # not given up on (_watch)
                        done.set(failed if failed is not None else request.outcome)
                self.batches += 1
                self.appended += len(taken)
        finally:  # killed (the worker stopping): nobody waits for ever, nor is told a row was written
            self._flushing, self._flusher = False, None
            stopped, self._pending = self._pending, deque()  # a late transaction takes no newer append
            while stopped:  # popped here, never written: the writer thread can no longer take them
                stopped.popleft()
            for request, done in self._waiting.values():  # and those the writer thread took, still writing
                request.ticket.abandon()  # any not claimed yet is skipped, never written
                done.set(StorageError("the event's writer stopped before this verdict was known to be recorded"))
            self._waiting = {}

    def _watch(self) -> None:
        """The watcher greenlet: each waiting verdict's caller given up on at its deadline, unless
        the writer thread claimed it by then (see the module's docstring); it ends once no waiting
        verdict has a deadline to keep (the next append starts another).

        `_waiting` is in the order of the appends, all with the same `seconds`, so it reads from
        the oldest and stops at the first verdict not yet due: a wake reads only those due, and
        those claimed past their deadline, which hold the lock and are answered within moments."""
        from gevent import sleep

        try:
            while True:
                now, due, wake = time.monotonic(), [], None
                for key, (request, _) in self._waiting.items():
                    deadline = request.ticket.deadline
                    if deadline is None:  # claimed by its deadline: it waits for its commit
                        continue
                    if deadline > now:
                        wake = deadline
                        break
                    due.append(key)
                for key in due:
                    request, done = self._waiting[key]
                    if request.ticket.abandon():  # nothing will be written for it
                        del self._waiting[key]
                        done.set(_gave_up(self.seconds))
                    else:  # claimed in time: its transaction holds the lock, and commits
                        request.ticket.deadline = None
                if wake is None:
                    return
                sleep(wake - now)
        finally:
            self._watcher = None

    def close(self) -> None:
        """End this process's writer thread, idle (a later write starts another)."""
        if self._pool is not None and self._pid == os.getpid():
            self._pool.kill()
        self._pool = None

    def _thread(self):
        """This process's writer thread (a pool of one), started on first use after any fork."""
        if self._pool is None or self._pid != os.getpid():
            from gevent.threadpool import ThreadPool

            self._pool, self._pid = ThreadPool(1), os.getpid()
            sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_SECONDS))
        return self._pool
