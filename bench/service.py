"""`make bench` section "service": the real `lexicon serve`, loaded from a second process.

    python -m bench service                 the section, written into docs/figures.md
    python -m bench.service start           only its start-to-ready row, printed (nothing written)

The server is started from here as its own process (`lexicon serve`, gunicorn, the manifest's
default lexicons, logs to /dev/null), and loaded by wrk in a third process (bench.wrk says why
wrk). The section's parts, each in its own module:

- start to ready and memory (here): from launching the command to the first 200 of /readyz,
  median of 3 starts; the workers' private memory once every page of the lexicons was read;
- the load figures on one server (bench.service_load): healthz beside a challenge, latency tails,
  slow and silent clients; then a reload under load (bench.reloading);
- gunicorn's worker classes side by side (bench.service_classes);
- lexicons held in memory versus mapped (bench.loading);
- in process, the app alone (bench.service_in_process): what a challenge adds to /healthz
  (whether a verdict's time depends on which word failed is the `position` section's).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench import loading, reloading
from bench.server import LEXICON, lexicon_files
from bench.service_classes import compare_classes
from bench.service_in_process import challenge_beside_healthz
from bench.service_load import load_figures
from bench.service_server import CHOSEN, Server, describe
from bench.table import Table
from bench.wrk import Wrk, ensure_wrk, log

STARTS = 3


def start_to_ready(table: Table, files: list[Path], starts: int = STARTS) -> None:
    """From launching `lexicon serve` to the first 200 of /readyz (polled every 5 ms), the median
    of `starts` starts; each start's time follows, and the load average, since others share the
    machine (what it costs is CPU: verifying the lexicons, reading the files beside them)."""
    readiness = []
    for _ in range(starts):
        with Server(files, *CHOSEN) as server:
            readiness.append(server.ready_after)
    ready = statistics.median(readiness)
    load = ", ".join(f"{figure:.2f}" for figure in os.getloadavg())
    table.add(
        f"start to ready (`lexicon serve` launched → /readyz 200), median of {starts}",
        f"{ready:.2f} s (starts: {', '.join(f'{r:.2f}' for r in readiness)}; load average {load})",
        "≤ 2 s",
        ready <= 2.0,
    )


def run() -> list[Table]:
    started = time.perf_counter()
    files, languages = lexicon_files()
    summary = Table(
        f"service: `lexicon serve` ({describe(CHOSEN)}), lexicons {', '.join(languages)}; "
        "load from wrk -t2 on the same 2 cores"
    )
    tables = [summary]
    wrk_path = ensure_wrk()
    start_to_ready(summary, files)

    with tempfile.TemporaryDirectory() as scratch:
        wrk = Wrk(wrk_path, Path(scratch)) if wrk_path else None
        with Server(files, *CHOSEN) as server:
            server.touch_every_page(languages)
            uss, count = server.memory()
            summary.add(
                f"private memory (USS) per worker, largest of {count}, lexicons {'+'.join(languages)}",
                f"{uss:.1f} MB",
                "≤ 30 MB",
                uss <= 30,
            )
            if wrk is None:
                summary.add("load figures", "not measured: wrk unavailable", "wrk", False)
            else:
                load_figures(summary, wrk, server)
        if wrk is not None:
            reloading.add_rows(summary, reloading.measure(wrk, Server, LEXICON, files[0], Path(scratch)))
            tables.append(compare_classes(wrk, files))

    tables.append(loading.compare(files))
    tables.append(challenge_beside_healthz(files)[0])
    log(f"service done in {time.perf_counter() - started:.0f} s")
    return tables


def main(argv: list[str]) -> int:
    """`python -m bench.service start`: the start-to-ready row alone, to check a change to what
    the service does at start without the whole section (minutes); docs/figures.md is not written."""
    if argv != ["start"]:
        print("usage: python -m bench.service start", file=sys.stderr)
        return 2
    files, languages = lexicon_files()
    table = Table(f"service: `lexicon serve` ({describe(CHOSEN)}), lexicons {', '.join(languages)}")
    start_to_ready(table, files)
    print(table.render())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
