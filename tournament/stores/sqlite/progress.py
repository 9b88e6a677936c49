"""What one store's verification knows in this process, and the one verification at a time that
runs off the request path (verification.py says when, and what is read).

Looks run at once in the threads of a gthread worker, and a full verification beside them: one
lock (a native one, held only to compare and assign, so the event loop never waits on a read)
starts at most one verification at a time, and each result carries the generation of the
reading it stands on, so one read earlier never replaces one read later (a break found since is
never erased by an older verification ending after it).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ...chain import GENESIS
from ...model import Break, ChainState
from ...writer import cooperative

log = logging.getLogger("service")
monotonic = time.monotonic  # the clock the periods are read on (a test moves its own)


@dataclass(frozen=True)
class Known:
    """What this process verified last: rows 1 to `seq` chain (the last with `hash`), and the
    first break found, if any; when the last full verification finished (`full`: monotonic
    seconds, `full_at`: the store's time, for the console), and when the last one failed
    (`failed`, monotonic; None: it did not). `generation`: the reading this stands on (a full
    verification's own, taken as it started; a look that only added rows keeps its state's and
    adds its own), compared so that an older reading never replaces a newer one."""

    pid: int
    seq: int = 0
    hash: str = GENESIS
    broken: Break | None = None
    full: float | None = None
    full_at: str | None = None
    failed: float | None = None
    generation: tuple[int, int] = (0, 0)
    schema: int | None = None  # the file's schema_version when its full verification began
    prints: tuple[tuple[int, int, bytes], ...] = ()  # (first, last, digest) of rows 1 to `seq`, when unbroken


def _native_lock():
    """A lock of the OS: the result of a verification is kept from a native thread even in a
    gevent worker, where `threading.Lock` (patched) would be a greenlet's."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("threading"):
        return monkey.get_original("threading", "Lock")()
    return threading.Lock()


class Verification:
    """One store's verification in this process (see the module's docstring)."""

    def __init__(self) -> None:
        self._pid = os.getpid()
        self._lock = _native_lock()  # held only to compare and assign: never across a read or a spawn
        self.known = Known(self._pid)
        self._generations = 0  # the last generation given out
        self._busy = False  # a full verification runs off the request path
        self._task = None  # that verification: a Thread or an AsyncResult
        self._said: Break | None = None  # the break in the log last
        self._unguarded_said = False  # the triggers' absence is in the log
        self.failed: str | None = None  # the error a verification off the request path ended with, to log
        self.edited: Break | None = None  # a row verified here that changed since: said until the process ends
        self.swept: float | None = None  # when the verified rows' fingerprints were last compared (monotonic)
        self.swept_version: int | None = None  # the file's data_version then (a change since: compare again)
        self._watcher: sqlite3.Connection | None = None  # this process's own connection, for data_version

    def _here(self) -> None:
        """Forget everything in a process forked since (each worker verifies for itself)."""
        if self._pid != os.getpid():
            self.__init__()  # the parent's watcher connection is left alone: never used, nor closed, here

    def data_version(self, path) -> int:
        """SQLite's `PRAGMA data_version` of the event file, on a connection of this process's own:
        it moves whenever another connection (a worker's writer, a command, an edit by hand)
        commits, and only then."""
        with self._lock:
            if self._watcher is None:
                uri = f"{path.resolve().as_uri()}?mode=ro"
                self._watcher = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
            return self._watcher.execute("PRAGMA data_version").fetchone()[0]

    def current(self) -> Known:
        self._here()
        return self.known

    def generation(self) -> int:
        """A new generation, for a reading about to start."""
        with self._lock:
            self._generations += 1
            return self._generations

    @property
    def running(self) -> bool:
        self._here()
        return self._busy

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the full verification off the request path to end (tests, `make bench`): whether it has."""
        self._here()
        task = self._task
        if task is None:
            return not self._busy
        if isinstance(task, threading.Thread):
            task.join(timeout)
        else:
            task.wait(timeout)
        return not self.running

    def start(self, check: Callable[[int], None]) -> bool:
        """Run `check(generation)` off the request path unless a verification runs already: whether it was started."""
        self._here()
        with self._lock:
            if self._busy:
                return False
            self._busy = True
            self._generations += 1
            generation = self._generations

        def run() -> None:
            try:
                check(generation)
            finally:
                with self._lock:
                    self._busy = False

        try:
            if cooperative():
                from gevent import get_hub

                self._task = get_hub().threadpool.spawn(run)
            else:
                self._task = threading.Thread(target=run, name="record-verification", daemon=True)
                self._task.start()
        except BaseException:
            with self._lock:
                self._busy = False
            raise
        return True

    def edit(self, broken: Break) -> None:
        """A row verified here changed since: said (the first such row) until the process ends."""
        with self._lock:
            if self.edited is None or broken.seq < self.edited.seq:
                self.edited = broken

    def found(self, known: Known) -> Known:
        """Keep what a reading found unless a newer reading's result is kept already: the state kept."""
        with self._lock:
            if known.generation > self.known.generation:
                self.known = known
            return self.known

    def failure(self, generation: int, error: str) -> None:
        """A full verification of `generation` ended with `error`: said, and tried again later."""
        with self._lock:
            self.failed = error
            if (generation, generation) > self.known.generation:
                self.known = replace(self.known, failed=monotonic(), generation=(generation, generation))

    def said(self, state: ChainState) -> ChainState:
        """`state`, once a new break, the triggers' absence or a failed verification is in the
        log (the row's number only)."""
        if state.broken is not None and state.broken != self._said:
            log.warning("the event's record does not verify", extra={"fields": {"seq": state.broken.seq}})
        self._said = state.broken
        if not state.guarded and not self._unguarded_said:
            log.warning("the event's record lost its append-only triggers: the file was edited by hand")
        self._unguarded_said = not state.guarded
        with self._lock:
            failed, self.failed = self.failed, None
        if failed is not None:
            log.warning("the event's record could not be verified", extra={"fields": {"error": failed}})
        return state
