"""The event file: created once, never overwritten, migrated at open, refused when foreign."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
from dataclasses import astuple, replace
from pathlib import Path

import pytest

from tests.support import until
from tournament import REFUSED_VERDICT, EventExists, NotAnEvent, ReadOnly, create_event, open_event, stamp, verify
from tournament.errors import LockBusy
from tournament.stores.sqlite import connection, write_lock
from tournament.stores.sqlite.schema import MIGRATIONS, VERSION, migrate

from .conftest import (
    OLD_REFUSED,
    PASSWORD,
    PINNED,
    counted_apart_once_migrated,
    entry,
    given_its_language_once_migrated,
    latest_keys_kept_once_migrated,
    marks_unshown_seconds_once_migrated,
)

V1 = Path(__file__).parent / "data" / "event-v1.sql"


def tables(path) -> dict[str, str]:
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())


def test_a_new_event_has_every_table_at_the_current_version_in_wal_mode(db, event_path):
    assert set(tables(event_path)) == {
        "event",
        "director",
        "login",
        "login_attempts",
        "devices",
        "pairing_codes",
        "rounds",
        "records",
        "sessions",
        "login_clients",
        "login_links",
        "play_budget",
        "contacts",
        "file",
        "splits",
        "refused_offline",
        "refused_keys",
        "unshown_seconds",
    }
    assert all(sql.rstrip().endswith("STRICT") for sql in tables(event_path).values())
    with sqlite3.connect(event_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == VERSION == len(MIGRATIONS)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    event = db.event()
    assert (event.name, event.lexicon, event.schema_version) == ("Open de Lleida 2026", "ca", VERSION)


def test_an_existing_file_is_never_overwritten(db, event_path):
    db.append(entry())
    before = event_path.read_bytes()
    with pytest.raises(EventExists, match="never overwritten"):
        create_event(event_path, "Another", PASSWORD)
    assert event_path.read_bytes() == before
    assert len(list(open_event(event_path).records())) == 1


def test_a_short_password_creates_nothing(event_path):
    with pytest.raises(ValueError, match="at least 12"):
        create_event(event_path, "Open", "short")
    assert not event_path.exists()


def load_v1(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(V1.read_text(encoding="utf-8"))
    conn.close()


def test_a_version_1_file_is_migrated_at_open_and_its_record_still_verifies(tmp_path):
    path = tmp_path / "v1.db"
    load_v1(path)
    assert "idempotency_key" not in tables(path)["records"]
    db = open_event(path)
    assert db.event().schema_version == VERSION
    assert "idempotency_key" in tables(path)["records"] and "second_valid" in tables(path)["records"]
    old = list(db.records())
    assert [(r.seq, r.format, r.entry.words) for r in old] == [
        (1, 1, ("COL·LEGI", "QUADRE")),
        (2, 1, ("CAVALLS",)),
        (3, 1, ("PLAÇA",)),
    ]
    assert verify(db) is None
    assert db.check_password("fixture-password-v1").ok
    assert db.device_by_token("fixture-token-mesa-12").name == "Mesa 12"
    new = db.append(entry(idempotency_key="juez-1/42", offline=True, device_time="2026-11-22T09:00:00.000000Z"))
    assert (new.seq, new.format, new.prev) == (4, 2, old[-1].hash)
    assert verify(db) is None


def test_migrating_twice_changes_nothing(tmp_path):
    path = tmp_path / "v1.db"
    load_v1(path)
    open_event(path).close()
    schema = tables(path)
    db = open_event(path)
    assert tables(path) == schema and verify(db) is None


def test_a_file_of_a_newer_schema_is_refused_unchanged(db, event_path):
    db.close()
    with sqlite3.connect(event_path) as conn:
        conn.execute(f"PRAGMA user_version = {VERSION + 1}")
    before = event_path.read_bytes()
    with pytest.raises(NotAnEvent, match="newer than this program"):
        open_event(event_path)
    assert event_path.read_bytes() == before


@pytest.mark.parametrize("content", [b"", b"not a database at all" * 100])
def test_a_file_that_is_no_event_is_refused_unchanged(tmp_path, content):
    path = tmp_path / "other.db"
    path.write_bytes(content)
    with pytest.raises(NotAnEvent, match="not an event file"):
        open_event(path)
    assert path.read_bytes() == content


def test_another_sqlite_database_is_refused_and_not_switched_to_wal(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(NotAnEvent):
        open_event(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_a_missing_file_is_refused_and_not_created(tmp_path):
    with pytest.raises(NotAnEvent, match="no such event file"):
        open_event(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists()


def test_read_only_reads_an_old_file_without_changing_or_migrating_it(tmp_path):
    path = tmp_path / "v1.db"
    load_v1(path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    db = open_event(path, readonly=True)
    assert db.event().schema_version == 1
    assert [r.format for r in db.records()] == [1, 1, 1] and verify(db) is None
    with pytest.raises(ReadOnly):
        db.append(entry())
    with pytest.raises(ReadOnly):
        db.check_password("fixture-password-v1")
    db.close()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_read_only_sees_the_rows_of_a_service_still_running(db, event_path):
    db.append_many([entry(), entry()])  # the writer's connection stays open: rows are in the -wal file
    reader = open_event(event_path, readonly=True)
    assert [r.seq for r in reader.records()] == [1, 2] and verify(reader) is None
    db.append(entry())
    assert len(list(reader.records())) == 3


def _open_and_append(path, errors) -> None:
    try:
        open_event(path).append(entry())
    except Exception as error:  # reported to the parent
        errors.put(repr(error))


def test_workers_starting_together_migrate_an_old_file_once(tmp_path):
    path = tmp_path / "v1.db"
    load_v1(path)
    ctx = multiprocessing.get_context("fork")
    errors = ctx.Queue()
    workers = [ctx.Process(target=_open_and_append, args=(path, errors)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert errors.empty() and [w.exitcode for w in workers] == [0] * 4
    db = open_event(path)
    assert db.event().schema_version == VERSION
    assert [r.format for r in db.records()] == [1, 1, 1, 2, 2, 2, 2] and verify(db) is None


def _lock_held(path) -> sqlite3.Connection:
    """A connection holding an old file's write lock (rollback journal: readers still read) until
    COMMIT, as another worker opening the same file at the same moment and switching it to the log."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    return other


