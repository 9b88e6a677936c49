"""GET /v1/records is paged for the console (the latest rows, older or newer ones by number) and
whole as an export (format=): no request of the console builds the whole record."""

from __future__ import annotations

import csv
import io

import pytest

from service.event.record_types import RECORDS_MAX, RECORDS_PAGE

from .conftest import entry
from .test_http import event, problem  # noqa: F401 - the fixture, shared


@pytest.fixture
def filled(event):  # noqa: F811
    """The event with RECORDS_PAGE + 30 rows of nobody's, one in four at table 7."""
    event.db.append_many([entry(table="7" if n % 4 == 0 else None) for n in range(1, RECORDS_PAGE + 31)])
    return event


def seqs(body) -> list[int]:
    return [row["seq"] for row in body["records"]]


def test_the_list_is_the_latest_page_and_older_rows_come_by_number(filled):
    total = RECORDS_PAGE + 30
    latest = filled.director.get("/v1/records").json
    assert seqs(latest) == list(range(31, total + 1)) and latest["more"] is True
    older = filled.director.get("/v1/records?before=31").json
    assert seqs(older) == list(range(1, 31)) and older["more"] is False
    assert latest["chain"]["verified"] == total  # the whole record's state, whatever the page
    small = filled.director.get("/v1/records?limit=5&before=100").json
    assert seqs(small) == [95, 96, 97, 98, 99] and small["more"] is True
    newer = filled.director.get("/v1/records?after=125&limit=3").json
    assert seqs(newer) == [126, 127, 128] and newer["more"] is True
    assert filled.director.get("/v1/records?after=128&limit=3").json["more"] is False
    table = filled.director.get("/v1/records?table=7&limit=2").json
    assert seqs(table) == [124, 128] and table["more"] is True


def test_an_export_is_the_whole_record(filled):
    rows = list(csv.DictReader(io.StringIO(filled.director.get("/v1/records?format=csv").get_data(as_text=True))))
    assert len(rows) == RECORDS_PAGE + 30
    whole = filled.director.get("/v1/records?format=json").json
    assert len(whole["records"]) == RECORDS_PAGE + 30 and whole["more"] is False


@pytest.mark.parametrize(
    "query",
    [
        f"limit={RECORDS_MAX + 1}",
        "limit=0",
        "before=1&after=2",
        "format=csv&limit=5",
        "format=json&before=3",
        "before=x",
        "page=2",
    ],
)
def test_a_page_that_cannot_be_is_refused(filled, query):
    problem(filled.director.get(f"/v1/records?{query}"), 422, "invalid-request")
