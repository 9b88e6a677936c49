"""The one interface the HTTP layer and the CLI use for an event's state, and how to open one.

`EventStore` is what the event does for its callers. It is `EventRules` (below): the rules of
the event, one module per concept, over a store that only stores (storage.py, the interface the
domain defines):

| module | what it holds |
|---|---|
| `keeper.py` | what the rules stand on: the store, the clock, who runs the writes |
| `sessions.py` | the director's login, lockout and sessions |
| `devices.py` | devices, pairing codes and tokens |
| `refused_offline.py` | each device's offline verdicts refused (another verdict shown, another list), for the console |
| `unshown_second.py` | the online rows whose second opinion their phone never showed (it judged the play itself), marked |
| `rounds.py` | rounds, and the record's head kept when one closes |
| `record.py` | appending to the chained record and reading it |
| `writer.py` | who runs the writes: the calling thread, or a gevent worker's writer thread (group commit) |
| `group_commit.py`, `tickets.py` | what the writer thread writes in one transaction; who settles a write given up on |
| `storage.py` | what a store must do (Protocols), and what it must guarantee |

SQLite (stores/sqlite/, one file) is the embedded default, for one machine with several worker
processes. Another store (a server database for many instances) is another storage.Storage,
chosen by `open_event` from the location's form (a path; a URL such as `postgresql://…`).
Callers never see SQL or a connection.

Every method is safe to call from several processes and threads at once; writes are durable
when the method returns. Errors are tournament.errors (and ValueError for values that
could never be right, quoted in the message).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Protocol

from . import credentials
from .budget import Budget
from .devices import Devices
from .entry import Entry, Record
from .errors import NotAnEvent
from .integrity import Break, ChainState
from .keeper import check_event_fields
from .model import (
    EVERY_ROW,
    Device,
    Event,
    Login,
    NewEvent,
    OfflineRefusal,
    Pin,
    PinnedEvent,
    RecordFilter,
    RefusedOffline,
    Round,
)
from .record import RecordBook
from .refused_offline import OfflineRefusals
from .rounds import Rounds
from .sessions import DirectorLogins
from .stamps import Clock, stamp, utc_now
from .storage import Storage
from .stores.postgres.location import is_url as is_database_url
from .stores.sqlite import SQLiteStorage
from .unshown_second import UnshownSeconds


class EventStore(Protocol):
    # the event and its director
    def event(self) -> Event: ...
    def check_password(self, password: str, client: str = "") -> Login: ...
    def set_password(self, password: str) -> None: ...
    def new_login_link(self) -> str: ...
    def use_login_link(self, token: str) -> bool: ...
    def pin_lexicon(self, pin: Pin) -> Pin: ...
    def start_session(self) -> str: ...
    def session_active(self, token: str) -> bool: ...
    def session_left(self, token: str) -> timedelta | None: ...
    def end_session(self, token: str) -> None: ...

    # devices: add (-> the device and its pairing code), pair (code -> device and token), revoke
    def add_device(self, name: str, role: str, table: str | None = None) -> tuple[Device, str]: ...
    def new_code(self, device_id: int) -> str: ...
    def pair(self, code: str) -> tuple[Device, str]: ...
    def device_by_token(self, token: str) -> Device | None: ...
    def device_by_token_hash(self, token_hash: str) -> Device | None: ...
    def device(self, device_id: int) -> Device: ...
    def devices(self) -> list[Device]: ...
    def revoke(self, device_id: int) -> Device: ...
    def touch(self, contacts: dict[int, str]) -> None: ...
    def contacts(self) -> dict[int, str]: ...
    def note_split(self, device_id: int, seen: str, served: str, missing: str | None) -> None: ...
    def splits(self) -> dict[int, tuple[str, str, str | None, str]]: ...
    def refused_offline(self) -> dict[int, dict[str, RefusedOffline]]: ...
    def unshown_seconds(self) -> dict[int, tuple[str | None, str]]: ...

    # rounds: at most one open
    def open_round(self, number: int | None = None) -> Round: ...
    def close_round(self) -> Round: ...
    def round(self, number: int) -> Round | None: ...
    def current_round(self) -> Round | None: ...
    def rounds(self) -> list[Round]: ...
    def confirm_round(self, number: int) -> Round: ...
    def synced(self, device_id: int) -> None: ...
    def awaited(self) -> frozenset[int]: ...

    # the record: append-only, chained
    def append(self, entry: Entry, min_gap: float = 0, round_open: bool | None = None) -> Record: ...
    def append_many(
        self,
        entries: Sequence[Entry],
        min_gap: float = 0,
        round_open: bool | None = None,
        budget: Sequence[Budget] | None = None,
        last_key: str | None = None,
        holder: tuple[int, str] | None = None,
        refusal: OfflineRefusal | None = None,
    ) -> list[Record]: ...
    def record(self, seq: int) -> Record | None: ...
    def holds(self, key: str) -> bool: ...
    def records(self, which: RecordFilter = EVERY_ROW) -> Iterator[Record]: ...
    def counts(self, round: int | None) -> dict[int | None, int]: ...
    def verify(self) -> Break | None: ...
    def chain_state(self, wait: bool = False) -> ChainState: ...
    def last_contact(self) -> dict[int, tuple[str, str, str, bool, int | None]]: ...
    def intact_rows(self, records: Sequence[Record]) -> dict[int, bool]: ...

    def may_alter_guard(self) -> str | None: ...  # why its connection could switch the record's guard off
    def failed(self) -> str | None: ...  # why the store refuses everything until a restart (a disk that failed)
    def replaced(self) -> bool: ...  # the file at the event's path is not the one served (no write is possible)
    def now(self) -> datetime: ...  # the store's clock: the times it writes and compares
    def close(self) -> None: ...


class EventRules(DirectorLogins, Devices, OfflineRefusals, UnshownSeconds, Rounds, RecordBook):
    """An EventStore: the event's rules (one module per concept) over any storage.Storage."""


