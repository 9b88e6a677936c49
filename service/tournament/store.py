"""The one interface the HTTP layer and the CLI use for an event's state, and how to open one.

`EventStore` is what any storage must do; SQLite (sqlite.SQLiteEventStore) is the embedded
default, for one machine with several worker processes. A server database for many instances
would be another class with these methods, chosen by `open_event` from the location's form
(a path today; a URL such as `postgresql://…` then). Callers never see SQL or a connection.

Every method is safe to call from several processes and threads at once; writes are durable
when the method returns. Errors are service.tournament.errors (and ValueError for values that
could never be right, quoted in the message).
"""

from __future__ import annotations

import os
from typing import Iterator, Protocol, Sequence

from .model import Break, Clock, Device, Entry, Event, Login, Record, Round, utc_now
from .sqlite import SQLiteEventStore


class EventStore(Protocol):
    # the event and its director
    def event(self) -> Event: ...
    def check_password(self, password: str) -> Login: ...

    # devices: add (-> the device and its pairing code), pair (code -> device and token), revoke
    def add_device(self, name: str, role: str, table: str | None = None) -> tuple[Device, str]: ...
    def new_code(self, device_id: int) -> str: ...
    def pair(self, code: str) -> tuple[Device, str]: ...
    def device_by_token(self, token: str) -> Device | None: ...
    def device(self, device_id: int) -> Device: ...
    def devices(self) -> list[Device]: ...
    def revoke(self, device_id: int) -> Device: ...

    # rounds: at most one open
    def open_round(self, number: int | None = None) -> Round: ...
    def close_round(self) -> Round: ...
    def round(self, number: int) -> Round | None: ...
    def current_round(self) -> Round | None: ...
    def rounds(self) -> list[Round]: ...

    # the record: append-only, chained
    def append(self, entry: Entry) -> Record: ...
    def append_many(self, entries: Sequence[Entry]) -> list[Record]: ...
    def record(self, seq: int) -> Record | None: ...
    def records(self, round: int | None = None, table: str | None = None,
                device_id: int | None = None) -> Iterator[Record]: ...
    def counts(self, round: int | None) -> dict[int | None, int]: ...
    def verify(self) -> Break | None: ...

    def close(self) -> None: ...


def open_event(location: str | os.PathLike, clock: Clock = utc_now, synchronous: str = "FULL",
               readonly: bool = False) -> EventStore:
    """The event at `location` (an existing state file), its schema brought up to date.

    `synchronous` is FULL (a verdict survives a power cut) or NORMAL (it survives a killed
    service, not a power cut; faster on slow disks): see docs/tournament.md, "Durability".
    `readonly` opens it to read only (verify, export): the event file is not changed, not even
    migrated (SQLite may leave empty -wal and -shm files beside it), and every write raises ReadOnly.
    """
    return SQLiteEventStore(location, clock=clock, synchronous=synchronous, readonly=readonly)


def create_event(location: str | os.PathLike, name: str, password: str, lexicon: str | None = None,
                 clock: Clock = utc_now) -> EventStore:
    """A new event; EventExists if there is one at `location` already."""
    return SQLiteEventStore.create(location, name, password, lexicon, clock=clock)
