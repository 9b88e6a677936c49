"""An offline verdict keeps the verdict its phone showed (`shown_valid`, row format 5), and one
whose phone did not say (a page from before it) is marked wherever the row is read: its own hashed
fields say so, in every store, in the exports and to `unknown_shown` (tournament/shown.py)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tournament import export, open_event, read_export, stamp, unknown_shown, verify_chain

from ..conftest import entry


def offline(clock, key, **more):
    return entry(idempotency_key=key, offline=True, device_time=stamp(clock()), **more)


def test_a_row_keeps_the_verdict_its_phone_showed_and_one_that_did_not_say_is_marked(db, location, clock):
    """Four rows: online, offline saying it showed *válida* (format 5), offline with its round but
    not its verdict (format 4, as a page of yesterday sends), offline saying neither (format 2).
    Read back by another instance of the store, the two that did not say are the marked ones."""
    db.open_round(1)
    rows = [
        db.append(entry(idempotency_key="online")),
        db.append(offline(clock, "said", shown_round=1, shown_valid=True)),
        db.append(offline(clock, "round-only", shown_round=1)),
        db.append(offline(clock, "neither", valid=False)),
    ]
    assert [row.format for row in rows] == [2, 5, 4, 2]
    assert [row.entry.shown_valid for row in rows] == [None, True, None, None]
    again = open_event(location, clock=clock)
    try:
        assert list(again.records()) == rows and again.verify() is None
        assert list(unknown_shown(again.records())) == [3, 4]
        document = json.loads(export(again, format="json"))
        assert [(r["offline"], r["shown_valid"]) for r in document["records"]] == [
            (False, None),
            (True, True),
            (True, None),
            (True, None),
        ]
        text = export(again, format="csv")
        cells = [line["shown_valid"] for line in csv.DictReader(io.StringIO(text, newline=""))]
        assert cells == ["", "true", "", ""]
        for kind, written in (("csv", text), ("json", json.dumps(document))):
            back = read_export(written, kind)
            assert back == rows and verify_chain(back) is None and list(unknown_shown(back)) == [3, 4]
    finally:
        again.close()


def test_a_shown_verdict_said_with_no_round_is_format_5_with_its_round_null(db, clock):
    """A program's body may say the verdict its phone showed and not its round: the row is format
    5, its `shown_round` null (filed as any verdict), and it verifies."""
    row = db.append(offline(clock, "k", shown_valid=True))
    assert (row.format, row.entry.shown_round, row.entry.shown_valid) == (5, None, True)
    assert db.verify() is None and list(unknown_shown(db.records())) == []


@pytest.mark.parametrize(
    "fields",
    [
        {"shown_valid": False},  # the phone showed the other verdict: never recorded
        {"shown_valid": 1},
        {"shown_valid": True, "offline": False, "device_time": None},
    ],
    ids=["other-verdict", "not-a-boolean", "online"],
)
def test_a_shown_verdict_is_an_offline_verdict_s_and_the_one_recorded(db, fields):
    values = {"idempotency_key": "k", "offline": True, "device_time": "2026-11-22T09:00:00.000000Z", **fields}
    with pytest.raises(ValueError, match="shown_valid"):
        db.append(entry(**values))
    assert list(db.records()) == []
