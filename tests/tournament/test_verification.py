"""The record's state while the service runs (tournament/stores/sqlite/verification.py): a full verification off
the look that needs it, in slices, and an edit by hand still found within FULL_CHECK_SECONDS."""

from __future__ import annotations

import json
import logging
import sqlite3
import subprocess
import sys
import threading
from dataclasses import replace

import pytest

from tournament import chain, create_event, offpath, open_event, stamp
from tournament.stores.sqlite import fingerprints, progress, verification

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
    monkeypatch.setattr(progress, "monotonic", clock)
    monkeypatch.setattr(verification, "INLINE_ROWS", 10)
    monkeypatch.setattr(verification, "SLICE", 7)
    return clock


def settled(db):
    """The state once the full verification the look started has ended (with the triggers gone,
    every look starts another: it is waited for too, but the state said is the look's)."""
    assert db._storage._verification.wait(timeout=60), "the verification did not end"
    state = db.chain_state()
    assert not state.checking or not state.guarded
    assert db._storage._verification.wait(timeout=60), "the verification did not end"
    return state


def test_a_long_record_is_verified_off_the_look_and_its_result_shown_after(event_path, clock, moved):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    first = db.chain_state()
    assert first.checking and first.checked is None and first.last == 30 and first.verified == 0
    assert first.broken is None and not first.intact  # not before a verification confirmed it
    state = settled(db)
    assert state.intact and state.verified == state.last == 30 and state.checked == "2026-11-22T09:00:00.000000Z"
    db.close()


def test_an_edit_that_puts_the_triggers_back_is_found_at_the_next_look(event_path, clock, moved):
    """Dropping the triggers, editing a row in the middle and making them again leaves the row
    verified last as it was; the file's schema version moved, so the next look verifies it all."""
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    db.chain_state()
    assert settled(db).intact
    edit(event_path, "UPDATE records SET valid = 0 WHERE seq = 12;", careful=True)
    db.append(entry())
    due = db.chain_state()
    assert not due.intact and due.broken is None and due.guarded  # not confirmed, and not yet found
    state = settled(db)
    assert state.broken.seq == 12 and state.verified == 11 and "changed" in state.broken.reason
    db.append(entry())
    assert db.chain_state().broken.seq == 12  # said until a full verification finds none
    db.close()


def test_rows_edited_between_two_looks_are_found_by_the_period(event_path, clock, moved):
    """Without touching the schema nothing can edit a row (the triggers refuse): what is left is the
    period, which a test drives by its own clock."""
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    db.chain_state()
    assert settled(db).intact
    moved.now += verification.FULL_CHECK_SECONDS - 1
    db.append(entry())
    assert db.chain_state().intact  # row 30, verified last, still has its hash: only row 31 is read
    moved.now += 1
    due = db.chain_state()
    assert not due.intact and due.verified == 31  # a full verification is due: said, until it ends
    assert settled(db).intact
    db.close()


@pytest.mark.parametrize("trigger", ["records_append_only_update", "records_append_only_delete"])
def test_a_trigger_there_by_name_but_guarding_nothing_is_no_guard(event_path, clock, moved, trigger):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(3)])
    assert settled(db).intact
    action = "UPDATE" if trigger.endswith("update") else "DELETE"
    conn = sqlite3.connect(event_path)  # the other trigger as it was; this one there by name only
    conn.executescript(
        f"DROP TRIGGER {trigger}; CREATE TRIGGER {trigger} BEFORE {action} ON records WHEN 0 "
        "BEGIN SELECT RAISE(ABORT, 'the record is append-only'); END;"
    )
    conn.close()
    state = settled(db)
    assert not state.guarded and not state.intact
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
    assert not state.checking and state.broken.seq == 3 and not db._storage._verification.running
    db.close()


