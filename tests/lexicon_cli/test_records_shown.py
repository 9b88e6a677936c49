"""`lexicon records verify` names the rows judged offline by a phone that did not say which verdict
it showed (tournament/shown.py), of an event file and of its exports, and still exits 0: the chain
holds, but an appeal must not read such a row's verdict as what the players were shown."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.tournament.conftest import PASSWORD, entry
from tournament import create_event

from .test_event import run

SAID = (
    "2 records judged offline by a phone that did not say which verdict it showed (a page from before "
    "it did): each holds the service's verdict, and what the players were shown is not known: records 2, 4"
)


def test_verify_names_the_offline_rows_whose_phone_did_not_say_what_it_showed(tmp_path):
    path = tmp_path / "open.db"
    db = create_event(path, "Open", PASSWORD, clock=lambda: datetime(2026, 11, 22, 10, tzinfo=UTC))
    offline = dict(offline=True, device_time="2026-11-22T09:59:00.000000Z")
    db.append(entry())
    db.append(entry(idempotency_key="old-page", **offline))  # a page from before shown_valid
    db.append(entry(idempotency_key="new-page", shown_round=0, shown_valid=True, **offline))
    db.append(entry(idempotency_key="round-only", shown_round=0, valid=False, **offline))
    db.close()
    verified = run("records", "verify", path)
    assert verified.exit_code == 0 and "intact, 4 records" in verified.stdout
    assert f"{path}: {SAID}\n" in verified.stdout, verified.stdout
    for kind in ("csv", "json"):
        out = tmp_path / f"all.{kind}"
        assert run("records", "export", path, "--format", kind, "-o", out).exit_code == 0
        exported = run("records", "verify", out)
        assert exported.exit_code == 0 and f"{out}: {SAID}\n" in exported.stdout, exported.stdout


@pytest.mark.parametrize("shown", [True, None], ids=["said", "online"])
def test_verify_says_nothing_of_rows_whose_phone_said_or_that_were_judged_online(tmp_path, shown):
    path = tmp_path / "open.db"
    db = create_event(path, "Open", PASSWORD)
    if shown:
        db.append(entry(idempotency_key="k", offline=True, device_time="2026-11-22T09:59:00.000000Z", shown_valid=True))
    else:
        db.append(entry())
    db.close()
    verified = run("records", "verify", path)
    assert verified.exit_code == 0 and "did not say" not in verified.stdout, verified.stdout
