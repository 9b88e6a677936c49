"""Tournament mode's storage: the event, its director, devices, rounds and the chained record.

The HTTP layer and the CLI use only what is exported here: `open_event` / `create_event` give
an `EventStore`; `verify` and `export` work on any store. See docs/tournament.md.
"""

from __future__ import annotations

from .chain import GENESIS, MalformedRow, canonical_bytes, row_hash, verify_chain
from .errors import (EventExists, IdempotencyConflict, NotAnEvent, PairingRefused, RateLimited, ReadOnly,
                     RoundError, StorageError, TournamentError, UnknownDevice)
from .export import FORMATS, read_export
from .export import export as export_records
from .model import ROLES, Break, Device, Entry, Event, Login, Pin, Record, Round
from .store import EventStore, create_event, open_event


def verify(db: EventStore) -> Break | None:
    """The first row of the event's record that does not chain, or None when it is intact."""
    return db.verify()


def export(db: EventStore, round: int | None = None, format: str = "csv", checked: bool = False):
    """The event's record (or one round's) as CSV or JSON text, the chain fields included.

    `checked`: each row with its own check (`intact`) and the whole record's first break; the
    answer is then (text, rows, break or None)."""
    if format not in FORMATS:
        raise ValueError(f"an export's format is one of {', '.join(FORMATS)}, not {format!r}")
    rows = list(db.records(round=round))
    if not checked:
        return export_records(rows, format, event=db.event().name, round=round)
    broken = db.verify()
    text = export_records(rows, format, event=db.event().name, round=round, intact=db.intact_rows(rows),
                          broken=broken)
    return text, rows, broken


__all__ = ["GENESIS", "ROLES", "Break", "Device", "Entry", "Event", "EventExists", "EventStore",
           "IdempotencyConflict", "Login", "MalformedRow", "NotAnEvent", "PairingRefused", "Pin", "RateLimited", "ReadOnly", "Record",
           "Round", "RoundError", "StorageError", "TournamentError", "UnknownDevice", "canonical_bytes", "create_event", "export",
           "open_event", "read_export", "row_hash", "verify", "verify_chain"]
