"""`lexicon event move SOURCE TARGET` between a file and a database either way, `lexicon event backup`
of an event in a database, `lexicon event restore` into one: verified (same last record and hash),
never over an event, nothing left when refused or failed, errors quoting the input."""

from __future__ import annotations

import os
import sqlite3
import subprocess

import pytest

from service import StartError, create_app
from tests.service.conftest import app_config, lexicon_files  # noqa: F401 - the fixture, shared
from tests.support import REPO
from tournament import create_event, open_event, utc_now
from tournament import transfer as transfer_module

from .test_event import entry, run

PASSWORD = "correct-horse-battery"


def played(path, rows: int = 3):
    """An event at `path` (a file or a URL) with a round closed and `rows` verdicts: its last hash."""
    db = create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="ca")
    db.open_round()
    db.append_many([entry(idempotency_key=f"k-{n}") for n in range(rows)])
    db.close_round()
    last = list(db.records())[-1].hash
    db.close()
    return last


def verified(location) -> str:
    """`lexicon records verify`'s line for the event (exit 0), its location cut off."""
    done = run("records", "verify", location)
    assert done.exit_code == 0, done.stderr
    return done.stdout.split(": ", 1)[1]


def file_of(location):
    """The event's identity and marks (its store closed again)."""
    db = open_event(location, readonly=True)
    try:
        return db.event().file
    finally:
        db.close()


def leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if ".partial-" in name)


def test_a_move_between_files_is_verified_and_never_overwrites_an_event(tmp_path):
    source, target = tmp_path / "open.db", tmp_path / "open-moved.db"
    last = played(source)
    moved = run("event", "move", source, target)
    assert moved.exit_code == 0, moved.stderr
    assert f"moved {source} to {target}: 3 records, last record 3, hash {last} in both, verified" in moved.stderr
    assert f"{source} is kept, marked moved: it records nothing more; serve {target} from now on\n" in moved.stderr
    assert verified(target) == f"intact, 3 records; last record 3, hash {last}\n"
    before, after = (file_of(p) for p in (source, target))
    assert verified(source) == (  # the source says where its record went on, for an appeal
        f"intact, 3 records; last record 3, hash {last}; moved at {before.moved} to the event's file "
        f"{after.identity}: its later records are there\n"
    )
    assert after.restored_from == before.identity != after.identity and f"file {after.identity}" in moved.stderr
    kept = target.read_bytes()
    again = run("event", "move", source, target)
    assert again.exit_code == 2 and f"{target} already exists: a move never overwrites a file" in again.stderr
    assert target.read_bytes() == kept and leftovers(tmp_path) == []
    missing = run("event", "move", tmp_path / "nowhere.db", tmp_path / "x.db")
    assert missing.exit_code == 2 and f"{tmp_path / 'nowhere.db'}" in missing.stderr
    assert not (tmp_path / "x.db").exists()
    folder = run("event", "move", source, tmp_path / "no" / "x.db")
    assert folder.exit_code == 2 and f"no directory {tmp_path / 'no'}" in folder.stderr


def test_an_event_served_on_this_laptop_is_not_moved_until_its_service_stops(tmp_path, monkeypatch):
    """The addresses each `lexicon serve` records (service.reloading, tested with live servers in
    test_event_laptop.py) name the event it serves: a move of that event is refused, naming the port."""
    from service import reloading

    source, target = tmp_path / "open.db", tmp_path / "moved.db"
    played(source)
    running = [("0.0.0.0", 8000, str(source.resolve())), ("127.0.0.1", 8001, str(tmp_path / "other.db"))]
    monkeypatch.setattr(reloading, "running_addresses", lambda: running)
    refused = run("event", "move", source, target)
    assert (
        refused.exit_code == 2 and f"{source} is served on this laptop (`lexicon serve` on port 8000)" in refused.stderr
    )
    assert not target.exists() and leftovers(tmp_path) == []
    running.pop(0)
    assert run("event", "move", source, target).exit_code == 0


