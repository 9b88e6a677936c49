"""Whoever holds the laptop is the director: `lexicon event password` and `lexicon event login`
work while the service runs, whatever the limits on wrong passwords; `event init` pins the event's
lexicon by checksum."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from lexicon.lexfile import Lexicon
from service import create_app
from tests.service.conftest import ES_WORDS
from tests.support import LiveServer, compile_list
from tournament import open_event

from ..service.test_reload import reload
from .test_event import LEXICON_ENV, run

SAME = {"Origin": "http://localhost"}
PASSWORD = "una-clave-larga-2026"


@pytest.fixture
def running(tmp_path):
    """An event file and the service running on it (in this process: the file is open to write)."""
    path, mini = tmp_path / "open.db", compile_list(tmp_path / "es-mini.lex", ES_WORDS, "es", "es-mini", "Mini")
    made = run("event", "init", path, "--name", "Open", "--lexicon", mini, env={LEXICON_ENV: PASSWORD})
    assert made.exit_code == 0, made.stderr
    return path, create_app({"TESTING": True, "LEXICON_FILES": [str(mini)], "LEXICON_EVENT": str(path)})


def lock_out(app):
    """Wrong passwords from two addresses: each locked, and everyone with them."""
    for address in ("192.168.1.66", "192.168.1.67"):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = address
        for _ in range(5):
            client.post("/v1/director/session", json={"password": "wrong-wrong-wrong"}, headers=SAME)


def test_init_pins_the_events_lexicon_by_checksum(tmp_path):
    lexicon = compile_list(tmp_path / "mi-ca.lex", ["CASA", "CAVALL"], "ca", "mi-ca", "Mi català")
    made = run("event", "init", tmp_path / "e2.db", "--name", "Open", "--lexicon", lexicon)
    assert made.exit_code == 0, made.stderr
    pin = open_event(tmp_path / "e2.db").event().pin
    checksum = Lexicon.open(lexicon).checksum
    assert (pin.id, pin.checksum, pin.file, pin.by, pin.language) == ("mi-ca", checksum, str(lexicon), "init", "ca")


def test_login_prints_a_one_time_link_that_signs_in_whatever_the_lockout(running):
    path, app = running
    lock_out(app)
    hall = app.test_client()
    hall.environ_base["REMOTE_ADDR"] = "192.168.1.68"  # the laptop's own browser is never held by the hall's limit
    locked = hall.post("/v1/director/session", json={"password": PASSWORD}, headers=SAME)
    assert locked.status_code == 429
    printed = run("event", "login", path, "--url", "https://judge.lan:8243/")
    assert printed.exit_code == 0, printed.stderr
    link = printed.stdout.strip()
    token = re.fullmatch(r"https://judge\.lan:8243/director#login=([A-Za-z0-9_-]{43})", link).group(1)
    laptop = app.test_client()
    assert laptop.post("/v1/director/link", json={"token": token}, headers=SAME).status_code == 201
    assert laptop.get("/v1/devices").status_code == 200
    assert app.test_client().post("/v1/director/link", json={"token": token}, headers=SAME).status_code == 401
    with sqlite3.connect(path) as conn:
        assert token not in str(conn.execute("SELECT * FROM login_links").fetchall())


def _signs_in(server, prefix: str, printed) -> int:
    """The status of the director's sign-in, at `prefix` on `server`, with the link `printed`."""
    token = printed.stdout.strip().rsplit("=", 1)[1]
    status, _, _ = server.request(
        "POST",
        f"{prefix}/v1/director/link",
        json.dumps({"token": token}).encode(),
        {"Content-Type": "application/json", "Origin": server.url},
    )
    return status


@pytest.fixture
def laptop(tmp_path, monkeypatch):
    """An event file, and a folder of its own for the addresses of the services running here."""
    runtime = tmp_path / "run"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))  # this test's servers only, not the machine's
    path = tmp_path / "open.db"
    assert run("event", "init", path, "--name", "Open", env={LEXICON_ENV: PASSWORD}).exit_code == 0
    return path, runtime


def test_login_with_no_service_running_says_which_address_it_assumed(laptop):
    path, _ = laptop
    alone = run("event", "login", path, env={"LEXICON_PORT": "8090"})
    assert alone.exit_code == 0 and alone.stdout.startswith("http://127.0.0.1:8090/director#login=")
    assert alone.stderr.startswith(
        "linking to http://127.0.0.1:8090/: LEXICON_HOST and LEXICON_PORT, as no "
        "`lexicon serve` was found running on this laptop; --url gives another address\n"
    )


