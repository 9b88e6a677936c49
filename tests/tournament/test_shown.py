"""The verdict an offline verdict's phone showed is among the fields its row's hash covers (row
format 5), so neither it nor its absence (the mark of a phone that did not say) can be edited
without the chain saying so; rows of the formats before it hash as they always did."""

from __future__ import annotations

import dataclasses

import pytest

from build_tools.report import EXAMPLES as NAMED
from tournament import verify_chain
from tournament.chain import GENESIS, MalformedRow, fields_of, row_hash, seal
from tournament.entry import Entry
from tournament.shown import said

from .conftest import entry

TIME = "2026-11-22T10:00:05.000000Z"


def offline(**more):
    return entry(idempotency_key="k", offline=True, device_time="2026-11-22T10:00:01.000000Z", **more)


def test_the_shown_verdict_is_hashed_and_an_edit_of_it_breaks_the_chain():
    row = seal(1, TIME, None, offline(shown_valid=True), GENESIS, 5)
    assert row_hash(row) == row.hash and verify_chain([row]) is None
    assert fields_of(row)["shown_valid"] is True
    # edited past the entry's checks (which refuse a shown verdict other than `valid`): the hash says it
    edited = object.__new__(Entry)
    edited.__dict__.update(row.entry.__dict__, shown_valid=False)
    forged = dataclasses.replace(row, entry=edited)
    assert row_hash(forged) != row.hash
    assert verify_chain([forged]).kind == "changed"


@pytest.mark.parametrize("format", [2, 3, 4])
def test_a_row_of_an_older_format_cannot_hold_a_shown_verdict(format):
    """The mark of a row whose phone did not say cannot be taken off by giving an older row a
    shown verdict: its format does not hold one (and a format 5 row must)."""
    old = seal(1, TIME, None, offline(shown_round=0) if format == 4 else offline(), GENESIS, format)
    forged = dataclasses.replace(old, entry=dataclasses.replace(old.entry, shown_valid=True))
    with pytest.raises(MalformedRow, match="has a shown verdict"):
        row_hash(forged)
    assert verify_chain([forged]).kind == "malformed"
    with pytest.raises(MalformedRow, match="has no shown verdict"):
        row_hash(dataclasses.replace(old, format=5))


def test_a_format_5_row_says_its_round_or_null_and_a_format_4_row_must():
    assert seal(1, TIME, None, offline(shown_valid=True, shown_round=2), GENESIS, 5).format == 5
    with pytest.raises(MalformedRow, match="has no shown round"):
        seal(1, TIME, None, offline(), GENESIS, 4)


def test_past_the_rows_a_report_names_the_rest_are_counted():
    """`lexicon records verify` names the first rows whose phone did not say, as it does the rows
    stamped back (report.named), and counts the rest: a record of thousands is a line."""
    text = said(list(range(1, NAMED + 3)))
    assert text.startswith(f"{NAMED + 2} records judged offline") and "each holds" in text
    assert text.endswith(f"records {', '.join(str(seq) for seq in range(1, NAMED + 1))}, and 2 more")
    assert said([]) is None