GEVENT_WORKER = r"""
import json, sys
from tournament import open_event
from tournament.stores.sqlite import verification

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
ended = db._storage._verification.wait(timeout=120)
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


class Said(logging.Handler):
    """The service logger's records, read at that logger itself: whether it propagates to the root
    (where pytest's caplog listens) depends on what an earlier test set up."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def service_log():
    said, logger = Said(), logging.getLogger("service")
    level = logger.level
    logger.addHandler(said)
    logger.setLevel(logging.DEBUG)
    yield said
    logger.removeHandler(said)
    logger.setLevel(level)


def test_a_break_is_in_the_log_once_by_its_row_number_and_a_failed_verification_too(
    event_path, clock, moved, service_log, monkeypatch
):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    edit(event_path, "UPDATE records SET valid = 0 WHERE seq = 12;")
    db.chain_state()
    assert settled(db).broken.seq == 12
    db.chain_state()  # with the triggers gone, this look starts another full verification too
    assert db._storage._verification.wait(timeout=60)  # over before the rows read fail, not half through
    said = [r for r in service_log.records if r.getMessage() == "the event's record does not verify"]
    assert [r.fields for r in said] == [{"seq": 12}]

    def unreadable(row):
        raise sqlite3.OperationalError("disk I/O error")

    real = verification.decode_record
    monkeypatch.setattr(verification, "decode_record", unreadable)
    moved.now += verification.FULL_CHECK_SECONDS
    assert db.chain_state().checking
    assert db._storage._verification.wait(timeout=60)
    monkeypatch.setattr(verification, "decode_record", real)
    state = db.chain_state()  # said, and not tried again at once (the triggers are gone: due otherwise)
    failed = [r for r in service_log.records if r.getMessage() == "the event's record could not be verified"]
    assert [r.fields for r in failed] == [{"error": "OperationalError"}]
    assert state.failed and not state.checking and not db._storage._verification.running
    assert state.broken.seq == 12 and not state.intact  # what was found before stays said
    moved.now += verification.RETRY_SECONDS
    assert db.chain_state().checking  # tried again
    state = settled(db)
    assert state.broken.seq == 12 and not state.failed
    unguarded = [r for r in service_log.records if "lost its append-only triggers" in r.getMessage()]
    assert len(unguarded) == 1  # once, however many looks find them gone
    db.close()


DEEP = "[" * 100_000 + "]" * 100_000  # nested past the JSON parser's recursion limit


@pytest.mark.parametrize("seq, column", [(3, "words"), (30, "tiles")])  # row 30: the one verified last
def test_a_row_nested_past_the_parser_s_limit_is_a_break_off_the_look_too(event_path, clock, moved, seq, column):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    db.chain_state()
    assert settled(db).verified == 30
    edit(event_path, f"UPDATE records SET {column} = '{DEEP}' WHERE seq = {seq};", careful=True)
    moved.now += verification.FULL_CHECK_SECONDS
    looked = db.chain_state()  # found due (the period; row 30 changed) and answered, no exception
    assert looked.checking and not looked.intact
    state = settled(db)
    assert state.broken.seq == seq and f"{column} is not a list of words" in state.broken.reason
    assert not state.failed and not state.intact and state.verified == seq - 1
    db.close()


def test_a_verification_that_fails_is_said_never_intact_and_tried_again_only_later(
    event_path, clock, moved, monkeypatch
):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    started = []
    real_start = db._storage._verification.start
    monkeypatch.setattr(db._storage._verification, "start", lambda check: started.append(1) or real_start(check))

    def unforeseen(row):
        raise RuntimeError("a failure this code did not foresee")

    real = verification.decode_record
    monkeypatch.setattr(verification, "decode_record", unforeseen)
    assert db.chain_state().checking
    assert db._storage._verification.wait(timeout=60)
    for _ in range(3):  # the console asks again and again: no verification restarted for each
        state = db.chain_state()
        assert state.failed and not state.intact and not state.checking and state.broken is None
        assert state.verified == 0 and not db._storage._verification.running
    assert len(started) == 1
    monkeypatch.setattr(verification, "decode_record", real)
    moved.now += verification.RETRY_SECONDS - 1
    assert not db.chain_state().checking
    moved.now += 1
    assert db.chain_state().checking and len(started) == 2
    state = settled(db)
    assert state.intact and not state.failed and state.verified == 30
    db.close()


def test_while_the_row_verified_last_changed_is_checked_it_is_not_counted_nor_the_record_intact(
    event_path, clock, moved, monkeypatch
):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    db.chain_state()
    assert settled(db).intact
    gate = threading.Event()
    real = verification.verify_chain

    def held(*args, **kwargs):
        assert gate.wait(timeout=60)
        return real(*args, **kwargs)

    monkeypatch.setattr(verification, "verify_chain", held)
    edit(event_path, "UPDATE records SET valid = 0 WHERE seq = 30;", careful=True)
    interim = db.chain_state()
    assert interim.checking and interim.guarded
    assert interim.broken.seq == 30 and "changed after this service had verified it" in interim.broken.reason
    assert interim.verified == 29 and not interim.intact  # row 30, the one found changed, is not
    gate.set()
    state = settled(db)
    assert state.broken.seq == 30 and state.verified == 29 and not state.intact
    db.close()


@pytest.mark.parametrize("rows", [5, 30])  # verified in the look, and off it
def test_while_the_triggers_are_gone_every_look_verifies_and_says_so(event_path, clock, moved, rows):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(rows)])
    db.chain_state()
    assert db._storage._verification.wait(timeout=60) and db.chain_state().guarded
    edit(event_path, "")  # the guards dropped, nothing changed (yet)
    for _ in range(3):
        state = db.chain_state()
        assert not state.guarded and not state.intact and state.broken is None
        assert state.checking == (rows > verification.INLINE_ROWS)
        assert db._storage._verification.wait(timeout=60)
    conn = sqlite3.connect(event_path)
    conn.executescript("UPDATE records SET valid = 0 WHERE seq = 2;")  # an edit the guards no longer stop
    conn.close()
    db.chain_state()  # within the period: a look finds it at once
    assert settled(db).broken.seq == 2
    conn = sqlite3.connect(event_path)
    conn.executescript(TRIGGERS)
    conn.close()
    assert db.chain_state().guarded and db.chain_state().broken.seq == 2
    db.close()


