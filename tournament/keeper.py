"""What every concept's rules stand on: the event's store behind its interface, the clock, and
who runs the writes.

The rules (sessions.py, devices.py, rounds.py, record.py) are mixins of `Keeper`; store.py puts
them together over any storage.Storage. They read and write only through that interface, so
they hold no SQL and no connection: a store is storage, the rules are here, once.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from .errors import EventMoved, StorageError
from .model import Event, Pin
from .stamps import Clock, utc_now
from .storage import Storage, Tx
from .tickets import claim_current
from .writer import Writer


def on_writer(method):
    """A method that writes: run by the event's Writer (in a gevent worker, in its writer thread,
    so that waiting for the write lock or the commit never stops the worker's other connections)."""

    @functools.wraps(method)
    def routed(self, *args, **kwargs):
        return self._writer.call(method, self, *args, **kwargs)

    return routed


# The longest event name: the judge's page, the console's title and an export's file name carry it,
# and a name of thousands of characters would push the page's first screen off the phone. Room
# for the longest real ones ("Campionat de Catalunya de Scrabble en català per equips 2026").
MAX_EVENT_NAME = 80


def check_event_fields(name: str, lexicon: str | None) -> None:
    """ValueError, quoting it, for an event's name or lexicon that could never be right."""
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_EVENT_NAME or not name.isprintable():
        shown = name if not isinstance(name, str) or len(name) <= MAX_EVENT_NAME + 20 else f"{name[:MAX_EVENT_NAME]}…"
        raise ValueError(
            f"an event's name is 1 to {MAX_EVENT_NAME} printable characters, not {shown!r}"
            + (f" ({len(name)} characters)" if isinstance(name, str) and len(name) > MAX_EVENT_NAME else "")
        )
    if lexicon is not None and not (isinstance(lexicon, str) and lexicon.strip() and lexicon.isprintable()):
        raise ValueError(f"an event's lexicon is an id or a language such as 'ca', not {lexicon!r}")


class Keeper:
    """An event's state over `storage`, safe for several processes and threads at once as far
    as the store is. `clock` gives the time (UTC, aware): tests inject one to expire codes and locks.
    """

    def __init__(self, storage: Storage, clock: Clock = utc_now):
        self._storage = storage
        self._clock = clock
        self._writer = Writer(storage.busy_seconds)  # this thread, or a gevent worker's writer thread

    @property
    def location(self) -> str:
        """Where the event is kept, as messages name it (a file's path)."""
        return self._storage.location

    def _now(self):
        return self._clock()

    def now(self):
        """The event's clock (a test's own in tests): what the HTTP layer checks times against."""
        return self._clock()

    @contextmanager
    def _write(self) -> Iterator[Tx]:
        """A write transaction of the store, once its caller still waits for it (tickets.py)."""
        with self._storage.write() as tx:
            if not claim_current():  # its caller stopped waiting (tickets.py): write nothing
                raise StorageError(f"{self._storage.location}: the write lock came after its caller gave up")
            moved = tx.moved()  # read inside the lock: a move marked since any earlier look counts
            if moved is not None:
                raise EventMoved(self._storage.location, *moved)
            yield tx

    def event(self) -> Event:
        with self._storage.read() as view:
            return view.event()

    @on_writer
    def pin_lexicon(self, pin: Pin) -> Pin:
        """Pin the event's lexicon unless it is pinned already: the pin the event has now (an
        instance that started first may have pinned another: the caller compares). A pin of these
        very bytes kept without their language (before it was kept: Pin.language) gets `pin`'s,
        and nothing else of it changes; a pin of other bytes is left as it is."""
        with self._write() as tx:
            pinned = tx.event().pin
            if pinned is None:
                tx.set_pin(pin)
            elif pinned.language is None and pin.language is not None and pinned.checksum == pin.checksum:
                tx.set_pin(replace(pinned, language=pin.language))
        return self.event().pin

    def moved(self) -> tuple[str, str] | None:
        """When the event was moved away and to which identity (every write refuses then), or None."""
        with self._storage.read() as view:
            return view.moved()

    def replaced(self) -> bool:
        """Whether the event's storage was replaced under the service (storage.Storage.replaced):
        every write refuses then, and /readyz and the console say so."""
        return self._storage.replaced()

    def failed(self) -> str | None:
        """Why the event's storage refuses everything until the service restarts (storage.Storage.failed)."""
        return self._storage.failed()

    def may_alter_guard(self) -> str | None:
        """Why the role the event's storage connects as could switch the record's append-only guard
        off (storage.Storage.may_alter_guard), or None: the service serves no event through one."""
        return self._storage.may_alter_guard()

    def unreachable(self) -> str | None:
        """Why the event's storage cannot be read now (its StorageError, which names the event's
        location without a password; None: it can): one read of the event's row, for /readyz."""
        try:
            with self._storage.read() as view:
                view.event()
        except StorageError as error:
            return str(error)
        return None

    def close(self) -> None:
        """Close this thread's resources of the store, and this process's writer thread (others
        close when their thread or process ends)."""
        self._writer.close()
        self._storage.close()
