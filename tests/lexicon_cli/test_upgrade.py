"""`lexicon event upgrade`: an event file, or a database's tables, brought up to this release's
schema once; again, nothing; the instances' role refused, told to run it as the owner."""

from __future__ import annotations

import hashlib
import os
import sqlite3

import pytest

from tests.service.conftest import CA_WORDS
from tests.support import REPO, compile_list
from tournament import Pin, create_event, open_event
from tournament.stores.sqlite.schema import VERSION

from .test_event import run

V1 = REPO / "tests" / "tournament" / "data" / "event-v1.sql"


def test_an_event_file_of_an_older_schema_is_brought_up_to_date_once(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(V1.read_text())
    conn.close()
    done = run("event", "upgrade", path)
    assert done.exit_code == 0 and done.stdout == f"{path}: schema 1 brought up to 17, this release's\n"
    again = run("event", "upgrade", path)
    assert again.exit_code == 0 and again.stdout == f"{path}: schema 17, this release's: nothing to do\n"
    assert open_event(path, readonly=True).event().schema_version == 17
    missing = run("event", "upgrade", tmp_path / "nowhere.db")
    assert missing.exit_code == 2 and f"{tmp_path / 'nowhere.db'}: no such event file" in missing.stderr


@pytest.mark.parametrize("found", ["there", "missing", "other bytes"])
def test_an_old_pin_is_given_its_language_from_the_file_it_names_when_that_holds_its_bytes(tmp_path, found):
    """A pin kept before the pins' languages (schema 14) names the file it was pinned from: with
    the pinned bytes there, the upgrade keeps the list's language; otherwise it says it could not,
    why, and that the event's next start keeps it, and leaves the pin as it was."""
    listed = compile_list(tmp_path / "ca-mini.lex", CA_WORDS, "ca", "ca-mini", "Mini català")
    checksum = hashlib.sha256(listed.read_bytes()).hexdigest()
    pin = Pin("ca-mini", "test-1", checksum, str(listed), "2026-11-22T09:00:00.000000Z", "init", "ca")
    path = tmp_path / "v14.db"
    create_event(path, "Open", "a long enough password", lexicon="ca-mini", pin=pin).close()
    with sqlite3.connect(path) as conn:  # as schema 14 left it
        conn.executescript(
            "DROP TABLE unshown_seconds; DROP TABLE refused_keys; ALTER TABLE event DROP COLUMN lexicon_language; PRAGMA user_version = 14;"
        )
    conn.close()
    if found == "missing":
        listed.unlink()
    elif found == "other bytes":
        compile_list(listed, [*CA_WORDS, "CAMP"], "ca", "ca-mini", "Mini català")
    done = run("event", "upgrade", path)
    assert done.exit_code == 0, done.stderr
    first, *more = done.stdout.splitlines()
    assert first == f"{path}: schema 14 brought up to {VERSION}, this release's"
    language = open_event(path, readonly=True).event().pin.language
    if found == "there":
        assert more == [f"{path}: its list's language kept, ca (read from {listed})"] and language == "ca"
        again = run("event", "upgrade", path)
        assert again.stdout == f"{path}: schema {VERSION}, this release's: nothing to do\n"
        return
    [said] = more
    assert said.startswith(f"{path}: its list's language is not kept yet ({listed}") and language is None
    assert "the event's next start, by an instance that serves ca-mini test-1, keeps it" in said
    assert ("No such file" if found == "missing" else "holds other bytes") in said


def test_a_database_is_brought_up_to_date_by_its_owner_and_the_instances_role_is_told_so(postgres_server):
    from tests.postgres import OWNER, SERVICE
    from tournament.stores.postgres.schema import VERSION

    database = postgres_server.create_database(f"upgrade_{os.urandom(4).hex()}")
    owner, service = (postgres_server.url(role, database, event="any") for role in (OWNER, SERVICE))
    refused = run("event", "upgrade", service)
    assert refused.exit_code == 2 and "cannot be made or brought up to date by this role" in refused.stderr
    assert "run `lexicon event upgrade`" in refused.stderr and "as the database's owner" in refused.stderr
    done = run("event", "upgrade", owner)
    assert done.exit_code == 0 and done.stdout == f"{owner}: schema 0 brought up to {VERSION}, this release's\n"
    whole = postgres_server.url(SERVICE, database)  # the whole database's URL, without ?event=
    for url in (owner, service, whole):
        again = run("event", "upgrade", url)
        assert again.exit_code == 0 and again.stdout == f"{url}: schema {VERSION}, this release's: nothing to do\n"
    with postgres_server.connect(database=database) as conn:
        conn.execute("UPDATE schema_version SET version = 99")
    newer = run("event", "upgrade", postgres_server.url(OWNER, database))
    assert newer.exit_code == 2 and f"the database has schema 99, newer than this program's {VERSION}" in newer.stderr
    assert f"{postgres_server.url(OWNER, database)}: the database has schema 99" in newer.stderr


def test_a_database_that_cannot_be_reached_is_named_as_typed(postgres_server):
    """A whole database's URL (no ?event=) that fails: the message quotes it as typed, not with an
    `?event=` the command made up to connect."""
    from tests.postgres import OWNER

    url = postgres_server.url(OWNER, f"absent_{os.urandom(4).hex()}")
    failed = run("event", "upgrade", url)
    assert failed.exit_code == 2, failed.stderr
    assert failed.stderr.startswith(f"Error: {url}: ") and "event=" not in failed.stderr, failed.stderr
    assert "does not exist" in failed.stderr


def test_every_event_of_a_database_is_given_its_pin_s_language_by_the_upgrade(postgres_server, tmp_path):
    """A database's upgrade, named by any event's URL or by the database's, looks at every event of
    it: an old pin (schema 5 kept no language) whose file holds its bytes here is given its language."""
    from tests.postgres import OWNER, SERVICE
    from tournament.stores.postgres.schema import VERSION

    listed = compile_list(tmp_path / "ca-mini.lex", CA_WORDS, "ca", "ca-mini", "Mini català")
    checksum = hashlib.sha256(listed.read_bytes()).hexdigest()
    pin = Pin("ca-mini", "test-1", checksum, str(listed), "2026-11-22T09:00:00.000000Z", "init", "ca")
    database = postgres_server.create_database(f"upgrade_{os.urandom(4).hex()}")
    for event_id in ("lliga-j1", "lliga-j2"):
        url = postgres_server.url(OWNER, database, event=event_id)
        create_event(url, event_id, "a long enough password", lexicon="ca-mini", pin=pin).close()
    with postgres_server.connect(OWNER, database) as conn:  # as the migration to schema 6 leaves an older pin
        conn.execute("UPDATE events SET lexicon_language = NULL WHERE id = 'lliga-j2'")
    named = postgres_server.url(OWNER, database, event="lliga-j1")
    done = run("event", "upgrade", named)
    assert done.exit_code == 0, done.stderr
    kept = postgres_server.url(OWNER, database, event="lliga-j2")
    assert done.stdout.splitlines() == [
        f"{named}: schema {VERSION}, this release's: nothing to do",
        f"{kept}: its list's language kept, ca (read from {listed})",
    ]
    db = open_event(postgres_server.url(SERVICE, database, event="lliga-j2"))
    try:
        assert db.event().pin.language == "ca"
    finally:
        db.close()