def _opened_in_a_thread(path) -> tuple[threading.Thread, list]:
    """open_event(path) in a thread of its own: what it gave (the schema version it found after
    opening, or the exception), once it ended."""
    outcome: list = []

    def open_it() -> None:
        try:
            db = open_event(path)
            outcome.append(db.event().schema_version)
            db.close()
        except Exception as error:
            outcome.append(error)

    opener = threading.Thread(target=open_it)
    opener.start()
    return opener, outcome


def test_an_old_file_opened_while_another_worker_switches_it_is_opened_once_the_lock_is_free(tmp_path, monkeypatch):
    """Switching an old file's journal to the log needs the file to itself: while another
    connection holds its write lock, SQLite says "database is locked" at once, without its busy
    handler (the switch holds a read lock as it asks for the write lock). The opener tries again
    until the lock is free, rather than call the file no event's."""
    path = tmp_path / "v1.db"
    load_v1(path)
    other = _lock_held(path)
    paused = []
    pause_for = write_lock.pause_for
    monkeypatch.setattr(write_lock, "pause_for", lambda seconds: (paused.append(seconds), pause_for(seconds)))
    opener, outcome = _opened_in_a_thread(path)
    until(lambda: paused or outcome, "the opener to find the file busy")
    assert not outcome  # still trying, not refused
    other.execute("COMMIT")
    other.close()
    opener.join(timeout=60)
    assert outcome == [VERSION]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert [r.format for r in open_event(path, readonly=True).records()] == [1, 1, 1]


