"""The record's times along its numbers: rows stamped earlier than the row before them.

A row's `time` is the clock of the process that recorded it, read in the event's write lock
(record.py), so one process's rows follow their numbers while its clock does. Several instances
appending to one database's event each stamp with their own clock (kept in agreement by NTP,
docs/operations.md), and a clock may be set back (by hand, or stepped by NTP): a row may then be
stamped before the row before it. The chain still holds (each row is what a device showed, once,
in order), but its time would mislead whoever reads the record at an appeal ("was this verdict
before that one?"), so such a row is named, never silently believed: the order is the rows'
numbers, not their times. A clock the others disagree with by less than TOLERANCE (NTP keeps them
within milliseconds) is no mark.

>>> from tournament.entry import Entry
>>> from tournament.chain import seal, GENESIS
>>> one = Entry("disc-ca", "2.9", "5f" * 32, "spelling", ("CASA",), ("CASA",), True)
>>> rows = [seal(1, "2026-11-22T10:00:05.000000Z", None, one, GENESIS, 3)]
>>> rows.append(seal(2, "2026-11-22T10:00:02.500000Z", None, one, rows[0].hash, 3))
>>> said(list(stamped_back(rows)))
"1 record stamped before the record before it, by more than 1 s (an instance's clock disagreeing with the others', or a clock set back): their order is their numbers, not their times: record 2 is stamped 2.5 s before record 1"
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from build_tools.report import named, plural

from .entry import Record
from .stamps import parse_stamp, stamp

TOLERANCE = timedelta(seconds=1)  # clocks in agreement by NTP differ by far less; a clock set back, by more


@dataclass(frozen=True)
class StampedBack:
    """A row stamped before the row before it by more than TOLERANCE (`by`), or whose time cannot
    be read (None: no process wrote it so)."""

    seq: int
    by: timedelta | None

    def __str__(self) -> str:
        if self.by is None:
            return f"record {self.seq}'s time cannot be read"
        return f"record {self.seq} is stamped {self.by.total_seconds():g} s before record {self.seq - 1}"


def stamped_back(records: Iterable[Record], tolerance: timedelta = TOLERANCE) -> Iterator[StampedBack]:
    """Each row, in order, stamped before the row numbered just before it by more than `tolerance`,
    or whose time cannot be read. A row whose predecessor is not among `records` (an export of one
    table), or whose predecessor's time cannot be read, is compared with none."""
    before: tuple[int, datetime | None] = (0, None)
    for record in records:
        time = written(record.time)
        if time is None:
            yield StampedBack(record.seq, None)
        if time is not None and before[1] is not None and before[0] == record.seq - 1 and before[1] - time > tolerance:
            yield StampedBack(record.seq, before[1] - time)
        before = (record.seq, time)


def written(text: object) -> datetime | None:
    """A row's time read exactly as the service writes it (stamps.stamp: six digits of microseconds
    and a `Z`), else None. The console's list reads it so too (records.js, stampMicros), to the
    microsecond: one rule, so a row is marked there exactly when `lexicon records verify` names it
    (tests/page/test_director_times.py runs both on the same rows).

    >>> written("2026-11-22T10:00:01.000000Z").second, written("2026-11-22T10:00:01Z")
    (1, None)
    """
    try:
        time = parse_stamp(text)
    except (ValueError, TypeError):
        return None
    return time if stamp(time) == text else None


def said(marks: list[StampedBack]) -> str | None:
    """What a report of the record (`lexicon records verify`) says of its rows stamped back: the
    first few of them, the rest counted (report.named); None for none."""
    if not marks:
        return None
    return (
        f"{plural(len(marks), 'record')} stamped before the record before it, by more than "
        f"{TOLERANCE.total_seconds():g} s (an instance's clock disagreeing with the others', or a clock set "
        f"back): their order is their numbers, not their times: {named(marks, '; ')}"
    )
