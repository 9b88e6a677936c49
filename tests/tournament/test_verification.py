"""The record's state while the service runs (tournament/verification.py): a full verification off
the look that needs it, in slices, and an edit by hand still found within FULL_CHECK_SECONDS."""

from __future__ import annotations

import sqlite3

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
