"""The PostgreSQL store (tournament/stores/postgres) against Debian's PostgreSQL (tests/postgres.py):
what the database itself guarantees, beyond the contract every store keeps (tests/tournament/contract).

- the URL names a database and one event in it; messages never show its password;
- many events in one database, none reading another's rows;
- the record is append-only in the database: the service's role may not UPDATE, DELETE or
  TRUNCATE it, and a trigger refuses the owner too; the chain's state says when that is undone;
- appends of several processes to one event are serialized by the event's row lock: one chain;
- a lock held elsewhere is waited for at most BUSY_SECONDS (LockBusy, nothing written), and holds
  up no other event; a database away is a StorageError, and its return needs no restart;
- the schema migrates once, refuses a newer one, and says who must make it;
- which roles could switch the record's guard off (the service serves as none of them).
"""

from __future__ import annotations

import itertools
import multiprocessing
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import uuid
from dataclasses import astuple
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

from tests.postgres import DATABASE, OWNER, SERVICE, WRITER, PostgresServer
from tests.support import REPO, free_port, until
from tests.tournament.conftest import entry
from tournament import chain
from tournament.chain import GENESIS, row_hash, seal
from tournament.entry import Entry
from tournament.errors import EventExists, LockBusy, NotAnEvent, ReadOnly, StorageError
from tournament.model import NewEvent, Pin
from tournament.stores.postgres import connections as pg_connections
from tournament.stores.postgres import parse
from tournament.stores.postgres import schema as pg_schema
from tournament.stores.postgres import store as pg_store
from tournament.stores.postgres import verification as pg_verification
from tournament.stores.postgres.location import event_location, shown_location, with_event
from tournament.stores.postgres.store import PostgresStorage

NOW = "2026-11-22T09:00:00.000000Z"


def clock() -> datetime:
    return datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


def new_event(server, name: str = "Open de Lleida 2026", pin: Pin | None = None) -> str:
    """A new event in the shared database, made by its owner: its id."""
    event = f"t-{uuid.uuid4().hex[:16]}"
    PostgresStorage.create(server.url(OWNER, event=event), NewEvent(name, "ca", NOW, "scrypt$hash", pin))
    return event


@pytest.fixture
def event(postgres_server):
    return new_event(postgres_server)


@pytest.fixture
def storage(postgres_server, event):
    store = PostgresStorage(postgres_server.url(SERVICE, event=event))
    yield store
    store.close()


def append(store: PostgresStorage, *entries: Entry, time: str = NOW) -> list:
    """Rows appended as the domain does: the head read under the lock, each row sealed after it."""
    with store.write() as tx:
        seq, prev = tx.head()
        rows = []
        for item in entries:
            seq += 1
            rows.append(seal(seq, time, None, item, prev, 4 if item.shown_round is not None else 3))
            prev = rows[-1].hash
        tx.insert_records(rows)
    return rows


# -- the location ----------------------------------------------------------------------------


def test_a_url_names_the_database_and_one_event_and_is_shown_without_its_password():
    target = parse("postgresql://judge:s3cret@db.example:5433/lexicon?event=open-2026&sslmode=require")
    assert target.event_id == "open-2026"
    assert target.location == "postgresql://judge@db.example:5433/lexicon?event=open-2026&sslmode=require"
    assert "event=" not in target.conninfo and "sslmode=require" in target.conninfo and "s3cret" in target.conninfo
    socket = parse("postgresql://lexicon@/lexicon?host=/run/postgresql&event=a1")
    assert socket.event_id == "a1" and socket.conninfo == "postgresql://lexicon@/lexicon?host=%2Frun%2Fpostgresql"
    for bad in ("postgresql://judge:s3cret@db/lexicon", "postgresql://judge:s3cret@db/lexicon?event=Open!"):
        with pytest.raises(ValueError, match="event") as refused:
            parse(bad)
        assert "s3cret" not in str(refused.value) and "judge@db/lexicon" in str(refused.value)


def test_a_password_in_the_url_s_query_is_masked_wherever_the_location_is_shown():
    url = "postgresql://judge@db/lexicon?event=a1&password=s3cret&sslpassword=k3y&sslmode=require"
    target = parse(url)
    assert target.location == "postgresql://judge@db/lexicon?event=a1&password=***&sslpassword=***&sslmode=require"
    assert "s3cret" in target.conninfo and "k3y" in target.conninfo  # libpq still gets them
    assert shown_location(url) == target.location
    with pytest.raises(ValueError, match="event") as refused:
        parse("postgresql://judge@db/lexicon?pass%77ord=s3cret")  # an encoded key is the same key
    assert "s3cret" not in str(refused.value)


@pytest.mark.parametrize(
    "url, where",
    [
        ("postgresql://judge:s3cr%zz@/lexicon?host=/x&event=a", "user or password part"),
        ("postgresql://judge:s3cr%00et@/lexicon?host=/x&event=a", "user or password part"),
        ("postgresql://judge:s3cr%7@db/lexicon?event=a", "user or password part"),
        ("postgresql://judge:s3cret@db/lexi%con?event=a", "database's name"),
    ],
)
def test_a_percent_libpq_cannot_decode_is_refused_before_libpq_and_never_quoted(url, where):
    """libpq's error for such a token quotes it (`invalid percent-encoded token: "s3cr%zz"`), and
    the StorageError carried it to /readyz, the log and `lexicon serve`'s first lines: refused here,
    saying where, quoting neither the URL nor the token; an event's and a whole database's alike."""
    for refuse in (parse, PostgresStorage, pg_store.event_ids, shown_location):
        given = url if refuse is not pg_store.event_ids else url.replace("&event=a", "").replace("?event=a", "")
        with pytest.raises(ValueError, match=f"'%' not followed by two hex digits.* in its {where}") as refused:
            refuse(given)
        assert "s3cr" not in str(refused.value) and "judge" not in str(refused.value)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://judge:AAA#BBB@db/lexicon?event=a",  # libpq reads the password AAA#BBB; urlsplit a fragment
        "postgresql://judge:AAA?BBB@db/lexicon?event=a",  # libpq: AAA?BBB; urlsplit: a query from BBB on
        "postgresql://judge:AAA/BBB@db/lexicon?event=a",  # libpq: host judge, port AAA; urlsplit the same
        "postgresql://judge:AAA@BBB@db/lexicon?event=a",  # libpq: the first '@' ends it; urlsplit: the last
        "postgresql://judge:1234/BBB@db/lexicon?event=a",  # a port of digits, the rest in the database's name
        # an '@' then a '?' in a password: what follows its '@' is urlsplit's query, not a parameter of libpq's
        "postgresql://judge:AAA@BBB?CCC@db/lexicon?event=a",  # urlsplit: a query part named CCC@db/lexicon?event
        "postgresql://judge:AAA@BBB?x=CCC@db/lexicon?event=a",  # a name libpq does not take
        "postgresql://judge:AAA@BBB?event=CCC@db/lexicon?event=a",  # event= is ours, and no id holds an '@'
        "postgresql://AAA?application_name=BBB@db/lexicon?event=a",  # libpq: the user 'AAA?application_name=BBB'
    ],
)
def test_a_password_with_a_character_that_ends_a_url_s_part_is_refused_and_never_shown(url):
    """A '#', '?', '/' or a second '@' in a password not written as %23, %3F, %2F, %40: libpq and
    urlsplit split such a URL differently, and a message showed it without what urlsplit took for
    the password, which was not the password: 'postgresql://judge:AAA' (a '#' or '?'), the rest of
    it as a query parameter's name or in the database's name, in the log at every start (a
    service of every event's 'app loaded' names its database) and in `lexicon serve`'s refusal;
    and libpq, given it, quoted the piece it took for a host or a port. Refused before either,
    quoting nothing of it, by every way in."""
    whole = url.replace("?event=a", "")
    for refuse, given in (
        (parse, url),
        (PostgresStorage, url),
        (shown_location, url),
        (shown_location, whole),
        (pg_store.event_ids, whole),
    ):
        with pytest.raises(ValueError, match="%40") as refused:
            refuse(given)
        said = str(refused.value)
        assert "AAA" not in said and "BBB" not in said and "1234" not in said and "judge" not in said, said