def test_an_event_of_a_database_served_whole_on_this_laptop_is_not_moved(tmp_path, monkeypatch):
    """A `lexicon serve` of every event in a database (its URL without `?event=`, signed in as the
    service's role) serves the event the owner's URL names: the move is refused, before anything is
    read. (Before, only a serve of that very URL was seen, and the move went on.)"""
    from service import reloading

    running = [("127.0.0.1", 8000, "postgresql://lexicon@db.example/season")]
    monkeypatch.setattr(reloading, "running_addresses", lambda: running)
    source = "postgresql://owner:s3cret@db.example:5432/season?event=open-x"
    refused = run("event", "move", source, tmp_path / "hall.db")
    assert refused.exit_code == 2, refused.stderr
    assert (
        "is served on this laptop (`lexicon serve` of every event of postgresql://lexicon@db.example/season on port 8000)"
        in (refused.stderr)
    )
    assert "every event it serves is stopped with it" in refused.stderr  # what stopping it costs, said
    assert "s3cret" not in refused.stderr and not (tmp_path / "hall.db").exists()
    running[0] = ("127.0.0.1", 8000, "postgresql://lexicon@db.example/season?event=another")
    assert "served on this laptop" not in run("event", "move", source, tmp_path / "hall.db").stderr


def test_a_record_that_does_not_verify_is_not_moved_and_nothing_is_written(tmp_path):
    source, target = tmp_path / "open.db", tmp_path / "open-moved.db"
    played(source)
    conn = sqlite3.connect(source)  # the sheet's head no longer the record's: a break
    conn.execute("UPDATE rounds SET head_hash = ?", ("0" * 64,))
    conn.commit()
    conn.close()
    refused = run("event", "move", source, target)
    assert refused.exit_code == 1 and f"{source}: the record does not verify" in refused.stderr
    assert "nothing was written" in refused.stderr
    assert not target.exists() and leftovers(tmp_path) == []
    copied = run("event", "backup", source, tmp_path / "copia.db")  # a backup keeps it as it is
    assert copied.exit_code == 1 and (tmp_path / "copia.db").exists()


def test_a_backup_copy_is_restored_not_moved_and_a_backup_is_never_written_into_a_database(tmp_path):
    source, copy = tmp_path / "open.db", tmp_path / "copia.db"
    played(source)
    assert run("event", "backup", source, copy).exit_code == 0
    refused = run("event", "move", copy, tmp_path / "moved.db")
    assert refused.exit_code == 2 and f"{copy} is a backup copy" in refused.stderr and "event restore" in refused.stderr
    assert not (tmp_path / "moved.db").exists()
    url = "postgresql://judge:s3cret@db.example/lexicon?event=open-2026"
    into = run("event", "backup", source, url)
    assert into.exit_code == 2 and "s3cret" not in into.stderr
    assert "postgresql://judge@db.example/lexicon?event=open-2026: a backup is an event file" in into.stderr
    assert "pg_dump" in into.stderr
    bad = run("event", "move", source, "postgresql://judge@db.example/lexicon?event=Open_2026")
    assert bad.exit_code == 2 and "'Open_2026'" in bad.stderr


def test_a_backup_of_a_moved_event_keeps_its_mark_and_is_never_restored(tmp_path):
    """The source a move left behind is an archive: backed up (a nightly loop over a federation's
    events takes it too), the copy keeps its mark, and restoring it, which would make a second
    live event beside the one it moved to, is refused, naming where the event went; nothing written."""
    source, target, copy = tmp_path / "open.db", tmp_path / "sala.db", tmp_path / "copia.db"
    played(source)
    assert run("event", "move", source, target).exit_code == 0
    moved = file_of(source)
    assert run("event", "backup", source, copy).exit_code == 0
    kept = file_of(copy)
    assert (kept.copy_of, kept.moved, kept.moved_to) == (moved.identity, moved.moved, moved.moved_to)
    refused = run("event", "restore", copy, tmp_path / "otra.db")
    assert refused.exit_code == 2, refused.stderr
    assert (
        f"{copy} is a copy of file {moved.identity}, moved at {moved.moved} to the event's file {moved.moved_to}"
        in (refused.stderr)
    )
    assert not (tmp_path / "otra.db").exists() and leftovers(tmp_path) == []


