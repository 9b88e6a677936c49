"""Silent connections only wait for their deadline (service.connections), against the real
`lexicon serve`: with thousands of them open, from one address or from several, every phone
that sends its request at once is answered, from the same addresses too (a hall behind one
NAT address), before any of them has been closed; gunicorn's `keepalive` then closes them all.
A worker with half its connections open says so in the log. The master raises its soft limit of
open files to what the connections need, and says so when the hard limit is lower. (What
silent connections cost the others' verdicts is `make bench`'s business: section connections.)
"""

from __future__ import annotations

import http.client
import json
import resource
import socket
import subprocess
import sys

import pytest

from service.connections import CONNECTIONS, SPARE_FILES
from tests.support import LiveServer, until


def files_for(count: int) -> None:
    """This test process opens `count` sockets: its soft limit of open files raised to allow them."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = count + 512
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.fail(
            f"{count} connections need {needed} open files; the hard limit here is {hard}: raise it (ulimit -Hn)"
        )
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


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


def challenge(port: int, source: str) -> None:
    """A phone's challenge from `source`, its request sent at once."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        body = json.dumps({"lexicon": "es", "words": ["CARRO"]})
        connection.request("POST", "/v1/challenge", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        assert response.status == 200 and json.loads(response.read())["valid"] is True
    finally:
        connection.close()


SHAPES = {  # addresses, silent connections from each: beyond gunicorn's default of 1,000 a worker
    "one address": (["127.0.0.2"], 2_000),
    "several addresses": ([f"127.0.0.{n}" for n in range(2, 10)], 256),
}


@pytest.mark.server
@pytest.mark.parametrize("addresses, each", SHAPES.values(), ids=SHAPES.keys())
def test_phones_are_answered_beside_thousands_of_silent_connections_from_their_own_address(
    tmp_path, lexicon_files, addresses, each
):
    files_for(len(addresses) * each)
    server = LiveServer(tmp_path, [lexicon_files["es-mini"]])  # one worker: all of them on it
    server.wait_ready()
    held: list[socket.socket] = []
    try:
        for address in addresses:
            held += silent(server.port, address, each)
        for address in ["127.0.0.1", *addresses] * 3:  # the phones behind the same addresses too
            challenge(server.port, address)
        # answered while every silent connection was open: none waited for the deadline to free room
        assert not any(closed(connection) for connection in held)
        # and gunicorn's own deadline for a request's head (keepalive, 5 s) closes each of them
        until(lambda: all(closed(connection) for connection in held), "every silent connection closed")
    finally:
        for connection in held:
            connection.close()
        server.stop()


@pytest.mark.server
def test_a_worker_holding_half_its_connections_says_so_in_the_log(tmp_path, lexicon_files):
    count = CONNECTIONS // 2 + 300
    files_for(count)
    server = LiveServer(tmp_path, [lexicon_files["es-mini"]])
    server.wait_ready()
    held: list[socket.socket] = []
    try:
        held = silent(server.port, "127.0.0.2", count)
        line = server.logged(
            lambda text: next((line for line in text.splitlines() if "many connections open" in line), None),
            "the crowd of connections logged",
        )
        fields = json.loads(line)
        assert fields["level"] == "warning" and fields["capacity"] == CONNECTIONS
        assert CONNECTIONS // 2 < fields["open"] <= count + SPARE_FILES
    finally:
        for connection in held:
            connection.close()
        server.stop()


def _raised(soft: int, hard: int) -> tuple[list[int], str]:
    """raise_open_files in a process started with these limits: (its soft limit, needed), its log."""
    code = (
        "import json, logging, resource, sys\n"
        f"resource.setrlimit(resource.RLIMIT_NOFILE, ({soft}, {hard}))\n"
        "logging.basicConfig(format='%(message)s %(fields)s', stream=sys.stderr)\n"
        "from service.connections import raise_open_files\n"
        "print(json.dumps(raise_open_files()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout), done.stderr


def test_the_soft_limit_of_open_files_is_raised_within_the_hard_one_and_a_lower_hard_one_is_logged():
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = CONNECTIONS + SPARE_FILES
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.fail(f"the hard limit of open files here ({hard}) is below the {needed} needed: raise it (ulimit -Hn)")
    (limit, wanted), logged = _raised(1024, needed)
    assert limit == wanted == needed and logged == ""
    (limit, wanted), logged = _raised(1024, 4000)
    assert limit == 4000 and wanted == needed
    assert "open files limited" in logged and "'limit': 4000" in logged and "ulimit -Hn" in logged