@pytest.mark.parametrize(
    "database",
    [
        "postgresql://judge:pw@db/lexicon?application_name=judge@venue",
        "postgresql:///lexicon?host=/run/postgresql&application_name=judge@venue&sslmode=disable",
        "postgresql://db/lexicon?password=p@ss&sslmode=require",
    ],
)
def test_an_at_in_the_value_of_a_query_parameter_is_taken_as_libpq_takes_it(database):
    """libpq reads a query's raw '@' in a value of its parameters as itself (`application_name=
    judge@venue`): such a URL was refused with the message of a password's '@'. Taken, libpq given
    what it reads in the URL as written, a password's value still masked."""
    libpq = psycopg.conninfo.conninfo_to_dict
    expected = libpq(database)
    assert "@" in expected.get("application_name", "") + expected.get("password", "")
    for url in (with_event(database, "open-2026"), database.replace("?", "?event=open-2026&", 1)):
        target = parse(url)
        assert target.event_id == "open-2026" and libpq(target.conninfo) == expected, (url, target.conninfo)
        assert ":pw@" not in target.location and "p@ss" not in target.location
    shown = shown_location(database)
    assert ":pw@" not in shown and "p@ss" not in shown
    assert ("application_name=judge@venue" in shown) == ("application_name" in database), shown


def test_the_value_of_a_query_parameter_not_known_to_be_harmless_is_masked():
    """A parameter libpq takes but SHOWN does not list (a newer libpq's) is masked; a misspelled
    password parameter is refused (below), its value masked there too."""
    url = "postgresql://judge@db/lexicon?event=a1&sslkeylogfile=/k&sslmode=require&host=/run/pg"
    assert (
        parse(url).location == "postgresql://judge@db/lexicon?event=a1&sslkeylogfile=***&sslmode=require&host=/run/pg"
    )
    with pytest.raises(ValueError, match="passwrd") as refused:
        parse("postgresql://judge@db/lexicon?event=A&passwrd=s3cret")
    assert "s3cret" not in str(refused.value) and "passwrd=***" in str(refused.value)


@pytest.mark.parametrize(
    "query, name, meant",
    [
        ("sslmod=require", "sslmod", "sslmode"),
        ("passwrd=s3cret", "passwrd", "password"),
        ("Password=s3cret", "Password", "password"),
        ("pass%77rd=s3cret", "passwrd", "password"),  # an encoded key is read as libpq reads it
        ("ssl_mode=require&sslmode=require", "ssl_mode", "sslmode"),
        ("zzz=s3cret", "zzz", None),
    ],
)
def test_a_query_parameter_libpq_does_not_take_is_refused_before_connecting_naming_it(monkeypatch, query, name, meant):
    """libpq refused it only when connecting, and the user read that the event's database failed:
    refused at once, by its name (never its value, a password perhaps), with the ones it takes;
    an event's URL and a whole database's alike, by every way in, none connecting."""

    def no_connection(*args, **kwargs):
        raise AssertionError("connected")

    monkeypatch.setattr(psycopg, "connect", no_connection)
    monkeypatch.setattr(pg_connections, "connect", no_connection)
    for url in (f"postgresql://judge:pw@db/lexicon?event=a&{query}", f"postgresql://judge:pw@db/lexicon?{query}"):
        whole = "event=a" not in url
        for refuse in (shown_location, pg_store.event_ids) if whole else (parse, PostgresStorage, shown_location):
            with pytest.raises(ValueError) as refused:
                refuse(url)
            said = str(refused.value)
            assert f"a database's URL has no query parameter {name!r}" in said, said
            assert (f"(did you mean {meant}?)" in said) == (meant is not None), said
            assert (
                "it takes event and libpq's parameters: application_name, " in said
                and ", sslmode, " in said
                and ", password, " in said
            )
            assert "s3cret" not in said and ":pw@" not in said and "event=x" not in said


def test_ssl_true_is_taken_as_libpq_takes_it_and_any_other_ssl_refused():
    """libpq's URL takes `ssl=true` for `sslmode=require` (as JDBC's URLs write it; a hosting
    service's URL may), and no other `ssl=`: the check of the parameters refused it by its name."""
    target = parse("postgresql://judge@db/lexicon?event=a&ssl=true")
    assert psycopg.conninfo.conninfo_to_dict(target.conninfo)["sslmode"] == "require"
    assert target.location == "postgresql://judge@db/lexicon?event=a&ssl=true"
    assert shown_location("postgresql://judge@db/lexicon?ssl=%74rue") == "postgresql://judge@db/lexicon?ssl=%74rue"
    for value in ("false", "1", "True"):
        with pytest.raises(psycopg.ProgrammingError, match="invalid URI query parameter"):
            psycopg.conninfo.conninfo_to_dict(f"postgresql://judge@db/lexicon?ssl={value}")
        with pytest.raises(ValueError, match="has no query parameter 'ssl'"):
            parse(f"postgresql://judge@db/lexicon?event=a&ssl={value}")


def test_a_query_part_without_a_name_is_refused_without_quoting_it():
    with pytest.raises(ValueError, match="a query part with no '=' \\(not shown") as refused:
        parse("postgresql://judge@db/lexicon?event=a&s3cret")
    assert "s3cret" not in str(refused.value)
    for url in ("postgresql://judge@db/lexicon?event=a&=s3cret", "postgresql://judge@db/lexicon?=s3cret"):
        # libpq refused it only when connecting ('invalid URI query parameter'), as the database failing
        refuse = parse if "event=a" in url else shown_location
        with pytest.raises(ValueError, match="a query part with no name before its '='") as refused:
            refuse(url)
        assert "s3cret" not in str(refused.value)
    for fine in ("postgresql://judge@db/lexicon?event=a&", "postgresql://judge@db/lexicon?&event=a&&sslmode=require"):
        assert parse(fine).event_id == "a"  # an empty part, between two '&' or at the end, is no parameter


@pytest.mark.parametrize(
    "database",
    [
        "postgresql:///lexicon?host=/run/postgresql",  # libpq's own example: the socket's folder, nothing else
        "postgresql://judge@db/lexicon?options=-c%20search_path%3Djudges",
        "postgresql://judge@db/lexicon?application_name=lexicon%20judge&target_session_attrs=read-write",
        "postgresql://judge@/lexicon?host=/run/postgresql&password=two%20words+one%2Bplus",
        "postgresql://judge:p%40ss@[::1]:5432,db2:5433/lexicon?sslmode=verify-full&sslrootcert=/etc/ssl/root.crt",
    ],
)
def test_libpq_is_given_the_url_as_written_but_its_event(database):
    """What libpq connects to is the URL as written, the `event=` taken out: libpq decodes a query
    value's %XX and nothing else (a '+' is a '+'), and `postgresql:///` is a URL with no host. An
    event's URL was decoded and encoded again as a form (a %20 given to libpq as '+': `-c+search_path`,
    a password with a space another password) and `postgresql:///db` lost its '//' (libpq refused
    'postgresql:/db', and a service of the database's events took its events' URLs for files).
    Read by libpq's own parser (psycopg's conninfo_to_dict: no server)."""
    libpq = psycopg.conninfo.conninfo_to_dict
    expected = libpq(database)
    first = database.replace("?", "?event=open-2026&", 1)
    for url in (with_event(database, "open-2026"), first):
        assert event_location(url) == url  # a database's URL, not an event file's path
        target = parse(url)
        assert target.event_id == "open-2026" and libpq(target.conninfo) == expected, (url, target.conninfo)
        assert target.location.startswith("postgresql://") and "p%40ss" not in target.location
    assert shown_location(database).startswith("postgresql://")


