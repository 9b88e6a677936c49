"""A recorded challenge answered in front of Flask (service.fast_challenge.RecordedChallenge)
answers as the route does: its verdicts, and each of its refusals through Flask's own handlers.

Every request goes to both: the app as served (the path in front of Flask) and Flask's own WSGI
callable behind it, each with its own copy of the environ and the body. A verdict sent to both
with one idempotency key is recorded once: the second is its replay, the same row. Status,
headers (in order), body, the route left for the access log, and the app's log lines must be the
same; and a verdict must have been answered in front, a refusal must not.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import uuid

import pytest

from service import create_app
from service.fast_challenge import RecordedChallenge
from tests.service.conftest import EIGHT_VALID, NOT_WORDS, app_config
from tests.service.test_fast_challenge import answer, environ_of
from tournament import create_event

from .conftest import PASSWORD, Clock
from .test_http import SAME, Event, checksum_of

pytestmark = pytest.mark.slow  # an event is created and logged into with the director's scrypt


def event_app(tmp_path, lexicon_files, **settings) -> Event:
    path = tmp_path / "open.db"
    clock = Clock()
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=clock).close()
    made = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(path), **settings)), path, clock)
    made.login()
    return made


@pytest.fixture
def event(tmp_path, lexicon_files):
    return event_app(tmp_path, lexicon_files)


def body_of(**members) -> bytes:
    return json.dumps({"lexicon": "es", "words": ["CARRO", "CHICO"], **members}, ensure_ascii=False).encode()


def keyed(**members) -> bytes:
    return body_of(idempotency_key=uuid.uuid4().hex, **members)


def both(app, body: bytes, token: str | None = None, logs: bool = True, **request) -> tuple[tuple, bool]:
    """Both paths' answers to one request, the same (their log lines too, unless `logs` is
    False: a line logged once for the event, by the first path, then its fifth member is both
    paths' lines, in front and behind); the answer, and whether the path in front answered it itself."""
    front = app.wsgi_app
    assert isinstance(front, RecordedChallenge)
    if token is not None:
        request["authorization"] = f"Bearer {token}"
    address = request.pop("remote_addr", None)
    environ = environ_of(body, **request)
    if address is not None:
        environ["REMOTE_ADDR"] = address  # the socket's peer
    ours, answered_here = answer(front, environ, io.BytesIO(body))
    flask, _ = answer(front.app, environ, io.BytesIO(body))
    if not logs:
        assert ours[:4] == flask[:4], body
        return (*ours[:4], (ours[4], flask[4])), answered_here
    assert ours == flask, body
    return ours, answered_here


def verdict(app, body: bytes, token: str | None = None) -> dict:
    (status, _, data, route, lines), here = both(app, body, token)
    assert here and status == "200 OK" and route == "/v1/challenge" and lines == [], data
    return json.loads(data)


def refusal(app, body: bytes, kind: str | None, status: int, token: str | None = None, **request) -> dict:
    """The problem both paths answered (its headers under "headers")."""
    (said, headers, data, route, lines), here = both(app, body, token, **request)
    assert not here and said.startswith(f"{status} ") and route == "/v1/challenge", (said, data)
    refused = json.loads(data)
    if kind is not None:
        assert refused["type"] == f"tag:lexicon-judge,2026:problem/{kind}", refused
        assert [line[2]["path"] for line in lines if line[1] == "problem"] == ["/v1/challenge"]
    return {**refused, "headers": dict(headers)}


def test_a_judge_s_verdicts_are_answered_in_front_recorded_once_with_the_route_s_bytes(event):
    app = event.app
    _, judge = event.device()
    valid = verdict(app, keyed(), judge)
    invalid = verdict(app, keyed(words=EIGHT_VALID[:7] + [NOT_WORDS[0]]), judge)
    assert (valid["valid"], valid["record"], valid["round"]) == (True, 1, None)
    assert (invalid["valid"], invalid["record"]) == (False, 2)
    event.open_round()
    in_round = verdict(app, keyed(words=["XILÓFONO"], notation="spelling"), judge)
    assert (in_round["record"], in_round["round"]) == (3, 1)
    assert [row.seq for row in event.rows()] == [1, 2, 3]  # each sent to both paths: one row each
    assert verdict(app, b'{ "lexicon" : "es" , "words" : [ "CASA" ], "idempotency_key": "spaced" }', judge)["valid"]
    assert verdict(app, keyed(lexicon="ES", words=["carro"]), judge)["valid"]


def test_a_caller_without_a_device_is_recorded_between_rounds_and_refused_during_one(event):
    assert verdict(event.app, keyed())["record"] == 1
    event.open_round()
    refusal(event.app, keyed(), "lookups-closed", 403)


def test_who_asks_is_refused_as_the_route_refuses_it(event):
    app = event.app
    device_id, judge = event.device()
    refused = refusal(app, keyed(), "device-unknown", 401, "not-a-token-of-this-event")
    assert "not-a-token" not in json.dumps(refused) and "invalid_token" in refused["headers"]["WWW-Authenticate"]
    refusal(app, keyed(), "device-unknown", 401, authorization="Basic dXNlcjpwYXNz")
    assert event.director.delete(f"/v1/devices/{device_id}", headers=SAME).status_code in (200, 204)
    refusal(app, keyed(), "device-revoked", 401, judge)
    assert event.rows() == []


