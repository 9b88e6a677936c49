"""What only SQLite's store does, beside the contract suite (contract/, which every store passes):
these tests look into the event file itself or change it under the store, so they mean nothing
for another store. The file's bytes hold no secret in clear; a value edited into the file by hand
is read strictly (a time is parsed, never compared as text); a file deleted or replaced under the
service takes no verdict; a row added by hand after a round's final head is a break."""

from __future__ import annotations

import hashlib
import os
import sqlite3

import pytest

from tournament import (
    DiskFailed,
    FileDamaged,
    NotAnEvent,
    PaperHead,
    StorageError,
    Unreadable,
    check_export,
    create_event,
    export,
    new_password,
    open_event,
    read_export,
    stamp,
    verify,
)

from .conftest import entry


def test_tokens_and_codes_are_stored_only_as_hashes(db, event_path):
    _device, code = db.add_device("Juez 1", "judge")
    _, token = db.pair(code)
    _, pending = db.add_device("Juez 2", "judge")
    db.append(entry())
    db.close()
    stored = b"".join(p.read_bytes() for p in event_path.parent.glob("event.db*"))
    for secret in (token, code, code.replace("-", ""), pending, pending.replace("-", "")):
        assert secret.encode() not in stored
    assert hashlib.sha256(token.encode()).hexdigest().encode() in stored


def test_a_device_is_read_by_its_token_in_one_statement_with_no_transaction_of_its_own(db):
    """Every request of a device reads it by its token (service.event.callers): one SELECT, which
    in autocommit is its own snapshot, with no BEGIN and COMMIT around it (two statements less a
    request, on the connection whose page cache every other connection's commit empties)."""
    device, code = db.add_device("Juez 1", "judge")
    _, token = db.pair(code)
    conn = db._storage._conn()  # this thread's connection, the one the read uses
    statements = []
    conn.set_trace_callback(statements.append)
    try:
        assert db.device_by_token(token).id == device.id
        assert db.device_by_token("not a token") is None
    finally:
        conn.set_trace_callback(None)
    assert [statement.split()[0] for statement in statements] == ["SELECT", "SELECT"], statements
    assert not conn.in_transaction


def test_the_open_round_is_read_in_one_statement_with_no_transaction_of_its_own(db):
    """A table's device, a kiosk and a caller without a device read the open round as each of their
    challenges is admitted (service.event.admission), and every page with its heartbeat: one SELECT."""
    conn = db._storage._conn()
    statements = []
    conn.set_trace_callback(statements.append)
    try:
        assert db.current_round() is None
    finally:
        conn.set_trace_callback(None)
    db.open_round()
    conn.set_trace_callback(statements.append)
    try:
        assert db.current_round().number == 1
    finally:
        conn.set_trace_callback(None)
    assert [statement.split()[0] for statement in statements] == ["SELECT", "SELECT"], statements


@pytest.mark.slow  # the director's scrypt at its real cost, which `make check` lowers (tests/conftest.py)
def test_the_password_is_never_stored_in_clear(tmp_path):
    password = new_password()
    path = tmp_path / "event.db"
    db = create_event(path, "Open", password)
    assert db.check_password(password).ok
    db.check_password(password[::-1])
    db.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert password.encode() not in stored and password[::-1].encode() not in stored
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT password_hash FROM director").fetchone()[0].startswith("scrypt$32768$8$1$")


def test_a_contact_time_edited_by_hand_is_left_out(db, event_path, clock):
    """A stored contact that is garbage, not text, or far in the future would keep its device
    from ever looking silent (and give the console no time it can draw): read strictly and left
    out, the readable one kept."""
    ids = [db.pair(db.add_device(f"Juez {n}", "judge")[1])[0].id for n in range(4)]
    db.touch({device_id: stamp(clock()) for device_id in ids})
    with sqlite3.connect(event_path) as conn:
        conn.execute("UPDATE contacts SET time = 'garbage' WHERE device_id = ?", (ids[1],))
        conn.execute("UPDATE contacts SET time = 12 WHERE device_id = ?", (ids[2],))
        conn.execute("UPDATE contacts SET time = '2099-01-01T00:00:00.000000Z' WHERE device_id = ?", (ids[3],))
    assert db.contacts() == {ids[0]: stamp(clock())}