def test_a_value_libpq_would_refuse_as_written_reaches_it_as_meant_or_is_refused_unquoted():
    """A second '=' in a value (`options=-csearch_path=judges`) or a '%' not followed by two hex
    digits (a password's `50%off`) libpq refuses as written, quoting the value (`invalid
    percent-encoded token: "50%off"`, a password, in the log and /readyz): each reaches it
    encoded, as meant, a '+' still a '+'. A %00 it refuses however written (no value of libpq's
    holds a NUL): refused here, quoting nothing, by every way in."""
    libpq = psycopg.conninfo.conninfo_to_dict
    read = libpq(parse("postgresql://judge@db/lexicon?event=a&options=-csearch_path=judges&password=50%off+1").conninfo)
    assert read["options"] == "-csearch_path=judges" and read["password"] == "50%off+1"
    url = "postgresql://judge@db/lexicon?event=a&password=s3cr%00et"
    for refuse, given in ((parse, url), (PostgresStorage, url), (shown_location, url.replace("event=a&", ""))):
        with pytest.raises(ValueError, match="a %00 in its query") as refused:
            refuse(given)
        assert "s3cr" not in str(refused.value) and "judge" not in str(refused.value)


def test_libpq_s_url_of_a_socket_with_an_option_of_two_words_reaches_the_database(postgres_server):
    """`postgresql:///DB?host=FOLDER` and `options=-c%20NAME%3DVALUE`, as libpq's manual writes
    them: the database's events are listed and one is opened (libpq refused `postgresql:/DB`, and
    the server `-c+statement_timeout=5s`)."""
    event = new_event(postgres_server)
    database = (
        f"postgresql:///{DATABASE}?host={postgres_server.socket}&port={postgres_server.port}&user={SERVICE}"
        "&options=-c%20statement_timeout%3D5s"
    )
    assert event in pg_store.event_ids(database)
    opened = PostgresStorage(with_event(database, event))
    try:
        assert opened.event_id == event
    finally:
        opened.close()


def test_a_database_that_cannot_be_asked_for_its_events_is_named_as_given(tmp_path):
    """A service of every event of a database names it in /readyz's 503 as given, without its
    password and without the event id `event_ids` adds to parse it (it said `&event=x`)."""
    url = f"postgresql://judge:s3cret@/lexicon?host={tmp_path}"
    with pytest.raises(StorageError) as failed:
        pg_store.event_ids(url)
    assert str(failed.value).startswith(f"postgresql://judge@/lexicon?host={tmp_path}: the event")
    assert "event=" not in str(failed.value) and "s3cret" not in str(failed.value)


# -- many events, one database ------------------------------------------------------------------


def test_events_in_one_database_each_see_only_their_own_rows(postgres_server):
    first, second = (PostgresStorage(postgres_server.url(SERVICE, event=new_event(postgres_server))) for _ in "ab")
    try:
        append(first, entry(), entry(valid=False))
        with first.write() as tx:
            assert tx.add_device("Mesa 1", "table", "1", NOW) == 1
            tx.add_round(1, NOW)
        with second.write() as tx:
            assert tx.add_device("Mesa 1", "table", "1", NOW) == 1  # each event numbers its own devices
        with second.read() as view:
            assert view.head() == (0, GENESIS) and list(view.records()) == []
            assert view.current_round() is None and [d.name for d in view.devices()] == ["Mesa 1"]
        with first.read() as view:
            assert view.head()[0] == 2 and view.current_round().number == 1
    finally:
        first.close()
        second.close()


def test_an_event_is_created_once_and_opened_only_if_it_exists(postgres_server, event):
    with pytest.raises(EventExists, match=event):
        PostgresStorage.create(postgres_server.url(OWNER, event=event), NewEvent("Again", None, NOW, "h", None))
    with pytest.raises(NotAnEvent, match="no such event"):
        PostgresStorage(postgres_server.url(SERVICE, event="never-made"))


def test_rows_are_read_back_as_written_with_the_same_hash(storage):
    written = append(
        storage,
        entry(),
        entry(
            words=("ÑANDÚ",),
            tiles=("ÑANDÚ",),
            valid=False,
            device_id=3,
            device_name="Mesa 3",
            role="table",
            table="3",
            idempotency_key="k-1",
            offline=True,
            device_time="2026-11-22T08:59:59.000Z",
            shown_round=0,
            second_lexicon_id="fise-2",
            second_lexicon_version="2",
            second_lexicon_checksum="6a" * 32,
            second_valid=True,
        ),
    )
    with storage.read() as view:
        read = list(view.records())
        assert view.record_by_key("k-1") == written[1]
        assert view.last_of_device(3) == (2, NOW)
    assert read == written and [row_hash(r) for r in read] == [r.hash for r in written]
    assert chain.verify_chain(read) is None


# -- append-only, in the database ------------------------------------------------------------


def test_the_service_role_may_not_change_the_record_and_the_trigger_refuses_its_owner(postgres_server, storage, event):
    append(storage, entry())
    # a TRUNCATE of the event's table reaches `records` by its foreign key (CASCADE): its trigger too
    for statement in (
        "UPDATE records SET valid = 0",
        "DELETE FROM records",
        "TRUNCATE records",
        "TRUNCATE events CASCADE",
    ):
        with postgres_server.connect(SERVICE) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(statement)
        with postgres_server.connect(OWNER) as conn, pytest.raises(psycopg.errors.RestrictViolation):
            conn.execute(statement)
    with postgres_server.connect(SERVICE) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("DELETE FROM events WHERE id = %s", (event,))
    with storage.read() as view:
        assert view.head()[0] == 1
    assert storage.chain_state(clock).guarded


@pytest.mark.parametrize("grantee", [SERVICE, WRITER])
@pytest.mark.parametrize("privilege", ["UPDATE", "DELETE", "TRUNCATE"])
def test_a_grant_that_would_let_the_service_change_the_record_is_an_unguarded_record(
    storage, postgres_server, grantee, privilege
):
    """The trigger is one of two locks: the service's role, and its group, are never granted
    UPDATE, DELETE or TRUNCATE of `records`. The owner granting one (to the role itself or to the
    group) leaves the record guarded by the trigger alone, which the record's state says: `guarded`
    false until it is revoked."""
    append(storage, entry())
    with postgres_server.connect(OWNER) as conn:
        conn.execute(f"GRANT {privilege} ON records TO {grantee}")
        try:
            assert not storage.chain_state(clock).guarded
        finally:
            conn.execute(f"REVOKE {privilege} ON records FROM {grantee}")
    assert storage.chain_state(clock).guarded


def test_an_edit_with_the_trigger_disabled_shows_in_the_chain_state(postgres_server, storage, event):
    rows = append(storage, entry(), entry(), entry())
    state = storage.chain_state(clock)
    assert state.intact and state.verified == 3 and state.last_hash == rows[-1].hash
    with postgres_server.connect(OWNER) as conn:
        conn.execute("ALTER TABLE records DISABLE TRIGGER records_append_only")
        try:
            assert not storage.chain_state(clock).guarded
            conn.execute("UPDATE records SET words = %s WHERE event_id = %s AND seq = 2", ('["CARRO","QUADRE"]', event))
        finally:
            conn.execute("ALTER TABLE records ENABLE TRIGGER records_append_only")
    state = storage.chain_state(clock)
    assert state.guarded and not state.intact
    assert state.broken.seq == 2 and state.broken.kind == "changed" and state.verified == 1


def settled(store: PostgresStorage, now=clock):
    """The state once the full verification off the request path, if one runs, has ended."""
    state = store.chain_state(now)
    if state.checking:
        assert store._verification.wait(timeout=120), "the verification did not end"
        state = store.chain_state(now)
    return state


def test_a_long_record_is_verified_whole_off_the_look_and_an_unguarded_edit_shows_after_one_sweep(
    postgres_server, storage, event, monkeypatch
):
    """A record longer than INLINE_ROWS is verified whole off the request path: the look that finds
    it due (the first, the record unguarded) answers at once, `checking`; an UPDATE of one row by the
    table's owner, its trigger disabled, is named at the first look after the sweep that look started."""
    monkeypatch.setattr(pg_verification, "INLINE_ROWS", 1)
    append(storage, entry(), entry(), entry())
    first = storage.chain_state(lambda: datetime(2026, 11, 22, 9, 0, tzinfo=UTC))
    assert first.checking and not first.intact and first.verified == 0
    state = settled(storage, lambda: datetime(2026, 11, 22, 9, 0, tzinfo=UTC))
    assert state.intact and state.checked.startswith("2026-11-22T09:00:00")
    append(storage, entry())
    added = storage.chain_state(clock)  # only the row added: verified in the look
    assert added.intact and added.verified == 4 and added.checked == state.checked
    with postgres_server.connect(OWNER) as conn:
        conn.execute("ALTER TABLE records DISABLE TRIGGER records_append_only")
        try:
            conn.execute("UPDATE records SET words = %s WHERE event_id = %s AND seq = 2", ('["CARRO","QUADRE"]', event))
            look = storage.chain_state(clock)
            assert not look.guarded and look.checking and not look.intact  # the look did not wait for it
            edited = settled(storage)
            assert not edited.guarded and edited.broken.seq == 2 and edited.verified == 1
        finally:
            conn.execute("ALTER TABLE records ENABLE TRIGGER records_append_only")