def test_a_move_that_fails_half_way_leaves_no_file_and_no_partial(tmp_path, monkeypatch):
    source, target = tmp_path / "open.db", tmp_path / "open-moved.db"
    played(source)
    real = transfer_module._fill

    def fails(tx, whole, into):
        real(tx, whole, into)
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(transfer_module, "_fill", fails)
    failed = run("event", "move", source, target)
    assert failed.exit_code == 2 and f"cannot move {source} to {target}: disk I/O error" in failed.stderr
    assert not target.exists() and leftovers(tmp_path) == []


# -- between a file and a database --------------------------------------------------------------------


@pytest.fixture
def database(postgres_server):
    """A new event's URL in the session's database (its tables made once by the owner), as the
    instances' role reaches it: `name` -> URL."""
    from tests.postgres import OWNER, SERVICE
    from tournament.stores.postgres import store

    with store.connect(store.parse(postgres_server.url(OWNER, event="schema"))) as conn:
        store.migrate(conn, "the tests' database")
    prefix = os.urandom(4).hex()
    return lambda name: postgres_server.url(SERVICE, event=f"m{prefix}-{name}")


def test_moved_in_as_the_owner_the_url_to_serve_names_no_owner_nor_password(tmp_path, database):
    """The line said to serve the URL just typed, the owner's, "as the instances' role, never the
    owner": copied, it did what it forbade. Its user is a placeholder now; with the role put in, it serves."""
    from tests.postgres import OWNER, SERVICE

    source, url = tmp_path / "open.db", database("as-owner").replace(f"//{SERVICE}@", f"//{OWNER}:s3cret@")
    played(source)
    there = run("event", "move", source, url)
    assert there.exit_code == 0, there.stderr
    serve = there.stderr.splitlines()[-1]
    as_role = url.replace(f"//{OWNER}:s3cret@", "//ROLE@")
    assert serve.endswith(f"; serve {as_role} from now on (ROLE: the instances' role, never the database's owner)")
    assert OWNER not in serve and "s3cret" not in there.stderr
    assert verified(as_role.replace("//ROLE@", f"//{SERVICE}@")).startswith("intact, 3 records")


def test_an_event_moved_into_a_database_and_back_exports_the_same_rows(tmp_path, database):
    source, back = tmp_path / "open.db", tmp_path / "open-back.db"
    url = database("open")
    last = played(source, rows=40)
    there = run("event", "move", source, url)
    assert there.exit_code == 0, there.stderr
    shown = url  # no password in it: shown as given
    assert f"moved {source} to {shown}: 40 records, last record 40, hash {last} in both, verified" in there.stderr
    assert f"serve {shown.replace('//lexicon@', '//ROLE@')} from now on (ROLE: the instances' role," in there.stderr
    returned = run("event", "move", url, back)
    assert returned.exit_code == 0, returned.stderr
    said = f"intact, 40 records; last record 40, hash {last}"
    assert verified(back) == f"{said}\n"
    for moved in (source, url):  # each a source left behind, saying where its record went on
        assert verified(moved).startswith(f"{said}; moved at {file_of(moved).moved} to the event's file ")
    exports = [run("records", "export", where, "--format", "json").stdout for where in (source, url, back)]
    assert exports[0] == exports[1] == exports[2] and exports[0].count('"hash"') == 40
    again = run("event", "move", back, url)
    assert again.exit_code == 2 and f"{url}: the database has this event already" in again.stderr
    assert verified(url).startswith(f"{said}; moved at ")


