"""A limit on wrong pairing codes per client address, kept in the worker's memory.

Pairing needs no login: anyone on the hall's Wi-Fi may send codes. A wrong one is refused from a
read connection (tournament.devices), so it never takes the event's write lock; this limit keeps
one address from trying codes by the thousand: WRONG_CODES wrong in a WINDOW, then 429 until the
oldest of them is a WINDOW old, a right code included (else the guessing would go on). It is
kept per worker process, not in the event file, because writing each wrong code there would take
the very lock this spares: with several workers an address gets that many tries in each, still a
few dozen a minute against codes of 8 characters that last CODE_LIFETIME.

An IPv6 client may take a new address of its /64 for each code (service.proxies, `network_of`),
so the wrong codes of every address of one /64 are counted together too: NETWORK_CODES in a
WINDOW, three addresses' worth, so that a hall's phones, which share one /64 and only count
their typing mistakes, are not held by each other. A guesser rotating through its /64 gets
NETWORK_CODES a minute in each worker, as three addresses would: with two workers, 600 guesses in
a code's 10 minutes against 31**8 (some 8.5e11) codes, a chance of 7e-10 for each code shown.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from ..proxies import limit_keys

WRONG_CODES = 10  # wrong pairing codes from one address...
NETWORK_CODES = 3 * WRONG_CODES  # ...or from all the addresses of one IPv6 /64...
WINDOW = 60.0  # ...in this many seconds, then it waits
ADDRESSES = 4096  # addresses remembered at most (the least recently wrong are forgotten first)


class WrongCodes:
    """Wrong pairing codes per address, and per IPv6 /64, in the last WINDOW seconds (`clock`:
    monotonic seconds)."""

    def __init__(
        self,
        limit: int = WRONG_CODES,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
        network_limit: int = NETWORK_CODES,
    ):
        self.limit, self.window, self.clock, self.network_limit = limit, window, clock, network_limit
        self._wrong: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _keys(self, client: str) -> tuple[tuple[str, int], ...]:
        return limit_keys(client, self.limit, self.network_limit)

    def wait(self, client: str) -> tuple[int, str]:
        """Seconds before `client` may send a code again, 0: now; and what holds it that long, the
        key its refusal names: `client` itself, or its /64 (`network_of`)."""
        now = self.clock()
        waits = [(0, client)]
        with self._lock:
            for key, limit in self._keys(client):
                times = self._recent(key, now)
                if len(times) >= limit:
                    waits.append((max(1, math.ceil(times[len(times) - limit] + self.window - now)), key))
        return max(waits, key=lambda wait: wait[0])  # the address's, of two as long

    def wrong(self, client: str) -> None:
        """Count a wrong code from `client`, against its address and its /64."""
        now = self.clock()
        with self._lock:
            for key, _ in self._keys(client):
                times = self._recent(key, now)
                times.append(now)
                self._wrong[key] = times
                self._wrong.move_to_end(key)
            while len(self._wrong) > ADDRESSES:
                self._wrong.popitem(last=False)

    def _recent(self, client: str, now: float) -> deque[float]:
        times = self._wrong.get(client, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times
