"""tournament/export_filter.py: the filter an export says it was asked for (`round`, `table`,
`device`) is read back only when it is one `lexicon records export` could have written; anything
else, as a spreadsheet or an editor may leave it, is refused quoting the value."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournament.export_filter import ExportFilter

NONE = {"round": None, "table": None, "device": None}


@given(
    st.one_of(st.none(), st.integers(1, 2**63 - 1)),
    st.one_of(st.none(), st.text(min_size=1, max_size=20)),
    st.one_of(st.none(), st.integers(1, 2**63 - 1)),
)
def test_a_filter_written_as_a_cell_is_read_back_as_it_was(round_number, table, device):
    written = ExportFilter(round_number, table, device)
    assert ExportFilter.parse(written.cell()) == written
    assert ExportFilter.of(written.as_json()) == written


@pytest.mark.parametrize(
    ("changed", "said"),
    [
        ({"round": 0}, "its filter's round is 0, not a number from 1 or null"),
        ({"device": 0}, "its filter's device is 0, not a number from 1 or null"),
        ({"round": -3}, "its filter's round is -3, not a number from 1 or null"),
        ({"round": True}, "its filter's round is True, not a number from 1 or null"),
        ({"device": "7"}, "its filter's device is '7', not a number from 1 or null"),
        ({"round": 2.0}, "its filter's round is 2.0, not a number from 1 or null"),
        ({"table": ""}, "its filter's table is '', not a text or null"),
        ({"table": 12}, "its filter's table is 12, not a text or null"),
    ],
)
def test_a_filter_no_export_writes_is_refused_quoting_it(changed, said):
    with pytest.raises(ValueError) as refused:
        ExportFilter.of(NONE | changed)
    assert str(refused.value) == said


@pytest.mark.parametrize("value", [[], {"round": None, "table": None}, NONE | {"seat": None}, "round 3", None])
def test_anything_but_an_object_of_its_three_members_is_refused(value):
    with pytest.raises(ValueError, match="not an object of round, table, device"):
        ExportFilter.of(value)


def test_a_cell_that_is_no_json_is_refused_quoting_it():
    with pytest.raises(ValueError, match=r"its filter is '\{round: 3\}', not JSON"):
        ExportFilter.parse("{round: 3}")
