"""gunicorn configuration of the challenge service (`lexicon serve` uses it; so can gunicorn):

    gunicorn -c python:service.gunicorn_conf

What comes from the settings (address, port, workers, worker class, threads, log level) is taken
from the one `Settings` object (service.config, LEXICON_HOST, LEXICON_PORT, LEXICON_WORKERS,
LEXICON_WORKER_CLASS, LEXICON_THREADS, LEXICON_LOG_LEVEL): `options(settings)` gives every
gunicorn setting for given Settings (`lexicon serve` passes the ones it has read), and the
module's own attributes are the same for the environment, for `gunicorn -c`.

Why one sync process per core (service/workers.py says more, `make bench` measures it): the
work is CPU-bound and short, so more processes than cores only adds switching, and threads
add waits for the GIL; the sync worker had the lowest tail latency at 64 connections.

The app is created once, in the master, before the workers fork (`preload_app`): the lexicons
are verified once, and every worker reads the same memory-mapped pages of the compiled files.
`gc.freeze()` before the fork keeps the garbage collector from writing to (and so copying) the
master's objects in every worker.
"""

from __future__ import annotations

import gc
import logging
import os
from typing import Any

from .config import Settings, load_settings

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
    }


preload_app = True
keepalive = 5  # for worker classes that keep connections alive (the sync worker closes them)
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


def when_ready(server) -> None:
    """In the master, once the sockets listen, after the app is loaded and before any worker forks."""
    gc.collect()
    gc.freeze()
    app = server.app.wsgi()  # loaded already (preload_app): the same object
    logging.getLogger("service").info("service ready", extra={"fields": {
        "listening": [str(listener) for listener in server.LISTENERS], **app.extensions["lexicon_summary"]}})


_FIXED = ("wsgi_app", "preload_app", "keepalive", "timeout", "graceful_timeout", "proc_name",
          "control_socket_disable", "logger_class", "accesslog", "errorlog", "limit_request_line",
          "limit_request_fields", "limit_request_field_size", "when_ready")


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
