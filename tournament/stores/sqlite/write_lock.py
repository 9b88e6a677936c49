"""The event's write lock across processes: an exclusive `flock` of the lock file beside the event
file, taken by connection.py's writes (and its notes: outside.py) before `BEGIN IMMEDIATE`.

- Writers queue on an exclusive `flock` of a lock file beside the event (`EVENT.db-lock`, which
  holds only the note of the last write, outside.py) before `BEGIN IMMEDIATE`: a writer waiting in SQLite's busy handler sleeps in steps of up to
  100 ms and may oversleep the lock's release by that much, which the recorded challenge's
  tail would show (`make bench`, section event); a writer waiting on the lock file tries it
  again within LOCK_PAUSES[1]. `busy_timeout` stays as the safety net (another
  program writing the file, a system without `flock`). A blocking `flock` has no timeout, so the
  lock is tried without blocking (`LOCK_NB`), again after pauses that double from LOCK_PAUSES[0]
  to LOCK_PAUSES[1], until BUSY_SECONDS have passed: then LockBusy (a StorageError, 503
  `record-unavailable` in the service, exit 2 with a sentence in the CLI), and nothing is written.
  One bound for every worker class (gevent, sync, gthread) and every command: a lock held
  elsewhere, the file's or SQLite's, is never waited for longer. In a gevent worker the caller
  also gives up after the same BUSY_SECONDS (writer.py), so what it gave up on is never written.
- A `flock` is not fair: a process that commits again and again (a busy worker) takes the lock
  back within microseconds of releasing it, before a waiter's next try, and the waiter can miss
  it for tens of milliseconds (the tail of `python -m bench tournament`'s appends from two and
  four processes). So a writer that has waited STARVING says so, with a shared `lockf` of one
  byte of the lock file (WAITING; `lockf` and `flock` locks do not meet on Linux), and tries
  again every LOCK_PAUSES[0]; a writer about to take the lock while such a mark is held first
  gives way, for GIVE_WAY at most (a waiter stopped with its mark held costs each take that
  much, no more). The mark is a courtesy between processes, never a lock: it is not seen from
  the process that holds it, and any descriptor of the lock file that process closes drops it
  (`lockf` locks are per process), which costs fairness only; a system that refuses it leaves
  the plain tries.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: SQLite's busy handler alone
    fcntl = None

from ...errors import LockBusy

LOCK_PAUSES = (0.0001, 0.0005)  # first and longest pause between tries of the lock file (the most a waiter oversleeps)
STARVING = 0.003  # a writer that has waited this long asks the others to give way (`python -m bench tournament`)
GIVE_WAY = 0.001  # the most a writer gives way to a starving one before trying the lock
WAITING = 1 << 40  # the byte of the lock file whose shared `lockf` is the mark (far past the note)


def close_in(fd: int, pid: int) -> None:
    """Close a descriptor in the process that opened it (never one a forked child only inherited)."""
    if os.getpid() == pid:
        os.close(fd)


def pause_for(seconds: float) -> None:
    """Sleep this OS thread: in a gevent worker the lock is taken in the writer thread, where
    gevent's patched `time.sleep` would start an event loop of its own."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("time"):
        monkey.get_original("time", "sleep")(seconds)
    else:
        time.sleep(seconds)


def tries(bound: float) -> Iterator[None]:
    """The moments to try something held elsewhere again: at once, then after pauses that double
    from LOCK_PAUSES[0] to LOCK_PAUSES[1], until `bound` seconds have passed (the caller then
    raises its LockBusy)."""
    deadline = time.monotonic() + bound
    pause = LOCK_PAUSES[0]
    yield
    while (left := deadline - time.monotonic()) > 0:
        pause_for(min(pause, left))
        pause = min(pause * 2, LOCK_PAUSES[1])
        yield


def _others_wait(fd: int) -> bool:
    """Whether a writer of another process has marked itself as starving (WAITING is held shared)."""
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, WAITING)
    except (BlockingIOError, PermissionError):  # EAGAIN or EACCES: held elsewhere
        return True
    except OSError:  # no record locks here: no courtesy either
        return False
    fcntl.lockf(fd, fcntl.LOCK_UN, 1, WAITING)
    return False


def _mark(fd: int) -> bool:
    """Mark this process's writer as starving: whether the mark could be held."""
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, WAITING)
    except OSError:  # another writer is looking (its EX for an instant), or no record locks
        return False
    return True


def take(fd: int, path: Path, bound: float) -> None:
    """The lock file's exclusive `flock`, or LockBusy once `bound` seconds have passed without it
    (BUSY_SECONDS, as the caller reads it when it writes: a test shortens connection.py's).
    Gives way first to a starving writer of another process (the module's docstring)."""
    start = time.monotonic()
    deadline = start + bound
    courtesy = min(start + GIVE_WAY, deadline)
    while _others_wait(fd) and time.monotonic() < courtesy:
        pause_for(LOCK_PAUSES[0])
    pause, marked = LOCK_PAUSES[0], False
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                pass
            now = time.monotonic()
            if now >= deadline:
                break
            if not marked and now - start >= STARVING:
                marked = _mark(fd)
            pause_for(min(LOCK_PAUSES[0] if marked else pause, deadline - now))
            pause = min(pause * 2, LOCK_PAUSES[1])
    finally:
        if marked:
            fcntl.lockf(fd, fcntl.LOCK_UN, 1, WAITING)
    raise LockBusy(
        f"{path}: the event's write lock was not free within {bound:g} s (another "
        "process holds it: the service in a long write, or a command); nothing was "
        "written, try again"
    )


def release(fd: int) -> None:
    """Release the lock file's `flock` taken by `take`."""
    fcntl.flock(fd, fcntl.LOCK_UN)


def open_file(path: Path) -> int | None:
    """A new descriptor of the event's lock file (`EVENT.db-lock`), or None where there can be
    none (not POSIX, or a folder we cannot write in: SQLite will say so at BEGIN)."""
    if fcntl is None:
        return None
    try:
        return os.open(f"{path}-lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
