"""Slow and silent clients, and the gunicorn worker classes side by side (part of `make bench` service).

A phone-facing service on a venue laptop has no proxy in front of it: some clients will send
their request a byte a second (a weak radio, or on purpose), and browsers open connections
ahead of time and say nothing on them. `Crowd` keeps such connections open against a server,
reopening any the server closes, so the pressure lasts the whole measurement; meanwhile wrk
plays the judges. `linger` measures what a client that reads its answer and keeps its socket
open costs the next client of the same worker (gunicorn's sync worker drains a closed socket
for up to 2 s before it takes the next connection).
"""

from __future__ import annotations

import socket
import statistics
import threading
import time
import urllib.request

# One request head sent a byte a second: it never ends within any server's patience.
SLOW_HEAD = b"GET /healthz HTTP/1.1\r\nHost: judge\r\n" + b"X-Padding: slow\r\n" * 400


class Crowd:
    """`slow` connections sending a request head at 1 byte/s and `silent` ones saying nothing."""

    def __init__(self, port: int, slow: int, silent: int, source: str = "127.0.0.1"):
        """`source`: the client address the crowd comes from (any of 127.0.0.0/8 on loopback)."""
        self.port, self.slow, self.silent, self.source = port, slow, silent, source
        self.reopened = 0
        self._stop = threading.Event()
        self._opened = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _open(self) -> socket.socket | None:
        try:
            return socket.create_connection(("127.0.0.1", self.port), timeout=2, source_address=(self.source, 0))
        except OSError:
            return None

    def _run(self) -> None:
        slow = [[self._open(), 0] for _ in range(self.slow)]
        silent = [self._open() for _ in range(self.silent)]
        self._opened.set()
        while not self._stop.wait(1.0):
            for entry in slow:
                connection, sent = entry
                try:
                    if connection is None:
                        raise OSError
                    connection.send(SLOW_HEAD[sent % len(SLOW_HEAD) :][:1])
                    entry[1] = sent + 1
                except OSError:  # closed by the server: come back, as an attacker would
                    if connection is not None:
                        connection.close()
                    entry[0], entry[1] = self._open(), 0
                    self.reopened += 1
            for index, connection in enumerate(silent):
                if connection is None or _closed(connection):
                    if connection is not None:
                        connection.close()
                    silent[index] = self._open()
                    self.reopened += 1
        for connection in [entry[0] for entry in slow] + silent:
            if connection is not None:
                connection.close()

    def __enter__(self) -> Crowd:
        self._thread.start()
        self._opened.wait(120)  # every connection open (thousands take a few seconds)...
        time.sleep(2.0)  # ...and the slow ones started
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(10)


def _closed(connection: socket.socket) -> bool:
    """True if the server closed it (a read would return b'' at once)."""
    try:
        connection.setblocking(False)
        try:
            return connection.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        finally:
            connection.setblocking(True)
            connection.settimeout(2)
    except OSError:
        return True


def linger(url: str, port: int, tries: int = 5) -> float:
    """Median seconds a request waits when the client before it keeps its socket open after its answer.

    Measured against a server of one worker: a first client sends a complete request, reads
    the answer and neither closes nor sends more; a second request follows at once.
    """
    waits = []
    for _ in range(tries):
        keeper = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            keeper.sendall(b"GET /healthz HTTP/1.1\r\nHost: judge\r\n\r\n")
            keeper.recv(4096)
            started = time.perf_counter()
            with urllib.request.urlopen(f"{url}/healthz", timeout=10) as answer:
                answer.read()
            waits.append(time.perf_counter() - started)
        finally:
            keeper.close()
        time.sleep(0.2)
    return statistics.median(waits)