def test_a_verification_read_earlier_never_replaces_a_break_found_since(event_path, clock, monkeypatch):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(5)])
    reading, gate = threading.Event(), threading.Event()
    real = verification.verify_chain

    def held(records, *args, **kwargs):
        records = list(records)  # read before the edit
        if threading.current_thread() is not threading.main_thread():
            reading.set()
            assert gate.wait(timeout=60)
        return real(records, *args, **kwargs)

    monkeypatch.setattr(verification, "verify_chain", held)
    earlier = []
    look = threading.Thread(target=lambda: earlier.append(db.chain_state()))  # another request's thread
    look.start()
    assert reading.wait(timeout=60)
    edit(event_path, "UPDATE records SET valid = 0 WHERE seq = 3;", careful=True)
    assert db.chain_state().broken.seq == 3
    gate.set()
    look.join(timeout=60)
    assert earlier[0].broken.seq == 3  # that look answers with the newer state, kept
    assert db.chain_state().broken.seq == 3  # kept: not replaced by the verification read before the edit
    db.close()


def test_two_looks_at_once_start_one_verification(monkeypatch):
    """Two threads of a gthread worker find a verification due at the same moment: one starts it."""
    watch = verification.Verification()
    ran, entered, second_asked, release = [], threading.Event(), threading.Event(), threading.Event()

    def cooperative() -> bool:  # asked as a verification is being started: the first start waits here
        if not entered.is_set():
            entered.set()
            assert second_asked.wait(timeout=60)
        return False

    monkeypatch.setattr(offpath, "cooperative", cooperative)

    def check(*args) -> None:
        ran.append(1)
        assert release.wait(timeout=60)

    first = threading.Thread(target=lambda: watch.start(check))
    first.start()
    assert entered.wait(timeout=60)  # the first start is past its check of a running verification
    watch.start(check)
    second_asked.set()
    first.join(timeout=60)
    release.set()
    assert watch.wait(timeout=60)
    assert len(ran) == 1


