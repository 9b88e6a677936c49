"""Whoever holds the laptop is the director: what the service grants this computer, and to whom it
does not, over HTTP to a real `lexicon serve`.

The laptop's own browser is a loopback client that opened the service by one of this computer's own
names (localhost, 127.0.0.1, [::1]). A page of another site that a browser on the laptop opens can
point its name at 127.0.0.1 (DNS rebinding): its requests then come from loopback, same-origin to
the browser, with `Host: evil.example:PORT`. Such a request changes nothing (403 `foreign-host`),
is not spared the hall's limit on wrong passwords, cannot lock the laptop's own login, and /readyz
tells it what a phone in the hall is told: not where the event's file is.
"""

from __future__ import annotations

import http.client
import json
import os
import sqlite3

import pytest

from tests.support import LiveServer, stop_soon
from tournament import create_event, open_event

pytestmark = pytest.mark.server  # every test here talks to a live `lexicon serve`

PASSWORD = "correct-horse-battery"
PROXY = "127.0.0.2"  # a front end on this computer (LEXICON_TRUSTED_PROXIES)
HALL = ("192.168.1.66", "192.168.1.67")  # phones behind it, as its X-Forwarded-For says


@pytest.fixture
def served(tmp_path, lexicon_files):
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es").close()
    server = LiveServer(tmp_path, [lexicon_files["es-mini"]], LEXICON_EVENT=str(path), LEXICON_TRUSTED_PROXIES=PROXY)
    try:
        server.wait_ready()
        yield server, path
    finally:
        stop_soon(server)


def ask(server, method, path, payload=None, host=None, source="127.0.0.1", **headers):
    """(status, headers, body as JSON) of one request from `source` (a loopback address of this
    computer), naming `host` (default: the address it connects to), as a browser there sends it."""
    host = host or f"127.0.0.1:{server.port}"
    sent = {"Host": host, "Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin", **headers}
    body = None if payload is None else json.dumps(payload).encode()
    if body is not None:
        sent.update({"Content-Type": "application/json", "Content-Length": str(len(body))})
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10, source_address=(source, 0))
    try:
        connection.putrequest(method, path, skip_host=True)
        for name, value in sent.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        answer = connection.getresponse()
        data = answer.read()
        return answer.status, dict(answer.getheaders()), json.loads(data) if data[:1] == b"{" else data
    finally:
        connection.close()


def rebound(server, method, path, payload=None, source="127.0.0.1", **headers):
    """A page of evil.example whose name now points at this computer, on the service's port."""
    return ask(server, method, path, payload, f"evil.example:{server.port}", source, **headers)


def login(server, password=PASSWORD, host=None, source="127.0.0.1", **headers):
    return ask(server, "POST", "/v1/director/session", {"password": password}, host, source, **headers)


def refused(answer, status, kind):
    assert answer[0] == status and answer[2]["type"].endswith(f"/{kind}"), answer
    return answer[2]


