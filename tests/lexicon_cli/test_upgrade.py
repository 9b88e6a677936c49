"""`lexicon event upgrade`: an event file, or a database's tables, brought up to this release's
schema once; again, nothing; the instances' role refused, told to run it as the owner."""

from __future__ import annotations

import os
import sqlite3

from tests.support import REPO
from tournament import open_event

from .test_event import run

V1 = REPO / "tests" / "tournament" / "data" / "event-v1.sql"


def test_an_event_file_of_an_older_schema_is_brought_up_to_date_once(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(V1.read_text())
    conn.close()
    done = run("event", "upgrade", path)
    assert done.exit_code == 0 and done.stdout == f"{path}: schema 1 brought up to 16, this release's\n"
    again = run("event", "upgrade", path)
    assert again.exit_code == 0 and again.stdout == f"{path}: schema 16, this release's: nothing to do\n"
    assert open_event(path, readonly=True).event().schema_version == 16
    missing = run("event", "upgrade", tmp_path / "nowhere.db")
    assert missing.exit_code == 2 and f"{tmp_path / 'nowhere.db'}: no such event file" in missing.stderr


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