def test_a_small_record_edited_with_its_schema_version_put_back_is_found_at_the_next_look(event_path, clock):
    """`PRAGMA schema_version` can be written: an edit that puts the triggers and the version back
    leaves no trace but the rows, so a record this short is verified whole at every look."""
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(5)])
    assert db.chain_state().intact
    conn = sqlite3.connect(event_path)
    schema = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.close()
    edit(event_path, "UPDATE records SET valid = 0 WHERE seq = 2;", careful=True)
    conn = sqlite3.connect(event_path)
    conn.executescript(f"PRAGMA writable_schema = ON; PRAGMA schema_version = {schema}; PRAGMA writable_schema = OFF;")
    assert conn.execute("PRAGMA schema_version").fetchone()[0] == schema  # nothing but the rows says it
    conn.close()
    state = db.chain_state()
    assert state.broken.seq == 2 and not state.intact and state.guarded
    db.close()


def test_a_tail_rewritten_with_its_hashes_made_again_stays_a_break_after_a_full_verification(
    event_path, clock, moved, caplog
):
    """The chain made consistent again verifies; the row this process verified with another
    hash does not: an append-only row never changes, so it is said, and logged, for good."""
    from dataclasses import replace

    from tournament.rows import RECORD_COLUMNS, decode_record

    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    db.chain_state()
    assert settled(db).intact
    conn = sqlite3.connect(event_path)
    record = decode_record(conn.execute(f"SELECT {RECORD_COLUMNS} FROM records WHERE seq = 30").fetchone())
    conn.close()
    forged = replace(record, entry=replace(record.entry, valid=not record.entry.valid))
    made_again = chain.row_hash(forged)
    edit(
        event_path,
        f"UPDATE records SET valid = {int(forged.entry.valid)}, hash = '{made_again}' WHERE seq = 30;",
        careful=True,
    )
    with caplog.at_level(logging.WARNING, logger="service"):
        db.chain_state()
        state = settled(db)
    assert db._storage._verification.known.broken is None  # the full verification found the new chain consistent
    assert state.broken.seq == 30 and "changed after this service had verified it" in state.broken.reason
    assert state.verified == 29 and not state.intact
    moved.now += verification.FULL_CHECK_SECONDS + 1  # and after the next period's verification too
    assert db.chain_state().checking
    assert settled(db).broken.seq == 30
    assert [r for r in caplog.records if r.getMessage() == "the event's record does not verify"]
    db.close()