@pytest.mark.server
def test_login_links_to_the_port_the_running_service_listens_on(laptop, tmp_path):
    """`lexicon serve --port` elsewhere than LEXICON_PORT: the link goes to the port it listens on
    (it records its address where `lexicon reload` finds it); stopped, to the settings' again."""
    path, runtime = laptop
    mini = compile_list(tmp_path / "es-mini.lex", ES_WORDS, "es", "es-mini", "Mini")
    with LiveServer(tmp_path, [mini], LEXICON_EVENT=str(path), XDG_RUNTIME_DIR=str(runtime)) as server:
        printed = run("event", "login", path)
        assert printed.exit_code == 0, printed.stderr
        assert printed.stdout.startswith(f"http://127.0.0.1:{server.port}/director#login=")
        assert (
            f"linking to http://127.0.0.1:{server.port}/: the `lexicon serve` of {path} running on this laptop"
            in printed.stderr
        )
        assert _signs_in(server, "", printed) == 201  # the link works on the service it names
    assert not list(runtime.rglob("*.address.json"))  # a stopped service takes its address with it
    after = run("event", "login", path)
    assert after.stdout.startswith("http://127.0.0.1:8000/director#login=")


@pytest.mark.server
def test_with_several_services_running_the_link_goes_to_the_one_serving_this_event(laptop, tmp_path):
    """`make run` on one port and the event on another: the event's own service is the one linked,
    whatever LEXICON_PORT says (each `lexicon serve` records the event file it serves)."""
    path, runtime = laptop
    mini = compile_list(tmp_path / "es-mini.lex", ES_WORDS, "es", "es-mini", "Mini")
    with (
        LiveServer(tmp_path, [mini], XDG_RUNTIME_DIR=str(runtime)) as plain,
        LiveServer(tmp_path, [mini], LEXICON_EVENT=str(path), XDG_RUNTIME_DIR=str(runtime)) as event,
    ):
        printed = run("event", "login", path, env={"LEXICON_PORT": str(plain.port)})
        assert printed.exit_code == 0, printed.stderr
        assert printed.stdout.startswith(f"http://127.0.0.1:{event.port}/director#login="), (plain.port, printed)
        assert f"the `lexicon serve` of {path} running on this laptop" in printed.stderr
        other = tmp_path / "otro.db"  # an event no service runs: no link to another event's console
        made = run("event", "init", other, "--name", "Otro", "--lexicon", mini, env={LEXICON_ENV: PASSWORD})
        assert made.exit_code == 0, made.stderr
        elsewhere = run("event", "login", other, env={"LEXICON_PORT": "8090"})
        assert elsewhere.stdout.startswith("http://127.0.0.1:8090/director#login="), elsewhere
        assert f"no `lexicon serve` of {other} runs on this laptop" in elsewhere.stderr
        # the `make run` beside it serves no event: said so, not "another event"
        assert f"(those running serve other events on port {event.port}; no event on port {plain.port})" in (
            elsewhere.stderr
        )
        # `lexicon reload` onto the other file: the link follows the service to it
        reloaded = reload(event.port, LEXICON_EVENT=str(other), XDG_RUNTIME_DIR=str(runtime))
        assert reloaded.returncode == 0, reloaded.stderr
        followed = run("event", "login", other, env={"LEXICON_PORT": "8090"})
        assert followed.stdout.startswith(f"http://127.0.0.1:{event.port}/director#login="), followed


def test_password_sets_a_new_one_ends_sessions_and_the_lockout(running):
    path, app = running
    director = app.test_client()
    assert director.post("/v1/director/session", json={"password": PASSWORD}, headers=SAME).status_code == 201
    lock_out(app)
    changed = run("event", "password", path)
    assert changed.exit_code == 0, changed.stderr
    new = changed.stdout.strip()
    assert len(new) >= 12 and new != PASSWORD and "\n" not in new
    assert director.get("/v1/devices").status_code == 401  # every session ended
    assert director.post("/v1/director/session", json={"password": new}, headers=SAME).status_code == 201
    given = run("event", "password", path, env={LEXICON_ENV: "otra-clave-larga-2026"})
    assert given.exit_code == 0 and given.stdout == "" and "otra-clave" not in given.stderr
    assert open_event(path).check_password("otra-clave-larga-2026").ok