def test_an_edit_with_the_trigger_put_back_is_found_by_the_next_verification(
    postgres_server, storage, event, monkeypatch
):
    """Disable, UPDATE, enable again between two looks: nothing but PostgreSQL's count of rows
    updated says so, and the next look starts a sweep of the rows' fingerprints on it."""
    monkeypatch.setattr(pg_verification, "INLINE_ROWS", 1)
    append(storage, entry(), entry(), entry())
    assert settled(storage).intact
    assert not storage.chain_state(clock).checking  # nothing due: rows added since are verified in the look
    with postgres_server.connect(OWNER) as conn:
        conn.execute("ALTER TABLE records DISABLE TRIGGER records_append_only")
        conn.execute("UPDATE records SET words = %s WHERE event_id = %s AND seq = 2", ('["CARRO","QUADRE"]', event))
        conn.execute("ALTER TABLE records ENABLE TRIGGER records_append_only")
    # the editing session's statistics reach the server as it ends (or within a second while it idles)
    until(
        lambda: (lambda state: state.checking or state.broken)(storage.chain_state(clock)),
        "a look that finds PostgreSQL's count of rows updated moved",
    )
    state = settled(storage)
    assert state.guarded and state.broken.seq == 2


BIG = 50_000


def test_at_50000_rows_a_look_never_waits_for_the_verification_of_every_row(
    postgres_server, storage, event, monkeypatch
):
    """A console's look at a 50,000-row record returns while the verification of every row that it
    started is held (so its time cannot include it), and an edit by the table's owner (trigger
    disabled, one row updated) is named after one sweep of the rows' fingerprints, started by the
    next look off the request path, without verifying every row again."""
    with storage.write() as tx:  # rows made as the domain makes them, inserted at once
        rows, prev = [], GENESIS
        for seq in range(1, BIG + 1):
            rows.append(seal(seq, NOW, None, entry(), prev, 3))
            prev = rows[-1].hash
        tx.insert_records(rows)
    held, release, full = threading.Event(), threading.Event(), []
    real = pg_verification._full_check

    def holding(*args) -> None:
        full.append(1)
        held.set()
        assert release.wait(timeout=120)
        real(*args)

    monkeypatch.setattr(pg_verification, "_full_check", holding)
    try:
        look = storage.chain_state(clock)
        assert held.wait(timeout=60)  # the verification runs, and is held...
        assert look.checking and look.last == BIG and not look.intact  # ...and the look has answered
        again = storage.chain_state(clock)  # another look meanwhile neither waits nor starts another
        assert again.checking and storage._verification.running
    finally:
        release.set()
    assert storage._verification.wait(timeout=120)
    assert storage.chain_state(clock).intact
    with postgres_server.connect(OWNER) as conn:
        conn.execute("ALTER TABLE records DISABLE TRIGGER records_append_only")
        try:
            conn.execute(
                "UPDATE records SET words = %s WHERE event_id = %s AND seq = %s", ('["CARRO"]', event, BIG // 2)
            )
            assert storage.chain_state(clock).checking
            state = settled(storage)
            assert state.broken.seq == BIG // 2 and state.verified == BIG // 2 - 1
            assert len(full) == 1  # named by the sweep: every row was verified once, at the first look
        finally:
            conn.execute("ALTER TABLE records ENABLE TRIGGER records_append_only")


# -- one writer per event ----------------------------------------------------------------------


def _append_many(store: PostgresStorage, count: int, started, results) -> None:
    """In a child process: the parent's store object, with a pool of its own (made after the fork)."""
    started.wait()
    for _ in range(count):
        append(store, entry())
    store.close()
    results.put(count)


def test_appends_from_several_processes_make_one_chain(postgres_server, storage, event):
    append(storage, entry())  # the parent's pool is open before the fork: the children never use it
    context = multiprocessing.get_context("fork")
    started, results = context.Event(), context.Queue()
    children = [context.Process(target=_append_many, args=(storage, 25, started, results)) for _ in range(4)]
    for child in children:
        child.start()
    started.set()
    for child in children:
        child.join(120)
        assert child.exitcode == 0
    assert sorted(results.get(timeout=5) for _ in children) == [25] * 4
    append(storage, entry())  # the parent's connections still work after its children ended
    with storage.read() as view:
        rows = list(view.records())
    assert [r.seq for r in rows] == list(range(1, 103))
    assert chain.verify_chain(rows) is None


def test_a_writer_that_waited_for_the_lock_chains_on_the_row_committed_meanwhile(postgres_server, event):
    """The open round and the chain's head are read in the lock's round trip (store.py's write), but
    by statements of their own after it: a writer that waited for the lock reads the head its
    holder committed, not the one of the moment it asked (one statement's snapshot would be)."""
    url = postgres_server.url(SERVICE, event=event)
    first, second = PostgresStorage(url), PostgresStorage(url)
    holding, release, appended = threading.Event(), threading.Event(), []
    try:

        def holder() -> None:
            with first.write() as tx:
                holding.set()
                release.wait(30)
                tx.insert_records([seal(1, NOW, None, entry(), GENESIS, 3)])

        def waiter() -> None:
            appended.extend(append(second, entry()))

        threads = [threading.Thread(target=holder)]
        threads[0].start()
        assert holding.wait(30)
        threads.append(threading.Thread(target=waiter))
        threads[1].start()
        with postgres_server.connect() as watcher:  # the second writer waits for the event's row lock
            until(
                lambda: (
                    watcher.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE %s",
                        ("%FOR NO KEY UPDATE%",),
                    ).fetchone()[0]
                    == 1
                ),
                "the second writer waiting for the event's lock",
            )
        release.set()
        for thread in threads:
            thread.join(30)
        with first.read() as view:
            rows = list(view.records())
        assert [r.seq for r in rows] == [1, 2] and appended[0].prev == rows[0].hash
        assert chain.verify_chain(rows) is None
    finally:
        release.set()
        first.close()
        second.close()


# -- a statement's error held back by the pipeline -------------------------------------------


def test_a_statement_the_server_refuses_inside_a_write_fails_the_write_and_leaves_no_row(storage):
    """A write's statements ride psycopg's pipeline (store.py's write): the server's refusal of an
    INSERT (here a number the record already holds) reaches the client only as the pipeline is
    closed (connections.py's _closing), and must be raised there, the write refused whole."""
    first = append(storage, entry())[0]
    again = seal(1, NOW, None, entry(words=("MESA",), tiles=("MESA",)), GENESIS, 3)
    later = seal(2, NOW, None, entry(words=("GAT",), tiles=("GAT",)), first.hash, 3)
    with pytest.raises(StorageError, match="duplicate key"), storage.write() as tx:
        tx.insert_records([later])
        tx.insert_records([again])
    with storage.read() as view:
        assert [row.hash for row in view.records()] == [first.hash]
    assert [row.seq for row in append(storage, entry())] == [2]  # the connection serves again