def test_a_database_event_backed_up_verifies_alone_and_is_served_only_once_restored(
    tmp_path,
    database,
    postgres_server,
    lexicon_files,  # noqa: F811
):
    """A backup of an event of a database verifies alone; it is not served, and is restored as a
    live event of its own, never beside the event it copies in that database (a service of the
    database would serve both: a federation's administrator restored one there, and the same
    phone's token recorded a verdict numbered 3 in each), nor twice."""
    url, copy = database("open"), tmp_path / "copia.db"
    last = played(url, rows=5)
    identity = file_of(url).identity
    done = run("event", "backup", url, copy)
    assert done.exit_code == 0, done.stderr
    assert f"wrote {copy}: a checked copy of {url}; last record 5, hash {last}" in done.stderr
    assert f"marked as a copy of file {identity}" in done.stderr and copy.stat().st_mode & 0o777 == 0o600
    assert verified(copy) == f"intact, 5 records; last record 5, hash {last}\n"
    assert not os.path.exists(f"{copy}-wal") and leftovers(tmp_path) == []  # one file, to carry away
    marked = file_of(copy)
    assert (marked.identity, marked.copy_of) == (identity, identity)
    with pytest.raises(StartError, match="is a backup copy of the event's file"):
        create_app(app_config(lexicon_files, LEXICON_EVENT=str(copy)))
    beside = database("beside")  # the database the event is in: served whole, it would serve both
    refused = run("event", "restore", copy, beside)
    event_id = url.rpartition("event=")[2]
    assert (
        refused.exit_code == 2
        and f"the database holds the event this copy was made from, event={event_id}, live" in (refused.stderr)
    )
    assert "a second live copy of the event" in refused.stderr and "nothing was written" in refused.stderr
    assert run("records", "verify", beside).exit_code == 2  # no such event: nothing was written
    from tests.postgres import OWNER

    elsewhere = postgres_server.create_database(f"restored{os.urandom(4).hex()}")
    live = postgres_server.url(OWNER, database=elsewhere, event="open")  # a database served instead
    restored = run("event", "restore", copy, live)
    assert restored.exit_code == 0, restored.stderr
    file = file_of(live)
    assert file.restored_from == identity != file.identity and file.copy_of is None
    assert f"wrote {live}: the event's live copy, file {file.identity}, restored from {copy}" in restored.stderr
    assert verified(live) == verified(url)
    twice = run("event", "restore", copy, live)
    assert twice.exit_code == 2 and "already" in twice.stderr
    thrice = run("event", "restore", copy, live.replace("event=open", "event=open-b"))  # beside the one restored
    assert (
        thrice.exit_code == 2
        and "a live copy of the event made from it already (moved in or restored), event=open, and" in (thrice.stderr)
    )
    live_source = tmp_path / "live.db"
    played(live_source)
    refused = run("event", "restore", live_source, database("other"))
    assert refused.exit_code == 2 and f"{live_source} is no backup copy" in refused.stderr
    hall = tmp_path / "sala.db"  # the event taken to a hall: a backup of what it left keeps the mark
    assert run("event", "move", url, hall).exit_code == 0
    left = tmp_path / "left.db"
    assert run("event", "backup", url, left).exit_code == 0
    assert file_of(left).moved_to == file_of(hall).identity
    again = run("event", "restore", left, database("again"))
    assert again.exit_code == 2 and f"moved at {file_of(url).moved} to the event's file" in again.stderr