def test_password_and_login_refuse_what_is_no_event_or_too_short(running, tmp_path):
    path, _ = running
    for command in ("password", "login"):
        missing = run("event", command, tmp_path / "none.db")
        assert (
            missing.exit_code == 2 and missing.stderr.startswith("Error: ") and "no such event file" in missing.stderr
        )
        assert not (tmp_path / "none.db").exists()  # and no address said for it: the error alone
    short = run("event", "password", path, env={LEXICON_ENV: "corta"})
    assert short.exit_code == 2 and LEXICON_ENV in short.stderr
    assert open_event(path).check_password(PASSWORD).ok  # unchanged
    bad = run("event", "login", path, "--url", "judge.lan")
    assert bad.exit_code == 2 and "--url" in bad.stderr


def test_password_and_login_leave_a_backup_copy_and_a_moved_source_as_they_are(running, tmp_path):
    """A backup copy is served by no service and stays as it was made: a login link into it would
    sign in nowhere (it was written, and linked to http://127.0.0.1:8000/), a new password changed
    it. A moved source records nothing more. Each is refused first, alone, and the file is unchanged."""
    path, _ = running
    copy, moved = tmp_path / "copia.db", tmp_path / "moved.db"
    assert run("event", "backup", path, copy).exit_code == 0
    assert run("event", "move", path, moved).exit_code == 0
    for source, says in ((copy, "is a backup copy of the event's file"), (path, "the event was moved at")):
        before = source.read_bytes()
        for command in ("login", "password"):
            refused = run("event", command, source, env={LEXICON_ENV: "otra-clave-larga-2026"})
            assert refused.exit_code == 2 and refused.stdout == "", refused.stderr
            assert refused.stderr.startswith(f"Error: {source}") and says in refused.stderr, refused.stderr
            assert source.read_bytes() == before
    assert "`lexicon event restore " in run("event", "login", copy).stderr


def test_login_refuses_a_url_at_another_events_path_before_anything_is_written():
    """An operator of a service of every event of a database pastes the wrong event's address: the
    link would open that event's console, which refuses this event's token. Refused, quoting it, and
    before the database is asked anything (this one does not exist)."""
    event = "postgresql://lexicon@db.invalid/lexicon?event=torneig-girona"
    refused = run("event", "login", event, "--url", "https://juez.example.org/e/open-lleida-2026/")
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr == (
        "Error: --url: 'https://juez.example.org/e/open-lleida-2026/' is the address of the event "
        "'open-lleida-2026', not of 'torneig-girona', whose link this is: its console would refuse it; "
        "give the event's own address, ending /e/torneig-girona/\n"
    )


def test_login_quotes_a_long_wrong_url_escaped_and_cut(tmp_path):
    """A page pasted as --url (a log's lines, a message): its error quotes the start of it, a line
    feed shown as \\n, and says how long it is, as every bad input is quoted; not the page."""
    pasted = "juez.lan:8000/\n" + "x" * 5000
    refused = run("event", "login", tmp_path / "none.db", "--url", pasted)
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr.startswith("Error: --url: 'juez.lan:8000/\\nxxx"), refused.stderr[:100]
    assert "xxx… (5,015 characters) is not an address like http://127.0.0.1:8000/\n" in refused.stderr
    assert len(refused.stderr) < 300 and "\n" not in refused.stderr[:-1]
    other = "https://juez.example.org/e/" + "o" * 5000 + "/"
    event = "postgresql://lexicon@db.invalid/lexicon?event=torneig-girona"
    refused = run("event", "login", event, "--url", other)
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr.startswith("Error: --url: 'https://juez.example.org/e/ooo"), refused.stderr[:100]
    assert "o… (5,028 characters) is the address of the event 'ooo" in refused.stderr
    assert "o… (5,000 characters), not of 'torneig-girona'" in refused.stderr and len(refused.stderr) < 700