def test_an_edited_pending_list_is_a_refusal_not_a_crash(db, event_path, clock):
    _, code = db.add_device("Juez 1", "judge")
    db.pair(code)
    clock.advance(minutes=2)
    db.open_round(1)
    db.close_round()
    with sqlite3.connect(event_path) as conn:
        conn.execute("UPDATE rounds SET pending = '[\"x\"' WHERE number = 1")
    with pytest.raises(Unreadable, match=r"rounds\.pending of round 1"):
        db.round(1)


@pytest.mark.parametrize("change", ["deleted", "replaced"])
def test_no_verdict_is_recorded_into_an_event_file_deleted_or_replaced_under_it(db, event_path, change):
    """SQLite keeps writing to the file it opened: once that file is deleted (or another is moved
    over it) every row would go where nobody reads it, lost when the service stops, while the judge
    is told it is recorded. A write then refuses (StorageError: no verdict given) until the file is
    back."""
    db.append(entry())
    kept = event_path.with_name("kept.db")
    os.link(event_path, kept)  # the same file under another name, to put it back afterwards
    event_path.unlink()
    if change == "replaced":
        other = event_path.with_name("other.db")
        create_event(other, "Another event", "correct-horse-battery").close()
        os.replace(other, event_path)
    with pytest.raises(StorageError, match="deleted or replaced"):
        db.append(entry())
    with pytest.raises(StorageError, match="deleted or replaced"):
        db.open_round()
    os.replace(kept, event_path)  # the file is back: the record goes on where it was
    assert db.append(entry()).seq == 2 and verify(db) is None


@pytest.mark.parametrize("change", ["deleted", "replaced"])
def test_no_verdict_is_recorded_once_the_file_s_log_was_deleted_under_it(db, event_path, change):
    """The write-ahead log (EVENT.db-wal) holds the last verdicts until a checkpoint copies them
    into the file. Deleted while the service runs (a tidy-up of what looks like a temporary file),
    or replaced, SQLite goes on writing into the log it opened, where nobody reads it: the next
    start found the file without them, every one of them shown as recorded (seen at a service: 129
    verdicts, one answered after the log was gone). A write then refuses, the store failed as by a
    disk that failed a write (DiskFailed: 503, /readyz says why), and nothing more is recorded."""
    db.append(entry())
    log = event_path.with_name(event_path.name + "-wal")
    assert log.exists()
    log.unlink()
    if change == "replaced":
        log.write_bytes(b"")
    with pytest.raises(DiskFailed, match="-wal, the event file's log"):
        db.append(entry())
    with pytest.raises(DiskFailed):
        db.open_round()
    assert "deleted or replaced" in db.failed()