def test_a_table_s_round_gap_and_second_opinion_are_refused_as_the_route_refuses_them(event):
    app = event.app
    _, table = event.device("Mesa 7", "table", "7")
    refusal(app, keyed(), "no-round", 403, table)
    event.open_round()
    assert verdict(app, keyed(), table)["record"] == 1
    event.clock.advance(seconds=3)
    limited = refusal(app, keyed(), "rate-limited", 429, table)
    assert limited["retry_after"] == 7 and limited["headers"]["Retry-After"] == "7"
    refusal(app, keyed(second=True), "second-not-allowed", 403, table)
    refusal(app, keyed(offline=True), "offline-not-allowed", 403, table)
    assert len(event.rows()) == 1


def test_a_body_the_route_refuses_is_refused_with_the_route_s_problem(event):
    app = event.app
    _, judge = event.device()
    refusal(app, body_of(), "idempotency-key-required", 422, judge)
    refusal(app, keyed(lexicon="xx"), "unknown-lexicon", 404, judge)
    refusal(app, keyed(lexicon="ca"), "event-lexicon", 403, judge)
    refusal(app, keyed(words=["C4SA"]), "not-a-tile", 422, judge)
    refusal(app, keyed(words=["CASA"] * 9), "play-size", 422, judge)
    refusal(app, keyed(second=True), "no-second-opinion", 422, judge)
    refusal(
        app, b'{"lexicon":"es","lexicon":"ca","words":["CASA"],"idempotency_key":"k"}', "invalid-request", 422, judge
    )
    refusal(app, b"{", "invalid-json", 400, judge)
    refusal(app, b"   ", "invalid-json", 400, judge)
    refusal(app, body_of(words="CASA", idempotency_key="k"), "invalid-request", 422, judge)
    compressed = refusal(app, gzip.compress(keyed()), None, 415, judge, content_encoding="gzip")
    assert compressed["type"] == "about:blank" and compressed["headers"]["Accept-Encoding"] == "identity"
    refusal(app, keyed(), None, 415, judge, content_encoding="identity, gzip")
    key = uuid.uuid4().hex
    assert verdict(app, body_of(idempotency_key=key), judge)["record"] == 1
    refusal(app, body_of(idempotency_key=key, words=["CARRO"]), "idempotency-conflict", 409, judge)
    assert len(event.rows()) == 1


@pytest.mark.parametrize(
    "request_",
    [
        {"length": None},
        {"length": "0"},
        {"query": "lexicon=es"},
        {"method": "GET"},
        {"path": "/v1/challenges"},
        {"content_encoding": "identity"},
    ],
)
def test_a_request_this_path_does_not_read_is_flask_s(event, request_):
    _, here = both(event.app, keyed(), **request_)
    assert not here


def test_no_verdict_while_the_event_file_is_gone_the_route_s_503(event):
    _, judge = event.device()
    kept = event.path.with_name("kept.db")
    os.link(event.path, kept)
    event.path.unlink()
    refused = refusal(event.app, keyed(), "record-unavailable", 503, judge)
    assert "valid" not in refused and "record" not in refused
    os.replace(kept, event.path)
    assert verdict(event.app, keyed(), judge)["record"] == 1


def test_a_row_edited_by_hand_is_the_route_s_record_tampered_logged_once(event):
    import sqlite3

    _, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    assert verdict(event.app, keyed(), table)["record"] == 1
    with sqlite3.connect(event.path) as conn:  # the triggers that keep rows append-only, dropped by hand
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            conn.execute(f'DROP TRIGGER "{name}"')
        conn.execute("UPDATE records SET time = 'garbage' WHERE seq = 1")
    event.clock.advance(seconds=11)
    (status, _, data, _, (front, behind)), here = both(event.app, keyed(), table, logs=False)
    assert not here and status.startswith("409 ") and b"record-tampered" in data and b"garbage" not in data
    edited = ("ERROR", "the event file was edited by hand", {"where": "records.time of row 1"})
    assert front == [edited] and behind == []  # once for the event, by the first path to read it


def test_an_accepted_offline_verdict_is_answered_in_front_with_the_route_s_bytes(event):
    _, judge = event.device()
    event.clock.advance(hours=2)  # judged offline at 10:31, after its pairing at 9:00; sent at 11:00
    sent = keyed(offline=True, device_time="2026-11-22T10:31:07.120034Z", checksum=checksum_of(event))
    assert verdict(event.app, sent, judge)["record"] == 1
    (row,) = event.rows()
    assert row.entry.offline and row.entry.device_time == "2026-11-22T10:31:07.120034Z"


