"""The plain challenge answered in front of Flask (service.fast_challenge) answers as the route does.

Every request here goes to both: the app as served (the fast path in front of Flask) and Flask's
own WSGI callable behind it, each with its own copy of the environ and the body. Status, headers
(in order), body, the route left for the access log, and the app's log lines must be the same,
over the API's examples, a list of awkward requests, and random ones.
"""

from __future__ import annotations

import gzip
import io
import json
import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.deadline import BodyStalled
from service.fast_challenge import FastChallenge
from service.logs import ROUTE_KEY
from tests.service.conftest import CA_WORDS, EIGHT_VALID, NOT_WORDS, app_config


@pytest.fixture(scope="module")
def plain_app(lexicon_files):
    """One app for every random request (hypothesis runs a test's examples on one fixture)."""
    from service import create_app

    return create_app(app_config(lexicon_files))


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[tuple] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.levelname, record.getMessage(), getattr(record, "fields", None)))


def answer(wsgi, environ: dict, stream) -> tuple:
    """One WSGI call: (status, headers, body, route left for the access log, log lines), and
    whether the answer was the fast path's own (a list; Flask's is an iterator it closes)."""
    said = []
    environ = {**environ, "wsgi.input": stream}
    lines = Lines()
    logger = logging.getLogger("service")
    logger.addHandler(lines)
    try:
        result = wsgi(environ, lambda status, headers, exc_info=None: said.append((status, headers)))
        body = b"".join(result)
        if hasattr(result, "close"):
            result.close()
    finally:
        logger.removeHandler(lines)
    status, headers = said[0]
    return (status, list(headers), body, environ.get(ROUTE_KEY), lines.lines), isinstance(result, list)


def environ_of(body: bytes, *, length: str | None = "auto", method="POST", path="/v1/challenge", query="", **headers):
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "judge",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "10.0.0.7",
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
        "wsgi.input_terminated": True,
        "CONTENT_TYPE": "application/json",
    }
    if length is not None:
        environ["CONTENT_LENGTH"] = str(len(body)) if length == "auto" else length
    environ.update({f"HTTP_{name.upper()}": value for name, value in headers.items()})
    return environ


def same(app, body: bytes, stream=io.BytesIO, **request) -> bool:
    """Both paths' answers to one request are the same; whether the fast path answered it.
    `stream`: makes each path's wsgi.input from the body."""
    fast = app.wsgi_app
    assert isinstance(fast, FastChallenge)
    environ = environ_of(body, **request)
    ours, answered_here = answer(fast, environ, stream(body))
    flask, _ = answer(fast.app, environ, stream(body))
    assert ours == flask, body
    return answered_here


def body_of(**members) -> bytes:
    return json.dumps(members, ensure_ascii=False).encode()


# The API's examples (the OpenAPI document's) and the plays a judge sends, valid and not.
PLAIN = [
    body_of(lexicon="es", words=["CARRO", "CHICO"]),
    body_of(lexicon="es", words=EIGHT_VALID),
    body_of(lexicon="es", words=EIGHT_VALID[:7] + [NOT_WORDS[0]]),
    body_of(lexicon="es", words=[NOT_WORDS[1]] + EIGHT_VALID[1:]),
    body_of(lexicon="es-alt", words=["XILÓFONO"]),
    body_of(lexicon="ES", words=["carro", "chico"]),
    body_of(lexicon="ca", words=CA_WORDS[:2]),
    body_of(lexicon="ca-mini", words=["COL·LEGI", "QUADRE"]),
    body_of(lexicon="ca", words=["COLLEGI"]),
    body_of(lexicon="es", words=["CASA"], notation="spelling"),
    body_of(lexicon="es", words=["CASA"], second=False),
    body_of(lexicon="es", words=["CASA"], idempotency_key="k1"),  # no event: nothing recorded, a plain verdict
    b'{ "lexicon" : "es" , "words" : [ "CASA" ] }',
    b'{"lexicon":"es","words":["CA\\":SA"]}',  # an escaped quote and colon in a word: its input error
]

