"""The event's write lock between processes: a writer that has waited long is let in before one
that only just released it (a `flock` alone would let the busy one take it back first)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import pytest

from tests.support import until
from tournament.stores.sqlite import write_lock

# A writer in a process of its own: waits for the lock, says "got" as it holds it, then lets go.
WAITER = """
import os, sys
from pathlib import Path
from tournament.stores.sqlite import write_lock
path = Path(sys.argv[1])
fd = write_lock.open_file(path)
os.write(1, b"waiting\\n")
write_lock.take(fd, path, 60)
os.write(1, b"got\\n")
write_lock.release(fd)
"""

# A process that holds the mark of a starving writer and never takes the lock (a writer stopped).
STOPPED = """
import fcntl, os, sys
from tournament.stores.sqlite import write_lock
fd = os.open(sys.argv[1] + "-lock", os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, write_lock.WAITING)
os.write(1, b"marked\\n")
sys.stdin.read()
"""


def _process(script: str, path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", script, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=os.getcwd(),
    )


def _said(process: subprocess.Popen) -> bytes:
    """What the process has written so far, without waiting for more."""
    out = b""
    while select.select([process.stdout], [], [], 0)[0]:
        chunk = os.read(process.stdout.fileno(), 100)
        if not chunk:
            break
        out += chunk
    return out


@pytest.fixture
def lock_path(tmp_path):
    path = tmp_path / "event.db"
    fd = write_lock.open_file(path)
    yield path, fd
    os.close(fd)


def test_a_writer_that_released_the_lock_gives_it_to_the_one_starving_for_it(lock_path, monkeypatch):
    path, fd = lock_path
    monkeypatch.setattr(write_lock, "GIVE_WAY", 60)  # the courtesy's bound aside: the order alone
    write_lock.take(fd, path, 5)
    waiter = _process(WAITER, path)
    try:
        until(lambda: write_lock._others_wait(fd), "the other process to mark itself starving")
        write_lock.release(fd)
        write_lock.take(fd, path, 60)  # at once: the lock is free, but another waits
        assert b"got" in _said(waiter)  # it held the lock first
        write_lock.release(fd)
        assert waiter.wait(timeout=60) == 0
    finally:
        waiter.kill()
        waiter.wait()


def test_a_mark_left_by_a_writer_that_never_takes_the_lock_delays_a_take_by_give_way_only(lock_path, monkeypatch):
    """It gives way for GIVE_WAY, then takes the free lock: the pauses it asked for add up to no
    more than that (a clock-free bound; a courtesy that waited until the take's own bound, the
    lock free all along, took it as well, and only later)."""
    path, fd = lock_path
    asked: list[float] = []
    pause = write_lock.pause_for
    monkeypatch.setattr(write_lock, "pause_for", lambda seconds: asked.append(seconds) or pause(seconds))
    stopped = _process(STOPPED, path)
    try:
        until(lambda: b"marked" in stopped.stdout.readline(), "the mark to be held")
        assert write_lock._others_wait(fd)
        began = time.monotonic()
        write_lock.take(fd, path, 5)  # not LockBusy: the lock itself is free
        assert time.monotonic() - began >= write_lock.GIVE_WAY
        assert sum(asked) <= write_lock.GIVE_WAY + write_lock.LOCK_PAUSES[0], sum(asked)
        write_lock.release(fd)
    finally:
        stopped.kill()
        stopped.wait()


# A writer that gives up (LockBusy) after it marked itself, and stays alive: its mark must be gone.
GIVES_UP = """
import os, sys
from pathlib import Path
from tournament.errors import LockBusy
from tournament.stores.sqlite import write_lock
path = Path(sys.argv[1])
fd = write_lock.open_file(path)
try:
    write_lock.take(fd, path, 20 * write_lock.STARVING)
except LockBusy:
    os.write(1, b"refused\\n")
sys.stdin.read()
"""


def test_a_writer_that_gave_up_waiting_leaves_no_mark(lock_path):
    path, fd = lock_path
    write_lock.take(fd, path, 5)
    gave_up = _process(GIVES_UP, path)
    try:
        assert gave_up.stdout.readline() == b"refused\n"
        assert not write_lock._others_wait(fd)
    finally:
        write_lock.release(fd)
        gave_up.kill()
        gave_up.wait()
