"""`lexicon serve`: what it says before anything listens, and when it says it is ready."""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from service.config import VARIABLES
from tests.postgres import OWNER, WRITER
from tests.support import REPO, LiveServer, compile_list, free_port, stop_soon
from tournament import create_event

from .conftest import invoke, run


def test_help_names_every_environment_variable():
    text = run("serve", "--help").output
    for variable in VARIABLES:
        assert (variable.name in text) is not variable.cli_only
    assert "LEXICON_DIRECTOR_PASSWORD" in " ".join(run("event", "init", "--help").output.split())
    assert "Exit codes: 0 stopped; 2" in " ".join(text.split())


def test_help_shows_each_default_as_settings_has_it(monkeypatch):
    """A default is written once, in service.config.Settings; `serve --help` reads it from there."""
    from dataclasses import fields

    from service.config import Settings, shown

    text = " ".join(run("serve", "--help").output.split())
    defaults = Settings()
    said = [variable for variable in VARIABLES if "{default}" in variable.meaning]
    assert {"LEXICON_VERDICT_SECONDS", "LEXICON_PORT", "LEXICON_RATE_TABLE", "LEXICON_LOG_LEVEL"} <= {
        variable.name for variable in said
    }
    for variable in said:
        assert " ".join(variable.help.split()) in text
        assert variable.help.endswith(f"(default {shown(getattr(defaults, variable.field))})")
    assert f"[default: LEXICON_PORT or {defaults.port}]" in text
    # and it follows Settings: another default there is another default here
    monkeypatch.setattr(next(f for f in fields(Settings) if f.name == "verdict_seconds"), "default", 42.0)
    assert "0: until Borrar (default 42)" in " ".join(run("serve", "--help").output.split())


def test_a_port_in_use_is_said_at_once_with_exit_2(tmp_path, monkeypatch):
    from gunicorn.app.base import BaseApplication

    def no_gunicorn(self):  # gunicorn would try the port five times, a second apart, before saying so
        pytest.fail("gunicorn was started on a port in use")

    monkeypatch.setattr(BaseApplication, "run", no_gunicorn)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = invoke("serve", "--port", port, env={"LEXICON_FILES": str(tmp_path / "missing.lex")})
    assert result.exit_code == 2
    assert f"port {port} on 127.0.0.1 is in use" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    "variable, value",
    [
        ("LEXICON_PORT", "eighty"),
        ("LEXICON_WORKERS", "0"),
        ("LEXICON_VERDICT_SECONDS", "soon"),
        ("LEXICON_HOST", "a b"),
        ("LEXICON_WORKER_CLASS", "nope.Worker"),
        ("LEXICON_FILES", ":"),
    ],
)
def test_a_setting_that_cannot_be_used_is_exit_2_naming_it(variable, value):
    result = invoke("serve", env={variable: value})
    assert result.exit_code == 2 and f"Error: {variable}: {value!r}" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("query", ["event=open&sslmod=require", "sslmod=require"])
def test_a_database_url_with_a_misspelled_parameter_is_exit_2_naming_it(query, monkeypatch):
    """A whole database's service (no event=) started with it and said nothing until asked."""
    from gunicorn.app.base import BaseApplication

    monkeypatch.setattr(BaseApplication, "run", lambda self: pytest.fail("served"))
    url = f"postgresql://judge@127.0.0.1:1/lexicon?{query}"
    result = invoke("serve", "--port", free_port(), env={"LEXICON_EVENT": url})
    assert result.exit_code == 2 and "has no query parameter 'sslmod' (did you mean sslmode?)" in result.output
    assert "Traceback" not in result.output and "failed" not in result.output


