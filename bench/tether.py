"""Servers that die with the process that started them: every server the tests and the bench start
(`lexicon serve`, PostgreSQL, nginx, Xvfb, the browsers' drivers) is tethered here.

Why: a run killed mid-test (SIGKILL of pytest or of an xdist worker, CI's timeout) runs no
teardown, and each server runs in a session of its own (so that a stop reaches its workers and a
terminal's Ctrl-C does not), so nothing else ends it: it ran on for hours, holding its port and CPU.

How: beside each server, a watcher (this file run as a script, a few MB) waits on two things at
once: the read end of a pipe whose only write end the starting process holds, and the server's
pidfd. The server ending first, it just exits. The starting process ending first, however it
ends (the kernel closes its pipe even on SIGKILL), the pipe reads end-of-file: it sends the
server's stop signal to the server's process group, and SIGKILL `GRACE` seconds later if it is
still there. Not PR_SET_PDEATHSIG: that fires when the starting THREAD exits (a server started
from a worker thread would die with it), reaches the one process only (nginx's and gunicorn's
workers would stay), and is lost across a change of user (PostgreSQL runs as `postgres`).

The pidfd makes it safe: the group is signalled only while its leader is alive, so never a
group whose number came back for someone else. The watcher runs in a session of its own, so a
signal to the run's process group (CI's timeout) ends the run and leaves the watcher to clean up.
"""

from __future__ import annotations

import atexit
import os
import select
import signal
import subprocess
import sys
import threading

GRACE = 10.0  # seconds a server has to stop on its own signal before SIGKILL

_watchers: list[tuple[subprocess.Popen, int]] = []  # (a watcher, the write end this process holds)
_lock = threading.Lock()  # servers may be started from several threads at once


def start(args, *, stop: signal.Signals = signal.SIGTERM, **options) -> subprocess.Popen:
    """`subprocess.Popen(args, **options)` in a session of its own, tethered (`tether`) to this
    process: it gets `stop` (its own way of stopping everything it started) if this process ends
    while it runs."""
    process = subprocess.Popen(args, start_new_session=True, **options)
    try:
        tether(process.pid, stop)
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    return process


def tether(pid: int, stop: signal.Signals = signal.SIGTERM, group: bool = True) -> None:
    """A watcher for the running process `pid` (a process group's leader unless `group` is
    False): when this process ends, `pid`'s group (or `pid`) gets `stop`, then SIGKILL."""
    if group and os.getpgid(pid) != pid:
        raise ValueError(f"process {pid} leads no process group")
    _reap()
    pidfd = os.pidfd_open(pid)
    read, write = os.pipe()
    try:
        watcher = subprocess.Popen(
            [sys.executable, "-I", "-S", __file__, *map(str, (pid, int(stop), int(group), pidfd))],
            stdin=read,
            stdout=subprocess.DEVNULL,
            pass_fds=[pidfd],
            start_new_session=True,
        )
    except BaseException:
        os.close(write)
        raise
    finally:
        os.close(read)
        os.close(pidfd)
    with _lock:
        _watchers.append((watcher, write))


def _reap() -> None:
    """Watchers whose server has ended waited for (no zombie left) and their pipe closed."""
    with _lock:
        for entry in [entry for entry in _watchers if entry[0].poll() is not None]:
            os.close(entry[1])
            _watchers.remove(entry)


atexit.register(_reap)


class _Told(Exception):
    """The watcher itself was told to end."""


def _told(number: int, frame) -> None:
    raise _Told


def _watch(pid: int, stop: int, group: int, pidfd: int) -> None:
    """Wait for the server or the starting process to end; the latter first, stop the server.

    A watcher told to end (SIGTERM, SIGINT, SIGHUP: a run stopped by killing its programs by
    name, the watchers among them) stops its server first, as if its run had ended: it exists
    for nothing else, and a server outliving it would have nobody left to end it."""

    def send(number: int) -> None:
        if group:
            os.killpg(pid, number)  # the leader is alive (its pidfd says so): the group is still its
        else:
            signal.pidfd_send_signal(pidfd, number)

    try:  # told as its handlers go in, before it waits: told all the same
        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(number, _told)
        ready, _, _ = select.select([0, pidfd], [], [])
        if pidfd in ready:
            return  # the server ended first
    except _Told:
        pass
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)  # told again, it still sees its server stopped
    try:
        send(stop)  # end-of-file: nothing is ever written, so the starting process is gone
        if not select.select([pidfd], [], [], GRACE)[0]:
            send(signal.SIGKILL)
    except ProcessLookupError:
        pass  # ended meanwhile


if __name__ == "__main__":
    _watch(*map(int, sys.argv[1:5]))
