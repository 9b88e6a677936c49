"""Who runs the store's writes: the calling thread, or, in a gevent worker, one writer thread per
process that commits every verdict waiting at that moment in one transaction (group commit).

Why: a write takes the event's one write lock (`flock`, then `BEGIN IMMEDIATE`) and, with
synchronous=FULL, an fsync of the log at COMMIT (stores/sqlite/durability.py). Each of those blocks
the OS thread that calls it, and in gunicorn's gevent worker that thread runs every connection of
the worker: one verdict waiting for the lock held the whole worker, and each verdict paid its own
fsync (`make bench`, section event, measures the recorded challenge's tail).

So in a gevent worker (the `threading` module monkey-patched), writes leave the event loop:

- a verdict to record is put in a queue of pending appends and its greenlet waits on its own
  `gevent.event.AsyncResult`; one native thread per process, the writer thread (`_Line`), is woken
  if it sleeps, and the calling greenlet waits while the other connections go on;
- in that thread the store takes the lock, and only then takes *every* pending append
  (group_commit.py's `Batch`, which says why), writes them in order in one transaction and commits
  once (one fsync for them all); only then does it hand what it wrote to the loop (a gevent
  `async_` watcher, whose `send` gevent documents as the way to wake the loop from another
  thread), which wakes each greenlet it took with its rows or its refusal, from the loop's thread,
  so no answer leaves before its row is durable. Appends that arrive after it took them are the
  next one's: the loop, once it has answered, wakes the thread again for them (one transaction a
  wake-up: `Writer._run` says why);
- the director's writes (login, devices, rounds) run in the same thread, one by one, before the
  next transaction of appends; the slow check of the director's password runs in gevent's own
  thread pool (`Writer.aside`), in neither the loop nor the writer thread.

A thread of its own, not a `gevent.threadpool.ThreadPool` of one thread given each transaction
(`apply`) by a flusher greenlet spawned when the queue filled from empty: that cost the loop about
50 µs of its CPU a transaction (the greenlet, the pool's task, its result and its own async watcher,
made and undone each time), ten or more a verdict in the 3 to 5 verdicts a transaction of a loaded
worker; the thread's hand-off costs a native lock taken for a few instructions, and a wake-up only
when the thread sleeps.

The writer thread shares the interpreter's lock (the GIL) with the event loop's thread, which under
load is always running some connection's Python: a thread that waited (for the flock's pause, for
SQLite's fsync, for its next task) gets the GIL back only once the running thread is asked to let it
go, after the switch interval, 5 ms by default. A batch waits so at each of those points, with the
write lock held for the last ones (the other worker waits too): the recorded challenge's tail at 16
connections was several times the unrecorded one's. So the process that starts a writer thread sets
the switch interval to SWITCH_SECONDS (0.2 ms, `sys.setswitchinterval`), which costs only when two
threads want to run at once: the loop's thread is asked to yield at most every 0.2 ms while the
writer has work.

The lock between the two worker processes is unchanged, and the rate limits and idempotency keys are
still read inside it, row after row, so two workers behave as one.

A write waits for the event's write lock at most `seconds` (storage.Storage.busy_seconds,
storage.BUSY_SECONDS: 5 s), whoever holds it: the lock file (tried until that bound,
stores/sqlite/write_lock.py) or SQLite's lock (`busy_timeout`, the same seconds). The greenlet waits
for its outcome that long, then gives up and is answered 503 (StorageError), while the writer thread
may still be waiting for the lock. The deadlines are kept by one watcher greenlet per process
(`Writer._watch`), not by a gevent Timeout per verdict: a timer started and stopped on the loop for
every verdict (about 4 µs of the loop's CPU each, for a deadline almost never met) where the watcher
wakes once at the oldest waiting verdict's deadline, gives up on those past theirs, and sleeps until
the next one's; every verdict waits the same `seconds` from its append, so the oldest waiting is
always the first due (a director's write, one at a time, keeps its own timeout: `call`). So that a
verdict it gave up on is never recorded, each write carries a `Ticket`, which the first of the
writer thread and its caller settles (tickets.py).

Without gevent (the sync and gthread workers, Flask's test client, the CLI, tests), every call runs
directly in the calling thread, as it always did: its threads block only themselves, and the same
bound ends their wait for either lock (stores/sqlite/connection.py).
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import TypeVar

from .cooperative import apply_quietly, cooperative
from .entry import Record
from .errors import StorageError
from .group_commit import Append, Batch
from .tickets import Ticket, lock_not_free, ticketed, writer_stopped

T = TypeVar("T")

# The interpreter's thread switch interval in a process with a writer thread (see the docstring):
# how long the writer, ready to run again, may wait for the loop's thread to yield the GIL.
SWITCH_SECONDS = 0.0002


# This process's id, kept at each fork (os.register_at_fork): a writer's thread serves only the process
# that started it, and `os.getpid` is a system call the loop would make for every verdict.
_process = [os.getpid()]
os.register_at_fork(after_in_child=lambda: _process.__setitem__(0, os.getpid()))


class _Line:
    """One writer thread (a native thread of the process) and what passes between it and the loop:
    the pending appends (`pending`, taken by a Batch) and the director's calls (`calls`), which the
    loop's thread adds; what it wrote (`done`), which the thread adds and then signals (`signal`,
    a gevent `async_` watcher of the loop, whose `send` gevent documents as safe from any thread:
    its callback, Writer._answer, runs in the loop). `lock` (a native lock, held for a few
    instructions) makes a hand-off and the thread's going idle one step each, so the thread is woken
    (`wake`, a native lock released once for each time it went idle) exactly when it sleeps with
    work given: never a hand-off lost, never a wake-up for nothing."""

    __slots__ = (
        "calls",
        "commit",
        "current",
        "done",
        "idle",
        "later",
        "lock",
        "pending",
        "result",
        "signal",
        "spawn",
        "stopped",
        "wake",
    )

    def __init__(self, native_lock: Callable[[], object], loop) -> None:
        from gevent import spawn
        from gevent.event import AsyncResult

        # gevent's, resolved once: an import statement run for every verdict costs the loop a lookup of each name
        self.result, self.spawn = AsyncResult, spawn
        self.pending: deque[tuple[Append, object]] = deque()
        self.calls: deque[tuple] = deque()
        self.done: deque[tuple] = deque()
        self.lock, self.wake = native_lock(), native_lock()
        self.wake.acquire()  # the thread waits on it while idle
        self.idle = True
        self.stopped = False
        self.commit: Callable[[Sequence[Append]], None] | None = None
        self.current = None  # the AsyncResult of the director's call the thread runs, while it runs one
        self.signal = loop.async_()
        self.later = loop.run_callback


class Writer:
    """Runs a store's writes (see the module's docstring); one per store, used by every thread.

    `batches` and `appended` count the transactions and the appends the group commit wrote
    in this process (for tests and `make bench`). `seconds`: how long a caller waits for its
    write in a gevent worker before it gives up (StorageError).
    """

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._waiting: dict[int, tuple[Append, object]] = {}  # not yet answered, by id (the loop's thread only)
        self._watcher = None  # the greenlet giving up on verdicts past their deadline, while one waits
        self._asked = 0  # the director's calls given and not answered yet (the loop's thread only)
        self._line: _Line | None = None  # this process's writer thread, once started
        self._pid = 0
        self.batches = 0
        self.appended = 0

    def call(self, method: Callable[..., T], *args, **kwargs) -> T:
        """`method(*args, **kwargs)`, in the writer thread when cooperative, else here."""
        if not cooperative():
            return method(*args, **kwargs)
        from gevent import Timeout
        from gevent.event import AsyncResult

        ticket, done = Ticket(), AsyncResult()
        line = self._started()
        self._asked += 1
        with line.lock:
            line.calls.append((ticket, method, args, kwargs, done))
            self._give(line)
        try:
            ok, value = done.get(timeout=self.seconds)
        except Timeout:
            if ticket.abandon():
                raise lock_not_free(self.seconds) from None
            ok, value = done.get()  # claimed in time: it holds the lock, and is writing
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

        return apply_quietly(get_hub().threadpool, function, *args)

    def append(self, request: Append, commit: Callable[[Sequence[Append]], None]) -> list[Record]:
        """Write one request's appends, durably, with others waiting at the same moment; its rows.

        `commit(appends)` writes a sequence of Append in one transaction and fills in each
        outcome, skipping those whose ticket it cannot claim; it is the same function for every
        append of one store, and looks at `appends` only once it holds the write lock (group_commit.Batch).

        Raises what refused it (RateLimited, IdempotencyConflict) or what failed the whole
        transaction (StorageError)."""
        if not cooperative():
            commit([request])
        else:
            line = self._started()
            done = line.result()
            request.ticket.deadline = time.monotonic() + self.seconds
            line.commit = commit
            self._waiting[id(request)] = request, done
            with line.lock:
                line.pending.append((request, done))
                self._give(line)
            if self._watcher is None:
                self._watcher = line.spawn(self._watch)
            # the outcome the writer thread's transaction left once it ended (or the watcher's
            # StorageError at the deadline, or close's), handed over by the loop (_answer)
            outcome = done.get()
            if isinstance(outcome, Exception):
                raise outcome
            return outcome
        if isinstance(request.outcome, Exception):
            raise request.outcome
        return request.outcome

    @staticmethod
    def _give(line: _Line) -> None:
        """After a hand-off, `line.lock` held: wake the thread if it sleeps, and keep the loop
        running for its answer (the signal counts as the loop's work only while some is given).

        The thread is woken once the loop has run what it has to run now (gevent's
        `loop.run_callback`), not at once: the greenlets answered together then append their
        next verdicts together, and one transaction takes them all, as when a flusher greenlet,
        spawned at the first append, ran only after them (woken at once, the thread took the
        first few: transactions of 5 verdicts where they were of 8, each a commit and an fsync
        more for the writer thread)."""
        line.signal.ref = True
        if line.idle:
            line.idle = False
            line.later(line.wake.release)

    def _run(self, line: _Line) -> None:
        """The writer thread: at each wake-up, one director's call, or one transaction of appends
        taking every append pending once it holds the lock (group_commit.Batch); then it goes idle and hands
        what it wrote to the loop (`done`, `signal`), which answers its callers (_answer), so no
        answer leaves before its transaction ended, and wakes it again if more was given meanwhile.
        One transaction a wake-up, not the next one begun at once: the thread would run its
        Python while the loop answers the last one's callers, and each would wait for the GIL
        (measured: more CPU a verdict, and fewer verdicts a second)."""
        try:
            while True:
                line.wake.acquire()
                if line.stopped:
                    return
                if line.calls:
                    ticket, method, args, kwargs, done = line.calls.popleft()
                    line.current = done
                    line.done.append((done, ticketed(ticket, method, args, kwargs)))
                    line.current = None
                elif line.pending:
                    batch = Batch(line.pending)
                    failed = None
                    try:
                        line.commit(batch)
                    except Exception as error:  # the transaction failed: no row of the batch was written
                        failed = error
                    taken = batch.taken
                    if not taken:  # refused before it took them (the lock not free in time): those that waited
                        taken = [line.pending.popleft() for _ in range(min(batch.waiting, len(line.pending)))]
                        failed = failed or StorageError("the event's transaction ended before it took this verdict")
                    line.done.append((None, (taken, failed)))
                with line.lock:
                    if line.stopped:  # closed while it wrote: nobody will wake it again, so it ends
                        return
                    line.idle = True  # before the signal: the loop's answer finds it idle, and wakes it for more
                line.signal.send()
        finally:  # stopped (close), or ended by what no transaction catches: the loop starts another
            line.stopped = True
            if line.current is not None:  # a director's call it was running, claimed perhaps: answered
                line.done.append((line.current, (False, writer_stopped())))
            line.done.append((None, None))  # the last thing it hands over
            line.signal.send()

    def _answer(self, line: _Line) -> None:
        """In the loop (the signal's callback): each caller of what the writer thread finished is
        answered its outcome (its rows or its refusal, or the failed transaction's error), unless it
        was answered already (given up on at its deadline, or by close); a director's call its value.
        Once the thread has ended (its last hand-over), the signal is closed and the line lets go of
        the store's commit: a closed writer holds nothing of its event (the federation's service
        closes the events it has not used lately, and the loop would keep every one)."""
        ended = False
        while line.done:
            done, finished = line.done.popleft()
            if done is not None:
                if not done.ready():  # not answered by close
                    self._asked -= 1
                    done.set(finished)
                continue
            if finished is None:  # the thread ended
                ended = True
                if self._line is line:
                    self.close()
                continue
            taken, failed = finished
            for request, waiter in taken:
                if self._waiting.pop(id(request), None) is not None:
                    waiter.set(failed if failed is not None else request.outcome)
            self.batches += 1
            self.appended += len(taken)
        if ended:  # nothing more will come from it
            line.signal.close()
            line.commit = None
            return
        with line.lock:
            if line.stopped:  # closed: nothing more will come from it
                line.signal.ref = False
            elif line.pending or line.calls:  # given while it wrote: its next transaction
                self._give(line)
            elif not self._waiting and not self._asked:
                line.signal.ref = False  # nothing given: the signal is no reason for the loop to go on

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
                        done.set(lock_not_free(self.seconds))
                    else:  # claimed in time: its transaction holds the lock, and commits
                        request.ticket.deadline = None
                if wake is None:
                    return
                sleep(wake - now)
        finally:
            self._watcher = None

    def close(self) -> None:
        """End this process's writer thread after its transaction (a later write starts another).
        Every caller not answered yet is answered that its verdict is not known to be recorded,
        and its ticket abandoned: one the thread has not claimed is never written, even once the
        lock comes free; the pending appends are dropped, so a later thread never takes them."""
        line, self._line = self._line, None
        if line is None or self._pid != _process[0]:
            return
        with line.lock:
            line.stopped = True
            if line.idle:
                line.idle = False
                line.wake.release()
            while line.pending:
                line.pending.popleft()
            calls, line.calls = list(line.calls), deque()
        stopped = writer_stopped()
        for request, done in self._waiting.values():
            request.ticket.abandon()  # any not claimed yet is skipped, never written
            done.set(stopped)
        self._waiting = {}
        for ticket, _, _, _, done in calls:
            ticket.abandon()
            self._asked -= 1
            done.set((False, stopped))
        line.signal.ref = False

    def _started(self) -> _Line:
        """This process's writer thread, started on first use after any fork or close."""
        line = self._line
        if line is None or self._pid != _process[0]:
            from gevent import get_hub
            from gevent.monkey import get_original

            line = _Line(get_original("_thread", "allocate_lock"), get_hub().loop)
            line.signal.start(self._answer, line)
            line.signal.ref = False
            self._line, self._pid = line, _process[0]
            sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_SECONDS))
            get_original("_thread", "start_new_thread")(self._run, (line,))
        return line
