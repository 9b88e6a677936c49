"""How many connections a gevent worker holds: enough that silent ones only wait for their deadline.

A connection that says nothing is closed once `keepalive` (5 s, service.gunicorn_conf) passes
without a request's head: the deadline for the request line, gunicorn's own. Until then it costs
a gevent worker one greenlet (a few KiB) and one open file. A worker holds `worker_connections`
of them at once; beyond, new connections wait in the kernel's queue to be accepted, a phone's
challenge among them. At gunicorn's default (1,000 a worker), 2,200 silent connections from one
client put the others' median verdict at three quarters of a second, and 4 addresses of 512
each stalled every verdict for seconds.

So a worker holds CONNECTIONS (10,000): a few thousand silent connections, from one address or
many, are all accepted and wait out their 5 s, while a phone that sends its request at once is
answered meanwhile, whatever address it shares with them (a hall behind a Wi-Fi router's NAT is
one address). No connection is refused for its address: a cap per address shut out the phones
sharing one with a spectator holding connections. Each connection is an open file, so the
master raises its soft limit of open files (RLIMIT_NOFILE, inherited by the workers it forks) to
what CONNECTIONS needs, within the hard limit the system sets (`raise_open_files`, gunicorn's
documented `on_starting` hook); where the hard limit is lower, the log says so and what it allows.

A connection that has sent nothing yet never reaches a worker at first: the listening sockets
defer it (`defer_silent`, Linux's TCP_DEFER_ACCEPT, set on them by the master once they listen):
the kernel completes the handshake but hands the connection to a worker only once its first
bytes arrive, so a phone's request (sent at once) is taken as before, while a silent connection
waits in the kernel, costing a worker nothing, for DEFER_SECONDS; only then is it handed over,
and the worker's 5 s deadline closes it. Accepting thousands of silent connections, a greenlet,
a timer and a close each, and again as a client reopened each one closed, was what still cost
the others' verdicts (5,000 from one address: p99 142 ms; `make bench` section connections).
The kernel holds at most the listening socket's queue of them (BACKLOG, capped by the system's
`net.core.somaxconn`, 4,096 on Debian); beyond, the kernel answers with SYN cookies and
connections are accepted at once, as without deferring. Where the system has no such option
(macOS), every connection is accepted at once.

What an operator sees: `watch_connections` (gunicorn's documented `post_worker_init` hook) looks
every WATCH_SECONDS at how many files the worker has open, and warns once a minute while they
pass half of CONNECTIONS (`many connections open`, with `open` and `capacity`): a crowd of
connections, most likely silent ones, that a venue's service does not see otherwise.
"""

from __future__ import annotations

import logging
import os
import resource
import socket
import time

CONNECTIONS = 10_000  # connections one gevent worker holds at once (gunicorn's worker_connections)
DEFER_SECONDS = 30  # a connection that has sent nothing waits this long in the kernel before a worker takes it
BACKLOG = CONNECTIONS  # gunicorn's backlog: connections the kernel queues (capped by net.core.somaxconn)
SPARE_FILES = 256  # open files a worker needs besides its connections (lexicons, event file, logs, pipes)
WATCH_SECONDS = 1.0
WARN_EVERY = 60.0  # seconds between two warnings of one worker

log = logging.getLogger("service")


def raise_open_files(connections: int = CONNECTIONS) -> tuple[int, int]:
    """Raise the soft limit of open files to what `connections` need, within the hard limit:
    (the soft limit now, what was needed). Logs a warning when the hard limit is lower."""
    needed = connections + SPARE_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        soft = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    if soft != resource.RLIM_INFINITY and soft < needed:
        log.warning(
            "open files limited",
            extra={
                "fields": {
                    "limit": soft,
                    "needed": needed,
                    "connections": max(0, soft - SPARE_FILES),
                    "fix": "raise the hard limit of open files (ulimit -Hn, LimitNOFILE= in a systemd unit)",
                }
            },
        )
    return soft, needed


def defer_silent(listeners, seconds: int = DEFER_SECONDS) -> bool:
    """TCP_DEFER_ACCEPT on each TCP listening socket (gunicorn's listeners, or sockets): a
    connection is handed to accept() once its first bytes arrive, or after `seconds`. False
    where the system has no such option."""
    option = getattr(socket, "TCP_DEFER_ACCEPT", None)
    if option is None:
        return False
    for listener in listeners:
        sock = getattr(listener, "sock", listener)  # a gunicorn listener holds its socket
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, option, seconds)
    return True


def open_files() -> int | None:
    """How many files this process has open (Linux), or None where the system does not say."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return None


def watch_connections(capacity: int = CONNECTIONS) -> None:
    """In a gevent worker: a greenlet that warns, once a minute at most, while more than half of
    `capacity` files are open."""
    import gevent

    def watch() -> None:
        warned = time.monotonic() - WARN_EVERY
        while True:
            gevent.sleep(WATCH_SECONDS)
            count = open_files()
            if count is None:
                return
            now = time.monotonic()
            if count > capacity // 2 and now - warned >= WARN_EVERY:
                warned = now
                log.warning(
                    "many connections open", extra={"fields": {"pid": os.getpid(), "open": count, "capacity": capacity}}
                )

    gevent.spawn(watch)
