"""Checking an export (CSV or JSON) on another computer, and against a head written on paper.

An export holds every row's chain fields (`prev`, `hash`, `format`), so its rows can be checked
without the event file: each row's contents against its hash, and each row against the one
before it. A whole-record export starts at record 1, whose `prev` is chain.GENESIS. A round's
export starts where the round did: its first row's `prev` is the hash of the record before
it, which the export does not hold, so the chain is checked from there as given (the previous
round's sheet has that hash). An export filtered by table or device has gaps: the rows on each
side of a gap are checked on their own, and the gaps are named.

What rows alone cannot show is the last ones removed: a head written on paper when a round
closed (`SEQ:HASHPREFIX`, e.g. `57:3fa9c2d17b0e55aa`) can. The row it names must be in the export with
that hash, or the export must end before it (rows missing). And no row after it may be filed in
the round of the row it names: the head written is the round's final one (the service files a
verdict arriving after it outside rounds), so such a row was added to the round by hand. (A
round with no verdict of its own has as head a row of an earlier round: that round is the one
checked.)

What the export says it holds (its filter, export_filter) decides what a gap and a head after its
last row are. Said whole: a gap, a first row after record 1 and a head after its last row are rows
deleted. Said filtered: every row must be of the filter (else the filter was edited, or the row
added); its gaps may be rows it does not hold, or deleted, which it cannot tell. A round's rows
end at its head, but for a row filed outside rounds or in another round (a phone's offline
verdict) just before the head was taken: a head after the last row of a round's export is rows
missing, that exception named; after a table's or a device's, it cannot be compared. Said nothing
(an export from before exports said their filter): a gap reads as a table's or a device's filter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .chain import GENESIS, MalformedRow, after_final, missing, row_hash
from .entry import Record
from .export_filter import ExportFilter, listed
from .integrity import Break

MIN_PREFIX = 6  # hex digits of a head written on paper: enough that a wrong one never matches by chance
FILTER_UNSAID = "it does not say what it holds (an export from before exports said their filter, or its filter removed)"
# ...but not against a record rewritten on purpose: whoever can rewrite the rows can vary a free
# field of the last one (its idempotency key, its time's microseconds) until its hash begins with
# the sheet's digits, 16**n tries for n of them (8: a laptop's hours). 16 digits (64 bits) cannot
# be matched so: what the console shows to write, and what a sheet must hold to prove a rewrite.
WRITTEN_DIGITS = 16


@dataclass(frozen=True)
class PaperHead:
    """A round's head as written on its sheet: the last record's number and its hash's first digits."""

    seq: int
    prefix: str

    @classmethod
    def parse(cls, text: str) -> PaperHead:
        """`57:3fa9c2d1` (spaces ignored, any case); ValueError quoting the text otherwise.

        >>> PaperHead.parse(" 57 : 3FA9 C2D1 ")
        PaperHead(seq=57, prefix='3fa9c2d1')
        """
        match = re.fullmatch(r"(\d+):([0-9a-f]+)", re.sub(r"\s+", "", text).lower())
        if not match or int(match[1]) < 1 or not MIN_PREFIX <= len(match[2]) <= 64:
            raise ValueError(
                f"a head is RECORD:HASH, the record's number and the first {WRITTEN_DIGITS} hex digits of its "
                f"hash the console shows (at least {MIN_PREFIX}), e.g. 57:3fa9c2d17b0e55aa or "
                f"57:3fa9 c2d1 7b0e 55aa, not {text!r}"
            )
        return cls(int(match[1]), match[2])


@dataclass(frozen=True)
class ExportCheck:
    """What checking an export found: its rows, where its chain starts, its gaps, its first break."""

    rows: int
    first: int | None = None  # the first and last record numbers in the export
    last: int | None = None
    last_hash: str | None = None
    from_genesis: bool = False  # it starts at record 1: the chain is checked from the very start
    gaps: list[tuple[int, int]] = field(default_factory=list)  # record numbers not in it, first to last
    broken: Break | None = None
    filter: ExportFilter | None = None  # what it says it holds; None: it does not say


def check_export(
    records: Sequence[Record], heads: Sequence[PaperHead] = (), filter: ExportFilter | None = None
) -> ExportCheck:
    """Check an export's rows, as the filter it says it holds (see the module's docstring);
    ValueError for a head it cannot check."""
    whole = filter is not None and filter.whole
    before: Record | None = None
    gaps: list[tuple[int, int]] = []
    broken = None
    for record in records:
        if before is None:
            if record.seq == 1 and record.prev != GENESIS:
                broken = Break.of(
                    "first", 1, "the first record does not start the chain (its previous-row hash was changed)"
                )
            elif record.seq > 1 and whole:
                broken = _deleted(1, record.seq)
        elif record.seq <= before.seq:
            broken = Break.of("order", record.seq, f"out of order after record {before.seq}", after=before.seq)
        elif record.seq == before.seq + 1:
            if record.prev != before.hash:
                broken = Break.of(
                    "link",
                    record.seq,
                    f"does not chain to record {before.seq}: its previous-row hash "
                    "differs (one of the two was changed)",
                    after=before.seq,
                )
        elif whole:
            broken = _deleted(before.seq + 1, record.seq)
        else:
            gaps.append((before.seq + 1, record.seq - 1))
        if broken is None:
            try:
                if row_hash(record) != record.hash:
                    broken = Break.of("changed", record.seq, "its contents do not match its hash (it was changed)")
            except MalformedRow as error:
                broken = Break.of("malformed", error.seq, error.reason)
        if broken is None and filter is not None and (misfit := filter.misfit(record)) is not None:
            broken = Break.of(
                "outside-filter",
                record.seq,
                f"it is of {misfit}, not of {filter} as the export says it holds: its filter was edited, "
                "or the row added",
            )
        if broken is not None:
            break
        before = record
    if not records:
        if heads and whole:  # said whole, and no row: every row up to the head is missing
            return ExportCheck(0, broken=_short(0, heads[0].seq, ", they were deleted"), filter=filter)
        if heads:
            raise ValueError(f"this export holds no records: the head of record {heads[0].seq} cannot be compared")
        return ExportCheck(0, broken=broken, filter=filter)
    first, last = records[0], records[-1]
    found = ExportCheck(len(records), first.seq, last.seq, last.hash, first.seq == 1, gaps, broken, filter)
    if broken is None:
        for head in heads:
            found = _against(found, records, head)
            if found.broken is not None:
                break
    return found


