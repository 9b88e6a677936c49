"""`python -m bench tournament` at small scale: the store's appends, never timed.

What is asserted is what the figures stand on: each timed append is a row in the event file, the
appends of processes writing at once all land, numbered without a gap, and the chain verifies;
and the section's table has the rows docs/figures.md shows, with their targets.
"""

from __future__ import annotations

import re

import pytest

from bench import tournament
from tournament import create_event, open_event

FIGURE = r"\d+\.\d\d / \d+\.\d\d ms"


@pytest.fixture
def event_path(tmp_path):
    path = tmp_path / "event.db"
    create_event(path, "Bench", "bench-password-1234").close()
    return path


def rows_of(path):
    db = open_event(path, readonly=True)
    try:
        return list(db.records()), db.verify()
    finally:
        db.close()


@pytest.mark.parametrize("synchronous", ["FULL", "NORMAL"])
def test_every_timed_append_is_a_row_of_an_intact_chain(event_path, synchronous):
    times = tournament.appends(event_path, synchronous, 7, warm_up=2)
    assert len(times) == 7 and all(t > 0 for t in times)
    rows, broken = rows_of(event_path)
    assert broken is None
    assert [row.seq for row in rows] == list(range(1, 10))
    assert {row.entry for row in rows} == {tournament.PLAY}


def test_processes_appending_at_once_all_land_in_one_chain(event_path):
    times, rate = tournament.concurrent(event_path, "FULL", 3, 5, warm_up=1)
    assert len(times) == 15 and rate > 0
    rows, broken = rows_of(event_path)
    assert broken is None
    assert [row.seq for row in rows] == list(range(1, 19))
    assert {row.entry for row in rows} == {tournament.PLAY}


def test_the_table_has_the_readme_s_rows_and_judges_the_append_target():
    [table] = tournament.run(count=5, warm_up=1, big_rows=20, repeat=1, whole=3_000)
    assert table.title.endswith("(5 appends per process after 1 warm-up; SQLite WAL)")
    assert [row.figure for row in table.rows] == [
        "1 process, synchronous=FULL (default): p50 / p99",
        "1 process, synchronous=NORMAL: p50 / p99",
        "2 processes at once, synchronous=FULL: p50 / p99 (appends/s)",
        "4 processes at once, synchronous=FULL: p50 / p99 (appends/s)",
        "verify a record of 20 rows (median of 1)",
        "export 20 rows as CSV (median of 1)",
        "verify a record of 3,000 rows (median of 1): per row, whole",
        "the console's look at 3,000 rows: the first (starts the full verification off the request), one after",
        "director's password check (scrypt N=2^15, r=8, p=1), median of 1",
    ]
    full, normal, two, four = table.rows[:4]
    assert re.fullmatch(FIGURE, full.value) and re.fullmatch(FIGURE, normal.value)
    for row in (two, four):
        assert re.fullmatch(rf"{FIGURE} \([\d,]+/s\)", row.value), row.value
    for row in (full, two, four):
        assert row.target == "p99 ≤ 10 ms" and isinstance(row.met, bool)
        assert row.met == (float(row.value.split(" / ")[1].split()[0]) <= 10)
    assert normal.target == "" and normal.met is None
    verify_, look = table.rows[6:8]
    assert re.fullmatch(r"\d+ µs, \d+\.\d s", verify_.value) and re.fullmatch(r"[\d.]+ ms, [\d.]+ ms", look.value)
    for row in table.rows[4:6] + table.rows[8:]:
        assert re.fullmatch(r"\d+ ms", row.value) and row.met is None


def test_the_percentile_is_the_nearest_rank():
    values = [float(n) for n in range(100, 0, -1)]
    assert tournament.percentile(values, 0.99) == 99.0
    assert tournament.percentile(values, 0.5) == 50.0
    assert tournament.percentile([3.0], 0.99) == 3.0
