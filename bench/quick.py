"""`make bench-quick` (`python -m bench quick`): the two ratios that guard what a challenge costs,
in under a minute, for use before a stop.

- In process: a whole POST /v1/challenge beside a whole GET /healthz (bench.service_in_process's
  `ratio_row`, the service section's row): the plain challenge's CPU within 10 % of /healthz.
- Under wrk: a recorded challenge (tournament mode, synchronous=FULL) beside an unrecorded one
  at 16 connections (bench.event's `ratio_rows`, the event section's rows, measured with fewer
  runs): at least half the throughput, and a p99 at most twice as long.

Each row says NO when its goal is missed, and `python -m bench` names every guard again at the
end of its run. The full sections measure the same rows with more rounds and runs.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench import event
from bench.server import lexicon_files
from bench.service_in_process import ratio_row
from bench.table import Table
from bench.wrk import ensure_wrk, log

RUNS, SECONDS = 5, 2  # recorded beside unrecorded: alternating runs of wrk at 16 connections


def run() -> list[Table]:
    from service import create_app

    started = time.perf_counter()
    files, _ = lexicon_files()
    table = Table(
        "quick: the plain challenge beside /healthz in process, and the recorded challenge beside the "
        f"unrecorded one under wrk (lexicon serve, 2 workers, 16 connections, {RUNS} alternating runs "
        f"of {SECONDS} s)"
    )
    app = create_app(
        {
            "LEXICON_FILES": [str(files[0])],
            "LEXICON_TOKEN": None,
            "LEXICON_CORS_ORIGINS": "",
            "LEXICON_LOG_LEVEL": "warning",
        }
    )
    ratio_row(table, app)
    wrk_path = ensure_wrk()
    if wrk_path is None:
        table.guard("recorded challenge", "not measured: wrk unavailable", "wrk", False)
        return [table]
    kinds = {name: event.KINDS[name] for name in ("unrecorded", "recorded, sync full")}
    with tempfile.TemporaryDirectory() as scratch:
        results, _ = event.measure(files, Path(scratch), wrk_path, RUNS, SECONDS, 1, kinds, (16,))
    event.ratio_rows(table, results)
    log(f"quick done in {time.perf_counter() - started:.0f} s")
    return [table]
