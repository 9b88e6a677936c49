"""A request body read against a deadline: a body that stalls is a 408, not a connection held.

gunicorn bounds the time a request's head may take (`keepalive`, service.gunicorn_conf), but
not its body: once the head is in, a read of the body waits as long as the client likes. A
client that sends `Content-Length: 100` and 5 bytes held its connection, and the greenlet
serving it, for good; a few thousand such connections filled every worker's `worker_connections`
and no challenge was accepted any more.

So the app reads the body with a deadline of its own: BODY_SECONDS (service.config) from the
moment it starts to read, for the whole body, not for each read (a body trickled a byte at a
time does not renew it). In gunicorn's gevent worker (the default) the deadline is a timer of
gevent's event loop (`get_hub().loop.timer`, gevent's documented loop interface) that throws
`BodyStalled` into the greenlet reading: the read stops where it waits, and the app answers
408. The timer is a single loop watcher, 1 µs a request (`gevent.Timeout` is the same timer
wrapped in an exception object, 5 µs). gunicorn then discards what is left of the body within
its own `keepalive` before it reads the connection's next request, and closes the connection if
that does not arrive either.

Without gevent (gunicorn's sync or gthread worker, Flask's test client) the body is read as
it is: the sync worker's own `timeout` ends a worker held that long, and neither serves a
phone-facing venue (service.gunicorn_conf says why).
"""

from __future__ import annotations

from typing import BinaryIO

from .config import BODY_SECONDS

try:
    from gevent import get_hub, getcurrent, monkey
except ImportError:  # pragma: no cover - gevent is a dependency; another server may lack it
    monkey = None


class BodyStalled(Exception):
    """The body did not arrive within BODY_SECONDS; thrown into the greenlet reading it."""


def read_within(stream: BinaryIO, size: int, seconds: float = BODY_SECONDS) -> bytes:
    """`stream.read(size)`, or BodyStalled once `seconds` have passed (under gevent: when its
    worker patched the socket, on this thread's event loop)."""
    if monkey is None or not monkey.is_module_patched("socket"):
        return stream.read(size)
    timer = get_hub().loop.timer(seconds)
    timer.start(getcurrent().throw, BodyStalled)
    try:
        return stream.read(size)
    finally:
        timer.close()