def test_an_old_file_locked_elsewhere_for_longer_than_the_bound_is_left_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "v1.db"
    load_v1(path)
    before = path.read_bytes()
    monkeypatch.setattr(connection, "BUSY_SECONDS", 0.3)
    other = _lock_held(path)
    try:
        opener, outcome = _opened_in_a_thread(path)
        opener.join(timeout=60)
    finally:
        other.execute("COMMIT")
        other.close()
    assert len(outcome) == 1 and isinstance(outcome[0], LockBusy), outcome
    assert "held its write lock for 0.3 s" in str(outcome[0]) and "nothing was changed" in str(outcome[0])
    assert open_on(path) == []  # the refused connection closed, though the error (its traceback) is still held
    assert path.read_bytes() == before
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def open_on(path) -> list[str]:
    """This process's open descriptors of the file (Linux's /proc)."""
    fds = Path("/proc/self/fd")
    return [fd.name for fd in fds.iterdir() if os.path.realpath(fd) == os.path.realpath(path)]


def test_read_only_reads_a_schema_3_file_without_the_second_opinion_columns(tmp_path):
    path = tmp_path / "v3.db"
    load_v1(path)
    with sqlite3.connect(path, isolation_level=None) as conn:
        conn.execute("BEGIN IMMEDIATE")
        migrate(conn, upto=3)
        conn.execute("COMMIT")
    db = open_event(path, readonly=True)
    assert db.event().schema_version == 3 and "second_valid" not in tables(path)["records"]
    assert [(r.format, r.entry.second_valid) for r in db.records()] == [(1, None)] * 3 and verify(db) is None


@pytest.mark.slow
def test_a_store_dropped_without_close_leaves_no_descriptor_open(db, event_path):
    """A reload builds a new app in the master and drops the old one without closing its store:
    each reload left the lock file's descriptor open in the master, and in every worker it forks."""
    import gc

    def drop_stores(count: int) -> int:  # the descriptors open after `count` stores came and went
        for _ in range(count):
            dropped = open_event(event_path)
            dropped.open_round()
            dropped.close_round()
            del dropped
            gc.collect()
        return len(os.listdir("/proc/self/fd"))

    settled = drop_stores(1)  # SQLite keeps a few descriptors of a file still open here, for reuse
    assert drop_stores(5) <= settled
    closed = open_event(event_path)
    closed.open_round()
    closed.close_round()
    closed.close()
    del closed
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) <= settled and db.open_round().number == 8  # none closed twice


def test_a_schema_11_file_s_offline_rows_read_verify_and_are_marked_read_only_and_once_migrated(tmp_path, clock):
    """Rows written before the shown verdict (schema 11: offline rows of formats 2 and 4) read
    back as they were, verify, and are named as not saying what the phone showed, from the file
    read as it is and once migrated to schema 12, where a new row then says it (format 5)."""
    from tournament import stamp, unknown_shown

    path = tmp_path / "v11.db"
    db = create_event(path, "Open", PASSWORD, clock=clock)
    offline = dict(offline=True, device_time=stamp(clock()))
    old = [
        db.append(entry(idempotency_key="k-1", **offline)),
        db.append(entry(idempotency_key="k-2", shown_round=0, **offline)),
        db.append(entry()),
    ]
    db.close()
    with sqlite3.connect(path) as conn:  # as schema 11 left it
        conn.executescript(
            "ALTER TABLE records DROP COLUMN shown_valid; DROP TABLE unshown_seconds; DROP TABLE refused_keys; DROP TABLE refused_offline; "
            "ALTER TABLE event DROP COLUMN lexicon_language; PRAGMA user_version = 11;"
        )
    assert [r.format for r in old] == [2, 4, 2] and "shown_valid" not in tables(path)["records"]
    as_it_is = open_event(path, readonly=True)
    try:
        assert list(as_it_is.records()) == old and verify(as_it_is) is None
        assert list(unknown_shown(as_it_is.records())) == [1, 2]
    finally:
        as_it_is.close()
    migrated = open_event(path, clock=clock)
    try:
        assert migrated.event().schema_version == VERSION and "shown_valid" in tables(path)["records"]
        assert list(migrated.records()) == old and verify(migrated) is None
        new = migrated.append(entry(idempotency_key="k-3", shown_valid=True, **offline))
        assert new.format == 5 and verify(migrated) is None
        assert list(unknown_shown(migrated.records())) == [1, 2]
    finally:
        migrated.close()