def test_in_one_group_commit_a_request_whose_insert_the_server_refuses_fails_every_request(postgres_server, event):
    """As every store's group commit (record.py's _commit): an error that is no refusal of the
    domain's fails the whole transaction, the requests before it too (writer.py tells each).
    Here a trigger of the owner's refuses the second request's row on the server: with the
    pipeline, the client learns it only as the pipeline closes, after the body ran to its end."""
    from tournament import open_event
    from tournament.group_commit import Append

    trigger = f"refuse_{uuid.uuid4().hex[:12]}"
    with postgres_server.connect(OWNER) as conn:
        conn.execute(
            f"CREATE FUNCTION {trigger}() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'refused by the test''s trigger'; END $$"
        )
        conn.execute(
            f"CREATE TRIGGER {trigger} BEFORE INSERT ON records FOR EACH ROW "
            f"WHEN (NEW.event_id = '{event}' AND NEW.words LIKE '%MESA%') EXECUTE FUNCTION {trigger}()"
        )
    db = open_event(postgres_server.url(SERVICE, event=event), clock=clock)
    try:
        db.append(entry())
        first = Append([entry(words=("CASA",), tiles=("CASA",))])
        refused = Append([entry(words=("MESA",), tiles=("MESA",))])
        grouped = Append([entry(words=("GAT",), tiles=("GAT",)), entry(words=("MESA",), tiles=("MESA",))])
        for requests in ([first, refused], [first, grouped]):  # one play, and two
            with pytest.raises(StorageError, match="refused by the test's trigger"):
                db._commit(requests)
            assert [row.seq for row in db.records()] == [1]
        assert [row.seq for row in db.append_many([entry(words=("GAT",), tiles=("GAT",))])] == [2]
    finally:
        db.close()
        with postgres_server.connect(OWNER) as conn:
            conn.execute(f"DROP TRIGGER {trigger} ON records")
            conn.execute(f"DROP FUNCTION {trigger}()")


def round_trips(monkeypatch, tmp_path, store, *actions) -> list[int]:
    """How many times each action waits for the server, once the connection is made and warm (the
    first action only makes it): counted in libpq's trace of the connections `store` makes, each
    time the client sends (F) and then reads the server's answer (B) being one wait for it."""
    trace = tmp_path / "trace.txt"
    traced = []
    configure = pg_connections.configure

    def configure_traced(conn):
        configure(conn)
        out = trace.open("a")
        traced.append((conn, out))
        conn.pgconn.trace(out.fileno())

    store.close()
    monkeypatch.setattr(pg_connections, "configure", configure_traced)
    counts = []
    try:
        for action in actions:
            for conn, _ in traced:
                conn.pgconn.untrace()  # libpq's buffer written out
            start = trace.stat().st_size if trace.exists() else 0
            for conn, out in traced:
                conn.pgconn.trace(out.fileno())
            action()
            for conn, _ in traced:
                conn.pgconn.untrace()
            sent = trace.read_text()[start:]
            directions = [found.group(1) for found in re.finditer(r"^\S+ \S+\t([FB])\t", sent, re.M)]
            counts.append(sum(1 for pair in itertools.pairwise(directions) if pair == ("F", "B")))
            for conn, out in traced:
                conn.pgconn.trace(out.fileno())
    finally:
        store.close()
        for _, out in traced:
            out.close()
    return counts[1:]


def test_the_store_s_write_of_one_row_alone_is_two_round_trips_and_the_pool_s_check_of_its_connection(
    storage, monkeypatch, tmp_path
):
    """Round trips are what a verdict pays for in a busy worker: BEGIN, the lock's bound, the lock,
    the open round and the chain's head go in one; the insert goes with the COMMIT (psycopg's
    pipeline, store.py's write). Here the store's write alone, as this file's `append` drives it
    (no key looked up): the pool's check of the connection as it is taken (an empty query, outside
    a gevent worker only), the opening, the commit."""
    assert round_trips(
        monkeypatch, tmp_path, storage, lambda: append(storage, entry()), lambda: append(storage, entry())
    ) == [3]


def test_a_verdict_recorded_with_its_key_is_three_round_trips_and_a_device_s_last_key_none_more(
    postgres_server, event, monkeypatch, tmp_path
):
    """A verdict as the service records it (record.py): the write's opening and its commit, and
    between them one look for the idempotency keys of the group commit (its entries' and the
    devices' last keys, which the judge's page sends from its second verdict on: no look of
    their own) and its devices' tokens (a device read from a worker's cache: no look of its own
    either). Outside a gevent worker the pool checks the connection first (one more each)."""
    from tournament import open_event, token_hash

    db = open_event(postgres_server.url(SERVICE, event=event), clock=clock)
    try:
        keys = iter(range(1000))
        key = lambda: f"key-{next(keys)}"
        first = db.append_many([entry(idempotency_key=key())])[0]
        keyed = lambda: db.append_many([entry(idempotency_key=key())])
        after = lambda: db.append_many([entry(idempotency_key=key())], last_key=first.entry.idempotency_key)
        assert round_trips(monkeypatch, tmp_path, db._storage, keyed, keyed, after) == [1 + 3, 1 + 3]
        device, code = db.add_device("Juez 1", "judge")
        holder = (device.id, token_hash(db.pair(code)[1]))
        named = dict(device_id=device.id, device_name=device.name, role=device.role)
        held = lambda: db.append_many([entry(idempotency_key=key(), **named)], holder=holder)
        assert round_trips(monkeypatch, tmp_path, db._storage, keyed, held, held) == [1 + 3, 1 + 3]
    finally:
        db.close()


def test_a_device_read_by_its_token_is_one_round_trip_and_the_pool_s_check(
    postgres_server, event, monkeypatch, tmp_path
):
    """Every request of a device reads it by its token: one statement in autocommit, its own
    snapshot, with no BEGIN before it nor ROLLBACK after (a read transaction's two round trips,
    three outside a gevent worker, where its BEGIN is not sent with its statement); outside a
    gevent worker the pool checks the connection first (one more)."""
    from tournament import open_event

    db = open_event(postgres_server.url(SERVICE, event=event), clock=clock)
    try:
        device, code = db.add_device("Juez 1", "judge")
        _, token = db.pair(code)
        read = lambda: db.device_by_token(token)
        assert read().id == device.id
        unknown = lambda: db.device_by_token("not a token")
        assert round_trips(monkeypatch, tmp_path, db._storage, read, read, unknown) == [1 + 1, 1 + 1]
    finally:
        db.close()


def test_the_open_round_read_is_one_round_trip_and_the_pool_s_check(postgres_server, event, monkeypatch, tmp_path):
    """A table's device reads the open round as each of its challenges is admitted, and every page
    with its heartbeat: one statement in autocommit, as the device's read by its token."""
    from tournament import open_event

    db = open_event(postgres_server.url(SERVICE, event=event), clock=clock)
    try:
        read = lambda: db.current_round()
        assert read() is None
        db.open_round()
        assert round_trips(monkeypatch, tmp_path, db._storage, read, read) == [1 + 1]
        assert db.current_round().number == 1
    finally:
        db.close()


def test_a_lock_held_elsewhere_is_waited_for_within_the_bound_and_holds_up_no_other_event(
    postgres_server, storage, event, monkeypatch
):
    monkeypatch.setattr(pg_store, "BUSY_SECONDS", 0.5)
    other = PostgresStorage(postgres_server.url(SERVICE, event=new_event(postgres_server)))
    try:
        with postgres_server.connect(SERVICE) as holder:
            holder.execute("BEGIN")
            holder.execute("SELECT 1 FROM events WHERE id = %s FOR NO KEY UPDATE", (event,))
            with pytest.raises(LockBusy, match=r"not free within 0\.5 s"):
                append(storage, entry())
            append(other, entry())  # another event's writer takes its own lock
            holder.execute("ROLLBACK")
        append(storage, entry())
        with storage.read() as view:
            assert view.head()[0] == 1  # the refused append wrote nothing
    finally:
        other.close()


def test_a_write_opened_read_only_is_refused(postgres_server, event):
    store = PostgresStorage(postgres_server.url(SERVICE, event=event), readonly=True)
    with pytest.raises(ReadOnly), store.write():
        pass
    store.close()


def test_a_database_that_does_not_answer_is_a_storage_error():
    with pytest.raises(StorageError, match="database failed") as refused:
        PostgresStorage(f"postgresql://lexicon:pw@127.0.0.1:{free_port()}/lexicon?event=open")
    assert "pw" not in str(refused.value)


# -- migrations ---------------------------------------------------------------------------------


