"""Checking an export (tournament/export_check.py) by what it says it holds (its filter,
tournament/export_filter.py): a whole record's export with rows gone is rows missing; a filtered
one is checked as filtered, its rows each of the filter; one that says nothing, as before."""

from __future__ import annotations

import re

import pytest

from tournament import ExportFilter, PaperHead, check_export

from .conftest import entry

WHOLE = ExportFilter()


@pytest.fixture
def rows(db):
    """Round 1: records 1 to 4, tables 1, 2, 1, 2; round 2: records 5 to 8, the same tables."""
    for number in (1, 2):
        db.open_round(number)
        db.append_many([entry(table=str(1 + n % 2)) for n in range(4)])
        db.close_round()
    return list(db.records())


def head(rows, seq: int) -> PaperHead:
    return PaperHead(seq, rows[seq - 1].hash[:8])


def without(rows, *seqs):
    return [row for row in rows if row.seq not in seqs]


def test_a_whole_export_intact_verifies_against_its_head(rows):
    found = check_export(rows, [head(rows, 8)], WHOLE)
    assert found.broken is None and (found.first, found.last, found.gaps) == (1, 8, [])
    assert found.filter == WHOLE


def test_a_whole_export_with_a_middle_row_and_its_tail_deleted_is_rows_missing(rows):
    """It had been refused (exit 2) as a filtered export's rows: a gap in an export that says it
    holds the whole record is rows deleted, with or without the round's head."""
    gone = without(rows, 3, 7, 8)
    for heads in ([], [head(rows, 8)]):
        broken = check_export(gone, heads, WHOLE).broken
        assert broken is not None and (broken.kind, broken.seq, dict(broken.facts)) == (
            "deleted",
            4,
            {"first": 3, "last": 3},
        )
        assert broken.reason.startswith("record 3 is missing before it: the export says it holds the whole record")


def test_a_whole_export_without_its_first_rows_or_without_any_is_rows_missing(rows):
    broken = check_export(without(rows, 1, 2), [], WHOLE).broken
    assert (broken.kind, broken.seq, dict(broken.facts)) == ("deleted", 3, {"first": 1, "last": 2})
    empty = check_export([], [head(rows, 8)], WHOLE).broken  # every row gone (a JSON export still says its filter)
    assert (empty.kind, empty.seq, dict(empty.facts)) == ("paper-short", 1, {"first": 1, "last": 8})


def test_a_whole_export_with_only_its_tail_deleted_says_so_without_doubt(rows):
    broken = check_export(rows[:6], [head(rows, 8)], WHOLE).broken
    assert broken.kind == "paper-short" and "records 7 to 8 are missing" in broken.reason
    assert "the last rows were deleted" in broken.reason and "not filtered" not in broken.reason


def test_a_filtered_export_checks_its_rows_and_names_what_it_cannot_tell(rows):
    table = ExportFilter(table="1")
    mine = [row for row in rows if row.entry.table == "1"]  # 1, 3, 5, 7
    found = check_export(mine, [head(rows, 7)], table)
    assert found.broken is None and found.gaps == [(2, 2), (4, 4), (6, 6)] and found.filter == table
    wrong = check_export(mine, [PaperHead(7, "000000")], table).broken
    assert wrong.kind == "paper-hash"  # a head it holds is compared
    with pytest.raises(ValueError) as refused:  # the rows after its last may be another table's
        check_export(mine, [head(rows, 8)], table)
    assert str(refused.value) == (
        "record 8 is after this export's last row, record 7, and the export says it holds only the rows of "
        "table '1' (record 2, record 4 and record 6 not in it): the rows after its last may be rows it does not hold, or "
        "deleted, which it cannot tell; check the head on the whole record's export or on the event file"
    )
    with pytest.raises(
        ValueError, match=re.escape("the export says it holds only the rows of round 2 and table '1' (record 6")
    ):
        check_export(mine[2:], [head(rows, 8)], ExportFilter(round=2, table="1"))  # a round's table: as a table's


def test_a_round_s_export_ending_before_its_head_is_rows_missing_unless_filed_elsewhere(rows):
    """A round's own rows end at its head but for a verdict filed outside rounds or in another
    round (a phone's offline verdict) just before the head was taken: rows missing (exit 1), the
    exception named, where a table's or a device's export cannot tell (above)."""
    broken = check_export(rows[4:6], [head(rows, 8)], ExportFilter(round=2)).broken
    assert (broken.kind, broken.seq, dict(broken.facts)) == ("paper-short", 7, {"first": 7, "last": 8})
    assert broken.reason == (
        "the head written on paper is record 8, but the rows here end at record 6: records 7 to 8 are missing "
        "(check the number written on the sheet: if it is right, they were deleted from this export of round 2, "
        "unless they were filed outside rounds or in another round, which the whole record's export or the event "
        "file shows)"
    )


def test_a_filter_edited_to_hide_deleted_rows_is_caught_by_the_rows_it_does_not_fit(rows):
    """Whoever edits the file can edit its filter too: claimed on rows of every table, it breaks at
    the first row that is not the filter's; claimed on rows that all fit it, the check says which
    filter the export claims (`found.filter`), which the appeal sees beside what it asked for."""
    gone = without(rows, 3, 7, 8)
    broken = check_export(gone, [head(rows, 8)], ExportFilter(table="1")).broken
    assert (broken.kind, broken.seq) == ("outside-filter", 2)
    assert broken.reason == (
        "it is of table '2', not of table '1' as the export says it holds: its filter was edited, or the row added"
    )
    broken = check_export(gone, [], ExportFilter(round=1, device=4)).broken
    assert (broken.kind, broken.seq) == ("outside-filter", 1) and "of no device, not of round 1 and device 4" in (
        broken.reason
    )
    fits = check_export(gone[:3], [], ExportFilter(round=1))  # round 1's rows 1, 2, 4 all fit round 1
    assert fits.broken is None and fits.filter == ExportFilter(round=1) and fits.gaps == [(3, 3)]


def test_an_export_that_does_not_say_its_filter_is_checked_as_before(rows):
    """Exports made before they said their filter: a gap reads as filtered, a head after the last
    row of one without gaps as rows missing, with the doubt; and it is said that it says none."""
    gone = without(rows, 3, 7, 8)
    found = check_export(gone, [], None)
    assert found.broken is None and found.gaps == [(3, 3)] and found.filter is None
    with pytest.raises(ValueError, match=re.escape("the export is filtered (by table or device: record 3 not in it)")):
        check_export(gone, [head(rows, 8)], None)
    broken = check_export(rows[:6], [head(rows, 8)]).broken
    assert broken.kind == "paper-short" and "and this export is not filtered by table or device" in broken.reason


def test_a_head_on_an_export_with_no_rows_is_not_passed_over(rows):
    with pytest.raises(ValueError, match="this export holds no records: the head of record 8 cannot be compared"):
        check_export([], [head(rows, 8)], ExportFilter(round=2))
    with pytest.raises(ValueError, match="holds no records"):
        check_export([], [head(rows, 8)], None)
    assert check_export([], [], None).rows == 0