def test_a_schema_13_file_s_refused_offline_verdicts_are_counted_as_showing_another_verdict(tmp_path, clock):
    """Schema 13 counted only the offline verdicts refused for the verdict their phone showed:
    migrated to 14, its counts are those (`verdict`), and a refusal for another list counts apart."""
    path = tmp_path / "v13.db"
    db = create_event(path, "Open", PASSWORD, clock=clock)
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    db.close()
    with sqlite3.connect(path) as conn:  # as schema 13 left it, with one device's two refusals
        conn.executescript(
            f"DROP TABLE unshown_seconds; DROP TABLE refused_keys; DROP TABLE refused_offline; {MIGRATIONS[12]} ALTER TABLE event DROP COLUMN lexicon_language; "
            "PRAGMA user_version = 13;"
        )
        conn.execute("INSERT INTO refused_offline VALUES (?, ?, ?, ?, ?, ?)", (judge.id, *astuple(OLD_REFUSED)))
    migrated = open_event(path, clock=clock)
    try:
        assert migrated.event().schema_version == VERSION
        counted_apart_once_migrated(migrated, judge.id)
    finally:
        migrated.close()


@pytest.mark.parametrize("version", [12, 13])
def test_a_backup_made_before_the_reasons_restores_with_its_refused_offline_verdicts(tmp_path, clock, version):
    """A backup of schema 12 (no refused offline verdicts yet) or 13 (those refused for the verdict
    their phone showed), made by the release before, is read as it is (never migrated: it is a
    copy) and restores: with none, or with its counts as the phone's verdict's."""
    from tournament import copy_event

    path = tmp_path / f"v{version}.db"
    db = create_event(path, "Open", PASSWORD, clock=clock)
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    db.close()
    with sqlite3.connect(path) as conn:  # as that schema left it, marked as `lexicon event backup` marks a copy
        conn.executescript("DROP TABLE unshown_seconds; DROP TABLE refused_keys; DROP TABLE refused_offline;")
        if version == 13:
            conn.executescript(MIGRATIONS[12])
            conn.execute("INSERT INTO refused_offline VALUES (?, ?, ?, ?, ?, ?)", (judge.id, *astuple(OLD_REFUSED)))
        conn.execute("UPDATE file SET copy_of = identity, copied = ? WHERE id = 1", (stamp(clock()),))
        conn.execute(f"PRAGMA user_version = {version}")
    expected = {judge.id: {REFUSED_VERDICT: OLD_REFUSED}} if version == 13 else {}
    as_it_is = open_event(path, readonly=True)
    try:
        assert as_it_is.refused_offline() == expected
    finally:
        as_it_is.close()
    copy_event(path, tmp_path / "restored.db", "restore", clock=clock)
    restored = open_event(tmp_path / "restored.db", clock=clock)
    try:
        assert restored.refused_offline() == expected and restored.device(judge.id).name == "Juez 1"
    finally:
        restored.close()


