"""gunicorn configuration of the challenge service (`lexicon serve` uses it; so can gunicorn):

    gunicorn -c python:service.gunicorn_conf

What comes from the settings (address, port, workers, worker class, threads, log level) is taken
from the one `Settings` object (service.config, LEXICON_HOST, LEXICON_PORT, LEXICON_WORKERS,
LEXICON_WORKER_CLASS, LEXICON_THREADS, LEXICON_LOG_LEVEL): `options(settings)` gives every
gunicorn setting for given Settings (`lexicon serve` passes the ones it has read), and the
module's own attributes are the same for the environment, for `gunicorn -c`.

Why gevent, one process per core (`make bench` measures it against gthread and sync, with
slow and silent clients and without): a phone-facing service on a venue laptop has no proxy in
front, so it must hold clients that send their request a byte a second, or open a connection
and say nothing, without a worker waiting on each. gevent's worker gives every connection a
greenlet (a few KiB), and waiting for a request's head is limited to `keepalive` seconds by
gunicorn itself (`timeout_ctx`): a trickle or a silence is closed then, and the others are
answered meanwhile. A worker holds 10,000 connections (service.connections), so thousands of
silent ones only wait out that deadline, and a phone's request is read as it comes. The
verdict is short CPU work, so one process per core; more only switches.
gunicorn's sync worker holds a worker per connection until `timeout` (a few slow phones stop
the service) and lingers up to 2 s draining each closed socket; gthread reads a request's head
in its pool threads, so a few slow heads take them all.

The app is created once, in the master, before the workers fork (`preload_app`): the lexicons
are verified once, and every worker answers from the same verified bytes, shared copy-on-write.
`gc.freeze()` before the fork keeps the garbage collector from writing to (and so copying) the
master's objects in every worker. A reload (SIGHUP, `lexicon reload`) builds a new app in the
master before new workers fork (`on_reload`, set by `lexicon serve`: see service.reloading).
"""

from __future__ import annotations

import gc
import logging
import os
import signal
from typing import Any

from .config import Settings, load_settings
from .connections import BACKLOG, CONNECTIONS, defer_silent, raise_open_files, watch_connections
from .proxies import gunicorn_allow_ips

wsgi_app = "service:create_app()"


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def address(settings: Settings) -> str:
    """host:port as gunicorn binds it ([::1]:8000 for an IPv6 address)."""
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    return f"{host}:{settings.port}"


def from_settings(settings: Settings) -> dict[str, Any]:
    """The gunicorn settings that come from the service's Settings."""
    return {
        "bind": [address(settings)],
        "workers": settings.workers or default_workers(),
        "worker_class": settings.worker_class,
        "threads": settings.threads,  # gunicorn runs gthread instead of a sync worker given more
        "loglevel": settings.log_level,
        # X-Forwarded-Proto from these front ends only (LEXICON_TRUSTED_PROXIES; none by default,
        # not gunicorn's 127.0.0.1): the same list the app reads the client's address with
        "forwarded_allow_ips": gunicorn_allow_ips(settings.trusted_proxies),
    }


worker_connections = CONNECTIONS  # one gevent worker's connections at once; beyond, they wait to be accepted
backlog = BACKLOG  # connections the kernel queues, silent ones deferred among them (service.connections)
preload_app = True
keepalive = 5  # seconds a connection may take to send a request's head, and stay idle between requests
timeout = 30
graceful_timeout = 10
proc_name = "lexicon-judge"
control_socket_disable = True  # gunicorn >= 25: one fixed path per user would clash between servers

# Logs: JSON lines on standard error (app and gunicorn) and standard output (access).
logger_class = "service.logs.GunicornLogger"
accesslog = "-"
errorlog = "-"

# Requests: a GET /v1/challenge of 8 words of 15 tiles fits the default line limit many times.
limit_request_line = 4094
limit_request_fields = 64
limit_request_field_size = 8190


def on_starting(server) -> None:
    """In the master, before it listens: open files enough for every worker's connections
    (inherited by the workers it forks; service.connections)."""
    raise_open_files(server.cfg.worker_connections)


# The master's word to stop a worker (SIGQUIT: Ctrl-C's quick stop; SIGTERM: a graceful one) that
# came before the worker's own handlers were installed, kept for them (post_fork, post_worker_init).
_STOP = (signal.SIGQUIT, signal.SIGTERM)
_told: list[int] = []


def pre_fork(server, worker) -> None:
    """In the master, before each fork: its handlers of Ctrl-C and the stops kept as they are for
    the master, and made to note the stop (SIGINT ignored) in a worker that runs them before its
    post_fork, the moment in which gunicorn logs "Booting worker" (see post_fork). Each handler is
    the master's own, wrapped once, through the signal module."""
    master = os.getpid()
    for number in (signal.SIGINT, *_STOP):
        original = signal.getsignal(number)
        if callable(original) and not getattr(original, "kept", False):

            def kept(signum, frame, original=original):
                if os.getpid() == master:
                    original(signum, frame)
                elif signum != signal.SIGINT:
                    _told.append(signum)

            kept.kept = True
            signal.signal(number, kept)


