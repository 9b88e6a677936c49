"""The one harness of the live server (bench/server.py), used by the bench and the tests alike."""

from __future__ import annotations

import errno
import re
import socket

import pytest

from bench.server import Server, ServerFailed, free_port
from tests.support import REPO, LiveServer


def test_free_port_is_written_once_and_gives_a_port_a_server_binds_and_no_other_choice_takes():
    """The port is held until its server binds it: the system's choice of a free port (a bind
    without SO_REUSEADDR, as a bind to port 0 is checked) is refused it, so no other test process,
    nor the next call here, is given it meanwhile; a server binds it as servers do."""
    defined = [
        path.relative_to(REPO).as_posix()
        for folder in ("bench", "tests")
        for path in (REPO / folder).rglob("*.py")
        if re.search(r"^\s*def _?free_port\(", path.read_text(encoding="utf-8"), re.M)
    ]
    assert defined == ["bench/server.py"]
    for host in ("127.0.0.1", "0.0.0.0"):
        port = free_port(host)
        with socket.socket() as probe, pytest.raises(OSError) as refused:
            probe.bind(("127.0.0.1", port))
        assert refused.value.errno == errno.EADDRINUSE, host
        with socket.socket() as server:  # gunicorn, nginx and PostgreSQL bind so
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind((host, port))
            server.listen()


def test_the_tests_live_server_is_the_bench_s():
    assert issubclass(LiveServer, Server)


@pytest.mark.server
def test_a_server_that_cannot_start_says_why_and_is_gone(tmp_path):
    server = Server([tmp_path / "missing.lex"], logs=tmp_path)
    with pytest.raises(ServerFailed, match=r"exited with 2:[\s\S]*missing\.lex"):
        server.wait_ready()
    assert server.process.poll() == 2 and server.ready_after is None


@pytest.mark.server
def test_ready_answers_and_stops_on_sigterm_with_exit_0(tmp_path):
    from tests.support import compile_list

    lexicon = compile_list(tmp_path / "es.lex", ["CARRO", "CASA"], "es", "es-h", "H")
    with Server([lexicon], logs=tmp_path, LEXICON_LOG_LEVEL="warning") as server:
        assert server.ready_after is not None and server.get("/healthz")[0] == 200
    assert server.process.returncode == 0
