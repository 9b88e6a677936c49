"""`python -m bench federation` at small scale: Debian's PostgreSQL, real `lexicon serve` instances
and wrk, never timed.

What is asserted is what the section's figures stand on: every answer wrk counted is a row of the
event it loaded (at most one in flight a connection more), every answer of the Saturday's waves a
row of its event, from each of its devices; the chains verify, the rows are the bench's play, and
the table holds the rows docs/figures.md shows, the PostgreSQL/SQLite ratio as a guard.
"""

from __future__ import annotations

import pytest

from bench import federation
from bench.table import Table
from bench.wrk import PLAY3, ensure_wrk
from tests.support import compile_list
from tournament import open_event

pytestmark = pytest.mark.postgres  # the section starts its own PostgreSQL


def test_the_federation_section_s_rows_stand_on_its_records(tmp_path):
    lexicon = compile_list(tmp_path / "es.lex", [*PLAY3["words"], "GATO"], "es", "bench-es", "bench es")
    wrk_path = ensure_wrk()
    assert wrk_path, "wrk is needed (apt-get install wrk)"
    database = federation.Database()
    try:
        table = Table("t")
        federation.measure(table, [lexicon], wrk_path, runs=1, seconds=1, database=database, size=(3, 4))
        figures = [row.figure for row in table.rows]
        assert figures == [
            "recorded challenge, event file (SQLite), 16 connections",
            "recorded challenge, event in PostgreSQL, 16 connections",
            "p99, PostgreSQL / SQLite, 16 connections (median of the 1 runs' ratios)",
            "sqlite: rows recorded in the measured runs",
            "postgres: rows recorded in the measured runs",
            "4 instances on one event in PostgreSQL, 4 connections each: verdicts recorded a second, all "
            "instances (median of runs)",
            "4 instances on one event: p99 (median of the instances', median of runs)",
            "4 instances on one event: errors (non-2xx answers, socket errors)",
            "4 instances on one event: rows recorded in the measured runs",
            "3 events × 4 devices, all at once, through two instances: p50 / p99 of the 60 challenges (5 waves)",
            "3 events × 4 devices, all at once, through two instances: the slowest answer of a wave (every device "
            "answered)",
            "3 events × 4 devices, all at once, through two instances: errors (an answer not 200, or none)",
            "3 events × 4 devices, all at once, through two instances: rows recorded, every event",
        ]
        assert [row.figure for row in table.guards()] == [figures[2]]
        checked = [row for row in table.rows if row.target == "none" or row.target.startswith("a row per answer")]
        assert len(checked) == 6 and all(row.met for row in checked), checked
        with database.server.connect() as conn:
            events = [name for (name,) in conn.execute("SELECT id FROM events ORDER BY id").fetchall()]
        assert len(events) == 2 + 3  # the PostgreSQL beside SQLite, the four instances', the Saturday's
        devices = {}
        for name in events:
            db = open_event(database.server.url(event=name), readonly=True)
            try:
                records = list(db.records())
                assert records and db.verify() is None
                assert [row.seq for row in records] == list(range(1, len(records) + 1))
                assert {(row.entry.words, row.entry.valid) for row in records} == {(tuple(PLAY3["words"]), True)}
                devices[name] = {row.entry.device_name for row in records}
            finally:
                db.close()
        saturday = [names for name, names in devices.items() if name.startswith("sat-")]
        assert len(saturday) == 3 and all(names == {f"Juez {n}" for n in range(1, 5)} for names in saturday), devices
    finally:
        database.close()
