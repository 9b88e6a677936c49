"""`make bench` section "record": the event's record at a big event's length (50,000 rows) while
the service runs: verdicts judged while the director exports it, and an edit of the file by hand
seen by the console.

    python -m bench record

Exports: one `lexicon serve` (2 gevent workers, the default lexicons) on an event whose record
holds ROWS rows; wrk sends a paired judge's play at 4 connections, in alternating short runs
without and with the director exporting the whole record meanwhile (CSV and JSON in turn, one
after another for the whole run, as a console's *Exportar* would if clicked again and again).
The figures are medians of the runs' p50 and p99; the target: the recorded challenge's p99
during exports at most twice its p99 without (service/event/record_routes.py makes an export's
first slice; a process of its own at the lowest CPU priority makes the rest, and the worker
relays it: service/event/export_process.py).

Edits: with the same service, once both workers have verified the record, row EDITED is
replaced (`INSERT OR REPLACE`, triggers dropped and made again, `PRAGMA schema_version` written
back), and the console's request for the record's state (a page of one row) is asked every
CHAIN_WATCH seconds, as the console does: the seconds until one says the record is broken, at
that row (target: within 10 s; tournament/stores/sqlite/fingerprints.py compares the fingerprints of the rows
verified). Beside it, in this process, what comparing the fingerprints of ROWS rows costs.
"""

from __future__ import annotations

import http.client
import json
import sqlite3
import statistics
import tempfile
import threading
import time
from pathlib import Path

from bench import server as harness
from bench.event import paired_token, script, wrk
from bench.server import lexicon_files
from bench.table import Table
from bench.tournament import PLAY
from bench.wrk import wrk_or_missed

ROWS = 50_000
RUNS, SECONDS, CONNECTIONS = 3, 4, 4
EDITED = 5_000
CHAIN_WATCH = 3.0  # LIVE_MS of service/static/director/live.js
PASSWORD = "bench-password-long"


def fill(path: Path, rows: int) -> None:
    from tournament import create_event, open_event

    create_event(path, "Bench", PASSWORD).close()
    db = open_event(path, synchronous="NORMAL")
    for start in range(0, rows, 5_000):
        db.append_many([PLAY] * min(5_000, rows - start))
    db.close()


def cookie(server: harness.Server) -> str:
    status, headers, body = server.request(
        "POST",
        "/v1/director/session",
        json.dumps({"password": PASSWORD}).encode(),
        {"Content-Type": "application/json", "Origin": server.url},
    )
    if status != 201:
        raise RuntimeError(f"the director's login said {status}: {body!r}")
    return dict(headers)["Set-Cookie"].split(";")[0]


class Exports(threading.Thread):
    """The whole record exported again and again (CSV, then JSON) until stopped: their seconds."""

    def __init__(self, server: harness.Server, session: str):
        super().__init__(daemon=True)
        self.server, self.session = server, session
        self.stop = threading.Event()
        self.seconds: list[float] = []
        self.sizes: list[int] = []

    def run(self) -> None:
        formats = ("csv", "json")
        while not self.stop.is_set():
            fmt = formats[len(self.seconds) % 2]
            begin = time.perf_counter()
            connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=120)
            try:
                connection.request("GET", f"/v1/records?format={fmt}", headers={"Cookie": self.session})
                answer = connection.getresponse()
                size = len(answer.read())
                if answer.status != 200:
                    raise RuntimeError(f"the export said {answer.status}")
            finally:
                connection.close()
            self.seconds.append(time.perf_counter() - begin)
            self.sizes.append(size)


def chain(server: harness.Server, session: str) -> dict:
    status, _, body = server.request("GET", "/v1/records?limit=1", headers={"Cookie": session})
    if status != 200:
        raise RuntimeError(f"the record's state said {status}")
    return json.loads(body)["chain"]


def settled(server: harness.Server, session: str, limit: float = 600) -> None:
    """Until several looks in a row (each worker's) say the record verified whole and intact."""
    deadline, streak = time.monotonic() + limit, 0
    while streak < 6:
        if time.monotonic() > deadline:
            raise RuntimeError("the record was not verified whole in time")
        state = chain(server, session)
        streak = streak + 1 if state["intact"] and state["verified"] == state["last"] else 0
        time.sleep(0.5)