REFUSED = [
    b"",
    b"   ",
    b"{",
    b"[]",
    b"null",
    b'{"lexicon":"es"}',
    b'{"words":["CASA"]}',
    b'{"lexicon":"es","words":[]}',
    body_of(lexicon="es", words=["CASA"] * 9),
    body_of(lexicon="es", words=["C4SA"]),
    body_of(lexicon="es", words=["CASA", ""]),
    body_of(lexicon="es", words=["CASA", "A" * 200]),
    body_of(lexicon="xx", words=["CASA"]),
    body_of(lexicon="es", words=["CASA"], second=True),
    body_of(lexicon="es", words=["CASA"], notation="morse"),
    body_of(lexicon="es", words=["CASA"], colour="red"),
    body_of(lexicon="es", words="CASA"),
    body_of(lexicon=3, words=["CASA"]),
    b'{"lexicon":"es","lexicon":"ca","words":["CASA"]}',
    b'{"lexicon":"es","words":["CASA"],"words":["MESA"]}',
    b'{"lexicon":"es","words":["\\ud800"]}',
    b'{"lexicon":"es","words":["CASA"]}\xff',
    b"\xff\xfe",
    b"[" * 5000,
]


@pytest.mark.parametrize("body", PLAIN)
def test_a_plain_verdict_is_answered_in_front_with_the_routes_bytes(app, body):
    if b'CA\\"' in body:
        assert not same(app, body)  # an input error: the route's
    else:
        assert same(app, body)


@pytest.mark.parametrize("body", REFUSED)
def test_what_the_route_refuses_or_answers_otherwise_is_the_routes_answer(app, body):
    assert not same(app, body)


@pytest.mark.parametrize(
    "request_",
    [
        {"length": None},  # chunked: no length, the server ends the stream
        {"length": "abc"},
        {"length": "-5"},
        {"length": "0"},
        {"length": str(64 * 1024 * 1024)},
        {"length": "400"},  # longer than what arrives
        {"query": "lexicon=es"},
        {"query": "%ff"},
        {"method": "post"},
        {"method": "GET"},
        {"method": "PUT"},
        {"method": "OPTIONS"},
        {"path": "/v1/challenge/"},
        {"path": "/v1/challenges"},
        {"origin": "https://elsewhere.example", "authorization": "Bearer nothing", "accept": "text/html"},
        {"accept_language": "ca", "x_forwarded_for": "10.9.9.9"},
        {"content_encoding": "gzip"},  # refused (415), as the route does
        {"content_encoding": "identity, br"},
        {"content_encoding": "identity"},  # read, as the route does
        {"content_encoding": ""},
    ],
)
def test_any_other_request_or_header_gets_the_same_answer(app, request_):
    same(app, body_of(lexicon="es", words=["CASA", "MESA"]), **request_)


