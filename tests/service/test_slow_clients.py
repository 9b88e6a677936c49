"""Slow and silent clients against the real `lexicon serve` (2 workers): judges are still answered.

A phone on a weak radio sends its request a byte a second; a browser opens connections ahead
of time and never uses some. With gunicorn's sync worker (and the home-made one before), two
such connections held both workers until gunicorn's 30 s timeout: nobody else got an answer.
Here 10 connections trickle a request head and 50 say nothing, while challenges are asked;
each must be answered, correctly, well before 30 s. (How fast is `make bench`'s business.)
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time

import pytest

from service.config import BODY_SECONDS
from tests.support import LiveServer, stop_soon

pytestmark = pytest.mark.server  # every test here talks to a live `lexicon serve`

SLOW_HEAD = b"GET /healthz HTTP/1.1\r\nHost: judge\r\n" + b"X-Padding: slow\r\n" * 100


@pytest.fixture(scope="module")
def server(tmp_path_factory, lexicon_files):
    running = LiveServer(tmp_path_factory.mktemp("slow"), [lexicon_files["es-mini"]], workers=2)
    try:
        running.wait_ready()
        yield running
    finally:
        stop_soon(running)


def trickle(port: int, stop: threading.Event, opened: list, sent: list) -> None:
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    opened.append(connection)
    for byte in SLOW_HEAD:
        if stop.wait(1.0):
            return
        try:
            connection.send(bytes([byte]))
        except OSError:
            return  # the server gave up on it: as it should, in time
        sent.append(connection)  # one more byte of this one's head


def test_challenges_answered_among_slow_and_silent_connections(server):
    stop = threading.Event()
    opened: list[socket.socket] = []
    sent: list[socket.socket] = []
    slow = [threading.Thread(target=trickle, args=(server.port, stop, opened, sent), daemon=True) for _ in range(10)]
    for thread in slow:
        thread.start()
    silent = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(50)]
    try:
        deadline = time.monotonic() + 30
        while not (len(opened) == 10 and all(sent.count(c) >= 2 for c in opened)):  # a few bytes of each head
            assert time.monotonic() < deadline, "the slow clients never got going"
            time.sleep(0.05)
        body = json.dumps({"lexicon": "es", "words": ["CARRO", "CHICO"]}).encode()
        for _ in range(20):  # server.request gives up after 10 s; the stalled service answered after 30
            status, _, answer = server.request("POST", "/v1/challenge", body, {"Content-Type": "application/json"})
            assert status == 200 and json.loads(answer)["valid"] is True
        assert all(thread.is_alive() for thread in slow)  # the trickles were still going meanwhile
    finally:
        stop.set()
        for connection in silent + opened:
            connection.close()
        for thread in slow:
            thread.join(5)


def test_a_trickled_head_is_closed_by_the_server(server):
    """gunicorn's keepalive limit (5 s) bounds the time a request's head may take to arrive."""
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    try:
        started = time.monotonic()
        for byte in SLOW_HEAD:
            try:
                connection.send(bytes([byte]))
            except OSError:
                break
            if time.monotonic() - started > 25:
                pytest.fail("the server still reads a head sent a byte a second after 25 s")
            time.sleep(0.5)
            connection.setblocking(False)
            try:
                if connection.recv(1, socket.MSG_PEEK) == b"":
                    break  # closed by the server
            except BlockingIOError:
                pass
            except OSError:
                break
            finally:
                connection.setblocking(True)
                connection.settimeout(30)
    finally:
        connection.close()
    assert server.process.poll() is None


# -- a body that stalls after a complete head ------------------------------------------------------------


def _read_status(connection: socket.socket, limit: float) -> tuple[int | None, float]:
    """(status of the answer, seconds until it came), or (None, ...) if none came within `limit`."""
    started = time.monotonic()
    connection.settimeout(limit)
    received = b""
    try:
        while b"\r\n" not in received:
            chunk = connection.recv(4096)
            if not chunk:
                break
            received += chunk
    except TimeoutError:
        pass
    elapsed = time.monotonic() - started
    if not received.startswith(b"HTTP/1.1 "):
        return None, elapsed
    return int(received[9:12]), elapsed


def _stalled_body(port: int, path: str = "/v1/challenge") -> socket.socket:
    """A connection whose head is complete and whose body stops after 5 of its 100 bytes."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    connection.sendall(
        f"POST {path} HTTP/1.1\r\nHost: judge\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n".encode()
        + b'{"lex'
    )
    return connection


@pytest.mark.parametrize("path", ["/v1/challenge", "/v1/challenges"])
def test_a_body_that_stalls_is_answered_408_at_the_deadline(server, path):
    """The head arrived, the body stops: 408 once BODY_SECONDS have passed, not a connection held."""
    connection = _stalled_body(server.port, path)
    try:  # a deadline renewed or doubled would answer no sooner than twice BODY_SECONDS: not waited for
        status, elapsed = _read_status(connection, 2 * BODY_SECONDS)
    finally:
        connection.close()
    assert status == 408, f"no 408 within {elapsed:.1f} s"
    assert elapsed > BODY_SECONDS - 0.5  # not before the deadline


def test_a_trickled_body_is_408_at_the_same_deadline(server):
    """The deadline bounds the whole body, not each read: a byte every half second does not renew it.

    The body trickles until the server answers: its 408 must come while bytes are still coming
    (a deadline renewed by each read never would) and long before the body is whole. Once the
    answer is there nothing more is sent: a byte in flight when the server closes makes the close
    a reset, a race of the test, not of the server; a send the close already refused ends the
    trickle the same way, the answer read as it came."""
    body = json.dumps({"lexicon": "es", "words": ["CARRO", "CHICO"]}).encode()
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    answered = select.poll()
    answered.register(connection, select.POLLIN)
    try:
        connection.sendall(
            f"POST /v1/challenge HTTP/1.1\r\nHost: judge\r\nContent-Length: {len(body) + 40}\r\n\r\n".encode()
        )
        sent = 0
        while sent < len(body) and not answered.poll(500):  # a byte every half second, until answered
            try:
                connection.sendall(body[sent : sent + 1])
            except OSError:
                break  # closed by the server: its answer is read below
            sent += 1
        status, _ = _read_status(connection, BODY_SECONDS + 5)
    finally:
        connection.close()
    assert status == 408
    assert sent < len(body), "the whole trickle went by unanswered: each byte renewed the deadline"


def test_stalled_bodies_do_not_starve_challenges(server):
    """300 connections stall their body at once; challenges are answered meanwhile, and each of
    the 300 gets its 408."""
    stalled = [_stalled_body(server.port) for _ in range(300)]
    answered = select.poll()
    for connection in stalled:
        answered.register(connection, select.POLLIN)
    try:
        body = json.dumps({"lexicon": "es", "words": ["CARRO", "CHICO"]}).encode()
        for _ in range(10):
            status, _, answer = server.request("POST", "/v1/challenge", body, {"Content-Type": "application/json"})
            assert status == 200 and json.loads(answer)["valid"] is True
            # answered while every stalled body still waits: a challenge that waited for room (a
            # worker or a connection some stalled body held until its deadline) comes after a 408
            assert answered.poll(0) == [], "a challenge was answered only once stalled bodies were"
        statuses = [_read_status(connection, BODY_SECONDS + 10)[0] for connection in stalled]
    finally:
        for connection in stalled:
            connection.close()
    assert statuses == [408] * len(stalled)
    assert '"level":"error"' not in server.err.read_text()  # a 408 is no error of the server
