"""Whether this process runs its connections as greenlets on one OS thread (gunicorn's gevent
worker: `threading` monkey-patched), where a call that blocks stops every other connection of the
worker, and running a function elsewhere there without gevent printing what it raised.

A module of its own: the writer (writer.py), the runner off the request path (offpath.py) and the
PostgreSQL store's connections each ask, and a store may not import the writer's rules.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def cooperative() -> bool:
    """Whether blocking calls here would stop other greenlets: gevent has patched `threading`
    (gunicorn's gevent worker does, in each worker process after it forks). Once patched it stays
    so (gevent has no unpatching), so a True is kept: every recorded verdict asks, on the loop."""
    global _cooperative
    if not _cooperative:
        monkey = sys.modules.get("gevent.monkey")
        _cooperative = monkey is not None and monkey.is_module_patched("threading")
    return _cooperative


_cooperative = False  # cooperative()'s answer, once True


def returned(function: Callable[..., T], args: tuple, kwargs: dict) -> tuple[bool, T | Exception]:
    """Run in another thread (the writer's, a gevent pool's): what `function` returned, or the
    exception it raised, as a value. A gevent pool's task that raises is printed with its
    traceback by gevent's hub, to standard error, as it passes the exception on: every refused
    director action (a round already open) would write lines that are not the service's JSON
    log lines; and the writer thread passes each outcome on as a value."""
    try:
        return True, function(*args, **kwargs)
    except Exception as error:
        return False, error


def apply_quietly(pool, function: Callable[..., T], *args, **kwargs) -> T:
    """`pool.apply(function, …)`, its exception raised here without gevent printing it."""
    ok, value = pool.apply(returned, (function, args, kwargs))
    if not ok:
        raise value
    return value