def edit(path: Path, seq: int) -> None:
    """Row `seq` replaced by hand, the triggers and the schema's version as they were."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        schema = conn.execute("PRAGMA schema_version").fetchone()[0]
        triggers = conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'records'"
        ).fetchall()
        columns = [row[1] for row in conn.execute("PRAGMA table_info(records)")]
        values = ", ".join("'[\"CAVALLS\"]'" if name in ("words", "tiles") else f'"{name}"' for name in columns)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DROP TRIGGER records_append_only_update")
        conn.execute("DROP TRIGGER records_append_only_delete")
        conn.execute(f"INSERT OR REPLACE INTO records SELECT {values} FROM records WHERE seq = ?", (seq,))
        for (sql,) in triggers:
            conn.execute(sql)
        conn.execute("COMMIT")
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(f"PRAGMA schema_version = {schema}")
        conn.execute("PRAGMA writable_schema = OFF")
    finally:
        conn.close()


def seen_after(server: harness.Server, session: str, path: Path, limit: float = 60) -> tuple[float, int]:
    """Seconds from the edit until a look every CHAIN_WATCH seconds says the record is broken; the row it names."""
    edit(path, EDITED)
    began = time.monotonic()
    while time.monotonic() - began < limit:
        state = chain(server, session)
        if state["broken"] is not None:
            return time.monotonic() - began, state["broken"]["seq"]
        time.sleep(CHAIN_WATCH)
    return float("inf"), 0


def sweep_seconds(path: Path, repeat: int = 3) -> float:
    """The median seconds of comparing the fingerprints of every row verified (in this process)."""
    from tournament import open_event
    from tournament.stores.sqlite import fingerprints

    db = open_event(path, readonly=True)
    try:
        db.chain_state(wait=True)
        known = db._storage._verification.current()
        times = []
        for _ in range(repeat):
            begin = time.perf_counter()
            fingerprints.sweep(db._storage, db._storage._columns, known, None, 0)
            times.append(time.perf_counter() - begin)
        if db._storage._verification.edited is not None:
            raise RuntimeError("a sweep of an untouched record found an edit")
        return statistics.median(times)
    finally:
        db.close()


def measure(
    files: list[Path], folder: Path, wrk_path: str, rows: int = ROWS, runs: int = RUNS, seconds: int = SECONDS
) -> dict:
    """Everything `run` reports; tests/bench/test_record.py runs it small."""
    path = folder / "event.db"
    fill(path, rows)
    found: dict = {"sweep": sweep_seconds(path)}
    server = harness.Server(files, workers=2, LEXICON_EVENT=str(path))
    try:
        server.wait_ready(limit=60, poll=0.05)
        lua = script(folder, "judge", paired_token(path))
        session = cookie(server)
        wrk(wrk_path, server.url, lua, CONNECTIONS, 1)  # warm-up
        quiet, busy, exports = [], [], []
        for _ in range(runs):
            quiet.append(wrk(wrk_path, server.url, lua, CONNECTIONS, seconds))
            exporting = Exports(server, session)
            exporting.start()
            busy.append(wrk(wrk_path, server.url, lua, CONNECTIONS, seconds))
            exporting.stop.set()
            exporting.join(120)
            exports.append(exporting)
        found.update(quiet=quiet, busy=busy, exports=exports)
        settled(server, session)
        found["seen"] = seen_after(server, session, path)
    finally:
        server.stop()
    return found


def add_rows(table: Table, found: dict, rows: int) -> None:
    quiet, busy = found["quiet"], found["busy"]
    p99 = statistics.median(r["p99"] for r in quiet)
    p99_busy = statistics.median(r["p99"] for r in busy)
    for name, runs in (("without an export", quiet), ("while the record is exported again and again", busy)):
        p50 = statistics.median(r["p50"] for r in runs)
        bad = sum(r["bad"] for r in runs)
        table.add(
            f"recorded challenge, {CONNECTIONS} connections, {name}: p50 / p99",
            f"{p50:.2f} / {statistics.median(r['p99'] for r in runs):.2f} ms" + (f", {bad} non-2xx" if bad else ""),
        )
    table.add(
        "p99 while exporting / p99 without",
        f"{p99_busy / p99:.2f}×",
        "≤ 2×",
        p99_busy <= 2 * p99 and all(r["bad"] == 0 for r in quiet + busy),
    )
    done = [s for e in found["exports"] for s in e.seconds]
    sizes = [s for e in found["exports"] for s in e.sizes]
    if done:
        table.add(
            f"an export of {rows:,} rows under that load (CSV and JSON; median, count)",
            f"{statistics.median(done):.1f} s, {len(done)} exports of {min(sizes) / 1e6:.1f}–{max(sizes) / 1e6:.1f} MB",
        )
    table.add(
        f"comparing the fingerprints of {rows:,} rows verified (one sweep, median of 3, in process)",
        f"{found['sweep'] * 1e3:.0f} ms",
    )
    seconds, seq = found["seen"]
    table.add(
        f"row {EDITED:,} replaced by hand (triggers and schema_version put back): the console's look "
        f"every {CHAIN_WATCH:g} s says the record is broken after",
        f"{seconds:.1f} s, at row {seq}",
        "≤ 10 s, at that row",
        seconds <= 10 and seq == EDITED,
    )


def run() -> list[Table]:
    table = Table(
        f"The record at {ROWS:,} rows while the service runs (lexicon serve, 2 workers, wrk on the same 2 cores; "
        f"medians of {RUNS} alternating runs of {SECONDS} s)"
    )
    wrk_path = wrk_or_missed(table, "recorded challenge during an export")
    if wrk_path is None:
        return [table]
    files, _ = lexicon_files()
    with tempfile.TemporaryDirectory() as scratch:
        add_rows(table, measure(files, Path(scratch), wrk_path), ROWS)
    return [table]
