"""Slow and silent clients against the real `lexicon serve` (2 workers): judges are still answered.

A phone on a weak radio sends its request a byte a second; a browser opens connections ahead
of time and never uses some. With gunicorn's sync worker (and the home-made one before), two
such connections held both workers until gunicorn's 30 s timeout: nobody else got an answer.
Here 10 connections trickle a request head and 50 say nothing, while challenges are asked;
each must be answered, correctly, well before 30 s. (How fast is `make bench`'s business.)
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from tests.support import LiveServer

pytestmark = pytest.mark.server  # every test here talks to a live `lexicon serve`

SLOW_HEAD = b"GET /healthz HTTP/1.1\r\nHost: judge\r\n" + b"X-Padding: slow\r\n" * 100


@pytest.fixture(scope="module")
def server(tmp_path_factory, lexicon_files):
    running = LiveServer(tmp_path_factory.mktemp("slow"), [lexicon_files["es-mini"]], workers=2)
    try:
        running.wait_ready()
        yield running
    finally:
        running.stop()


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