def post_fork(server, worker) -> None:
    """In each worker, just forked: its master's word to stop is kept, not lost.

    A forked worker runs its master's signal handlers until its own are installed (gunicorn's
    worker does so after gevent's monkey-patching, some 100 ms on). Those queue a signal for the
    master's loop, which the worker never runs: Ctrl-C in those first moments (SIGINT to every
    process of the terminal's group, then SIGQUIT from the master) was lost, the worker went on
    serving, and the master waited its graceful_timeout (10 s) before it killed it. From here on
    a stop is noted and given again to the worker's own handlers once they are in place
    (post_worker_init), and SIGINT is ignored, as it is later (the master stops the workers).
    Only gunicorn's documented hooks and the signal module: no worker class of our own."""
    for stop in _STOP:
        signal.signal(stop, lambda number, frame: _told.append(number))
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def post_worker_init(worker) -> None:
    """In each worker, once it is ready: Ctrl-C left to the master, a stop that came before its
    handlers given to them (post_fork); in a gevent worker, a warning in the log while its
    connections pile up.

    Ctrl-C in a terminal sends SIGINT to every process of its group, the workers too, and the
    master then sends each worker SIGQUIT: two quick stops. gunicorn's gevent worker runs each in
    a greenlet that ends in `sys.exit(0)`, and the second one, run while the interpreter is
    shutting down, printed a `SystemExit: 0` traceback to standard error, which holds only JSON
    lines. A worker ignores SIGINT, so it stops once, on its master's word (a worker whose master
    died stops by itself, seeing its parent gone)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for stop in dict.fromkeys(_told):  # the worker's own handler now, as if it came at this moment
        signal.raise_signal(stop)
    if _gevent(worker):
        watch_connections(worker.cfg.worker_connections)


def when_ready(server) -> None:
    """In the master, once the sockets listen, after the app is loaded and before any worker forks:
    a connection that says nothing is held by the kernel, not a worker (service.connections)."""
    defer_silent(server.LISTENERS)
    gc.collect()
    gc.freeze()
    app = server.app.wsgi()  # loaded already (preload_app): the same object
    logging.getLogger("service").info(
        "service ready",
        extra={
            "fields": {
                "listening": [str(listener) for listener in server.LISTENERS],
                **app.extensions["lexicon_summary"],
            }
        },
    )


def worker_exit(server, worker) -> None:
    """In a worker, as it exits: nothing more may reach the logs but JSON lines.

    When the interpreter of a gevent worker is torn down, logging's weak references to its
    handlers are collected after gevent's own module is cleared, and each prints an "Exception
    ignored" traceback to standard error: noise, not an error, and not a JSON line. Only that
    teardown is silenced, from here on.
    """
    import sys

    sys.stdout.flush()
    sys.stderr.flush()
    sys.unraisablehook = lambda unraisable: None


def pre_request(worker, req) -> None:
    """Nothing: gunicorn's own hook logs each request's method and path at the debug level, and a
    path is anything a client sends, a word too (service.logs). The access log says the route."""


def post_request(worker, req, environ, resp) -> None:
    """In a gevent worker, after each answer: every other connection of the worker goes first.

    A client that sends its next request as soon as it has an answer (a load generator, a
    batch tool) finds the greenlet serving it still running, which reads that request at
    once and answers it too: one connection can keep the worker while the others wait.
    `gevent.sleep(0)` lets only the greenlets already woken run, so a burst of such clients
    still waited their turn in rounds, and the tail grew far beyond the median.
    `gevent.idle()` waits until the loop has nothing else to do, so the connection just
    answered goes behind every request already readable: a short tail for a little less
    throughput (`make bench`, section service, measures it). It cannot starve a connection: the
    others each wait the same way after their own answer, so the loop goes idle at least
    once per round of answers.
    """
    if _gevent(worker):
        import gevent

        gevent.idle()


def _gevent(worker) -> bool:
    return worker.__class__.__module__ == "gunicorn.workers.ggevent"


_FIXED = (
    "wsgi_app",
    "worker_connections",
    "backlog",
    "preload_app",
    "keepalive",
    "timeout",
    "graceful_timeout",
    "proc_name",
    "control_socket_disable",
    "logger_class",
    "accesslog",
    "errorlog",
    "limit_request_line",
    "limit_request_fields",
    "limit_request_field_size",
    "on_starting",
    "post_fork",
    "post_worker_init",
    "when_ready",
    "worker_exit",
    "pre_request",
    "post_request",
)


def options(settings: Settings) -> dict[str, Any]:
    """Every gunicorn setting of the service, for these Settings."""
    return {**{name: globals()[name] for name in _FIXED}, **from_settings(settings)}


# For `gunicorn -c python:service.gunicorn_conf`: the settings of the environment, as attributes.
_from_environment = from_settings(load_settings())
bind = _from_environment["bind"]
workers = _from_environment["workers"]
worker_class = _from_environment["worker_class"]
threads = _from_environment["threads"]
loglevel = _from_environment["loglevel"]
forwarded_allow_ips = _from_environment["forwarded_allow_ips"]
