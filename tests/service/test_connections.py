"""Silent connections only wait for their deadline (service.connections), against the real
`lexicon serve`: with thousands of them open, from one address or from several, every phone
that sends its request at once is answered, from the same addresses too (a hall behind one
NAT address), none of them closed meanwhile, and the kernel holds them, not a worker, until
they speak; one handed over at last is closed by gunicorn's `keepalive`, as is a head begun and
never finished. A worker with half its connections open says so in the log. The master raises
its soft limit of open files to what the connections need, and says so when the hard limit is
lower. (What silent connections cost the others' verdicts is `make bench`'s business: section
connections.)
"""

from __future__ import annotations

import http.client
import json
import resource
import socket
import subprocess
import sys
import time

import pytest

from service.connections import CONNECTIONS, DEFER_SECONDS, SPARE_FILES
from tests.support import LiveServer, stop_soon, until


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


def silent(port: int, source: str, count: int, say: bytes = b"") -> list[socket.socket]:
    """`count` connections from `source` (an address of the loopback network) that say nothing,
    or only `say` (the start of a request's head)."""
    opened = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
        connection.settimeout(None)  # blocking: a read that would wait says so at once (closed())
        if say:
            connection.sendall(say)
        opened.append(connection)
    return opened


def waiting_in_the_kernel(port: int) -> int:
    """Connections to `port` the kernel has not handed to accept() yet, their handshake done
    (Linux: SYN_RECV in /proc/net/tcp, where a deferred connection waits)."""
    count = 0
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            count += fields[1].endswith(f":{port:04X}") and fields[3] == "03"
    return count


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
        # held by the kernel until they speak, not by the worker (a greenlet, a timer, a close each)
        assert waiting_in_the_kernel(server.port) >= len(held) * 0.9
        held[0].sendall(b"GET /healthz HTTP/1.1\r\nHost: judge\r\n\r\n")  # one speaks at last: answered
        assert held[0].recv(12) == b"HTTP/1.1 200"
    finally:
        for connection in held:
            connection.close()
        stop_soon(server)


@pytest.mark.server
@pytest.mark.slow  # DEFER_SECONDS, then gunicorn's 5 s
def test_a_silent_connection_handed_over_at_last_and_a_head_never_finished_are_closed(tmp_path, lexicon_files):
    server = LiveServer(tmp_path, [lexicon_files["es-mini"]])
    server.wait_ready()
    try:
        [quiet], [begun] = silent(server.port, "127.0.0.2", 1), silent(server.port, "127.0.0.2", 1, say=b"GET /")
        started = time.monotonic()
        until(lambda: closed(begun), "a head begun and never finished closed", limit=15)
        assert not closed(quiet) and time.monotonic() - started < DEFER_SECONDS
        until(lambda: closed(quiet), "a silent connection closed", limit=DEFER_SECONDS + 30, poll=0.5)
        quiet.close(), begun.close()
    finally:
        stop_soon(server)


@pytest.mark.server
def test_a_worker_holding_half_its_connections_says_so_in_the_log(tmp_path, lexicon_files):
    count = CONNECTIONS // 2 + 300
    files_for(count)
    server = LiveServer(tmp_path, [lexicon_files["es-mini"]])
    server.wait_ready()
    held: list[socket.socket] = []
    try:  # heads begun and not finished: each held by the worker (a silent one waits in the kernel)
        held = silent(server.port, "127.0.0.2", count, say=b"G")
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
        stop_soon(server)


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
