"""Requests gunicorn refuses before the app sees them, against the real `lexicon serve`.

gunicorn writes those answers itself, as text/html, and has no documented way to change them:
docs/operations.md lists exactly which statuses can come from the server and why (this test checks the
list against what the server does). What matters more: no word, query or path with a query
reaches a log, however the request is broken.
"""

from __future__ import annotations

import json
import re
import socket

import pytest

from tests.support import REPO, LiveServer, log_lines, stop_soon

pytestmark = pytest.mark.server  # every test here talks to a live `lexicon serve`

WORDS = ["ZAPATERO", "MESILLA", "PERRUNO", "CASONA", "MESETA"]

# (request, the status gunicorn answers): each one a way a request line or head can be broken.
BROKEN = {
    "query over the request-line limit": (
        b"GET /v1/challenge?lexicon=es&word=" + b"ZAPATERO" * 625 + b" HTTP/1.1\r\nHost: j\r\n\r\n",
        414,
    ),
    "header over the field-size limit": (
        b"GET /healthz HTTP/1.1\r\nHost: j\r\nX-Big: " + b"MESILLA" * 1300 + b"\r\n\r\n",
        431,
    ),
    "over 64 header fields": (
        b"GET /healthz HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(100)) + b"\r\n",
        431,
    ),
    "unknown transfer coding": (b"POST /v1/challenge HTTP/1.1\r\nHost: j\r\nTransfer-Encoding: xchunked\r\n\r\n", 501),
    "space in the query (words in the version)": (
        b"GET /v1/challenge?lexicon=es&word=CASONA MESETA HTTP/1.1\r\nHost: j\r\n\r\n",
        400,
    ),
    "control byte in the method": (b"G\x01T /?word=CASONA HTTP/1.1\r\nHost: j\r\n\r\n", 400),
    "an expectation other than 100-continue": (
        b"POST /v1/challenge HTTP/1.1\r\nHost: j\r\nExpect: MESETA\r\nContent-Length: 2\r\n\r\n{}",
        417,
    ),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory, lexicon_files):
    running = LiveServer(tmp_path_factory.mktemp("errors"), [lexicon_files["es-mini"]], workers=1)
    running.wait_ready()
    yield running
    stop_soon(running)


def exchange(port: int, raw: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(raw)
        data = b""
        while b"\r\n\r\n" not in data or (b"Connection: close" in data and not data.endswith(b"</html>\n")):
            piece = connection.recv(65536)
            if not piece:
                break
            data += piece
        return data


def documented_statuses() -> set[int]:
    """The statuses docs/operations.md says gunicorn itself may answer ("Answers from the server itself")."""
    text = (REPO / "docs" / "operations.md").read_text(encoding="utf-8")
    section = text.split("\n## Answers from the server itself\n", 1)[1].split("\n## ", 1)[0]
    return {int(status) for status in re.findall(r"^\| (\d{3}) \|", section, re.M)}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_requests_gunicorn_refuses_get_a_documented_status(server, case):
    raw, status = BROKEN[case]
    answer = exchange(server.port, raw)
    assert answer.startswith(b"HTTP/1.1 %d " % status), answer[:200]
    assert status in documented_statuses()
    assert server.get("/healthz")[0] == 200


def test_a_query_encoded_in_the_path_is_a_problem(server):
    status, _, body = server.request("GET", "/v1/challenge%3Flexicon=es%26word=PERRUNO")
    assert status == 404 and json.loads(body)["type"] == "about:blank"


def test_no_word_query_or_request_line_in_any_log(tmp_path, lexicon_files):
    server = LiveServer(tmp_path, [lexicon_files["es-mini"]], workers=1)  # its own: it is stopped here
    server.wait_ready()
    for raw, _ in BROKEN.values():
        exchange(server.port, raw)
    server.request("GET", "/v1/challenge%3Flexicon=es%26word=PERRUNO")
    server.request("GET", "/nowhere?word=PERRUNO")
    assert server.stop() == 0
    logs = server.logs()
    lines = log_lines(logs)  # JSON lines only, past where to go
    assert any(line["message"].startswith("Invalid request") for line in lines)
    for word in WORDS + ["CASA", "word=", "lexicon=es", "%3F", "%3f"]:
        assert word not in logs, word


# Each where a word can come in a request that the app answers (a word per place, to tell which leaked).
PLACED = {
    "GET /v1/PERA/MANGO": {},  # a path that is no route
    "GET /v1/lexicons/NARANJA/browser": {},  # a route's parameter
    "GET /static/CEREZA.js": {},
    "GET /director/static/CIRUELA": {},
    "GET /v1/%4CIMONERO": {},  # the word percent-encoded in the path: L, IMONERO
    "DELETE /v1/challenge/FRAMBUESA": {},
    "PUT /v1/challenge": {
        "Referer": "http://juez.local/?word=ARANDANO",
        "User-Agent": "GROSELLA/1.0",
        "X-Word": "MEMBRILLO",
        "Cookie": "jugada=ALBARICOQUE",
    },  # 405, with headers
    "GET /healthz": {"Referer": "http://juez.local/PISTACHO", "Origin": "http://AVELLANA.local"},
    "CASTANA /v1/challenge": {},  # a method that is no method: a word too (405)
    "NUEZ /v1/BELLOTA": {},  # and on no route (404)
}
PLACED_WORDS = [
    "MANGO",
    "NARANJA",
    "CEREZA",
    "CIRUELA",
    "LIMONERO",
    "IMONERO",
    "FRAMBUESA",
    "ARANDANO",
    "GROSELLA",
    "MEMBRILLO",
    "ALBARICOQUE",
    "PISTACHO",
    "AVELLANA",
    "CASTANA",
    "NUEZ",
    "BELLOTA",
]


def test_no_word_in_any_part_of_a_request_reaches_the_access_or_error_log(tmp_path, lexicon_files):
    """Path (routed or not, percent-encoded or not), query, and headers: at the debug level too."""
    server = LiveServer(tmp_path, [lexicon_files["es-mini"]], workers=1, LEXICON_LOG_LEVEL="debug")
    server.wait_ready()
    for request, headers in PLACED.items():
        method, path = request.split(" ")
        status, _, _ = server.request(method, path, headers=headers)
        assert status < 500, request
    assert server.stop() == 0
    logs = server.logs()
    assert '"status":404' in logs and '"status":405' in logs  # the requests were logged, as requests
    for word in PLACED_WORDS:
        assert word.lower() not in logs.lower(), word