def test_a_device_whose_last_verdict_another_copy_recorded_is_the_route_s_event_file_split(event):
    _, judge = event.device()
    assert verdict(event.app, keyed(), judge)["record"] == 1
    body = keyed(last_key="a-key-this-file-never-recorded")
    (status, _, data, route, (front, behind)), here = both(event.app, body, judge, logs=False)
    assert not here and status.startswith("409 ") and route == "/v1/challenge"
    refused = json.loads(data)
    assert refused["type"].endswith("/event-file-split") and "not in this event file" in refused["detail"]
    split = "a device was answered by another file of the event"
    assert [line[1] for line in front] == [split, "problem"] and [line[1] for line in behind] == ["problem"]
    assert len(event.rows()) == 1


def test_an_event_moved_away_is_the_route_s_410_event_moved(event, tmp_path):
    from tournament import copy_event

    _, judge = event.device()
    assert verdict(event.app, keyed(), judge)["record"] == 1
    copy_event(str(event.path), tmp_path / "hall.db", "move")  # `lexicon event move`: this file records no more
    refused = refusal(event.app, keyed(), "event-moved", 410, judge)
    assert "valid" not in refused and "record" not in refused
    assert len(event.rows()) == 1


def test_behind_a_trusted_proxy_plays_limited_is_the_forwarded_client_s_as_the_route_s(tmp_path, lexicon_files):
    proxied = event_app(tmp_path, lexicon_files, LEXICON_TRUSTED_PROXIES="127.0.0.2", LEXICON_RATE_PLAYS="2")
    through = {"remote_addr": "127.0.0.2"}
    for _ in range(2):
        verdict_through = both(proxied.app, keyed(), x_forwarded_for="192.168.1.66", **through)
        assert verdict_through[1] and verdict_through[0][0] == "200 OK"
    limited = refusal(proxied.app, keyed(), "plays-limited", 429, x_forwarded_for="192.168.1.66", **through)
    assert 1 <= int(limited["headers"]["Retry-After"]) <= 60
    # another client behind the same proxy has its own budget: the address is the forwarded one
    (status, *_), here = both(proxied.app, keyed(), x_forwarded_for="192.168.1.10", **through)
    assert here and status == "200 OK" and len(proxied.rows()) == 3


def test_an_unexpected_error_is_the_route_s_500_and_its_log_line(event, monkeypatch):
    _, judge = event.device()
    tournament = event.app.extensions["lexicon_event"]

    def broken(*args, **kwargs):
        raise RuntimeError("CARRO")  # a message that quotes a word: never logged nor answered

    monkeypatch.setattr(tournament, "record", broken)
    (status, _, data, route, lines), here = both(event.app, keyed(), judge)
    assert not here and status.startswith("500 ") and route == "/v1/challenge" and b"CARRO" not in data
    assert [(level, message) for level, message, _ in lines] == [("ERROR", "unexpected error")]
    assert "CARRO" not in repr(lines)


def test_an_error_handler_that_raises_runs_the_after_request_hooks_once(event, monkeypatch):
    """Flask's handle_exception answers a handler that raised with its 500, finalized once."""
    _, judge = event.device()
    app = event.app
    monkeypatch.setattr(app.extensions["lexicon_event"], "record", lambda *args, **kwargs: 1 / 0)

    def raising(error):
        raise RuntimeError("the handler of unexpected errors failed")

    monkeypatch.setitem(app.error_handler_spec[None][None], Exception, raising)
    monkeypatch.setitem(app.config, "PROPAGATE_EXCEPTIONS", False)  # as served: a 500, not the test's error
    calls = []

    def counted(response):
        calls.append(response.status_code)
        return response

    # the app has served requests (the director's login): Flask's after_request() is closed, its list is not
    monkeypatch.setitem(app.after_request_funcs, None, [*app.after_request_funcs[None], counted])
    (status, *_), here = both(app, keyed(), judge)
    assert not here and status.startswith("500 ")
    assert calls == [500, 500]  # once in front, once in Flask behind it


@pytest.mark.parametrize("event_app", [True, False])
def test_an_app_with_a_teardown_appcontext_hook_keeps_challenges_in_flask(
    tmp_path, lexicon_files, monkeypatch, event_app
):
    from service import fast_challenge

    real = fast_challenge.install

    def install_after_a_hook(app, *args):
        app.teardown_appcontext(lambda error: None)
        return real(app, *args)

    monkeypatch.setattr(fast_challenge, "install", install_after_a_hook)
    config = {}
    if event_app:
        create_event(tmp_path / "event.db", "Open", "a long enough password").close()
        config["LEXICON_EVENT"] = str(tmp_path / "event.db")
    app = create_app(app_config(lexicon_files, **config))
    assert not isinstance(app.wsgi_app, (RecordedChallenge, fast_challenge.FastChallenge))


def test_an_event_app_with_cors_keeps_every_request_in_flask(tmp_path, lexicon_files):
    create_event(tmp_path / "event.db", "Open", "a long enough password").close()
    app = create_app(
        app_config(lexicon_files, LEXICON_EVENT=str(tmp_path / "event.db"), LEXICON_CORS_ORIGINS="https://club.example")
    )
    assert not isinstance(app.wsgi_app, RecordedChallenge)
