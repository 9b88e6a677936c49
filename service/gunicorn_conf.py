"""gunicorn configuration of the challenge service (`lexicon serve` uses it; so can gunicorn):

    gunicorn -c python:service.gunicorn_conf

Tuning from the environment (`lexicon serve` options override the first three):

    LEXICON_HOST          address to listen on (127.0.0.1; 0.0.0.0 for the venue network)
    LEXICON_PORT          port (8000)
    LEXICON_WORKERS       worker processes (default: one per core)
    LEXICON_THREADS       threads per worker (4)
    LEXICON_WORKER_CLASS  gunicorn worker class (gthread)

Why gthread, one process per core, 4 threads each (`make bench` measures the alternatives): the
work is CPU-bound and short (tens of microseconds of Python per verdict), so more processes than
cores only adds switching; threads keep idle keep-alive connections (phones on a venue Wi-Fi
reuse theirs) and slow clients from holding a whole process, which the sync worker cannot do.

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
worker_class = os.environ.get("LEXICON_WORKER_CLASS", "gthread")
threads = _int("LEXICON_THREADS", 4)
preload_app = True
keepalive = 15  # seconds an idle connection stays open: a judge's phone asks again soon
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