def wrong_passwords(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM login_attempts WHERE ok = 0").fetchone()[0]


def test_a_page_rebound_to_this_computer_changes_nothing_and_cannot_lock_the_director_out(served):
    """Before: its guesses were the laptop's, 4 checked and the fifth locking 127.0.0.1, so the
    director at the laptop got 429; and from 127.0.0.2, .3 … (all loopback) five more each, past
    the hall's six a minute. Now each is refused before it is counted, and the laptop logs in."""
    server, path = served
    for source in ("127.0.0.1", "127.0.0.3", "127.0.0.4"):
        for _ in range(6):
            answer = rebound(server, "POST", "/v1/director/session", {"password": "guess-guess-guess"}, source)
            assert "evil.example" in refused(answer, 403, "foreign-host")["detail"]
    assert wrong_passwords(path) == 0  # none counted: no lock, no share of the hall's minute
    status, headers, _ = login(server)  # the director at the laptop
    assert status == 201
    cookie = headers["Set-Cookie"].split(";")[0]
    # the right password, a login link or a pairing code do no better under another site's name
    refused(rebound(server, "POST", "/v1/director/session", {"password": PASSWORD}), 403, "foreign-host")
    store = open_event(path)
    try:
        link = store.new_login_link()
    finally:
        store.close()
    refused(rebound(server, "POST", "/v1/director/link", {"token": link}), 403, "foreign-host")
    added = ask(server, "POST", "/v1/devices", {"name": "Juez 1", "role": "judge"}, Cookie=cookie)
    assert added[0] == 201
    refused(rebound(server, "POST", "/v1/devices/pair", {"code": added[2]["code"]}), 403, "foreign-host")
    # nor does the director's own cookie, were a request under that name to carry it
    refused(rebound(server, "POST", "/v1/rounds", {}, Cookie=cookie), 403, "foreign-host")
    refused(rebound(server, "DELETE", "/v1/director/session", Cookie=cookie), 403, "foreign-host")
    assert ask(server, "GET", "/v1/rounds", Cookie=cookie)[2]["current"] is None  # no round was opened
    assert ask(server, "POST", "/v1/director/link", {"token": link})[0] == 201  # the link was not used
    assert ask(server, "POST", "/v1/devices/pair", {"code": added[2]["code"]})[0] == 201  # nor the code


@pytest.mark.parametrize("name", ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", "localhost"])
def test_the_laptop_by_its_own_names_is_spared_the_halls_limit_and_a_rebound_page_is_not(served, name):
    """Six wrong passwords from two phones hold every login in the hall for a minute; the laptop's
    browser, by any of its own names, directly or through a front end on this computer, still logs in.
    A rebound page is refused: before, its right password signed in there, spared as the laptop."""
    server, path = served
    for phone in HALL:
        for _ in range(3):
            answer = login(server, "wrong-wrong-wrong", source=PROXY, **{"X-Forwarded-For": phone})
            assert answer[0] == 401, answer
    refused(login(server, source=PROXY, **{"X-Forwarded-For": HALL[0]}), 429, "login-locked")
    host = name.format(port=server.port)
    assert login(server, host=host)[0] == 201
    assert login(server, host=host, source=PROXY, **{"X-Forwarded-For": "127.0.0.1"})[0] == 201  # nginx here
    refused(rebound(server, "POST", "/v1/director/session", {"password": PASSWORD}), 403, "foreign-host")
    through = {"X-Forwarded-For": "127.0.0.1"}  # the same page through the front end on this computer
    refused(
        rebound(server, "POST", "/v1/director/session", {"password": PASSWORD}, PROXY, **through), 403, "foreign-host"
    )
    assert wrong_passwords(path) == 6


def test_readyz_names_the_event_file_to_this_computer_alone(served):
    """/readyz of an event whose file was moved away: the laptop is told the file's path, to put
    it back; a phone in the hall, a front end's probe or a rebound page learn what is wrong and
    where to ask, not where on the laptop the file is."""
    server, path = served
    kept = path.with_name("kept.db")
    os.rename(path, kept)
    try:
        status, _, said = ask(server, "GET", "/readyz")
        assert status == 503 and str(path) in said["detail"]
        for answer in (
            ask(server, "GET", "/readyz", source=PROXY, **{"X-Forwarded-For": HALL[0]}),
            ask(
                server, "GET", "/readyz", host=f"judge.lan:{server.port}", source=PROXY, **{"X-Forwarded-For": HALL[0]}
            ),
            rebound(server, "GET", "/readyz"),
        ):
            status, _, said = answer
            assert status == 503 and "is not the one this service opened" in said["detail"], said
            assert str(path.parent) not in said["detail"] and "open.db" not in said["detail"], said
            assert "127.0.0.1" in said["detail"]  # where the whole reason is told
    finally:
        os.rename(kept, path)
    assert ask(server, "GET", "/readyz", source=PROXY, **{"X-Forwarded-For": HALL[0]})[0] == 200
