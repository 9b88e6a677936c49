"""Tournament storage figures: what recording a verdict costs, before the answer leaves.

A recorded challenge must answer with p99 <= 20 ms at 16 connections; the append is its storage
part, so it gets half that budget here: p99 <= 10 ms for a durable append (synchronous=FULL,
the default, fsync of the write-ahead log at every commit) with one process, and with two and
four processes appending at once as gunicorn workers do. NORMAL (durable against a killed
process, not a power cut) is measured beside it, to show what FULL costs.
"""

from __future__ import annotations

import math
import multiprocessing
import shutil
import tempfile
import time
from pathlib import Path

from tournament import Entry, EventStore, create_event, export, open_event

from .table import Table, median_seconds

APPEND_TARGET_MS = 10.0
APPENDS, WARM_UP = 400, 40
BIG, REPEAT = 10_000, 3  # the record verified and exported, and the medians of how many runs
WHOLE = 50_000  # a big event's record: its full verification, and the console's look at it
PLAY = Entry(
    lexicon_id="disc-ca",
    lexicon_version="2.9",
    lexicon_checksum="5f" * 32,
    notation="spelling",
    words=("COL·LEGI", "QUADRE", "CAVALLS"),
    tiles=("COL·LEGI", "QUADRE", "CAVALLS"),
    valid=True,
    device_id=3,
    device_name="Mesa 12",
    role="table",
    table="12",
)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def appends(path: Path, synchronous: str, count: int, warm_up: int = WARM_UP, start=None, out=None) -> list[float]:
    """The seconds each of `count` appends took, after `warm_up` untimed ones (all are rows in `path`)."""
    db = open_event(path, synchronous=synchronous)
    for _ in range(warm_up):
        db.append(PLAY)
    if start is not None:
        start.wait()
    times = []
    for _ in range(count):
        begin = time.perf_counter()
        db.append(PLAY)
        times.append(time.perf_counter() - begin)
    db.close()
    if out is not None:
        out.put(times)
    return times


def concurrent(
    path: Path, synchronous: str, processes: int, count: int, warm_up: int = WARM_UP
) -> tuple[list[float], float]:
    """`appends` in `processes` forked processes started together: all their times, and appends per second."""
    ctx = multiprocessing.get_context("fork")
    start, out = ctx.Barrier(processes + 1), ctx.Queue()
    workers = [
        ctx.Process(target=appends, args=(path, synchronous, count, warm_up, start, out)) for _ in range(processes)
    ]
    for worker in workers:
        worker.start()
    start.wait()
    began = time.perf_counter()
    times = [t for _ in workers for t in out.get()]
    elapsed = time.perf_counter() - began
    for worker in workers:
        worker.join()
    return times, len(times) / elapsed


def looks(db: EventStore) -> tuple[float, float]:
    """The seconds of the console's first look at a record (which starts its full verification
    off the request path, tournament/stores/sqlite/verification.py) and of one after that verification ended."""
    begin = time.perf_counter()
    db.chain_state()
    first = time.perf_counter() - begin
    if not db._storage._verification.wait(timeout=600):
        raise RuntimeError("the record's full verification did not end within 10 minutes")
    db.chain_state()  # the rows added since: none
    begin = time.perf_counter()
    db.chain_state()
    return first, time.perf_counter() - begin


def run(
    count: int = APPENDS, warm_up: int = WARM_UP, big_rows: int = BIG, repeat: int = REPEAT, whole: int = WHOLE
) -> list[Table]:
    """The section's table; tests/bench/test_tournament.py runs it with small counts."""
    folder = Path(tempfile.mkdtemp(prefix="bench-event-"))
    try:
        template = folder / "template.db"
        create_event(template, "Bench", "bench-password-1234").close()

        def fresh(name: str) -> Path:
            path = folder / name
            shutil.copy(template, path)
            return path

        table = Table(
            f"tournament storage: one append of a 3-word verdict to the chained record "
            f"({count} appends per process after {warm_up} warm-up; SQLite WAL)"
        )
        for synchronous in ("FULL", "NORMAL"):
            times = appends(fresh(f"one-{synchronous}.db"), synchronous, count, warm_up)
            p50, p99 = percentile(times, 0.5) * 1e3, percentile(times, 0.99) * 1e3
            chosen = synchronous == "FULL"
            table.add(
                f"1 process, synchronous={synchronous}{' (default)' if chosen else ''}: p50 / p99",
                f"{p50:.2f} / {p99:.2f} ms",
                f"p99 ≤ {APPEND_TARGET_MS:g} ms" if chosen else "",
                p99 <= APPEND_TARGET_MS if chosen else None,
            )
        for processes in (2, 4):
            times, rate = concurrent(fresh(f"many-{processes}.db"), "FULL", processes, count, warm_up)
            p50, p99 = percentile(times, 0.5) * 1e3, percentile(times, 0.99) * 1e3
            table.add(
                f"{processes} processes at once, synchronous=FULL: p50 / p99 (appends/s)",
                f"{p50:.2f} / {p99:.2f} ms ({rate:,.0f}/s)",
                f"p99 ≤ {APPEND_TARGET_MS:g} ms",
                p99 <= APPEND_TARGET_MS,
            )

        big = open_event(fresh("big.db"), synchronous="NORMAL")
        big.append_many([PLAY] * big_rows)
        table.add(
            f"verify a record of {big_rows:,} rows (median of {repeat})",
            f"{median_seconds(big.verify, repeat) * 1e3:.0f} ms",
        )
        table.add(
            f"export {big_rows:,} rows as CSV (median of {repeat})",
            f"{median_seconds(lambda: export(big, format='csv'), repeat) * 1e3:.0f} ms",
        )
        big.close()
        huge = open_event(fresh("whole.db"), synchronous="NORMAL")
        huge.append_many([PLAY] * whole)
        seconds = median_seconds(huge.verify, repeat)
        table.add(
            f"verify a record of {whole:,} rows (median of {repeat}): per row, whole",
            f"{seconds / whole * 1e6:.0f} µs, {seconds:.1f} s",
        )
        first, after = looks(huge)
        table.add(
            f"the console's look at {whole:,} rows: the first (starts the full verification off the request), one after",
            f"{first * 1e3:.1f} ms, {after * 1e3:.1f} ms",
        )
        table.add(
            f"director's password check (scrypt N=2^15, r=8, p=1), median of {repeat}",
            f"{median_seconds(lambda: huge.check_password('bench-password-1234'), repeat) * 1e3:.0f} ms",
        )
        huge.close()
        return [table]
    finally:
        shutil.rmtree(folder)