def test_the_schema_is_made_by_the_owner_once_and_a_newer_one_is_refused(postgres_server):
    database = postgres_server.create_database(f"m{uuid.uuid4().hex[:12]}")
    with pytest.raises(NotAnEvent, match="lexicon event init"):
        PostgresStorage.create(postgres_server.url(SERVICE, database, event="a"), NewEvent("A", None, NOW, "h", None))
    PostgresStorage.create(postgres_server.url(OWNER, database, event="a"), NewEvent("A", None, NOW, "h", None))
    PostgresStorage.create(postgres_server.url(SERVICE, database, event="b"), NewEvent("B", None, NOW, "h", None))
    with postgres_server.connect(OWNER, database) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(pg_store.VERSION,)]
        conn.execute("UPDATE schema_version SET version = version + 1")
    with pytest.raises(NotAnEvent, match="newer than this program"):
        PostgresStorage(postgres_server.url(SERVICE, database, event="a"))


def test_a_schema_2_database_s_offline_rows_verify_and_are_marked_once_migrated(postgres_server):
    """Rows written before the shown verdict (schema 2: offline rows of formats 2 and 4) read back
    as they were once the owner migrates the database, verify, and are named as not
    saying what the phone showed; a new row then says it (format 5)."""
    from tournament import open_event, stamp, unknown_shown

    database = postgres_server.create_database(f"s{uuid.uuid4().hex[:12]}")
    owner = postgres_server.url(OWNER, database, event="open")
    PostgresStorage.create(owner, NewEvent("Open", "ca", NOW, "scrypt$hash", None))
    offline = dict(offline=True, device_time=stamp(clock()))
    db = open_event(postgres_server.url(SERVICE, database, event="open"), clock=clock)
    old = [
        db.append(entry(idempotency_key="k-1", **offline)),
        db.append(entry(idempotency_key="k-2", shown_round=0, **offline)),
    ]
    db.close()
    with postgres_server.connect(OWNER, database) as conn:  # as schema 2 left it
        conn.execute("ALTER TABLE records DROP COLUMN shown_valid")
        conn.execute("DROP TABLE unshown_seconds")  # schema 8's
        conn.execute("DROP TABLE refused_keys")  # schema 7's
        conn.execute("DROP TABLE refused_offline")  # schema 4's
        conn.execute("ALTER TABLE events DROP COLUMN lexicon_language")  # schema 6's
        conn.execute("UPDATE schema_version SET version = 2")
    assert [r.format for r in old] == [2, 4]
    migrated = open_event(owner, clock=clock)
    try:
        assert list(migrated.records()) == old and migrated.verify() is None
        new = migrated.append(entry(idempotency_key="k-3", shown_valid=True, **offline))
        assert new.format == 5 and migrated.verify() is None
        assert list(unknown_shown(migrated.records())) == [1, 2]
    finally:
        migrated.close()
    with postgres_server.connect(OWNER, database) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(pg_store.VERSION,)]


def test_a_schema_4_database_s_refused_offline_verdicts_are_counted_as_showing_another_verdict(postgres_server):
    """Schema 4 counted only the offline verdicts refused for the verdict their phone showed:
    migrated to 5 by the owner, its counts are those (`verdict`), and a refusal for another list
    counts apart, as the event file's schema 14 does."""
    from tests.tournament.conftest import OLD_REFUSED, counted_apart_once_migrated
    from tournament import open_event

    database = postgres_server.create_database(f"s{uuid.uuid4().hex[:12]}")
    owner = postgres_server.url(OWNER, database, event="open")
    PostgresStorage.create(owner, NewEvent("Open", "ca", NOW, "scrypt$hash", None))
    db = open_event(postgres_server.url(SERVICE, database, event="open"), clock=clock)
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    db.close()
    with postgres_server.connect(OWNER, database) as conn:  # as schema 4 left it, with one device's two refusals
        conn.execute("DROP TABLE unshown_seconds")  # schema 8's
        conn.execute("DROP TABLE refused_keys")  # schema 7's
        conn.execute("DROP TABLE refused_offline")
        conn.execute(pg_schema.MIGRATIONS[3])
        conn.execute(
            "INSERT INTO refused_offline VALUES ('open', %s, %s, %s, %s, %s, %s)", (judge.id, *astuple(OLD_REFUSED))
        )
        conn.execute("ALTER TABLE events DROP COLUMN lexicon_language")  # schema 6's
        conn.execute("UPDATE schema_version SET version = 4")
    migrated = open_event(owner, clock=clock)
    try:
        counted_apart_once_migrated(migrated, judge.id)
    finally:
        migrated.close()
    with postgres_server.connect(OWNER, database) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(pg_store.VERSION,)]


def test_a_schema_5_database_s_pins_are_read_without_their_language_until_their_list_gives_it(postgres_server):
    """Schema 5 kept no pinned list's language: migrated to 6 by the owner, a pin reads as it was,
    its language unknown (to a service of every event too: `pinned_events`), until the same bytes
    are pinned with theirs, as the event file's schema 15 does."""
    from tests.tournament.conftest import PINNED, given_its_language_once_migrated
    from tournament import open_event, pinned_events

    database = postgres_server.create_database(f"s{uuid.uuid4().hex[:12]}")
    owner = postgres_server.url(OWNER, database, event="open")
    PostgresStorage.create(owner, NewEvent("Open", "ca-mini", NOW, "scrypt$hash", PINNED))
    with postgres_server.connect(OWNER, database) as conn:  # as schema 5 left it
        conn.execute("DROP TABLE unshown_seconds")  # schema 8's
        conn.execute("DROP TABLE refused_keys")  # schema 7's
        conn.execute("ALTER TABLE events DROP COLUMN lexicon_language")
        conn.execute("UPDATE schema_version SET version = 5")
    migrated = open_event(owner, clock=clock)
    try:
        [before] = pinned_events(postgres_server.url(SERVICE, database))
        assert (before.checksum, before.language) == (PINNED.checksum, None)
        given_its_language_once_migrated(migrated)
        [after] = pinned_events(postgres_server.url(SERVICE, database))
        assert (after.event_id, after.checksum, after.language) == ("open", PINNED.checksum, "ca")
    finally:
        migrated.close()
    with postgres_server.connect(OWNER, database) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(pg_store.VERSION,)]


def test_a_schema_6_database_s_latest_refused_keys_are_kept_once_migrated(postgres_server):
    """Schema 6 kept each device's latest refused key per reason only: migrated to 7 by the owner,
    those are kept as refused keys, and every one refused from then on beside them, as the event
    file's schema 16 does."""
    from tests.tournament.conftest import OLD_REFUSED, latest_keys_kept_once_migrated
    from tournament import open_event

    database = postgres_server.create_database(f"s{uuid.uuid4().hex[:12]}")
    owner = postgres_server.url(OWNER, database, event="open")
    PostgresStorage.create(owner, NewEvent("Open", "ca", NOW, "scrypt$hash", None))
    db = open_event(postgres_server.url(SERVICE, database, event="open"), clock=clock)
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    db.close()
    with postgres_server.connect(OWNER, database) as conn:  # as schema 6 left it, with one device's two refusals
        conn.execute("DROP TABLE unshown_seconds")  # schema 8's
        conn.execute("DROP TABLE refused_keys")
        conn.execute(
            "INSERT INTO refused_offline (event_id, device_id, reason, count, key, shown_round, device_time, time) "
            "VALUES ('open', %s, 'verdict', %s, %s, %s, %s, %s)",
            (judge.id, *astuple(OLD_REFUSED)),
        )
        conn.execute("UPDATE schema_version SET version = 6")
    migrated = open_event(owner, clock=clock)
    try:
        latest_keys_kept_once_migrated(migrated, judge.id)
    finally:
        migrated.close()
    with postgres_server.connect(OWNER, database) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(pg_store.VERSION,)]


