"""One client address holds at most PER_ADDRESS connections of a worker (service.connections),
against the real `lexicon serve`: the next ones are closed as soon as they are accepted, the
others' challenges are answered meanwhile, and the log says so once. A trusted front end is
every client's address, and is not capped. (What thousands of silent connections cost the
others' verdicts is `make bench`'s business: section service, "silent connections".)
"""

from __future__ import annotations

import json
import socket

import pytest

from service.connections import PER_ADDRESS
from tests.support import LiveServer, until

pytestmark = pytest.mark.server  # every test here talks to a live `lexicon serve`

BEYOND = 20


def silent(port: int, source: str, count: int) -> list[socket.socket]:
    """`count` connections from `source` (an address of the loopback network) that say nothing."""
    opened = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
        connection.settimeout(None)  # blocking: a read that would wait says so at once (closed())
        opened.append(connection)
    return opened


def closed(connection: socket.socket) -> bool:
    """Whether the server closed it (an end of stream waits to be read), without waiting."""
    try:
        return connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def challenge(server: LiveServer) -> None:
    body = json.dumps({"lexicon": "es", "words": ["CARRO"]}).encode()
    status, _, answer = server.request("POST", "/v1/challenge", body, {"Content-Type": "application/json"})
    assert status == 200 and json.loads(answer)["valid"] is True


def test_one_address_beyond_its_cap_is_closed_at_once_and_the_others_are_answered(tmp_path, lexicon_files):
    server = LiveServer(tmp_path, [lexicon_files["es-mini"]], LEXICON_TRUSTED_PROXIES="127.0.0.3")
    server.wait_ready()
    held: list[socket.socket] = []
    try:
        held = silent(server.port, "127.0.0.2", PER_ADDRESS + BEYOND)
        # the connections past the cap are closed as soon as they are accepted, the first ones
        # wait for their request's head (5 s): closed first are the last, not the oldest
        until(lambda: sum(map(closed, held)) >= BEYOND, f"{BEYOND} connections closed by the server")
        assert not any(closed(connection) for connection in held[:PER_ADDRESS])
        assert all(closed(connection) for connection in held[PER_ADDRESS:])
        challenge(server)  # from 127.0.0.1: another address
        line = server.logged(
            lambda text: next((line for line in text.splitlines() if "connections refused" in line), None),
            "the refusals logged",
        )
        fields = json.loads(line)
        assert fields["level"] == "warning" and fields["client"] == "127.0.0.2" and fields["open"] == PER_ADDRESS
        # a trusted front end brings every client: as many connections as it needs
        for connection in held:
            connection.close()
        held = silent(server.port, "127.0.0.3", PER_ADDRESS + BEYOND)
        challenge(server)  # answered after every one of them was accepted, in the order they came
        assert not any(closed(connection) for connection in held)
    finally:
        for connection in held:
            connection.close()
        server.stop()
