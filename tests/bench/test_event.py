"""`python -m bench event` at small scale: three real `lexicon serve` under wrk, never timed.

What is asserted is what the section's figures stand on: every answer wrk counted from a
recorded server is a row in that server's event file (and only the few wrk left in flight are
more), the rows are the bench's play from the paired judge device, the chain verifies, and the
table holds the rows docs/figures.md shows, with the target on the recorded, sync full, 16-connection row.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

import pytest

from bench import event
from bench.table import Table
from bench.tournament import PLAY
from bench.wrk import PLAY3, ensure_wrk
from tests.support import compile_list
from tournament import create_event, open_event

RUNS = 1


def test_recorded_challenges_are_rows_that_verify_and_the_table_has_the_readme_s_rows(tmp_path):
    lexicon = compile_list(tmp_path / "es.lex", PLAY3["words"] + ["GATO"], "es", "bench-es", "bench es")
    wrk_path = ensure_wrk()
    assert wrk_path, "wrk is needed (apt-get install wrk)"
    results, events = event.measure([lexicon], tmp_path, wrk_path, runs=RUNS, seconds=1, warm_up=0)

    assert sorted(events) == ["recorded, sync full", "recorded, sync normal"]
    for name, path in events.items():
        runs = [r for c in event.CONNECTIONS for r in results[name, c]]
        assert len(runs) == RUNS * len(event.CONNECTIONS)
        assert all(r["bad"] == 0 and r["requests"] > 0 for r in runs), runs
        answered = sum(r["requests"] for r in runs)
        db = open_event(path, readonly=True)
        try:
            rows = list(db.records())
            assert db.verify() is None
        finally:
            db.close()
        # wrk stops counting with requests still in flight, at most one per connection.
        assert answered <= len(rows) <= answered + RUNS * sum(event.CONNECTIONS), (name, answered, len(rows))
        assert [row.seq for row in rows] == list(range(1, len(rows) + 1))
        assert {(row.entry.words, row.entry.valid, row.entry.device_name, row.entry.role) for row in rows} == {
            (tuple(PLAY3["words"]), True, "Juez bench", "judge")
        }
    assert all(r["bad"] == 0 and r["requests"] > 0 for c in event.CONNECTIONS for r in results["unrecorded", c])

    table = Table("t")
    event.add_rows(table, results, events)
    figures = [row.figure for row in table.rows]
    assert figures == [
        f"{name}, {c} connection{'s' if c > 1 else ''}"
        for c in (1, 16)
        for name in ("unrecorded", "recorded, sync full", "recorded, sync normal")
    ] + [
        "recorded, sync full, 16 connections: throughput, recorded / unrecorded (median of the 1 runs' ratios)",
        "recorded, sync full, 16 connections: p99, recorded / unrecorded (median of the 1 runs' ratios)",
        "recorded, sync full: rows recorded",
        "recorded, sync normal: rows recorded",
    ]
    for row in table.rows[:6]:
        assert re.fullmatch(r"\d+\.\d\d / \d+\.\d\d ms, \d+ req/s", row.value), row.value
    judged = [row for row in table.rows if row.met is not None]
    assert [row.figure for row in judged[:1]] == ["recorded, sync full, 16 connections"]
    assert judged[0].target == "p99 ≤ 20 ms"
    assert [(row.target, row.guard) for row in table.rows[6:8]] == [("≥ 0.5", True), ("≤ 2", True)]
    for row in table.rows[8:]:
        assert re.fullmatch(r"\d+ \(answers counted by wrk: \d+, warm-up excluded\); chain verifies", row.value)
        assert row.target == "chain verifies" and row.met is True


def test_a_broken_chain_is_reported_as_a_missed_row(tmp_path):
    """The rows-recorded row is judged by the file: a record edited after the fact says CHAIN BROKEN."""
    path = tmp_path / "edited.db"
    create_event(path, "Bench", "bench-password-long").close()
    db = open_event(path, synchronous="NORMAL")
    db.append_many([PLAY] * 3)
    db.close()
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript("DROP TRIGGER records_append_only_update; UPDATE records SET valid = 0 WHERE seq = 2;")
    figures = {"requests": 3, "bad": 0, "p50": 1.0, "p99": 2.0, "rps": 100.0}
    results = {(name, c): [figures] for name in event.KINDS for c in event.CONNECTIONS}
    table = Table("t")
    event.add_rows(table, results, {"recorded, sync full": path})
    last = table.rows[-1]
    assert last.figure == "recorded, sync full: rows recorded"
    assert last.value == "3 (answers counted by wrk: 6, warm-up excluded); CHAIN BROKEN" and last.met is False


def run(rps: float, p99: float, **more) -> dict:
    """A wrk run as bench.event.wrk reads it: 2 s at `rps`, all answered 2xx, no socket errors."""
    return {"rps": rps, "p50": p99 / 2, "p99": p99, "requests": int(rps * 2), "bad": 0, "failed": 0, **more}


def test_the_recorded_ratios_are_guards_judged_by_the_median_of_paired_runs():
    """Each recorded run is divided by the unrecorded run beside it; the median of those ratios is
    judged (not the ratio of medians), and a missed goal says NO in the row and among the guards."""
    plain = [run(1000.0, 10.0), run(500.0, 40.0), run(1000.0, 10.0)]
    recorded = [run(600.0, 15.0), run(200.0, 30.0), run(400.0, 25.0)]
    results = {("unrecorded", 16): plain, ("recorded, sync full", 16): recorded}
    table = Table("t")
    assert event.ratio_rows(table, results) is False
    throughput, tail = table.guards()
    assert throughput.value == "0.40 (runs: 0.60, 0.40, 0.40)" and throughput.met is False
    assert tail.value == "1.50 (runs: 1.50, 0.75, 2.50)" and tail.met is True
    assert "| ≥ 0.5 | **NO** |" in table.render()
    recorded[1]["rps"] = recorded[2]["rps"] = 500.0
    assert event.ratio_rows(Table("t"), results) is True


@pytest.mark.parametrize(
    ("failed_run", "said"),
    [
        (run(0.0, float("inf"), requests=0), "not measured: a run with nothing answered"),
        (run(900.0, 0.0), "not measured: a run with nothing answered"),
        (run(900.0, 1.0, bad=1800), "not measured: 1800 non-2xx answers"),
        (run(900.0, 1.0, failed=7), "not measured: 7 socket errors"),
    ],
)
def test_a_failed_run_makes_the_ratios_not_measured_and_missed(failed_run, said):
    """A run that answered nothing (p99 inf would read as a ratio of 0.00, a p99 of 0 would divide
    by zero), or answered 403/429 (fast, so a good ratio), or lost sockets, is no measure: both
    guards say so and are missed (NO), whichever side of the pair it is on."""
    for side in ("unrecorded", "recorded, sync full"):
        results = {("unrecorded", 16): [run(1000.0, 10.0)] * 3, ("recorded, sync full", 16): [run(900.0, 11.0)] * 3}
        assert event.ratio_rows(Table("t"), results) is True
        results[side, 16] = [run(1000.0, 10.0), failed_run, run(1000.0, 10.0)]
        table = Table("t")
        assert event.ratio_rows(table, results) is False
        assert [(row.value, row.met) for row in table.guards()] == [(said, False)] * 2
        assert table.render().count("**NO**") == 2


def test_no_runs_are_not_measured():
    table = Table("t")
    assert event.ratio_rows(table, {("unrecorded", 16): [], ("recorded, sync full", 16): []}) is False
    assert [(row.value, row.met) for row in table.guards()] == [("not measured: no runs", False)] * 2


def test_a_section_without_wrk_says_its_rows_are_not_measured(monkeypatch):
    """bench.wrk.wrk_or_missed, the preamble of every wrk section: with no wrk to be had, the
    section's row (a guard's, for make bench-quick) says so and is missed, and no path is given."""
    import bench.wrk

    monkeypatch.setattr(bench.wrk, "ensure_wrk", lambda: None)
    [table] = event.run()
    assert [(row.figure, row.value, row.met) for row in table.rows] == [
        ("recorded challenge", "not measured: wrk unavailable", False)
    ]
    table = Table("t")
    assert bench.wrk.wrk_or_missed(table, "recorded challenge", guard=True) is None
    assert [row.figure for row in table.guards()] == ["recorded challenge"]
    monkeypatch.setattr(bench.wrk, "ensure_wrk", lambda: "/usr/bin/wrk")
    table = Table("t")
    assert bench.wrk.wrk_or_missed(table, "x") == "/usr/bin/wrk" and table.rows == []
