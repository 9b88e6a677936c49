"""Checking an export (CSV or JSON) on another computer, and against a head written on paper.

An export holds every row's chain fields (`prev`, `hash`, `format`), so its rows can be checked
without the event file: each row's contents against its hash, and each row against the one
before it. A whole-record export starts at record 1, whose `prev` is chain.GENESIS. A round's
export starts where the round did: its first row's `prev` is the hash of the record before
it, which the export does not hold, so the chain is checked from there as given (the previous
round's sheet has that hash). An export filtered by table or device has gaps: the rows on each
side of a gap are checked on their own, and the gaps are named.

What rows alone cannot show is the last ones removed: a head written on paper when a round
closed (`SEQ:HASHPREFIX`, e.g. `57:3fa9c2d1`) can. The row it names must be in the export with
that hash, or the export must end before it (rows missing). And no row after it may be filed in
the round of the row it names: the head written is the round's final one (the service files a
verdict arriving after it outside rounds), so such a row was added to the round by hand. (A
round with no verdict of its own has as head a row of an earlier round: that round is the one
checked.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .chain import GENESIS, MalformedRow, after_final, missing, row_hash
from .model import Break, Record

MIN_PREFIX = 6  # hex digits of a head written on paper: enough that a wrong one never matches by chance


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
                f"a head is RECORD:HASH, the record's number and at least {MIN_PREFIX} hex digits "
                f"of its hash (e.g. 57:3fa9c2d1), not {text!r}"
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


def check_export(records: Sequence[Record], heads: Sequence[PaperHead] = ()) -> ExportCheck:
    """Check an export's rows (see the module's docstring); ValueError for a head it cannot check."""
    before: Record | None = None
    gaps: list[tuple[int, int]] = []
    broken = None
    for record in records:
        if before is None:
            if record.seq == 1 and record.prev != GENESIS:
                broken = Break.of(
                    "first", 1, "the first record does not start the chain (its previous-row hash was changed)"
                )
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
        else:
            gaps.append((before.seq + 1, record.seq - 1))
        if broken is None:
            try:
                if row_hash(record) != record.hash:
                    broken = Break.of("changed", record.seq, "its contents do not match its hash (it was changed)")
            except MalformedRow as error:
                broken = Break.of("malformed", error.seq, error.reason)
        if broken is not None:
            break
        before = record
    if not records:
        return ExportCheck(0, broken=broken)
    first, last = records[0], records[-1]
    found = ExportCheck(len(records), first.seq, last.seq, last.hash, first.seq == 1, gaps, broken)
    if broken is None:
        for head in heads:
            found = _against(found, records, head)
            if found.broken is not None:
                break
    return found


def _against(found: ExportCheck, records: Sequence[Record], head: PaperHead) -> ExportCheck:
    """The check with a head written on paper compared: a break, or unchanged."""

    def broken(kind: str, seq: int, reason: str, **facts: int) -> ExportCheck:
        return ExportCheck(
            found.rows,
            found.first,
            found.last,
            found.last_hash,
            found.from_genesis,
            found.gaps,
            Break.of(kind, seq, reason, **facts),
        )

    if head.seq > found.last and found.gaps:  # filtered by table or device: what follows may be others'
        raise ValueError(
            f"record {head.seq} is after this export's last row, record {found.last}, and the export is "
            f"filtered (by table or device: {_shown_gaps(found.gaps)} not in it), so the rows after its last may "
            "be other tables' or devices': check the head on the round's whole export or on the event file"
        )
    if head.seq > found.last:
        return broken(
            "paper-short",
            found.last + 1,
            f"the head written on paper is record {head.seq}, but the rows here end at "
            f"record {found.last}: {missing(found.last + 1, head.seq)} (check the number written on the sheet: "
            "if it is right, and this export is not filtered by table or device, the last rows were deleted)",
            first=found.last + 1,
            last=head.seq,
        )
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


def _shown_gaps(gaps: Sequence[tuple[int, int]]) -> str:
    """`records 3 to 8`, `record 2 and records 5 to 7`: the gaps of a filtered export, in words.

    >>> _shown_gaps([(2, 2), (5, 7)])
    'record 2 and records 5 to 7'
    """
    return " and ".join(f"record {a}" if a == b else f"records {a} to {b}" for a, b in gaps)
