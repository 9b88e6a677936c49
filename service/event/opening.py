"""Opening the event a service is to serve, and what refuses it before anything is served.

One event, one live file (tournament/stores/sqlite/identity.py): a backup copy is not served
until `lexicon event restore` gives it an identity of its own, so that the two never split the
record. The app's `Tournament` opens its event here; `lexicon serve` asks `check` before it says
where the phones and the director go, so that a refused event is never announced as served.
"""

from __future__ import annotations

from tournament import Event, LockBusy, NotAnEvent, StorageError, open_event

from ..config import Settings
from ..registry import StartError


def served(settings: Settings, event: Event) -> Event:
    """`event` when it may be served; StartError, saying why and what to do, for a backup copy."""
    if event.file is not None and event.file.copy_of is not None:
        raise StartError(
            f"LEXICON_EVENT: {settings.event} is a backup copy of the event's file {event.file.copy_of} "
            f"(made {event.file.copied}), which is not served, so that the two never split the record: "
            f"once that file is served no more, `lexicon event restore {settings.event} NEW.db` makes a "
            "live event file of it, to serve"
        )
    return event


# A storage's refusals to open an event: no event there, its lock held, its database not answering, moved.
REFUSALS = (LockBusy, NotAnEvent, StorageError)


def start_error(error: BaseException) -> StartError:
    """One of REFUSALS as a StartError, a sentence and not a traceback (not "did not start": a
    reload and a service of every event open an event while serving)."""
    if isinstance(error, LockBusy):  # a file another program holds
        return StartError(f"LEXICON_EVENT: {error}; try again once that is done")
    return StartError(f"LEXICON_EVENT: {error}")


def check(settings: Settings) -> None:
    """StartError when the settings' event could not be served, found by reading it (read only:
    nothing migrated, no lock taken) before the app is made."""
    try:
        db = open_event(settings.event, readonly=True)
        try:
            served(settings, db.event())
        finally:
            db.close()
    except REFUSALS as error:
        raise start_error(error) from None