def test_a_schema_7_database_has_no_unshown_second_opinions_until_one_is_marked(postgres_server):
    """Schema 7 marked no second opinion as never shown: migrated to 8 by the owner, none is, and a
    row is then marked as any, as the event file's schema 17 does."""
    from tests.tournament.conftest import marks_unshown_seconds_once_migrated
    from tournament import open_event

    database = postgres_server.create_database(f"s{uuid.uuid4().hex[:12]}")
    owner = postgres_server.url(OWNER, database, event="open")
    PostgresStorage.create(owner, NewEvent("Open", "ca", NOW, "scrypt$hash", None))
    db = open_event(postgres_server.url(SERVICE, database, event="open"), clock=clock)
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    db.close()
    with postgres_server.connect(OWNER, database) as conn:  # as schema 7 left it
        conn.execute("DROP TABLE unshown_seconds")
        conn.execute("UPDATE schema_version SET version = 7")
    migrated = open_event(owner, clock=clock)
    try:
        marks_unshown_seconds_once_migrated(migrated, judge.id)
    finally:
        migrated.close()
    with postgres_server.connect(OWNER, database) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(pg_store.VERSION,)]


@pytest.mark.postgres
def test_a_database_restarted_is_used_again_without_reopening_the_event():
    folder = Path(tempfile.mkdtemp(prefix="lexicon-postgres-"))
    server = PostgresServer(folder)
    try:
        event = new_event(server)
        store = PostgresStorage(server.url(SERVICE, event=event, tcp=True))
        append(store, entry())
        server.stop()
        with pytest.raises(StorageError, match="database failed"):
            append(store, entry())
        server.start()
        append(store, entry())
        with store.read() as view:
            assert view.head()[0] == 2
        store.close()
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


GEVENT_WORKER = """
import sys, time
from tournament.stores.postgres.store import PostgresStorage  # imported first, as in gunicorn's master
from gevent import monkey
monkey.patch_all()  # then the worker patches
import gevent

store = PostgresStorage(sys.argv[1])
ticks = []

def tick():
    while True:
        ticks.append(time.monotonic())
        gevent.sleep(0.01)

def slow():
    with store.read() as view:
        started = time.monotonic()
        view.conn.execute("SELECT pg_sleep(0.5)")
        return started, time.monotonic()

ticker = gevent.spawn(tick)
started, ended = gevent.spawn(slow).get()
ticker.kill()
print(sum(started < t < ended for t in ticks))
"""