def schema_version(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA schema_version").fetchone()[0]
    finally:
        conn.close()


def put_back(path, schema: int) -> None:
    """`PRAGMA schema_version` written back: the edit leaves nothing in the schema that says it."""
    conn = sqlite3.connect(path)
    conn.executescript(f"PRAGMA writable_schema = ON; PRAGMA schema_version = {schema}; PRAGMA writable_schema = OFF;")
    assert conn.execute("PRAGMA schema_version").fetchone()[0] == schema
    conn.close()


REPLACE_ROW_17 = (
    'INSERT OR REPLACE INTO records SELECT seq, time, round, device_id, device_name, role, "table", lexicon_id, '
    "lexicon_version, lexicon_checksum, notation, '[\"CAVALLS\"]', '[\"CAVALLS\"]', valid, prev, hash, format, "
    "idempotency_key, offline, device_time, second_lexicon_id, second_lexicon_version, second_lexicon_checksum, "
    "second_valid, shown_round, shown_valid FROM records WHERE seq = 17;"
)


@pytest.mark.parametrize(
    "sql",
    ["UPDATE records SET valid = 1 - valid WHERE seq = 17;", "DELETE FROM records WHERE seq = 17;", REPLACE_ROW_17],
    ids=["update", "delete", "insert-or-replace"],
)
def test_an_edit_that_puts_the_triggers_and_the_schema_version_back_is_found_by_the_next_sweep(
    event_path, clock, moved, monkeypatch, sql
):
    """Nothing but the rows says it: the fingerprints of the rows verified differ, and only the
    group that differs is verified again to name the row (no look pays for every row)."""
    monkeypatch.setattr(fingerprints, "PRINT_ROWS", 5)
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    db.chain_state()
    assert settled(db).intact
    schema = schema_version(event_path)
    edit(event_path, sql, careful=True)
    put_back(event_path, schema)
    hashed = []
    real = chain.row_hash
    monkeypatch.setattr(verification, "row_hash", lambda record: hashed.append(record.seq) or real(record))
    monkeypatch.setattr(chain, "row_hash", verification.row_hash)
    moved.now += verification.SWEEP_SECONDS
    state = db.chain_state()
    assert state.broken is not None and state.broken.seq == (18 if sql.startswith("DELETE") else 17), state
    assert not state.intact and state.verified == state.broken.seq - 1 and state.guarded
    assert len(hashed) <= 6  # the group of rows 16 to 20, and the row after it: not the record
    moved.now += verification.SWEEP_SECONDS
    db.append(entry())
    assert db.chain_state().broken.seq == state.broken.seq  # said until the process ends
    db.close()


def test_an_edit_of_the_last_group_of_rows_is_found_as_rows_are_added(event_path, clock, moved, monkeypatch):
    """The last group of fingerprints grows with the record: it is compared before it is made again."""
    monkeypatch.setattr(fingerprints, "PRINT_ROWS", 5)
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(33)])
    db.chain_state()
    assert settled(db).intact
    schema = schema_version(event_path)
    edit(event_path, "UPDATE records SET valid = 1 - valid WHERE seq = 32;", careful=True)
    put_back(event_path, schema)
    db.append(entry())
    state = db.chain_state()  # no sweep due yet: the rows added are what is looked at
    assert state.broken.seq == 32 and not state.intact
    db.close()


def test_the_fingerprints_are_compared_again_only_after_the_file_changed(event_path, clock, moved, monkeypatch):
    """SQLite's data_version moves when any other connection commits: an untouched file costs no sweep."""
    monkeypatch.setattr(fingerprints, "PRINT_ROWS", 5)
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    db.chain_state()
    assert settled(db).intact  # its last look compared them a first time
    swept = []
    real = fingerprints.sweep
    monkeypatch.setattr(fingerprints, "sweep", lambda *args: swept.append(1) or real(*args))
    moved.now += verification.SWEEP_SECONDS
    assert db.chain_state().intact and swept == []  # nothing committed since
    conn = sqlite3.connect(event_path)
    conn.execute("UPDATE event SET name = 'Open 2'")  # any change committed by another connection
    conn.commit()
    conn.close()
    assert db.chain_state().intact and swept == []  # not before SWEEP_SECONDS
    moved.now += verification.SWEEP_SECONDS
    assert db.chain_state().intact and swept == [1]
    moved.now += verification.SWEEP_SECONDS
    assert db.chain_state().intact and swept == [1]
    db.close()


