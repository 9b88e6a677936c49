"""An event file damaged under the running service (truncated in place, or bytes of it overwritten),
on a real SQLite file: `/readyz` of each app of it (each worker) finds it and says so, where only to
the laptop; from then on every write of the event's API refuses, 503 `record-damaged`, and leaves
the files as they were. (A write that finds it by itself, with no read before it: the store's
tests, tournament/test_sqlite_file.py.)"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3

import pytest

from service import create_app
from tests.service.conftest import app_config

from .test_http import SAME, event, problem  # noqa: F401 - event: a fixture

pytestmark = pytest.mark.slow  # the director's scrypt at every event made


def checkpointed(path) -> None:
    """Every page in the file itself, its log emptied, as SQLite leaves a file at rest: so what is
    done to the file below is not hidden by newer copies of its pages in the log."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def truncated(path) -> None:
    os.truncate(path, os.path.getsize(path) // 2)


def overwritten(path) -> None:
    """Garbage over the head of every page past the first, the file's length kept."""
    size, page = os.path.getsize(path), 4096
    with open(path, "r+b") as file:
        for offset in range(page, size, page):
            file.seek(offset)
            file.write(b"\xa5" * 64)


def emptied(path) -> None:
    os.truncate(path, 0)


def files(path) -> dict[str, str | None]:
    """The event's files as bytes (their hashes): what a refused write must leave as it was."""
    found = {}
    for name in (str(path), f"{path}-wal"):
        found[name] = hashlib.sha256(open(name, "rb").read()).hexdigest() if os.path.exists(name) else None
    return found


def writes(judge: str, code: str, link: str):
    """Every request of the event's API that writes, with a body it would be answered with: (method,
    path, keyword arguments of the test client). Names each route, so a route added later that
    writes and is not here fails the test that reads this list against the app's."""
    device = {"Authorization": f"Bearer {judge}"}
    play = {"lexicon": "es", "words": ["CARRO"]}
    return [
        ("POST", "/v1/director/session", {"json": {"password": "a long enough password"}, "headers": SAME}),
        ("POST", "/v1/director/link", {"json": {"token": link}, "headers": SAME}),
        ("DELETE", "/v1/director/session", {"headers": SAME}),
        ("POST", "/v1/devices", {"json": {"name": "Juez 9", "role": "judge"}, "headers": SAME}),
        ("POST", "/v1/devices/1/code", {"headers": SAME}),
        ("POST", "/v1/devices/pair", {"json": {"code": code}, "headers": SAME}),
        ("DELETE", "/v1/devices/1", {"headers": SAME}),
        ("POST", "/v1/rounds", {"json": {}, "headers": SAME}),
        ("POST", "/v1/rounds/close", {"headers": SAME}),
        ("POST", "/v1/rounds/1/final", {"headers": SAME}),
        ("POST", "/v1/challenge", {"json": {**play, "idempotency_key": "k-one"}, "headers": device}),
        ("POST", "/v1/challenges", {"json": {"plays": [{**play, "idempotency_key": "k-two"}]}, "headers": device}),
        ("GET", "/v1/event?waiting=0", {"headers": device}),  # a phone's heartbeat settles a round's head
    ]


def test_the_list_of_writes_names_every_route_that_writes(event):  # noqa: F811
    listed = {(method, re.sub(r"/1(?=/|$)", "/<id>", path.split("?")[0])) for method, path, _ in writes("", "", "")}
    routes = {
        (method, re.sub(r"<(?:\w+:)?\w+>", "<id>", rule.rule))
        for rule in event.app.url_map.iter_rules()
        for method in rule.methods - {"GET", "HEAD", "OPTIONS"}
        if rule.rule.startswith("/v1/")
    }
    assert routes <= listed


@pytest.mark.parametrize("damage", [truncated, overwritten, emptied])
def test_every_write_refuses_once_the_file_is_damaged_and_changes_nothing(event, lexicon_files, damage):  # noqa: F811
    _, judge = event.device()
    event.open_round()
    assert event.challenge(judge).status_code == 200
    event.close_round()
    code = event.director.post("/v1/devices", json={"name": "Mesa 2", "role": "table", "table": "2"}, headers=SAME)
    link = event.db.new_login_link()
    # another worker of the same file, which has read and written it as this one has
    other = create_app(app_config(lexicon_files, LEXICON_EVENT=str(event.path)))
    other_director = other.test_client()
    assert event.login(other_director).status_code == 201
    checkpointed(event.path)
    damage(event.path)
    before = files(event.path)
    # each worker is told by /readyz, which checks the files changed from outside (a read of the
    # damaged file before that may answer wrong: SQLite reads a page cut short as no row, so a
    # pairing code or a director's session is not found), and fails its store: every write refused
    for app in (other, event.app):
        assert app.test_client().get("/readyz").status_code == 503
    body = problem(other_director.post("/v1/rounds", json={}, headers=SAME), 503, "record-damaged")
    assert "asking again cannot help" in body["detail"] and "backup" in body["detail"]
    for method, path, more in writes(judge, code.json["code"], link):
        client = event.director if "Authorization" not in more["headers"] else event.app.test_client()
        answer = client.open(path, method=method, **more)
        problem(answer, 503, "record-damaged")
        assert "Retry-After" not in answer.headers, path
    assert files(event.path) == before
    for app in (event.app, other):
        ready = app.test_client().get("/readyz")  # the laptop's own: what and where
        assert (
            ready.status_code == 503
            and "is damaged" in ready.json["detail"]
            and str(event.path) in ready.json["detail"]
        )
        hall = app.test_client().get("/readyz", environ_base={"REMOTE_ADDR": "192.168.1.66"})
        assert (
            hall.status_code == 503 and "damaged" in hall.json["detail"] and str(event.path) not in hall.json["detail"]
        )


def test_readyz_says_a_file_damaged_before_any_write_meets_it(event):  # noqa: F811
    assert event.app.test_client().get("/readyz").status_code == 200
    checkpointed(event.path)
    truncated(event.path)
    ready = event.app.test_client().get("/readyz")
    assert ready.status_code == 503 and "is damaged" in ready.json["detail"], ready.json


def test_a_file_changed_from_outside_but_whole_is_written_as_before(event):  # noqa: F811
    """The check a write makes after a change from outside refuses only what SQLite finds damaged:
    a checkpoint by another program, or a row edited by hand, are written after as before."""
    checkpointed(event.path)
    conn = sqlite3.connect(event.path)
    conn.execute("VACUUM")
    conn.close()
    assert event.app.test_client().get("/readyz").status_code == 200
    event.open_round()
    assert event.app.test_client().get("/readyz").status_code == 200