def _truncated_at_rest(event_path) -> None:
    """The file checkpointed (every page in it, its log empty), then cut to half its length in place."""
    conn = sqlite3.connect(event_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    os.truncate(event_path, os.path.getsize(event_path) // 2)


def test_a_write_into_a_file_truncated_under_it_is_refused_though_its_pages_are_cached(db, event_path):
    """SQLite answers from the pages its connection holds and appends to its log without looking at
    the whole file: a file cut short under the service went on taking rounds and pairings. A write
    checks the file once it changed from outside (damage.py): the store is failed, FileDamaged, and
    every later write and read refuses, the files left as they were; `failed` says why."""
    for _ in range(40):
        db.append(entry())
    db.open_round()
    db.close_round()
    _truncated_at_rest(event_path)
    kept = event_path.read_bytes()
    with pytest.raises(FileDamaged, match="the event's file is damaged"):
        db.open_round()
    for write in (db.open_round, lambda: db.add_device("Juez 9", "judge"), lambda: db.append(entry())):
        with pytest.raises(FileDamaged):
            write()
    with pytest.raises(FileDamaged):
        db.current_round()
    assert "is damaged" in db.failed() and "backup" in db.failed()
    assert event_path.read_bytes() == kept and not os.path.getsize(f"{event_path}-wal")


def test_a_damaged_file_is_not_opened_to_serve_it(db, event_path):
    for _ in range(40):
        db.append(entry())
    db.close()
    _truncated_at_rest(event_path)
    with pytest.raises(NotAnEvent, match="the event's file is damaged"):
        open_event(event_path)


def test_closing_reads_contact_times_as_times_not_text(db, event_path, clock):
    """Closing compared the stored times as text: a contact edited to 'garbage' (after any digit)
    or to a far-future time kept its silent phone from being waited for, and a time written without
    its fraction of a second compared wrongly. Parsed, an unreadable or future one is no contact,
    never a crash; a readable recent one still counts."""
    phones = [db.pair(db.add_device(f"Juez {n}", "judge")[1])[0] for n in range(4)]
    db.open_round(1)
    clock.advance(minutes=5)
    db.touch({phone.id: stamp(clock()) for phone in phones})
    with sqlite3.connect(event_path) as conn:
        conn.execute("UPDATE contacts SET time = 'garbage' WHERE device_id = ?", (phones[0].id,))
        conn.execute("UPDATE contacts SET time = 12 WHERE device_id = ?", (phones[1].id,))
        conn.execute("UPDATE contacts SET time = '2099-01-01T00:00:00.000000Z' WHERE device_id = ?", (phones[2].id,))
    clock.advance(seconds=10)
    assert db.close_round().pending == (phones[0].id, phones[1].id, phones[2].id)


def test_a_row_filed_in_a_round_after_its_final_head_is_a_break(db, event_path, clock):
    """The service files a verdict arriving after a round's head is final outside rounds. A row
    filed in round 1 after its final head (here: the round reopened by hand for one append, then
    closed again, the chain valid throughout) chained and verified as intact; now the file's
    verification, the console's state, and an export checked against the sheet's head name it."""
    db.open_round(1)
    first = db.append(entry())
    closed = db.close_round()
    assert closed.head_final and closed.head_seq == first.seq
    clock.advance(minutes=1)
    outside = db.append(entry(table="Mesa 2"))  # filed outside rounds: no break
    assert outside.round is None and db.verify() is None
    with sqlite3.connect(event_path) as conn:
        conn.execute("UPDATE rounds SET closed = NULL WHERE number = 1")
    late = db.append(entry(table="Mesa 3"))
    with sqlite3.connect(event_path) as conn:
        conn.execute("UPDATE rounds SET closed = ? WHERE number = 1", (closed.closed,))
    assert late.round == 1 and late.seq == 3
    broken = db.verify()
    assert (broken.kind, broken.seq, dict(broken.facts)) == ("after-final", 3, {"round": 1, "head": 1})
    assert db.chain_state(wait=True).broken == broken
    assert db.intact_rows([first, outside, late]) == {1: True, 2: True, 3: False}  # a row shown says it too
    rows = read_export(export(db, format="json"), "json")
    assert check_export(rows).broken is None  # rows alone cannot say it: the sheet's head can
    assert check_export(rows, [PaperHead(1, first.hash[:8])]).broken == broken
    assert check_export(rows, [PaperHead(2, outside.hash[:8])]).broken is None  # the round of row 2: none


def test_a_group_commit_looks_up_all_its_idempotency_keys_in_one_statement(db):
    """A verdict's key and its device's last key are looked up in the write lock: for a group of
    requests, once for all of them (record.py's _Group), not twice a verdict; every statement in
    the lock is CPU the other worker waits for, and in a gevent worker a wait for the GIL."""
    from tournament.group_commit import Append

    db.append(entry(idempotency_key="k-0"))
    statements: list[str] = []
    db._storage._conn().set_trace_callback(statements.append)
    group = [Append([entry(idempotency_key=f"k-{n}")], last_key=f"k-{n - 1}") for n in range(1, 5)]
    db._commit(group)
    db._storage._conn().set_trace_callback(None)
    assert [row.seq for request in group for row in request.outcome] == [2, 3, 4, 5]
    assert len([sql for sql in statements if "idempotency_key =" in sql or "idempotency_key IN" in sql]) == 1


def test_a_commit_from_outside_just_after_the_service_s_own_is_in_its_note_as_outside(db, event_path, monkeypatch):
    """A write's note (outside.py) holds the files as its COMMIT left them: another program's
    commit right after that COMMIT, before the files are read for the note, must be said from
    outside (or the files noted would hide it from every look). The writer's data_version, read
    after the files, shows it."""
    from tournament.stores.sqlite import outside

    db.append(entry())
    db._storage.noted(lambda fd: outside.write(fd, outside.Note(outside.signature(event_path))))  # as settled
    assert db._storage.outside_note()[0].outside is False
    real, edits = outside.signature, []

    def signature_after_an_outside_commit(path):
        if not edits:  # the first read of the files after the next COMMIT
            with sqlite3.connect(event_path) as conn:
                conn.execute("UPDATE event SET name = 'Open 2'")
            edits.append(1)
        return real(path)

    monkeypatch.setattr(outside, "signature", signature_after_an_outside_commit)
    db.append(entry())
    assert edits and db._storage.outside_note()[0].outside is True
