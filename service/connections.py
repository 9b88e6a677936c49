"""Connections per client address: one hall client cannot hold the connections the others need.

A gevent worker holds up to `worker_connections` connections at once (service.gunicorn_conf);
beyond, new ones wait to be accepted. A connection that says nothing is closed once `keepalive`
(5 s) passes without a request's head: the deadline for the request line, gunicorn's own. One
client opening a few thousand connections and saying nothing on them (reopening each closed one)
filled every worker within that deadline, and a judge's challenge waited behind them, in the
kernel's queue of connections not yet accepted: 2,200 of them put the median verdict at
three quarters of a second, 4,000 stopped nearly every answer.

So `lexicon serve`'s gevent worker (`gevent` in LEXICON_WORKER_CLASS, the default) is gunicorn's
with a cap: at most PER_ADDRESS connections open at once from one client address, in each worker
process; the next one from that address is closed as soon as it is accepted, before anything is
read, and costs the worker a few microseconds. A browser opens about six connections to a host;
the cap leaves room for a hall whose phones all reach the laptop through one address (a Wi-Fi
router's NAT: forty phones). A trusted front end (LEXICON_TRUSTED_PROXIES, gunicorn's
`forwarded_allow_ips`) is every client's address, and is not capped: the front end limits its
clients itself (deploy/nginx.conf).

gunicorn has no setting for it. The worker is gunicorn's `GeventWorker` (a custom worker class
is what its `worker_class` setting takes) with its connection entry point, `handle(listener,
client, addr)`, wrapped: the count is taken before gunicorn reads anything, and given back when
gunicorn is done with the connection, however it ends. tests/service/test_connections.py holds
the server to it, so a gunicorn that changed it would fail there.
"""

from __future__ import annotations

import logging
import time
from collections import Counter

from gunicorn.workers.ggevent import GeventWorker

from .proxies import canonical, is_trusted

PER_ADDRESS = 256  # connections open at once from one client address, in one worker process
REFUSALS_LOGGED_EVERY = 60.0  # seconds: one warning a minute for an address held to the cap

log = logging.getLogger("service")


class CappedGeventWorker(GeventWorker):
    """gunicorn's gevent worker, at most PER_ADDRESS connections at once from one address."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.open: Counter[str] = Counter()
        self.trusted = tuple(self.cfg.forwarded_allow_ips or ())
        self.refused: dict[str, tuple[float, int]] = {}  # address: (last warned, refused since)

    def handle(self, listener, client, addr):
        address = canonical(addr[0]) if isinstance(addr, tuple) and addr else ""
        if self.open[address] >= PER_ADDRESS and not is_trusted(address, self.trusted):
            client.close()
            self._refused(address)
            return
        self.open[address] += 1
        try:
            super().handle(listener, client, addr)
        finally:
            self.open[address] -= 1
            if not self.open[address]:
                del self.open[address]

    def _refused(self, address: str) -> None:
        """A warning once a minute per address held to the cap: what an operator sees in the log."""
        now = time.monotonic()
        warned, count = self.refused.get(address, (now - REFUSALS_LOGGED_EVERY, 0))
        if now - warned < REFUSALS_LOGGED_EVERY:
            self.refused[address] = (warned, count + 1)
            return
        self.refused[address] = (now, 0)
        if len(self.refused) > 4 * PER_ADDRESS:  # many addresses: forget the quiet ones
            self.refused = {key: seen for key, seen in self.refused.items() if now - seen[0] < REFUSALS_LOGGED_EVERY}
        log.warning(
            "connections refused",
            extra={"fields": {"client": address, "open": PER_ADDRESS, "refused": count + 1}},
        )
