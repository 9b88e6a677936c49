"""Tournament mode's event without the web: its director, devices, rounds and the chained record,
its rules written once over a store that only stores (storage.py; SQLite's file by default,
stores/); exports of the record and their checks.

The HTTP layer (service.event) and the CLI use only what is exported here (a contract in
pyproject.toml, tested by tests/test_layers.py, keeps it so): `open_event` / `create_event` give
an `EventStore`; `verify` and `export` work on any store. See docs/tournament.md.
"""

from __future__ import annotations

from .budget import PlaysLimited
from .chain import GENESIS, MalformedRow, canonical_bytes, row_hash, verify_chain
from .credentials import new_password, token_hash
from .devices import CODE_LIFETIME
from .entry import SECOND_FIELDS, Entry, EntryForm, Record
from .errors import (
    DeviceFieldRefused,
    DeviceGone,
    DeviceNameTaken,
    DiskFailed,
    EventExists,
    EventMoved,
    FileDamaged,
    IdempotencyConflict,
    LastKeyMissing,
    LockBusy,
    NotAnEvent,
    OfflineRefused,
    PairingRefused,
    RateLimited,
    ReadOnly,
    RoundError,
    RoundRefused,
    StorageError,
    TableMissing,
    TournamentError,
    UnknownDevice,
    Unreadable,
)
from .export_check import FILTER_UNSAID, WRITTEN_DIGITS, PaperHead, check_export
from .export_filter import ExportFilter
from .export_format import FORMATS, as_dict, csv_part, read_export, read_export_filter, unshown_at
from .export_format import export as export_records
from .integrity import BREAK_KINDS, Break, ChainState
from .keeper import MAX_EVENT_NAME
from .model import (
    MAX_NUMBER,
    REFUSED_LEXICON,
    REFUSED_VERDICT,
    ROLES,
    Device,
    Event,
    EventFile,
    Login,
    OfflineRefusal,
    Pin,
    PinnedEvent,
    RecordFilter,
    RefusedOffline,
    Round,
)
from .sessions import GLOBAL_FAILURES, LINK_LIFETIME, LOCKOUT, MAX_FAILURES, SESSION_LIFETIME
from .shown import said as said_unknown_shown
from .shown import unknown_shown
from .stamps import parse_stamp, read_stamp, stamp, utc_now
from .store import EventStore, create_event, events_in, may_alter_guard, open_event, pinned_events, upgrade_event
from .stores.postgres.location import (
    database_of,
    database_place,
    database_url,
    event_in_database,
    event_location,
    shown_database,
    shown_location,
    with_event,
)
from .stores.postgres.location import is_url as is_database_url
from .stores.postgres.schema import WRITER as DATABASE_WRITER
from .stores.sqlite.identity import make_live, mark_copy
from .times import TOLERANCE as STAMP_TOLERANCE
from .times import said as said_stamped_back
from .times import stamped_back
from .transfer import KINDS as COPY_KINDS
from .transfer import Copied, CopyRefused, MovedSince, check_restorable, copy_event


def verify(db: EventStore) -> Break | None:
    """The first row of the event's record that does not chain, or None when it is intact."""
    return db.verify()


def unknown_round(db: EventStore, number: int | None) -> str | None:
    """Why a filter on round `number` is refused: the event never had it (33 typed for 3), so an
    export of it would be an empty sheet that reads as a round without challenges. None when it
    had it, or no round was asked. The CLI's export and the service's records say the same."""
    if number is None or db.round(number) is not None:
        return None
    numbers = ", ".join(str(item.number) for item in db.rounds()) or "none yet"
    return f"there is no round {number} in this event (its rounds: {numbers})"


def export(db: EventStore, round: int | None = None, format: str = "csv", checked: bool = False):
    """The event's record (or one round's) as CSV or JSON text, the chain fields included.

    `checked`: each row with its own check (`intact`), the whole record's first break, and what
    the export holds (its filter: the round, or the whole record); the answer is then (text,
    rows, break or None)."""
    if format not in FORMATS:
        raise ValueError(f"an export's format is one of {', '.join(FORMATS)}, not {format!r}")
    rows = list(db.records(RecordFilter(round=round)))
    if not checked:
        return export_records(rows, format, event=db.event().name, round=round)
    broken = db.verify()
    text = export_records(
        rows,
        format,
        event=db.event().name,
        round=round,
        intact=db.intact_rows(rows),
        broken=broken,
        filter=ExportFilter(round=round),
        unshown=db.unshown_seconds(),
    )
    return text, rows, broken


__all__ = [
    "BREAK_KINDS",
    "CODE_LIFETIME",
    "COPY_KINDS",
    "DATABASE_WRITER",
    "FILTER_UNSAID",
    "FORMATS",
    "GENESIS",
    "GLOBAL_FAILURES",
    "LINK_LIFETIME",
    "LOCKOUT",
    "MAX_EVENT_NAME",
    "MAX_FAILURES",
    "MAX_NUMBER",
    "REFUSED_LEXICON",
    "REFUSED_VERDICT",
    "ROLES",
    "SECOND_FIELDS",
    "SESSION_LIFETIME",
    "STAMP_TOLERANCE",
    "WRITTEN_DIGITS",
    "Break",
    "ChainState",
    "Copied",
    "CopyRefused",
    "Device",
    "DeviceFieldRefused",
    "DeviceGone",
    "DeviceNameTaken",
    "DiskFailed",
    "Entry",
    "EntryForm",
    "Event",
    "EventExists",
    "EventFile",
    "EventMoved",
    "EventStore",
    "ExportFilter",
    "FileDamaged",
    "IdempotencyConflict",
    "LastKeyMissing",
    "LockBusy",
    "Login",
    "MalformedRow",
    "MovedSince",
    "NotAnEvent",
    "OfflineRefusal",
    "OfflineRefused",
    "PairingRefused",
    "PaperHead",
    "Pin",
    "PinnedEvent",
    "PlaysLimited",
    "RateLimited",
    "ReadOnly",
    "Record",
    "RecordFilter",
    "RefusedOffline",
    "Round",
    "RoundError",
    "RoundRefused",
    "StorageError",
    "TableMissing",
    "TournamentError",
    "UnknownDevice",
    "Unreadable",
    "as_dict",
    "canonical_bytes",
    "check_export",
    "check_restorable",
    "copy_event",
    "create_event",
    "csv_part",
    "database_of",
    "database_place",
    "database_url",
    "event_in_database",
    "event_location",
    "events_in",
    "export",
    "export_records",
    "is_database_url",
    "make_live",
    "mark_copy",
    "may_alter_guard",
    "new_password",
    "open_event",
    "parse_stamp",
    "pinned_events",
    "read_export",
    "read_export_filter",
    "read_stamp",
    "row_hash",
    "said_stamped_back",
    "said_unknown_shown",
    "shown_database",
    "shown_location",
    "stamp",
    "stamped_back",
    "token_hash",
    "unknown_round",
    "unknown_shown",
    "unshown_at",
    "upgrade_event",
    "utc_now",
    "verify",
    "verify_chain",
    "with_event",
]