class Failing:
    """A body whose first read fails; a read after it finds nothing more (the socket's state)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.failed = False

    def read(self, size: int = -1) -> bytes:
        if self.failed:
            return b""
        self.failed = True
        raise self.error


@pytest.mark.parametrize("coding", ["gzip", "deflate", "identity, gzip"])
def test_a_compressed_body_is_the_routes_415(app, coding):
    compressed = gzip.compress(body_of(lexicon="es", words=["CASA", "MESA"]))
    assert not same(app, compressed, content_encoding=coding)
    assert not same(app, body_of(lexicon="es", words=["CASA"]), content_encoding=coding)


@pytest.mark.parametrize("error", [BodyStalled, TimeoutError, OSError, ValueError])
def test_a_body_that_cannot_be_read_is_the_routes_408_or_400(app, error):
    assert not same(app, body_of(lexicon="es", words=["CASA"]), lambda body: Failing(error()))


WORD = st.one_of(
    st.sampled_from(EIGHT_VALID + NOT_WORDS + CA_WORDS + ["ÑANDÚ", "COLLEGI", "carro", "LL", "C4SA", ""]),
    st.text(alphabet="ABCÇDEGHIJLMNÑOPQRSTUVXYZ·ÁÉÍÓÚÜ", max_size=9),
    st.text(max_size=4),
)
MEMBERS = {
    "lexicon": st.one_of(st.sampled_from(["es", "ca", "es-mini", "es-alt", "ca-mini", "ES", "xx", ""]), st.integers()),
    "words": st.one_of(st.lists(WORD, max_size=10), WORD, st.none()),
    "notation": st.sampled_from(["spelling", "tiles", "morse"]),
    "second": st.one_of(st.booleans(), st.just("yes")),
    "idempotency_key": st.text(max_size=3),
    "colour": st.just("red"),
}


@st.composite
def bodies(draw) -> bytes:
    chosen = draw(st.lists(st.sampled_from(sorted(MEMBERS)), unique=True, max_size=4))
    members = {"lexicon": draw(MEMBERS["lexicon"]), "words": draw(MEMBERS["words"])}
    members.update({name: draw(MEMBERS[name]) for name in chosen})
    for name in draw(st.lists(st.sampled_from(["lexicon", "words"]), max_size=1)):
        members.pop(name)
    text = json.dumps(
        members, ensure_ascii=draw(st.booleans()), separators=draw(st.sampled_from([(",", ":"), (", ", ": ")]))
    )
    if draw(st.booleans()) and text.endswith("}") and len(text) > 2:  # a member given twice
        text = text[:-1] + ', "lexicon": "ca"}'
    data = text.encode()
    cut = draw(st.integers(0, 3))
    return data[: len(data) - cut] if cut < 3 else data + draw(st.binary(max_size=3))


@given(
    body=bodies(),
    headers=st.dictionaries(
        st.sampled_from(["origin", "authorization", "accept", "content_encoding"]),
        st.sampled_from(["x", "Bearer t", "*/*", "identity", "gzip", ""]),
    ),
)
def test_random_requests_get_the_same_answer(plain_app, body, headers):
    same(plain_app, body, **headers)


@pytest.mark.parametrize(
    "setting",
    [
        {"LEXICON_TOKEN": "venue-token-for-tests"},
        {"LEXICON_CORS_ORIGINS": "https://club.example"},
        {"LEXICON_SECOND": "es:es-alt", "LEXICON_SECOND_ALWAYS": True},
    ],
)
def test_a_setting_the_fast_path_does_not_stand_in_for_keeps_every_request_in_flask(make_app, setting):
    app = make_app(**setting)
    assert not isinstance(app.wsgi_app, FastChallenge)


def test_in_an_event_a_challenge_takes_the_recorded_path_in_front_not_this_one(make_app, tmp_path):
    """tests/service/event/test_fast_recorded.py compares that path's answers with the route's."""
    from service.fast_challenge import RecordedChallenge
    from tournament import create_event

    create_event(tmp_path / "event.db", "Open", "a long enough password").close()
    app = make_app(LEXICON_EVENT=str(tmp_path / "event.db"))
    assert isinstance(app.wsgi_app, RecordedChallenge) and not isinstance(app.wsgi_app, FastChallenge)


def test_an_app_with_a_hook_it_does_not_stand_in_for_answers_itself(make_app, monkeypatch):
    from flask import Flask

    from service import fast_challenge

    def another_hook():
        return None

    real = fast_challenge.install

    def install_after_a_hook(app: Flask, *args):
        app.before_request(another_hook)
        return real(app, *args)

    monkeypatch.setattr(fast_challenge, "install", install_after_a_hook)
    assert not isinstance(make_app().wsgi_app, FastChallenge)


def test_a_second_opinion_asked_for_and_a_plain_verdict_are_answered_in_front_with_the_routes_bytes(make_app):
    app = make_app(LEXICON_SECOND="es:es-alt")
    assert same(app, body_of(lexicon="es", words=["CASA"], second=True))
    assert same(app, body_of(lexicon="es", words=["XILÓFONO"], second=True))
    assert same(app, body_of(lexicon="es", words=["CASA"]))