@pytest.mark.parametrize("query", ["?event=open", ""])
def test_a_database_without_the_postgresql_extra_is_exit_2_saying_to_install_it(query):
    """`make run` installs no extra: a service of one event of a database said to install it, and
    a service of every event of one ended in a traceback, exit 1. A process of its own, where
    psycopg cannot be imported, as where it is not installed."""
    without = "import sys; sys.modules['psycopg'] = None; from lexicon_cli import main; main()"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
    env["LEXICON_EVENT"] = f"postgresql://lexicon@127.0.0.1:1/lexicon{query}"
    done = subprocess.run(
        [sys.executable, "-c", without, "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "LEXICON_EVENT: an event in a database needs the postgresql extra (pip install '.[postgresql]'" in (
        done.stderr
    )
    assert "http://" not in done.stderr  # refused before it says where the phones go


def test_a_token_set_but_empty_is_exit_2():
    result = invoke("serve", env={"LEXICON_TOKEN": ""})
    assert result.exit_code == 2 and "LEXICON_TOKEN is set but empty" in result.output


@pytest.mark.parametrize("wrong", ["missing", "directory", "same id", "second opinion"])
def test_a_lexicon_to_serve_that_fails_stops_the_start_before_serve_says_where_to_go(tmp_path, monkeypatch, wrong):
    """A file of LEXICON_FILES missing, a directory, two files of one id, a second opinion no file
    gives: exit 2 naming it, and no address printed first (they said a service was there)."""
    from gunicorn.app.base import BaseApplication

    monkeypatch.setattr(BaseApplication, "run", lambda self: pytest.fail("gunicorn was started"))
    one = compile_list(tmp_path / "es.lex", ["CARRO", "CASA"], "es", "es-t", "T")
    files, says, more = {
        "missing": ([tmp_path / "missing.lex"], "missing.lex: ", {}),
        "directory": ([tmp_path], f"cannot serve {tmp_path}: a directory", {}),
        "same id": ([one, compile_list(tmp_path / "twin.lex", ["MESA"], "es", "es-t", "T")], "two lexicons", {}),
        "second opinion": ([one], "LEXICON_SECOND: es:es-other", {"LEXICON_SECOND": "es:es-other"}),
    }[wrong]
    env = {"LEXICON_FILES": ":".join(str(path) for path in files), **more}
    result = invoke("serve", "--port", free_port(), env=env)
    assert result.exit_code == 2 and says in result.output, result.output
    assert "Lexicon Judge" not in result.output and "http://" not in result.output, result.output
    assert "Traceback" not in result.output


def test_a_directory_as_a_lexicon_to_serve_is_told_to_be_compiled_first(tmp_path):
    """The core says what the path is (lexicon.errors.NotALexiconFile); the service's refusal to
    start keeps it as its cause, and the command line adds what to run, as for any LEXICON."""
    (tmp_path / "llista").mkdir()
    result = invoke("serve", "--port", free_port(), env={"LEXICON_FILES": str(tmp_path / "llista")})
    assert result.exit_code == 2, result.output
    said = "a directory, not a compiled lexicon file: compile a word list or a DISC source with `lexicon build` first"
    assert f"Error: cannot serve {tmp_path / 'llista'}: {said}\n" in result.output and "Traceback" not in result.output


@pytest.mark.server
def test_service_ready_is_logged_once_the_socket_listens(tmp_path):
    lexicon = compile_list(tmp_path / "es.lex", ["CARRO", "CASA"], "es", "es-t", "T")
    server = LiveServer(tmp_path, [lexicon])
    try:
        deadline = time.monotonic() + 60
        while "service ready" not in server.err.read_text() and time.monotonic() < deadline:
            assert server.process.poll() is None, server.logs()
            time.sleep(0.02)
        # The moment it says so, a connection is accepted: the socket was listening already.
        with socket.create_connection(("127.0.0.1", server.port), timeout=5):
            pass
        ready = [json.loads(line) for line in server.err.read_text().splitlines() if "service ready" in line]
        assert len(ready) == 1 and ready[0]["listening"] == [server.url]
        assert ready[0]["lexicons"] == ["es-t"]
        loaded = [json.loads(line) for line in server.err.read_text().splitlines() if "lexicon loaded" in line]
        assert [line["lexicon"] for line in loaded] == ["es-t"]  # read before the addresses, logged once after
        # before its logs, where to go: here only this computer (it listens on 127.0.0.1)
        printed = server.err.read_text().splitlines()
        assert printed[:3] == [
            "Lexicon Judge:",
            f"  judges' page (phones)  {server.url}/ (this computer only: phones cannot reach it; "
            "serve with --host 0.0.0.0)",
            f"  API                    {server.url}/v1/ (described at /openapi.json)",
        ]
    finally:
        stop_soon(server)


@pytest.mark.server
def test_in_an_event_serve_says_first_where_the_phones_and_the_director_go(tmp_path):
    lexicon = compile_list(tmp_path / "es.lex", ["CARRO", "CASA"], "es", "es-t", "T")
    event = tmp_path / "open.db"
    create_event(event, "Open", "k7qh-3mxp-wz9c-r2td").close()
    server = LiveServer(tmp_path, [lexicon], LEXICON_EVENT=str(event), LEXICON_PUBLIC_URL="http://juez.lan:8000")
    try:
        server.wait_ready()
        printed = server.err.read_text().splitlines()
        assert printed[:5] == [
            f"Lexicon Judge, serving the event {event}:",
            "  judges' page (phones)  http://juez.lan:8000/",
            "  director's console     http://juez.lan:8000/director",
            f"    on this computer     {server.url}/director",
            "  API                    http://juez.lan:8000/v1/ (described at /openapi.json)",
        ]
        assert printed[5].startswith("{")  # then the logs
        assert "LEXICON_TOKEN" not in server.err.read_text()
        # as docs/operations.md shows it ("On the venue network"), its event and addresses ours
        (shown,) = re.findall(r"```text\n(.*?)```", (REPO / "docs" / "operations.md").read_text(encoding="utf-8"), re.S)
        shown = shown.replace("open-lleida.db", str(event)).replace("http://10.42.0.1:8000", "http://juez.lan:8000")
        shown = shown.replace("http://127.0.0.1:8000", server.url)
        assert [line.strip() for line in shown.splitlines() if line.strip()] == [line.strip() for line in printed[:5]]
    finally:
        stop_soon(server)


def test_a_default_whose_source_cannot_be_read_stops_the_start_before_serve_says_where_to_go(manifest, monkeypatch):
    """A default that cannot be built: exit 2 naming its source, and no address printed first.
    `serve` printed where the phones and the director go, then built the defaults: a failed build
    left on the screen the addresses of a service that never started."""
    from gunicorn.app.base import BaseApplication

    monkeypatch.setattr(BaseApplication, "run", lambda self: pytest.fail("gunicorn was started"))
    (manifest.parent / "mini.txt").unlink()
    result = invoke("serve", "--port", free_port(), env={"LEXICON_FILES": None})
    assert result.exit_code == 2, result.output
    assert "mini.txt" in result.output and "Traceback" not in result.output
    assert "Lexicon Judge" not in result.output and "http://" not in result.output, result.output


def test_serve_rebuilds_a_default_whose_source_changed_before_it_starts(manifest):
    from lexicon.lexfile import Lexicon
    from lexicon_cli.serve import build_missing_defaults

    assert invoke("build-defaults").exit_code == 0
    out = manifest.parent.parent / "out" / "mini-es.lex"
    (manifest.parent / "mini.txt").write_text("carro\nchico\ncarros\n")
    build_missing_defaults()
    assert Lexicon.open(out).header.words == 3


def _refused_before_gunicorn(monkeypatch, tmp_path, host, trusted):
    from gunicorn.app.base import BaseApplication

    monkeypatch.setattr(BaseApplication, "run", lambda self: pytest.fail("gunicorn was started"))
    env = {"LEXICON_FILES": str(tmp_path / "missing.lex"), "LEXICON_TRUSTED_PROXIES": trusted}
    for _ in range(5):  # a port free on every address (so on `host`) may be taken by another server meanwhile
        result = invoke("serve", "--host", host, "--port", free_port("0.0.0.0"), env=env)
        if "is in use" not in result.output:
            break
    return result


def test_trusted_proxies_covering_the_hall_s_network_are_exit_2(tmp_path, monkeypatch):
    """A trusted range that holds the phones' addresses lets any phone write X-Forwarded-For:
    127.0.0.1 and be the laptop: the service does not start. On this computer's own network
    (its default route's), and any range that covers every address."""
    from service.addresses import hall_networks

    ranges = ["0.0.0.0/0", "::/0"] + [str(network.supernet(new_prefix=8)) for network in hall_networks("0.0.0.0")]
    for trusted in ranges:
        result = _refused_before_gunicorn(monkeypatch, tmp_path, "0.0.0.0", trusted)
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        assert f"LEXICON_TRUSTED_PROXIES: {trusted} covers" in result.output
        assert "X-Forwarded-For: 127.0.0.1" in result.output
    for trusted in ("127.0.0.1", "::1", "192.0.2.5", "0.0.0.0/0"):  # a front end's address; behind one on loopback
        host = "127.0.0.1" if trusted == "0.0.0.0/0" else "0.0.0.0"
        result = _refused_before_gunicorn(monkeypatch, tmp_path, host, trusted)
        assert result.exit_code == 2 and "missing.lex" in result.output  # it went on, to the lexicons
        assert "LEXICON_TRUSTED_PROXIES" not in result.output


def test_a_host_name_is_resolved_and_one_that_does_not_resolve_is_exit_2(tmp_path, monkeypatch):
    """`--host NAME`: the trusted front ends are checked against the networks of the addresses the
    name resolves to (this computer's own name here), and the start goes on; a name that resolves
    to nothing is a sentence and exit 2. Never a traceback."""
    name = socket.gethostname()
    try:
        socket.getaddrinfo(name, None)
    except OSError as error:  # a machine whose own name does not resolve: nothing skips, it says so
        pytest.fail(f"this computer's name {name!r} does not resolve here ({error}): add it to /etc/hosts")
    result = _refused_before_gunicorn(monkeypatch, tmp_path, name, "192.0.2.5")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "missing.lex" in result.output  # it went on, past the addresses, to the lexicons
    result = _refused_before_gunicorn(monkeypatch, tmp_path, "no-such-host.invalid", "192.0.2.5")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "no-such-host.invalid" in result.output


def test_a_backup_copy_is_refused_before_serve_says_where_to_go(tmp_path, monkeypatch):
    """`lexicon serve` on a backup copy printed where the phones and the director go, then
    refused it: a director reading the first lines took it for served. Refused first, exit 2,
    nothing said of a service."""
    from gunicorn.app.base import BaseApplication

    monkeypatch.setattr(BaseApplication, "run", lambda self: pytest.fail("gunicorn was started"))
    lexicon = compile_list(tmp_path / "es.lex", ["CARRO", "CASA"], "es", "es-t", "T")
    event, copy = tmp_path / "open.db", tmp_path / "copia.db"
    create_event(event, "Open", "k7qh-3mxp-wz9c-r2td").close()
    assert invoke("event", "backup", event, copy).exit_code == 0
    env = {"LEXICON_FILES": str(lexicon), "LEXICON_EVENT": str(copy)}
    result = invoke("serve", "--port", free_port(), env=env)
    assert result.exit_code == 2 and f"{copy} is a backup copy" in result.output, result.output
    assert "Lexicon Judge" not in result.output and "http://" not in result.output, result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("served", ["another file", "the defaults"])
def test_an_event_whose_lexicon_is_not_served_is_refused_before_serve_says_where_to_go(
    tmp_path, monkeypatch, manifest, served
):
    """`lexicon serve` of an event made with a list, started without that list (LEXICON_FILES
    naming another, or none: the defaults), printed where the phones and the director go, built the
    defaults, and only then refused it: the first lines said the event was served. Refused first,
    exit 2, naming the file to add, nothing said of a service and no default built."""
    from gunicorn.app.base import BaseApplication

    monkeypatch.setattr(BaseApplication, "run", lambda self: pytest.fail("gunicorn was started"))
    pinned = compile_list(tmp_path / "club.lex", ["COL·LEGI", "ANYS"], "ca", "club-ca", "Club")
    other = compile_list(tmp_path / "other.lex", ["CASA"], "ca", "other-ca", "Other")
    event = tmp_path / "open.db"
    env = {"LEXICON_DIRECTOR_PASSWORD": "una-clave-de-prueba"}
    assert invoke("event", "init", event, "--name", "Open", "--lexicon", pinned, env=env).exit_code == 0
    env = {"LEXICON_EVENT": str(event)} | ({"LEXICON_FILES": str(other)} if served == "another file" else {})
    result = invoke("serve", "--port", free_port(), env=env)
    assert result.exit_code == 2, result.output
    assert f"which this instance does not serve: add {pinned.resolve()} to LEXICON_FILES" in result.output
    assert "Lexicon Judge" not in result.output and "http://" not in result.output, result.output
    assert not (manifest.parent.parent / "out").exists()  # no default was built for nothing
    assert "Traceback" not in result.output


def test_an_event_whose_file_was_built_over_is_told_to_put_it_back_not_to_add_it(tmp_path, monkeypatch):
    """A new release built over the event's file, the file still in LEXICON_FILES: `serve` said
    "add club.lex to LEXICON_FILES", where it already was. It says now that the file holds other
    bytes, the checksum to put back, and where a new release goes; exit 2, as before."""
    from gunicorn.app.base import BaseApplication

    monkeypatch.setattr(BaseApplication, "run", lambda self: pytest.fail("gunicorn was started"))
    pinned = compile_list(tmp_path / "club.lex", ["COL·LEGI", "ANYS"], "ca", "club-ca", "Club")
    checksum = hashlib.sha256(pinned.read_bytes()).hexdigest()
    event = tmp_path / "open.db"
    env = {"LEXICON_DIRECTOR_PASSWORD": "una-clave-de-prueba"}
    assert invoke("event", "init", event, "--name", "Open", "--lexicon", pinned, env=env).exit_code == 0
    compile_list(pinned, ["COL·LEGI", "ANYS", "QUADRE"], "ca", "club-ca", "Club", version="2")
    result = invoke("serve", "--port", free_port(), env={"LEXICON_EVENT": str(event), "LEXICON_FILES": str(pinned)})
    assert result.exit_code == 2, result.output
    assert f"{pinned.resolve()}, which this instance reads, holds other bytes now" in result.output, result.output
    assert f"put the event's file back there (checksum {checksum})" in result.output
    assert "to LEXICON_FILES, the very" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("whole", [False, True], ids=["one event", "every event"])
@pytest.mark.parametrize("role", ["owner", "member of the owner", "superuser", "may set replication role"])
def test_serving_as_a_role_that_could_switch_off_the_records_guard_is_refused(
    tmp_path, monkeypatch, postgres_server, role, whole
):
    """An instance connected as the database's owner (or a role that can SET ROLE to it, or a
    superuser, or a role granted SET on session_replication_role) could switch the record's
    append-only trigger off and rewrite the evidence unseen, yet
    `lexicon serve` served as it without a word. Refused first, exit 2, naming the role, the URL
    without its password and the role to use instead; nothing said of a service. The instances'
    role serves the same database (tests/service/event/test_postgres_e2e.py)."""
    from gunicorn.app.base import BaseApplication

    monkeypatch.setattr(BaseApplication, "run", lambda self: pytest.fail("gunicorn was started"))
    event_id = f"g-{uuid.uuid4().hex[:12]}"
    create_event(postgres_server.url(OWNER, event=event_id), "Open", "k7qh-3mxp-wz9c-r2td").close()
    user = {"owner": OWNER, "superuser": "postgres"}.get(role, f"m_{uuid.uuid4().hex[:12]}")
    if role == "member of the owner":  # may SET ROLE lexicon_owner, and so do all it may
        with postgres_server.connect(database="postgres") as conn:
            conn.execute(f"CREATE ROLE {user} LOGIN IN ROLE {OWNER}")
    if role == "may set replication role":  # owns nothing, yet may keep the trigger from firing
        with postgres_server.connect(database="postgres") as conn:
            conn.execute(f"CREATE ROLE {user} LOGIN IN ROLE {WRITER}")
            conn.execute(f"GRANT SET ON PARAMETER session_replication_role TO {user}")
    url = postgres_server.url(user, event=None if whole else event_id, tcp=True)
    secret = url.replace(f"{user}@", f"{user}:s3cret-pw@")
    lexicon = compile_list(tmp_path / "es.lex", ["CARRO", "CASA"], "es", "es-t", "T")
    result = invoke("serve", "--port", free_port(), env={"LEXICON_FILES": str(lexicon), "LEXICON_EVENT": secret})
    assert result.exit_code == 2, result.output
    said = {"owner": f"{OWNER}, which owns the database", "superuser": "postgres, a superuser"}
    said["may set replication role"] = f"{user}, which may set session_replication_role"
    said = said.get(role, f"{user}, a member of {OWNER}, which owns the database")
    assert f"LEXICON_EVENT: {url} connects as {said}" in result.output, result.output
    assert "append-only trigger" in result.output and "the instances' role" in result.output
    assert "lexicon_writer" in result.output, result.output
    assert "s3cret-pw" not in result.output and "Traceback" not in result.output
    assert "Lexicon Judge" not in result.output and "http://" not in result.output, result.output


@pytest.mark.server
def test_one_event_of_a_database_is_served_by_the_lines_of_operations_md(tmp_path, postgres_server):
    """docs/operations.md's "A federation's service": its event created as the owner, then served
    by its line as the instances' role, both as written, the tests' database in place of the
    docs' (db.example/lexicon), run by the test environment's `lexicon`: the service starts and
    says it serves that very event (the event the line names, one of the database's). Its `--host 0.0.0.0` is left to the tests of the
    hall's network, above: a test listens on this computer's loopback alone."""
    import shlex

    doc = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    section = doc[doc.index("\n## A federation's service\n") : doc.index("\n### Every event of a database")]
    init, serve = (block.replace("\\\n", " ").strip() for block in re.findall(r"```sh\n(.*?)```", section, re.S)[:2])
    *settings, program, command, host, address = shlex.split(serve)
    assert (program, command, host, address) == ("lexicon", "serve", "--host", "0.0.0.0"), serve
    (event,) = (value for name, _, value in (s.partition("=") for s in settings) if name == "LEXICON_EVENT")
    assert "@db.example/lexicon?" in event and "@db.example/lexicon?" in init, (init, serve)
    ours = f"127.0.0.1:{postgres_server.port}/{postgres_server.create_database(f'ops_{uuid.uuid4().hex[:8]}')}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXICON_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-c", init.replace("db.example/lexicon", ours)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    server = LiveServer(tmp_path, None, LEXICON_EVENT=event.replace("db.example/lexicon", ours))
    try:
        server.wait_ready()
        printed = server.err.read_text().replace(ours, "db.example/lexicon").splitlines()
        said = [line for line in printed if line.startswith("Lexicon Judge")]  # after the default lexicons' lines
        assert said == [f"Lexicon Judge, serving the event {event}:"], printed
    finally:
        stop_soon(server)