def test_the_service_s_own_writes_cost_no_sweep_whichever_worker_made_them(event_path, clock, moved, monkeypatch):
    """Contacts (written every few seconds), verdicts and rounds, by this worker or another, moved
    SQLite's data_version, so every look swept (a second of the processor at 50,000 rows). Each
    service write leaves a note in the lock file (outside.py): only a write from outside costs a
    sweep, once, even when the service wrote after it."""
    monkeypatch.setattr(fingerprints, "PRINT_ROWS", 5)
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(30)])
    phone = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    db.chain_state()
    assert settled(db).intact
    moved.now += verification.SWEEP_SECONDS
    db.chain_state()  # the first note (a lock file made now) is said from outside: swept once
    assert db._storage._verification.wait(timeout=60)
    swept = []
    real = fingerprints.sweep
    monkeypatch.setattr(fingerprints, "sweep", lambda *args: swept.append(1) or real(*args))
    other = open_event(event_path, clock=clock)  # another worker of the service
    try:
        for _ in range(3):
            other.touch({phone.id: stamp(clock())})
            other.append(entry())
            db.touch({phone.id: stamp(clock())})
            db.open_round()
            other.close_round()
            moved.now += verification.SWEEP_SECONDS
            assert db.chain_state().intact and swept == []
        with sqlite3.connect(event_path) as conn:
            conn.execute("UPDATE event SET name = 'Open 2'")  # from outside
        other.append(entry())  # then the service writes
        moved.now += verification.SWEEP_SECONDS
        assert db.chain_state().intact and swept == [1]
        assert db._storage._verification.wait(timeout=60)
        moved.now += verification.SWEEP_SECONDS
        assert db.chain_state().intact and swept == [1]  # found as verified: settled
    finally:
        other.close()
        db.close()


def test_bytes_written_into_the_file_s_pages_without_sqlite_are_swept(event_path, clock, moved, monkeypatch):
    """A row's bytes changed in the file itself: SQLite's data_version does not move, so no sweep
    ran before the full verification minutes later. The file's size, time or inode beyond what the
    service wrote itself start one."""
    monkeypatch.setattr(fingerprints, "PRINT_ROWS", 5)
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry(table=f"Mesa {n:03}") for n in range(1, 31)])
    db.chain_state()
    assert settled(db).intact
    with sqlite3.connect(event_path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the rows in the file itself
    for _ in range(2):  # the checkpoint came from outside: swept, found as verified
        moved.now += verification.SWEEP_SECONDS
        assert db.chain_state().intact
        assert db._storage._verification.wait(timeout=60)
    version = db._storage._verification.data_version(event_path)
    data = event_path.read_bytes()
    assert b"Mesa 017" in data
    event_path.write_bytes(data.replace(b"Mesa 017", b"Mesa 917"))
    assert db._storage._verification.data_version(event_path) == version  # SQLite saw no commit
    moved.now += verification.SWEEP_SECONDS
    state = db.chain_state()
    assert state.broken is not None and state.broken.seq == 17 and not state.intact
    db.close()


def test_every_worker_says_the_edit_one_of_them_found(event_path, clock, moved, monkeypatch):
    """A worker started after an edit (its first verification takes the rows as they are, hashes
    made again) called the record intact while the worker that had verified it before said the
    edit: the console's line flipped with the worker that answered. The break is in the note
    (outside.py), said by both."""
    monkeypatch.setattr(fingerprints, "PRINT_ROWS", 5)
    first = create_event(event_path, "Open", PASSWORD, clock=clock)
    first.append_many([entry() for _ in range(30)])
    first.chain_state()
    assert settled(first).intact
    schema = schema_version(event_path)
    rows, prev, forged = list(first.records()), None, []
    for row in rows[16:]:  # row 17's verdict turned, it and every row after hashed again: a valid chain
        made = replace(row, entry=replace(row.entry, valid=not row.entry.valid) if row.seq == 17 else row.entry)
        made = replace(made, prev=prev or made.prev, hash="")
        prev = chain.row_hash(made)
        forged.append((int(made.entry.valid), made.prev, prev, made.seq))
    edit(event_path, "", careful=False)
    with sqlite3.connect(event_path) as conn:
        conn.executemany("UPDATE records SET valid = ?, prev = ?, hash = ? WHERE seq = ?", forged)
        conn.executescript(TRIGGERS)
    put_back(event_path, schema)
    later = open_event(event_path, clock=clock)
    try:
        later.chain_state()
        assert settled(later).intact  # alone, it cannot know: the chain verifies
        moved.now += verification.SWEEP_SECONDS
        found = first.chain_state()
        assert found.broken is not None and 16 <= found.broken.seq <= 30
        said = later.chain_state()
        assert said.broken is not None and said.broken.seq == found.broken.seq and not said.intact
    finally:
        later.close()
        first.close()
