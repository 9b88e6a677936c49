"""A limit on wrong pairing codes per client address, kept in the worker's memory.

Pairing needs no login: anyone on the hall's Wi-Fi may send codes. A wrong one is refused from a
read connection (tournament.devices), so it never takes the event's write lock; this limit keeps
one address from trying codes by the thousand: WRONG_CODES wrong in a WINDOW, then 429 until the
oldest of them is a WINDOW old, a right code included (else the guessing would go on). It is
kept per worker process, not in the event file, because writing each wrong code there would take
the very lock this spares: with several workers an address gets that many tries in each, still a
few dozen a minute against codes of 8 characters that last CODE_LIFETIME.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

WRONG_CODES = 10  # wrong pairing codes from one address...
WINDOW = 60.0  # ...in this many seconds, then it waits
ADDRESSES = 4096  # addresses remembered at most (the least recently wrong are forgotten first)


class WrongCodes:
    """Wrong pairing codes per address in the last WINDOW seconds (`clock`: monotonic seconds)."""

    def __init__(self, limit: int = WRONG_CODES, window: float = WINDOW, clock: Callable[[], float] = time.monotonic):
        self.limit, self.window, self.clock = limit, window, clock
        self._wrong: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, client: str) -> int:
        """Seconds before `client` may send a code again; 0: now."""
        now = self.clock()
        with self._lock:
            times = self._recent(client, now)
            if len(times) < self.limit:
                return 0
            return max(1, math.ceil(times[len(times) - self.limit] + self.window - now))

    def wrong(self, client: str) -> None:
        """Count a wrong code from `client`."""
        now = self.clock()
        with self._lock:
            times = self._recent(client, now)
            times.append(now)
            self._wrong[client] = times
            self._wrong.move_to_end(client)
            while len(self._wrong) > ADDRESSES:
                self._wrong.popitem(last=False)

    def _recent(self, client: str, now: float) -> deque[float]:
        times = self._wrong.get(client, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times
