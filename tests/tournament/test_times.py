"""tournament/times.py: the rows of a record stamped before the row before them, as a report names them."""

from __future__ import annotations

from build_tools.report import EXAMPLES as NAMED
from tournament.chain import GENESIS, seal
from tournament.entry import Entry
from tournament.times import said, stamped_back

ONE = Entry("disc-ca", "2.9", "5f" * 32, "spelling", ("CASA",), ("CASA",), True)


def chained(*times: str, numbers: list[int] | None = None) -> list:
    """Rows of the record at these times (each a second of 10:00 or text as is), chained in order."""
    rows, prev = [], GENESIS
    for seq, time in zip(numbers or range(1, len(times) + 1), times, strict=True):
        rows.append(seal(seq, f"2026-11-22T10:00:{time}.000000Z" if time.isdigit() else time, None, ONE, prev, 3))
        prev = rows[-1].hash
    return rows


def test_a_time_no_process_wrote_is_named_and_a_row_after_a_gap_is_compared_with_none():
    """A row whose time cannot be read (an export edited and chained again) is named as such, and
    the row after it compared with nothing; an export of one table skips rows, and a row is only
    compared with the one numbered just before it."""
    marks = list(stamped_back(chained("30", "garbage", "10", "40", "20", numbers=[1, 2, 3, 5, 9])))
    assert [str(mark) for mark in marks] == ["record 2's time cannot be read"]


def test_past_the_rows_a_report_names_the_rest_are_counted():
    rows = chained(*(f"{59 - 2 * second:02d}" for second in range(NAMED + 3)))  # each 2 s before the last
    text = said(list(stamped_back(rows)))
    assert text.startswith(f"{NAMED + 2} records stamped before the record before it")
    assert text.count("is stamped 2 s before") == NAMED and text.endswith("; and 2 more")
    assert said(list(stamped_back(chained("01", "00")))) is None  # a second back: clocks in agreement
