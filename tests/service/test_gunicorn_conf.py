"""service/gunicorn_conf.py's hooks, in process (the whole service's stops: test_e2e.py)."""

from __future__ import annotations

import os
import signal

from service import gunicorn_conf

STOPS = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM)


def test_a_stop_a_worker_gets_before_post_fork_is_noted_and_the_master_s_handlers_stay_its_own(monkeypatch):
    """A worker runs its master's handlers until post_fork: gunicorn logs "Booting worker" in it
    before that hook, and Ctrl-C then was lost (the master's handler queued it in the worker's copy
    of the master, which nothing reads). pre_fork wraps the master's handlers once: in the master
    they are its own; in a worker before post_fork a stop is noted for post_worker_init and SIGINT
    is ignored, as the worker ignores it later."""
    heard: list[int] = []
    before = {number: signal.signal(number, lambda signum, frame: heard.append(signum)) for number in STOPS}
    try:
        monkeypatch.setattr(gunicorn_conf, "_told", [])
        gunicorn_conf.pre_fork(None, None)
        wrapped = {number: signal.getsignal(number) for number in STOPS}
        gunicorn_conf.pre_fork(None, None)  # before the next worker: wrapped once, not twice
        assert {number: signal.getsignal(number) for number in STOPS} == wrapped
        for number in STOPS:
            signal.raise_signal(number)
        assert heard == list(STOPS) and gunicorn_conf._told == []  # the master: its own handlers
        master = os.getpid()
        monkeypatch.setattr(os, "getpid", lambda: master + 1)  # as in a worker just forked
        for number in STOPS:
            signal.raise_signal(number)
        assert heard == list(STOPS)  # the master's handlers not run in the worker
        assert gunicorn_conf._told == [signal.SIGQUIT, signal.SIGTERM]  # noted; SIGINT ignored
    finally:
        monkeypatch.undo()
        for number, handler in before.items():
            signal.signal(number, handler)
