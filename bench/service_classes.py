"""The service section's comparison of gunicorn worker classes: the default (gevent, one worker
per core) beside the alternatives, under wrk, among slow and silent clients, and after a client
keeps its socket open.

gunicorn 27 has no eventlet worker any more (its SUPPORTED_WORKERS: sync, gevent,
gevent_pywsgi, gthread, tornado, asgi), so eventlet is not among them. service/gunicorn_conf.py
says why gevent; this measures it.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from bench.service_load import SILENT, SLOW, crowd_met, crowd_text, sampled, spread_text, under_crowd
from bench.service_server import CHOSEN, Server, describe
from bench.slow import linger
from bench.table import Table
from bench.wrk import Wrk

# (worker class, workers, threads), the default first
ALTERNATIVES = [CHOSEN, ("gevent", 1, 1), ("gevent", 3, 1), ("sync", 2, 1), ("gthread", 2, 16)]


def compare_classes(wrk: Wrk, files: list[Path], rounds: int = 3, seconds: int = 2) -> Table:
    """Every alternative served at once, loaded in turn round after round (drifts hit all alike);
    then each under the crowd of slow and silent clients, and each's linger after an answer."""
    table = Table(
        f"service: gunicorn worker classes side by side: POST /v1/challenge at 64 connections "
        f"(median of {rounds} interleaved runs of {seconds} s); at 16 connections with {SLOW} "
        f"slow-header (1 byte/s) and {SILENT} silent connections open (5 s); wait of the next "
        "request after a client keeps its socket open (1 worker, median of 5)"
    )
    servers = {}
    results: dict[tuple, list[dict]] = {config: [] for config in ALTERNATIVES}
    crowd: dict[tuple, dict] = {}
    lingers: dict[tuple, float] = {}
    try:
        for config in ALTERNATIVES:
            servers[config] = Server(files, *config)
        for server in servers.values():
            wrk.run(f"{server.url}/v1/challenge", 64, 1, post=True)
        for _ in range(rounds):
            for config, server in servers.items():
                results[config].append(sampled(wrk, server, 64, seconds))
        for config, server in servers.items():
            crowd[config] = under_crowd(wrk, server)
    finally:
        for server in servers.values():
            server.stop()
    for config in ALTERNATIVES:
        with Server(files, config[0], 1, config[2]) as alone:
            lingers[config] = linger(alone.url, alone.port)
    for config in ALTERNATIVES:
        figures = {key: statistics.median(r[key] for r in results[config]) for key in ("rps", "p50", "p99")}
        runs = ", ".join(f"{r['p99']:.0f}" for r in results[config])
        name = describe(config) + (" (default)" if config == CHOSEN else "")
        spread = f"; connections per worker: {spread_text(results[config])}" if config[1] > 1 else ""
        table.add(
            f"{name}: 64 connections",
            f"{figures['rps']:,.0f} req/s, p50 {figures['p50']:.1f} ms, p99 {figures['p99']:.1f} ms "
            f"(runs: {runs}){spread}",
            "p99 ≤ 25 ms",
            figures["p99"] <= 25,
        )
        slow = crowd[config]
        table.add(
            f"{name}: 16 connections among {SLOW} slow + {SILENT} silent",
            crowd_text(slow),
            "p99 ≤ 100 ms, none failed",
            crowd_met(slow),
        )
        table.add(
            f"{name}: next request after a kept-open answered socket",
            f"{lingers[config] * 1000:.0f} ms",
            "≤ 100 ms",
            lingers[config] <= 0.1,
        )
    return table
