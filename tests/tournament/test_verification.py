"""The record's state while the service runs (tournament/verification.py): a full verification off
the look that needs it, in slices, and an edit by hand still found within FULL_CHECK_SECONDS."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from tournament import chain, create_event, verification

from .conftest import PASSWORD, entry

TRIGGERS = (
    "CREATE TRIGGER records_append_only_update BEFORE UPDATE ON records "
    "BEGIN SELECT RAISE(ABORT, 'the record is append-only'); END; "
    "CREATE TRIGGER records_append_only_delete BEFORE DELETE ON records "
    "BEGIN SELECT RAISE(ABORT, 'the record is append-only'); END;"
)


def edit(path, sql: str, careful: bool = False) -> None:
    """An edit by hand: the append-only triggers dropped first, and put back after by a careful one."""
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TRIGGER records_append_only_update; DROP TRIGGER records_append_only_delete; "
        + sql
        + (TRIGGERS if careful else "")
    )
    conn.close()


class Monotonic:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def moved(monkeypatch) -> Monotonic:
    """Records of more than 10 rows verified off the look, in slices of 7, on a clock moved by hand."""
    clock = Monotonic()
    monkeypatch.setattr(verification, "_monotonic", clock)
    monkeypatch.setattr(verification, "INLINE_ROWS", 10)
    monkeypatch.setattr(verification, "SLICE", 7)
    return clock


def settled(db):
    """The state once the full verification the look started has ended."""
    assert db._verification.wait(timeout=60), "the verification did not end"
    state = db.chain_state()
    assert not state.checking
    return state


def test_a_long_record_is_verified_off_the_look_and_its_result_shown_after(event_path, clock, moved):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    first = db.chain_state()
    assert first.checking and first.intact and first.checked is None and first.last == 30
    state = settled(db)
    assert state.intact and state.verified == state.last == 30 and state.checked == "2026-11-22T09:00:00.000000Z"
    db.close()


def test_an_edit_that_puts_the_triggers_back_is_found_within_the_period(event_path, clock, moved):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    db.chain_state()
    assert settled(db).intact
    edit(event_path, "UPDATE records SET valid = 0 WHERE seq = 12;", careful=True)
    moved.now += verification.FULL_CHECK_SECONDS - 1
    db.append(entry())
    assert db.chain_state().intact  # row 30, verified last, still has its hash: only row 31 is read
    moved.now += 1
    due = db.chain_state()
    assert due.checking and due.intact  # the last state verified, until the verification ends
    state = settled(db)
    assert state.broken.seq == 12 and state.verified == 11 and "changed" in state.broken.reason
    db.append(entry())
    assert db.chain_state().broken.seq == 12  # said until a full verification finds none
    db.close()


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE records SET valid = 0 WHERE seq = 15;",  # in the third slice
        "DELETE FROM records WHERE seq = 14;",  # the last row of a slice
        "DELETE FROM records WHERE seq > 20;",  # the last rows of round 2, whose head is kept
        "UPDATE records SET words = '[\"X Y\"]' WHERE seq = 8;",  # a row that cannot be read back
        "",
    ],
)
def test_a_verification_in_slices_finds_what_verifying_at_once_finds(event_path, clock, moved, sql):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    for _ in range(2):
        db.open_round()
        db.append_many([entry() for _ in range(12)])
        db.close_round()
    db.append_many([entry() for _ in range(5)])
    edit(event_path, sql)
    db.chain_state()
    state = settled(db)
    assert state.broken == db.verify()
    if sql == "DELETE FROM records WHERE seq > 20;":
        assert "round 2 closed at record 24" in state.broken.reason
    db.close()


def test_a_look_hashes_only_the_rows_since_the_last_one_verified(event_path, clock, moved, monkeypatch):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    db.chain_state()
    settled(db)
    db.append_many([entry() for _ in range(2)])
    hashed = []
    real = chain.row_hash
    monkeypatch.setattr(chain, "row_hash", lambda record: hashed.append(record.seq) or real(record))
    monkeypatch.setattr(verification, "row_hash", chain.row_hash)
    assert db.chain_state().verified == 32
    assert sorted(hashed) == [30, 31, 32]
    db.close()


def test_a_command_waits_for_the_whole_verification(event_path, clock, moved):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    edit(event_path, "UPDATE records SET valid = 0 WHERE seq = 3;")
    state = db.chain_state(wait=True)
    assert not state.checking and state.broken.seq == 3 and not db._verification.running
    db.close()


GEVENT_WORKER = r"""
import json, sys
from tournament import open_event, verification

db = open_event(sys.argv[1])  # before patching, as in gunicorn's master
from gevent import monkey
monkey.patch_all()
import gevent

verification.INLINE_ROWS, verification.SLICE = 10, 500
ticks = 0
def ticker():  # another connection of the worker: it must run while the record is verified
    global ticks
    while True:
        gevent.sleep(0.001)
        ticks += 1

beat = gevent.spawn(ticker)
first = db.chain_state()
ended = db._verification.wait(timeout=120)
during = ticks
state = db.chain_state()
beat.kill()
print(json.dumps({"first": [first.checking, first.verified], "ended": ended, "ticks": during,
                  "state": [state.checking, state.verified, state.last, state.intact]}), flush=True)
"""


@pytest.mark.slow  # a gevent child process
def test_in_a_gevent_worker_the_verification_runs_while_the_loop_goes_on(event_path, clock):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(3_000)])
    db.close()
    done = subprocess.run(
        [sys.executable, "-c", GEVENT_WORKER, str(event_path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["first"] == [True, 0] and seen["ended"]
    assert seen["state"] == [False, 3_000, 3_000, True]
    assert seen["ticks"] > 0  # the loop ran other greenlets while the rows were hashed


def test_a_break_is_in_the_log_once_by_its_row_number_and_a_failed_verification_too(
    event_path, clock, moved, caplog, monkeypatch
):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    edit(event_path, "UPDATE records SET valid = 0 WHERE seq = 12;")
    db.chain_state()
    assert settled(db).broken.seq == 12
    db.chain_state()
    said = [r for r in caplog.records if r.getMessage() == "the event's record does not verify"]
    assert [r.fields for r in said] == [{"seq": 12}]

    def unreadable(row):
        raise sqlite3.OperationalError("disk I/O error")

    real = verification.decode_record
    monkeypatch.setattr(verification, "decode_record", unreadable)
    moved.now += verification.FULL_CHECK_SECONDS
    assert db.chain_state().checking
    assert db._verification.wait(timeout=60)
    monkeypatch.setattr(verification, "decode_record", real)
    state = db.chain_state()  # due still: another verification starts
    failed = [r for r in caplog.records if r.getMessage() == "the event's record could not be verified"]
    assert [r.fields for r in failed] == [{"error": "OperationalError"}]
    assert state.checking and state.broken.seq == 12  # what was found before stays said
    assert settled(db).broken.seq == 12
    db.close()