def open_event(
    location: str | os.PathLike,
    clock: Clock = utc_now,
    synchronous: str = "FULL",
    readonly: bool = False,
    remember: bool = False,
) -> EventStore:
    """The event at `location` (an existing state file), its schema brought up to date.

    `synchronous` is FULL (a verdict survives a power cut) or NORMAL (it survives a killed
    service, not a power cut; faster on slow disks): see docs/tournament.md, "Durability".
    `readonly` opens it to read only (verify, export): the event file is not changed, not even
    migrated (SQLite may leave empty -wal and -shm files beside it), and every write raises ReadOnly.

    A `postgresql://…?event=ID` location is an event in a PostgreSQL database (stores/postgres/;
    `synchronous` is the file's: a database's commit is always durable). `remember`, for an event in
    a database: what this process verified of its record is kept by the process, not by this store,
    so the store opened again here knows it still (a service of every event closes an event's store
    to make room for others' and opens it again: docs/tournament.md, "When the record is verified");
    an event file's store keeps its own, as nothing closes it and opens it again in a process.
    """
    return EventRules(
        open_storage(location, synchronous=synchronous, readonly=readonly, remember=remember), clock=clock
    )


def open_storage(
    location: str | os.PathLike, synchronous: str = "FULL", readonly: bool = False, remember: bool = False
) -> Storage:
    """The storage of the event at `location`, without its rules (open_event's; transfer.py's)."""
    if is_database_url(location):
        return _postgres().PostgresStorage(location, readonly=readonly, remember=remember)
    return SQLiteStorage(location, synchronous=synchronous, readonly=readonly)


def upgrade_event(location: str | os.PathLike) -> tuple[int, int]:
    """Bring the storage of the event at `location` up to this program's schema (a database's: that
    of every event in it, as its owner; `location` may name the whole database, without
    `?event=`): (its version before, after)."""
    return storage_kind(location).upgrade(location)


def storage_kind(location: str | os.PathLike) -> type:
    """The store a location's form names: its class, whose `create` makes a new event there."""
    return _postgres().PostgresStorage if is_database_url(location) else SQLiteStorage


def _postgres():
    """The PostgreSQL store, imported only for a database's URL: psycopg is the `postgresql` extra's."""
    try:
        from .stores.postgres import store
    except ImportError as error:
        raise NotAnEvent(
            f"an event in a database needs the postgresql extra (pip install '.[postgresql]' in Lexicon Judge's "
            f"checkout): {error}"
        ) from None
    return store


def events_in(database: str) -> frozenset[str]:
    """The ids of the events in a database (a `postgresql://` URL without `?event=`); StorageError
    when it cannot be asked."""
    return _postgres().event_ids(database)


def may_alter_guard(database: str) -> str | None:
    """Storage.may_alter_guard of the role a database's URL (without `?event=`: a service of its
    events) connects as; StorageError when it cannot be asked."""
    return _postgres().may_alter_guard(database)


def pinned_events(database: str) -> list[PinnedEvent]:
    """The events of a database pinned to a lexicon and not moved out of it, with when the round
    open in each was opened (None: none open); StorageError when it cannot be asked."""
    return _postgres().pinned_events(database)


def create_event(
    location: str | os.PathLike,
    name: str,
    password: str,
    lexicon: str | None = None,
    clock: Clock = utc_now,
    pin: Pin | None = None,
    synchronous: str = "FULL",
) -> EventStore:
    """A new event; EventExists if there is one at `location` already. `pin`: its lexicon by checksum.
    `synchronous`: as for `open_event`."""
    check_event_fields(name, lexicon)
    password_hash = credentials.hash_password(password)
    now = stamp(clock())
    if pin is not None:
        pin = replace(pin, pinned=now, by="init")
    storage_kind(location).create(location, NewEvent(name.strip(), lexicon, now, password_hash, pin))
    return open_event(location, clock=clock, synchronous=synchronous)
