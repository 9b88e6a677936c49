"""What one store's verification knows in this process, and the one verification at a time that
runs off the request path (verification.py says when, and what is read).

Looks run at once in the threads of a gthread worker, and a full verification beside them: the
runner of tournament/offpath.py starts at most one verification at a time, and each result
carries the generation of the reading it stands on, so one read earlier never replaces one read
later (a break found since is never erased by an older verification ending after it).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass, replace

from ...chain import GENESIS
from ...integrity import Break, ChainState
from ...offpath import OffPath

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


class Verification(OffPath):
    """One store's verification in this process (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.known = Known(self._pid)
        self._said: Break | None = None  # the break in the log last
        self._unguarded_said = False  # the triggers' absence is in the log
        self.failed: str | None = None  # the error a verification off the request path ended with, to log
        self.edited: Break | None = None  # a row verified here that changed since: said until the process ends
        self.swept: float | None = None  # when the verified rows' fingerprints were last compared (monotonic)
        self.swept_version: int | None = None  # the file's data_version then (a change since: compare again)
        self._watcher: sqlite3.Connection | None = None  # this process's own connection, for data_version
        # in a process forked since, the parent's watcher connection is left alone: never used, nor closed

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
        self.here()
        return self.known

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
