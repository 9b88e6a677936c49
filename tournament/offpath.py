"""One task at a time off the request path, per process: the runner both stores' verifications
of the whole record use (stores/sqlite/progress.py, stores/postgres/verification.py say what
they verify and when).

The task runs in a thread of its own: in a gevent worker a native thread of the hub's pool (a
read there never stops the event loop), else a daemon thread. One lock of the OS (a gevent
worker's `threading.Lock` would be a greenlet's, useless from a native thread) is held only to
compare and assign, never across a read or a spawn. Each task and each look is given a
*generation*, counted up, so that what an older reading found never replaces a newer one's.
A process forked since (a gunicorn worker) starts afresh: each verifies for itself.

A module of the domain, not of tournament/stores/: both stores use it, and no store imports
another (pyproject.toml's contracts).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

from .cooperative import cooperative


def native_lock():
    """A lock of the OS, even where gevent patched `threading`."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("threading"):
        return monkey.get_original("threading", "Lock")()
    return threading.Lock()


class OffPath:
    """This process's one task at a time off the request path, and the generations it gives out.
    A subclass keeps its own state in `__init__`, which runs again in a process forked since."""

    def __init__(self) -> None:
        self._pid = os.getpid()
        self._lock = native_lock()  # held only to compare and assign: never across a read or a spawn
        self._generations = 0  # the last generation given out
        self._busy = False  # a task runs off the request path
        self._task = None  # that task: a Thread or gevent's AsyncResult

    def here(self) -> None:
        """Forget everything of a parent process (each worker process verifies for itself)."""
        if self._pid != os.getpid():
            self.__init__()

    def generation(self) -> int:
        """A new generation, for a reading about to start."""
        with self._lock:
            self._generations += 1
            return self._generations

    @property
    def running(self) -> bool:
        self.here()
        return self._busy

    def start(self, task: Callable[[int], None]) -> bool:
        """Run `task(generation)` off the request path unless one runs already: whether it started."""
        self.here()
        with self._lock:
            if self._busy:
                return False
            self._busy = True
            self._generations += 1
            generation = self._generations

        def run() -> None:
            try:
                task(generation)
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

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the task off the request path to end (tests, `make bench`): whether it has."""
        self.here()
        task = self._task
        if task is not None:
            task.join(timeout) if isinstance(task, threading.Thread) else task.wait(timeout)
        return not self.running