@pytest.mark.slow  # apps on the event file and in the database
def test_a_paired_phone_judges_on_as_the_same_event_once_moved_and_the_source_refuses_it_after(
    tmp_path,
    database,
    lexicon_files,  # noqa: F811
):
    """A hall's event handed to the federation with the director's laptop: a judge's phone, at the
    same address, is answered by the moved event as the same event (its file is the one this was
    moved from). The hall's file, marked moved, records nothing more even while it is still served
    by mistake (410 `event-moved`, its /readyz and console say so), so a phone that kept its pairing
    there cannot split the record; a phone the moved event answered is refused by it too (409
    `event-file-split` or 410). (Before the mark, the hall's file recorded a third verdict after the
    move, which only the split check caught later.)"""
    from tests.service.event.test_http import SAME, Event, problem

    path, url = tmp_path / "open.db", database("handed")
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es").close()
    hall = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(path))), path, utc_now)
    hall.login()
    (_, judge), (_, late) = hall.device("Juez 1"), hall.device("Juez 2")
    original = hall.app.test_client().get("/readyz").json["event_file"]
    assert hall.challenge(judge, event_file=original, idempotency_key="k-1").json["record"] == 1
    assert hall.challenge(late, event_file=original, idempotency_key="k-2").json["record"] == 2
    moved = run("event", "move", path, url)
    assert moved.exit_code == 0, moved.stderr
    federation = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=url)), url, utc_now)
    state = federation.app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {judge}"}).json
    assert state["restored_from"] == original and state["file"] != original
    # the hall's file still served by mistake: Juez 2, still paired there, records nothing
    refused = hall.challenge(late, event_file=original, last_key="k-2", idempotency_key="k-3")
    assert "director" in problem(refused, 410, "event-moved")["detail"]
    assert state["file"] not in refused.get_data(as_text=True)  # a judge's phone is not told where
    problem(hall.director.post("/v1/rounds", json={}, headers=SAME), 410, "event-moved")  # nor a round opened
    ready = hall.app.test_client().get("/readyz")
    assert ready.status_code == 503 and f"file {state['file']}" in ready.json["detail"]
    chain = hall.director.get("/v1/records").json["chain"]
    assert chain["moved_to"] == state["file"] and chain["moved"]
    answered = federation.challenge(judge, event_file=original, last_key="k-1", idempotency_key="k-4")
    assert answered.status_code == 200 and answered.json["record"] == 3
    assert federation.challenge(late, event_file=original, last_key="k-2", idempotency_key="k-5").json["record"] == 4
    federation.login()  # the director's password went with the event
    refused = hall.challenge(judge, event_file=state["file"], last_key="k-4")
    assert refused.status_code in (409, 410) and refused.json["type"].endswith(("event-file-split", "event-moved"))
    assert [row.seq for row in hall.rows()] == [1, 2] and [row.seq for row in federation.rows()] == [1, 2, 3, 4]
    assert [row.entry.idempotency_key for row in federation.rows()] == ["k-1", "k-2", "k-4", "k-5"]


def test_the_whole_database_backup_of_operations_md_restores_every_event_as_it_was(tmp_path, postgres_server):
    """docs/operations.md's "Backups of a federation's database", its two commands as written (the
    docs' databases ours, its dated file the one the dump wrote): pg_dump as the owner, then
    pg_restore into an empty database owned by the owner. The event there verifies with the same
    rows and last hash, and the instances' role records in it (the grants came with it)."""
    from tests.postgres import OWNER, SERVICE

    doc = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    section = doc[doc.index("### Backups of a federation's database") :]
    block = section[section.index("```sh\n") + 6 : section.index("```", section.index("```sh\n") + 6)]
    dump, restore = (line for line in block.splitlines() if line.startswith("pg_"))
    first, second = (postgres_server.create_database(f"backup_{os.urandom(4).hex()}") for _ in range(2))
    event = f"open-{os.urandom(4).hex()}"
    last = played(postgres_server.url(OWNER, first, event=event))
    dump = dump.replace("pg_dump", str(postgres_server.bin / "pg_dump"), 1)
    dump = dump.replace("postgresql://lexicon_owner@db.example/lexicon", postgres_server.url(OWNER, first))
    subprocess.run(["bash", "-c", dump], cwd=tmp_path, check=True, capture_output=True)
    (written,) = tmp_path.glob("lexicon-*.dump")
    restore = restore.replace("pg_restore", str(postgres_server.bin / "pg_restore"), 1)
    restore = restore.replace("postgresql://lexicon_owner@db2.example/lexicon", postgres_server.url(OWNER, second))
    restore = restore.replace("lexicon-2026-11-28.dump", written.name)
    subprocess.run(["bash", "-c", restore], cwd=tmp_path, check=True, capture_output=True)
    restored = postgres_server.url(SERVICE, second, event=event)
    assert verified(restored) == verified(postgres_server.url(SERVICE, first, event=event))
    db = open_event(restored)
    try:
        assert list(db.records())[-1].hash == last
        assert db.append(entry(idempotency_key="after-restore")).seq == 4 and db.verify() is None
    finally:
        db.close()
