"""gunicorn configuration of the challenge service (`lexicon serve` uses it; so can gunicorn):

    gunicorn -c python:service.gunicorn_conf

Tuning from the environment (`lexicon serve` options override the first three):

    LEXICON_HOST          address to listen on (127.0.0.1; 0.0.0.0 for the venue network)
    LEXICON_PORT          port (8000)
    LEXICON_WORKERS       worker processes (default: one per core)
    LEXICON_WORKER_CLASS  gunicorn worker class (service.workers.GuardedSyncWorker)
    LEXICON_THREADS       threads per worker, for worker classes that have them (1)

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
import os

wsgi_app = "service:create_app()"


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


bind = [f"{os.environ.get('LEXICON_HOST', '127.0.0.1')}:{_int('LEXICON_PORT', 8000)}"]
workers = _int("LEXICON_WORKERS", default_workers())
worker_class = os.environ.get("LEXICON_WORKER_CLASS", "service.workers.GuardedSyncWorker")
threads = _int("LEXICON_THREADS", 1)  # gunicorn runs gthread instead of a sync worker given more
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
loglevel = os.environ.get("LEXICON_LOG_LEVEL", "info").lower()

# Requests: a GET /v1/challenge of 8 words of 15 tiles fits the default line limit many times.
limit_request_line = 4094
limit_request_fields = 64
limit_request_field_size = 8190


def when_ready(server) -> None:
    """In the master, after the app is loaded and before any worker forks."""
    gc.collect()
    gc.freeze()
