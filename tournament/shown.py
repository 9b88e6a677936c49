"""The record's offline rows whose phone did not say what it showed: marked wherever a row is read.

A verdict given offline is judged again by the service when the phone syncs, and recorded only
if the phone showed the same joint verdict (`shown_valid`, row format 5; another is refused with
nothing recorded). A page from before it does not say what it showed: its verdict is recorded as
before, but the row cannot say the players saw what it says, only that the service judged so. So
such a row is marked, never silently believed: the console's list and the *papeleta* say it, the
API and the exports carry `shown_valid` null beside `offline` true, and `lexicon records verify`
names the rows. The mark is read from the row's own hashed fields (`offline`, and `shown_valid`,
which only format 5 holds): a row of an older format (written before the service kept it) is
marked too, as it is equally unknown, and the mark cannot be removed without breaking the chain.

>>> from tournament.entry import Entry
>>> from tournament.chain import seal, GENESIS
>>> offline = dict(offline=True, device_time="2026-11-22T10:00:01.000000Z", idempotency_key="k-1")
>>> unsaid = Entry("disc-ca", "2.9", "5f" * 32, "spelling", ("CASA",), ("CASA",), True, **offline)
>>> rows = [seal(1, "2026-11-22T10:00:05.000000Z", None, unsaid, GENESIS, unsaid.format)]
>>> said(list(unknown_shown(rows)))
"1 record judged offline by a phone that did not say which verdict it showed (a page from before it did): it holds the service's verdict, and what the players were shown is not known: record 1"
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from build_tools.report import named, plural

from .entry import Record


def unknown(record: Record) -> bool:
    """Whether a row is an offline verdict whose phone did not say what it showed."""
    return record.entry.offline and record.entry.shown_valid is None


def unknown_shown(records: Iterable[Record]) -> Iterator[int]:
    """The numbers of the rows, in order, whose phone did not say what it showed."""
    return (record.seq for record in records if unknown(record))


def said(seqs: list[int]) -> str | None:
    """What a report of the record (`lexicon records verify`) says of them: the first few,
    the rest counted (report.named); None for none."""
    if not seqs:
        return None
    return (
        f"{plural(len(seqs), 'record')} judged offline by a phone that did not say which verdict it showed "
        f"(a page from before it did): {'it holds' if len(seqs) == 1 else 'each holds'} the service's verdict, "
        f"and what the players were shown is not known: record{'s' if len(seqs) > 1 else ''} {named(seqs)}"
    )
