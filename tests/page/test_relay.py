"""The relay that is a WebKit or Firefox device's network (tests/page/engines.py's `Relay`): once
cut, it carries nothing, not even on a connection it took as it was cut; and each device's is on a
port of its own, its origin."""

from __future__ import annotations

import contextlib
import socket
import threading

from tests.support import until
from tests.test_killed_run import port_free

from .engines import Relay


def test_a_connection_taken_as_the_relay_is_cut_carries_nothing(monkeypatch):
    """The relay takes a phone's connection while the network is up, and is cut while it connects
    to the service: that connection was in no set for the cut to reset, and went on carrying (a
    request the test meant to fail answered by the service). The service's connection is held
    until the cut, as a loaded machine may hold the relay's thread there."""
    service = socket.create_server(("127.0.0.1", 0))
    relay = Relay(service.getsockname()[1])
    connecting, cut = threading.Event(), threading.Event()
    connect = socket.create_connection

    def held(address, *args, **kwargs):  # the relay's connection to the service, once the cut is made
        if address == ("127.0.0.1", relay.target):
            connecting.set()
            cut.wait(10)
        return connect(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", held)
    phone = connect(("127.0.0.1", relay.port), timeout=10)
    try:
        assert connecting.wait(10), "the relay never took the phone's connection"
        relay.cut()
        cut.set()
        answering, _ = service.accept()
        with contextlib.suppress(OSError), answering:
            answering.sendall(b"HTTP/1.1 200 OK\r\n\r\n")  # the service answers: none of it reaches the phone
        try:
            got = phone.recv(100)
        except ConnectionResetError:  # the relay's reset, as a network gone
            got = b""
        assert got == b"", "the relay carried the service's answer after it was cut"
    finally:
        phone.close()
        relay.close()
        service.close()


def test_a_relay_never_takes_the_port_of_an_earlier_one(monkeypatch):
    """The device's origin is its relay's port, and the engine keeps each origin's storage for the
    session: a port again, and a device found the lexicons and verdicts an earlier one kept (a
    phone asserted to keep one lexicon kept two). The system may choose a closed relay's port
    again: here it does, at once."""
    first = Relay(9)  # (never connected to: the service's port does not matter here)
    port = first.port
    first.close()
    # Its thread, waiting in accept(), holds the port until a connection comes (a browser's, late):
    # taken and reset, the thread ends and the port is free for the system to choose again.
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=10) as late:
        late.recv(1)
    until(lambda: port_free(port), "the closed relay's port free")
    create, again = socket.create_server, [True]

    def chosen(address, *args, **kwargs):  # the system's next choice of a free port: that very one
        if again and address == ("127.0.0.1", 0):
            again.clear()
            return create(("127.0.0.1", port), *args, **kwargs)
        return create(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_server", chosen)
    second = Relay(9)
    try:
        assert not again and second.port != port
    finally:
        second.close()