def test_a_gevent_worker_s_other_connections_go_on_while_one_waits_for_the_database(postgres_server, event):
    """Psycopg, imported in gunicorn's master before a gevent worker patches `select`, waits in C,
    which would hold the worker's loop for every round trip: a greenlet's statements run in native
    threads (connections.py), and psycopg's own wait is left as psycopg chose it."""
    done = subprocess.run(
        [sys.executable, "-c", GEVENT_WORKER, postgres_server.url(SERVICE, event=event)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 20  # ~50 ticks of 10 ms in the half second the query waited


def test_the_server_ends_a_stuck_statement_or_a_transaction_left_open(storage):
    """An instance that stops answering mid-transaction (its machine off) would hold the event's
    lock until TCP noticed, hours later: the server ends such a transaction, and any statement, after
    STUCK_SECONDS."""
    with storage.read() as view:
        shown = [
            view.conn.execute(f"SHOW {name}").fetchone()[0]
            for name in ("statement_timeout", "idle_in_transaction_session_timeout")
        ]
    assert shown == [f"{pg_connections.STUCK_SECONDS}s"] * 2


def test_a_commit_is_durable_even_where_the_role_s_default_is_not(postgres_server, event):
    """`synchronous_commit` off (a server's or a role's default, set for speed) would answer a
    verdict whose row a crash of the database loses: every connection sets it on."""
    with postgres_server.connect() as conn:
        conn.execute(f"ALTER ROLE {SERVICE} SET synchronous_commit = off")
    store = PostgresStorage(postgres_server.url(SERVICE, event=event))
    try:
        with postgres_server.connect(SERVICE) as plain:
            assert plain.execute("SHOW synchronous_commit").fetchone()[0] == "off"  # the role's default holds
        with store.read() as view:
            assert view.conn.execute("SHOW synchronous_commit").fetchone()[0] == "on"
        with store.write() as tx:
            assert tx.conn.execute("SHOW synchronous_commit").fetchone()[0] == "on"
    finally:
        store.close()
        with postgres_server.connect() as conn:
            conn.execute(f"ALTER ROLE {SERVICE} RESET synchronous_commit")


def test_a_row_filed_after_its_round_s_final_head_is_shown_broken_as_the_chain_says(postgres_server):
    """As in the event file (test_sqlite_file.py): a row filed in round 1 after its final head
    (the round reopened by hand for one append) breaks the chain, and a row shown says so too."""
    from tournament import create_event

    from .conftest import PASSWORD, Clock

    event, ticking = f"t-{uuid.uuid4().hex[:16]}", Clock()
    db = create_event(postgres_server.url(OWNER, event=event), "Open", PASSWORD, lexicon="ca", clock=ticking)
    try:
        db.open_round(1)
        first = db.append(entry())
        closed = db.close_round()
        assert closed.head_final and closed.head_seq == first.seq
        ticking.advance(minutes=1)
        outside = db.append(entry())
        with postgres_server.connect(OWNER) as conn:
            conn.execute("UPDATE rounds SET closed = NULL WHERE event_id = %s AND number = 1", (event,))
        late = db.append(entry())
        with postgres_server.connect(OWNER) as conn:
            conn.execute("UPDATE rounds SET closed = %s WHERE event_id = %s AND number = 1", (closed.closed, event))
        assert late.round == 1 and db.verify().kind == "after-final"
        assert db.intact_rows([first, outside, late]) == {1: True, 2: True, 3: False}
    finally:
        db.close()


def test_rows_this_process_verified_deleted_from_the_tail_or_chained_again_stay_a_break(
    postgres_server, storage, event
):
    """The owner, the trigger disabled, deletes the record's last rows: the chain still verifies up
    to its new head, but a process that had verified them says so at every look (as the event
    file's), and still when other rows are chained in their place. A new process (or `lexicon
    records verify`) sees only the chain: the round heads on paper and the phones' last keys are
    what show it then (docs/tournament.md, Threat model)."""
    append(storage, entry(), entry(), entry())
    assert storage.chain_state(clock).intact
    with postgres_server.connect(OWNER) as conn:
        conn.execute("ALTER TABLE records DISABLE TRIGGER records_append_only")
        conn.execute("DELETE FROM records WHERE event_id = %s AND seq = 3", (event,))
        conn.execute("ALTER TABLE records ENABLE TRIGGER records_append_only")
    for _ in range(2):  # at every look, not only the first
        state = storage.chain_state(clock)
        assert state.guarded and not state.intact and state.last == 2
        assert (state.broken.kind, state.broken.seq, dict(state.broken.facts)["last"]) == ("verified-deleted", 3, 3)
    append(storage, entry(valid=False))  # another row 3, chained to row 2: the chain verifies
    state = storage.chain_state(clock)
    assert not state.intact and (state.broken.kind, state.broken.seq) == ("edited", 3)
    fresh = PostgresStorage(postgres_server.url(SERVICE, event=event))
    try:
        assert fresh.chain_state(clock).intact  # the chain alone
    finally:
        fresh.close()


def _assert_named(postgres_server, user: str, said: str | None, event: str, database: str = DATABASE) -> None:
    """What the store opened as `user` (on `event`) and the service's check before it serves (the
    database's URL) each say of whether `user` could switch the record's guard off."""
    storage = PostgresStorage(postgres_server.url(user, database, event=event), readonly=True)
    try:
        assert storage.may_alter_guard() == said, (database, user)
    finally:
        storage.close()
    assert pg_store.may_alter_guard(postgres_server.url(user, database)) == said, (database, user)


def test_a_role_that_could_switch_off_the_guard_is_named_and_the_instances_role_is_not(postgres_server, event):
    """Whether the role a URL connects as could drop or disable the record's append-only trigger
    (and so rewrite the record unseen), as the service asks before it serves (service/event/opening.py):
    the database's owner, a role that may SET ROLE to it, a superuser, the owner of the record's
    table (here one that is not the database's), each named; the instances' role not."""
    member, maker = (f"{kind}_{uuid.uuid4().hex[:12]}" for kind in ("m", "t"))
    database = f"g_{uuid.uuid4().hex[:12]}"
    with postgres_server.connect(database="postgres") as conn:
        conn.execute(f"CREATE ROLE {member} LOGIN IN ROLE {OWNER}")
        conn.execute(f"CREATE ROLE {maker} LOGIN")
    postgres_server.create_database(database)
    with postgres_server.connect(OWNER, database) as conn:
        conn.execute(f"GRANT CREATE ON SCHEMA public TO {maker}")
    PostgresStorage.create(postgres_server.url(maker, database, event="a"), NewEvent("A", None, NOW, "h", None))
    answers = [
        (DATABASE, SERVICE, None),
        (DATABASE, OWNER, f"{OWNER}, which owns the database"),
        (DATABASE, "postgres", "postgres, a superuser"),
        (DATABASE, member, f"{member}, a member of {OWNER}, which owns the database"),
        (database, maker, f"{maker}, which owns the record's table"),
    ]
    for where, user, said in answers:
        _assert_named(postgres_server, user, said, event if where == DATABASE else "a", where)
    # the database's owner there may not even read the tables (no grant), yet could drop them
    assert pg_store.may_alter_guard(postgres_server.url(OWNER, database)) == f"{OWNER}, which owns the database"


def test_a_role_owning_nothing_that_may_keep_the_trigger_from_firing_is_named(postgres_server, event):
    """No trigger fires in a session whose session_replication_role is `replica`: a role that may set
    it (granted SET ON PARAMETER by a superuser, from PostgreSQL 15, or a member of a role that is),
    or whose sessions start with it (a superuser's ALTER ROLE … SET), owns nothing, yet with a grant
    of DELETE on `records` deletes rows past the append-only trigger. Each is named, as the owner is."""
    setter, member, started = (f"{kind}_{uuid.uuid4().hex[:12]}" for kind in ("s", "m", "r"))
    with postgres_server.connect(database="postgres") as conn:
        conn.execute(f"CREATE ROLE {setter} LOGIN IN ROLE {WRITER}")
        conn.execute(f"GRANT SET ON PARAMETER session_replication_role TO {setter}")
        conn.execute(f"CREATE ROLE {member} LOGIN IN ROLE {setter}")
        conn.execute(f"CREATE ROLE {started} LOGIN IN ROLE {WRITER}")
        conn.execute(f"ALTER ROLE {started} SET session_replication_role = replica")
    why = "may set session_replication_role, and so keep any trigger from firing in its sessions"
    answers = [
        (setter, f"{setter}, which {why}"),
        (member, f"{member}, a member of {setter}, which {why}"),
        (started, f"{started}, whose sessions start with session_replication_role replica, where no trigger fires"),
    ]
    for user, said in answers:
        _assert_named(postgres_server, user, said, event)
    # why: granted DELETE by the owner, the role deletes a row the trigger refuses to everyone else
    storage = PostgresStorage(postgres_server.url(SERVICE, event=event))
    try:
        append(storage, entry())
    finally:
        storage.close()
    with postgres_server.connect(OWNER) as conn:
        conn.execute(f"GRANT DELETE ON records TO {setter}")
    try:
        with postgres_server.connect(setter) as conn:
            with pytest.raises(psycopg.errors.RestrictViolation):
                conn.execute("DELETE FROM records WHERE event_id = %s", (event,))
            conn.execute("SET session_replication_role = replica")
            assert conn.execute("DELETE FROM records WHERE event_id = %s", (event,)).rowcount == 1
    finally:
        with postgres_server.connect(OWNER) as conn:
            conn.execute(f"REVOKE DELETE ON records FROM {setter}")


def test_a_role_that_may_become_one_that_could_switch_off_the_guard_is_named(postgres_server, event):
    """A role owning nothing that may make itself the owner, a superuser, or the server's own user:
    one with CREATEROLE before PostgreSQL 16 (it grants itself the owner's role), a member of a
    superuser role (SET ROLE to it), a member of pg_execute_server_program (runs programs as the
    server) or of pg_write_server_files (writes its files: its data, its configuration). Each is
    named, as the owner is."""
    creator, runner, writer, lifted = (f"{kind}_{uuid.uuid4().hex[:12]}" for kind in ("c", "x", "w", "s"))
    with postgres_server.connect(database="postgres") as conn:
        conn.execute(f"CREATE ROLE {creator} LOGIN CREATEROLE IN ROLE {WRITER}")
        conn.execute(f"CREATE ROLE {lifted} LOGIN IN ROLE {WRITER}, postgres")
        conn.execute(f"CREATE ROLE {runner} LOGIN IN ROLE {WRITER}, pg_execute_server_program")
        conn.execute(f"CREATE ROLE {writer} LOGIN IN ROLE {WRITER}, pg_write_server_files")
        version = conn.info.server_version
    answers = [
        (runner, f"{runner}, a member of pg_execute_server_program, which may run programs as the database's server"),
        (writer, f"{writer}, a member of pg_write_server_files, which may write files as the database's server"),
        (creator, f"{creator}, which has CREATEROLE and so may make itself a member of any role but a superuser"),
        (lifted, f"{lifted}, a member of postgres, a superuser"),
    ]
    for user, said in answers:
        _assert_named(postgres_server, user, None if user == creator and version >= 160000 else said, event)
    with postgres_server.connect(lifted) as conn:  # why: as the superuser, no trigger is beyond it
        conn.execute("SET ROLE postgres")
        assert conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0]
    if version < 160000:  # why: it makes itself a member of the owner, which may disable the trigger
        with postgres_server.connect(creator) as conn:
            conn.execute(f"GRANT {OWNER} TO {creator}")
        assert pg_store.may_alter_guard(postgres_server.url(creator)) == (
            f"{creator}, a member of {OWNER}, which owns the database"
        )


def test_two_copies_of_one_event_restored_at_once_under_two_ids_leave_one_live(postgres_server, tmp_path, monkeypatch):
    """A restore (or a move) into a database is refused while the database holds the event live
    under another id (transfer.py's checks, inside the copy's transaction). Two copies of one event
    restored at the same moment under two ids each passed those checks before the other committed,
    and the database held two live copies. The copies now take turns from their checks to their
    commit: each check below lets the other copy go on until it has checked too (the race) or
    waits for the copy's lock (the turns), and only one copy is made."""
    from tournament import CopyRefused, copy_event, create_event, open_event, transfer

    from .conftest import PASSWORD

    database = postgres_server.create_database(f"s{uuid.uuid4().hex[:12]}")
    PostgresStorage.create(postgres_server.url(OWNER, database, event="other"), NewEvent("A", None, NOW, "h", None))
    hall, backup = tmp_path / "open.db", tmp_path / "copy.db"
    create_event(hall, "Open de Lleida 2026", PASSWORD).close()
    copy_event(hall, backup, "backup")
    checked = {name: threading.Event() for name in ("r1", "r2")}
    original = transfer._refuse_twin

    def waiting_for_the_copy_lock() -> bool:
        with postgres_server.connect(OWNER, database) as conn:
            return (
                conn.execute(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                    "AND (classid::bigint << 32) + objid::bigint = %s",
                    (pg_schema.COPY_LOCK,),
                ).fetchone()[0]
                > 0
            )

    def refuse_twin(found, event, into):
        original(found, event, into)
        me = threading.current_thread().name
        checked[me].set()
        (other,) = set(checked) - {me}
        until(
            lambda: checked[other].is_set() or waiting_for_the_copy_lock(),
            "the other copy to pass its checks too, or to wait for its turn",
        )

    monkeypatch.setattr(transfer, "_refuse_twin", refuse_twin)
    outcomes = {}

    def restore(name):
        try:
            copy_event(backup, postgres_server.url(OWNER, database, event=name), "restore")
            outcomes[name] = "made"
        except CopyRefused as refused:
            outcomes[name] = str(refused)

    threads = [threading.Thread(target=restore, args=(name,), name=name) for name in checked]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    made = [name for name, outcome in outcomes.items() if outcome == "made"]
    assert len(outcomes) == 2 and len(made) == 1, outcomes
    (refused,) = set(checked) - set(made)
    assert "nothing was written" in outcomes[refused]
    with pytest.raises(NotAnEvent):
        open_event(postgres_server.url(OWNER, database, event=refused), readonly=True)