@pytest.mark.parametrize("kind", ["migrated", "backup"])
def test_a_schema_14_file_s_pin_is_read_without_its_language_until_its_list_gives_it(tmp_path, clock, kind):
    """Schema 14 kept no pinned list's language. A file of it, migrated to 15, reads its pin as it
    was, its language unknown, until the same bytes are pinned with theirs; a backup of it, made by
    the release before, is read as it is (never migrated: it is a copy) and restores so."""
    from tournament import copy_event

    path = tmp_path / "v14.db"
    create_event(path, "Open", PASSWORD, lexicon="ca-mini", pin=PINNED, clock=clock).close()
    with sqlite3.connect(path) as conn:  # as schema 14 left it (marked as `lexicon event backup` marks a copy)
        conn.executescript(
            "DROP TABLE unshown_seconds; DROP TABLE refused_keys; ALTER TABLE event DROP COLUMN lexicon_language; PRAGMA user_version = 14;"
        )
        if kind == "backup":
            conn.execute("UPDATE file SET copy_of = identity, copied = ? WHERE id = 1", (stamp(clock()),))
    conn.close()
    as_it_is = open_event(path, readonly=True)
    try:
        assert as_it_is.event().pin == replace(PINNED, language=None)
    finally:
        as_it_is.close()
    if kind == "backup":
        copy_event(path, tmp_path / "restored.db", "restore", clock=clock)
        path = tmp_path / "restored.db"
    migrated = open_event(path, clock=clock)
    try:
        assert migrated.event().schema_version == VERSION
        given_its_language_once_migrated(migrated)
    finally:
        migrated.close()


@pytest.mark.parametrize("kind", ["migrated", "backup"])
def test_a_schema_15_file_s_latest_refused_keys_are_kept_once_migrated(tmp_path, clock, kind):
    """Schema 15 kept each device's latest refused key per reason only. A file of it, migrated to
    16, keeps those as refused keys, and every one refused from then on beside them; a backup of
    it, made by the release before, is read as it is (never migrated: it is a copy) and restores so."""
    from tournament import copy_event

    path = tmp_path / "v15.db"
    db = create_event(path, "Open", PASSWORD, clock=clock)
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    db.close()
    with sqlite3.connect(path) as conn:  # as schema 15 left it, with one device's two refusals
        conn.executescript("DROP TABLE unshown_seconds; DROP TABLE refused_keys; PRAGMA user_version = 15;")
        conn.execute(
            "INSERT INTO refused_offline VALUES (?, 'verdict', ?, ?, ?, ?, ?)", (judge.id, *astuple(OLD_REFUSED))
        )
        if kind == "backup":
            conn.execute("UPDATE file SET copy_of = identity, copied = ? WHERE id = 1", (stamp(clock()),))
    conn.close()
    as_it_is = open_event(path, readonly=True)
    try:
        assert as_it_is.refused_offline() == {judge.id: {REFUSED_VERDICT: OLD_REFUSED}}
    finally:
        as_it_is.close()
    if kind == "backup":
        copy_event(path, tmp_path / "restored.db", "restore", clock=clock)
        path = tmp_path / "restored.db"
    migrated = open_event(path, clock=clock)
    try:
        assert migrated.event().schema_version == VERSION
        latest_keys_kept_once_migrated(migrated, judge.id)
    finally:
        migrated.close()


@pytest.mark.parametrize("kind", ["migrated", "backup"])
def test_a_schema_16_file_has_no_unshown_second_opinions_until_one_is_marked(tmp_path, clock, kind):
    """Schema 16 marked no second opinion as never shown. A file of it, read as it is, has none;
    migrated to 17 (or a backup of it restored), a row is then marked as any."""
    from tournament import copy_event

    path = tmp_path / "v16.db"
    db = create_event(path, "Open", PASSWORD, clock=clock)
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    db.close()
    with sqlite3.connect(path) as conn:  # as schema 16 left it
        conn.executescript("DROP TABLE unshown_seconds; PRAGMA user_version = 16;")
        if kind == "backup":
            conn.execute("UPDATE file SET copy_of = identity, copied = ? WHERE id = 1", (stamp(clock()),))
    conn.close()
    as_it_is = open_event(path, readonly=True)
    try:
        assert as_it_is.unshown_seconds() == {}
    finally:
        as_it_is.close()
    if kind == "backup":
        copy_event(path, tmp_path / "restored.db", "restore", clock=clock)
        path = tmp_path / "restored.db"
    migrated = open_event(path, clock=clock)
    try:
        assert migrated.event().schema_version == VERSION
        marks_unshown_seconds_once_migrated(migrated, judge.id)
    finally:
        migrated.close()