def _against(found: ExportCheck, records: Sequence[Record], head: PaperHead) -> ExportCheck:
    """The check with a head written on paper compared: a break, or unchanged."""

    def broken(kind: str, seq: int, reason: str, **facts: int) -> ExportCheck:
        return replace(found, broken=Break.of(kind, seq, reason, **facts))

    said = found.filter
    if head.seq > found.last and said is not None and (said.table, said.device) != (None, None):
        raise ValueError(
            f"record {head.seq} is after this export's last row, record {found.last}, and the export says it "
            f"holds only the rows of {said}{f' ({_shown_gaps(found.gaps)} not in it)' if found.gaps else ''}: "
            "the rows after its last may be rows it does not hold, or deleted, which it cannot tell; check the "
            "head on the whole record's export or on the event file"
        )
    # said nothing, but with gaps: filtered by table or device, what follows may be others'
    if head.seq > found.last and said is None and found.gaps:
        raise ValueError(
            f"record {head.seq} is after this export's last row, record {found.last}, and the export is "
            f"filtered (by table or device: {_shown_gaps(found.gaps)} not in it), so the rows after its last may "
            f"be other tables' or devices': check the head on the round's whole export or on the event file; {FILTER_UNSAID}"
        )
    if head.seq > found.last:
        unless = (
            ", and this export is not filtered by table or device, the last rows were deleted"
            if said is None
            else ", the last rows were deleted"
            if said.whole
            else f", they were deleted from this export of {said}, unless they were filed outside rounds or in "
            "another round, which the whole record's export or the event file shows"
        )
        return replace(found, broken=_short(found.last, head.seq, unless))
    by_seq = {record.seq: record for record in records}
    if head.seq in by_seq:
        digest = by_seq[head.seq].hash
    elif head.seq == found.first - 1:
        digest = records[0].prev
    else:
        raise ValueError(
            f"record {head.seq} is not in this export (it holds records {found.first} to {found.last}"
            f"{', with gaps' if found.gaps else ''}): its head cannot be compared"
        )
    if not digest.startswith(head.prefix):
        return broken(
            "paper-hash",
            head.seq,
            f"its hash begins {digest[: len(head.prefix)]}, the sheet says {head.prefix}: check the number and the "
            "hash written on the sheet; if they are right, the record was rewritten from there",
        )
    closing = by_seq.get(head.seq)
    if closing is not None and closing.round is not None:  # the round the sheet closed: nothing after
        late = next((r for r in records if r.seq > head.seq and r.round == closing.round), None)
        if late is not None:
            failed = after_final(late, head.seq)
            return broken(failed.kind, failed.seq, failed.reason, **dict(failed.facts))
    return found


def _deleted(first: int, seq: int) -> Break:
    """Rows `first` to `seq - 1`, before row `seq`, not in an export that says it holds the whole record."""
    return Break.of(
        "deleted",
        seq,
        f"{missing(first, seq - 1)} before it: the export says it holds the whole record, so "
        f"{'it was' if first == seq - 1 else 'they were'} deleted from it",
        first=first,
        last=seq - 1,
    )


def _short(last: int, head: int, unless: str) -> Break:
    """The rows after `last` up to the head written on paper, `head`, not in the export."""
    return Break.of(
        "paper-short",
        last + 1,
        f"the head written on paper is record {head}, but "
        f"{f'the rows here end at record {last}' if last else 'this export holds no records'}: "
        f"{missing(last + 1, head)} (check the number written on the sheet: if it is right{unless})",
        first=last + 1,
        last=head,
    )


def _shown_gaps(gaps: Sequence[tuple[int, int]]) -> str:
    """`records 3 to 8`, `record 2, record 4 and records 5 to 7`: the gaps of a filtered export, in words.

    >>> _shown_gaps([(2, 2), (5, 7)])
    'record 2 and records 5 to 7'
    >>> _shown_gaps([(2, 2), (4, 4), (6, 7)])
    'record 2, record 4 and records 6 to 7'
    """
    return listed([f"record {a}" if a == b else f"records {a} to {b}" for a, b in gaps])