def test_login_to_an_event_of_a_database_says_to_hand_the_link_to_its_director(postgres_server):
    """A federation's operator makes the link for a director somewhere else: no "open it on this
    laptop" (the operator's), but whom it is for and that the first to open it is signed in. The
    commands are docs/operations.md's ("Every event of a database, from one service"), as written,
    with the tests' database in place of the docs'."""
    import os
    import shlex

    from tests.postgres import OWNER, SERVICE
    from tests.support import REPO

    doc = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    section = doc[doc.index("### Every event of a database, from one service") :]
    (block,) = [found for found in re.findall(r"```sh\n(.*?)```", section, re.S) if "event login" in found][:1]
    init, login = (shlex.split(line) for line in block.replace("\\\n", " ").splitlines() if line.strip())
    database = postgres_server.create_database(f"login_{os.urandom(4).hex()}")
    ours = {
        f"postgresql://{role}@db.example/lexicon?event=open-lleida-2026": postgres_server.url(
            role, database, event="open-lleida-2026"
        )
        for role in (OWNER, SERVICE)
    }
    assert init[:3] == ["lexicon", "event", "init"] and init[3] in ours and "--lexicon" in init
    made = run(*[ours.get(word, word) for word in init[1:]], env={LEXICON_ENV: PASSWORD})
    assert made.exit_code == 0, made.stderr
    assert (
        login[:3] == ["lexicon", "event", "login"]
        and login[3] == f"postgresql://{SERVICE}@db.example/lexicon?event=open-lleida-2026"
    )
    printed = run(*[ours.get(word, word) for word in login[1:]])
    assert printed.exit_code == 0, printed.stderr
    assert printed.stdout.startswith("https://juez.example.org/e/open-lleida-2026/director#login=")
    assert printed.stderr == (
        "login link for the director's console (works once, for 5 minutes; give it to the event's director "
        "alone: whoever opens it first is signed in as the director):\n"
    )


def _event_in_a_database(postgres_server, tmp_path, monkeypatch, event_id: str):
    """An event made by `lexicon event init` in a database of its own, this test's runtime folder
    (where `lexicon serve` records its address) and a lexicon to serve: (database, folder, lexicon)."""
    import os

    from tests.postgres import OWNER

    runtime = tmp_path / "run"
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    database = postgres_server.create_database(f"login_{os.urandom(4).hex()}")
    made = run("event", "init", postgres_server.url(OWNER, database, event=event_id), "--name", "Liga",
               env={LEXICON_ENV: PASSWORD})  # fmt: skip
    assert made.exit_code == 0, made.stderr
    return database, runtime, compile_list(tmp_path / "es-mini.lex", ES_WORDS, "es", "es-mini", "Mini")


@pytest.mark.server
def test_login_links_to_the_events_path_on_a_service_of_its_database(postgres_server, tmp_path, monkeypatch):
    """A service of every event of a database runs on this machine: the link is to the event's
    path on it, /e/ID/, and signs in there (not "those running serve other files", nor a port
    no service of it listens on), whichever role the operator names the event as."""
    from tests.postgres import OWNER, SERVICE

    database, runtime, mini = _event_in_a_database(postgres_server, tmp_path, monkeypatch, "liga-j1")
    whole = postgres_server.url(SERVICE, database)
    with LiveServer(tmp_path, [mini], LEXICON_EVENT=whole, XDG_RUNTIME_DIR=str(runtime)) as server:
        printed = run("event", "login", postgres_server.url(OWNER, database, event="liga-j1"))
        assert printed.exit_code == 0, printed.stderr
        assert printed.stdout.startswith(f"http://127.0.0.1:{server.port}/e/liga-j1/director#login="), printed
        assert f"the `lexicon serve` of {whole} running on this laptop" in printed.stderr
        assert _signs_in(server, "/e/liga-j1", printed) == 201  # the link works where it points


@pytest.mark.server
def test_login_to_an_event_of_a_database_links_to_the_public_address_its_service_has(
    postgres_server, tmp_path, monkeypatch
):
    """The service of a database's events runs here behind a front end (LEXICON_PUBLIC_URL): the
    link is for a director elsewhere ("give it to the event's director alone"), so it goes to the
    event's path at that address, not to this machine's 127.0.0.1, which no one else reaches."""
    from tests.postgres import SERVICE

    database, runtime, mini = _event_in_a_database(postgres_server, tmp_path, monkeypatch, "liga-j2")
    settings = {"LEXICON_EVENT": postgres_server.url(SERVICE, database), "XDG_RUNTIME_DIR": str(runtime)}
    with LiveServer(tmp_path, [mini], LEXICON_PUBLIC_URL="https://juez.example.org/", **settings):
        printed = run("event", "login", postgres_server.url(SERVICE, database, event="liga-j2"))
        assert printed.exit_code == 0, printed.stderr
        assert printed.stdout.startswith("https://juez.example.org/e/liga-j2/director#login="), printed
        assert "at its public address (LEXICON_PUBLIC_URL)" in printed.stderr
