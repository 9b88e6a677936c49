"""Each device's last contact: any request it sends with its token (a challenge, its page asking
the event while open), for the console's list of devices.

Cheap on the request path: a request only notes its device's time in this worker's memory (a
dictionary entry); at most every FLUSH_SECONDS, a request that finds notes older than that writes
them all to the event file in one small transaction (`touch`), so that the console, answered by
any worker, reads every worker's contacts, at most FLUSH_SECONDS late (and the worker's own
without delay). A write that fails is tried with the next flush: a contact is a hint for the
director, never evidence, and never stops a request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime

from tournament import EventStore, StorageError, stamp

FLUSH_SECONDS = 5.0


class Contacts:
    def __init__(self, db: EventStore, clock: Callable[[], float] = time.monotonic):
        self.db = db
        self.clock = clock
        self.pending: dict[int, datetime] = {}  # as the store's clock said: a stamp made only when written or read
        self.written = clock()
        self.lock = threading.Lock()

    def seen(self, device_id: int) -> None:
        """A request from this device, now; the notes written when the last write is old enough."""
        self.pending[device_id] = self.db.now()  # the store's clock: what closing compares with
        if self.clock() - self.written >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        with self.lock:
            notes, self.pending = self.pending, {}
            self.written = self.clock()
        if not notes:
            return
        try:
            self.db.touch({device_id: stamp(moment) for device_id, moment in notes.items()})
        except StorageError:  # the file busy or full: tried again with the next notes
            with self.lock:
                for device_id, moment in notes.items():
                    self.pending.setdefault(device_id, moment)

    def known(self) -> dict[int, str]:
        """Every device's last contact: the event file's, with this worker's notes not yet written."""
        found = self.db.contacts()
        for device_id, moment in list(self.pending.items()):
            noted = stamp(moment)
            if noted > found.get(device_id, ""):
                found[device_id] = noted
        return found


__all__ = ["FLUSH_SECONDS", "Contacts"]
