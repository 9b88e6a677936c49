"""Opening the event a service is to serve, and what refuses it before anything is served.

One event, one live file (tournament/stores/sqlite/identity.py): a backup copy is not served
until `lexicon event restore` gives it an identity of its own, so that the two never split the
record. No instance connects to a database as a role that could switch the record's append-only
guard off (its owner, a member of it, a superuser: `refuse_guard_holder`), which would let
whoever holds the instance's settings rewrite the evidence unseen. The app's `Tournament` opens its event here;
`lexicon serve` asks `check` before it says where the phones and the director go, so that a
refused event is never announced as served.
"""

from __future__ import annotations

import hashlib

from lexicon.errors import LexiconError
from tournament import (
    DATABASE_WRITER,
    Event,
    LockBusy,
    NotAnEvent,
    Pin,
    StorageError,
    may_alter_guard,
    open_event,
    shown_location,
)

from ..config import Settings
from ..registry import StartError
from .pin import not_served


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


def refuse_guard_holder(location: object, holder: str | None) -> None:
    """StartError when the role `location` connects as could switch the record's guard off
    (`holder`: storage.Storage.may_alter_guard's answer), naming it and the role to serve as; the
    owner's commands (`event init`, `upgrade`, `move`) are not the service and still connect as it."""
    if holder is not None:
        raise StartError(
            f"LEXICON_EVENT: {shown_location(location)} connects as {holder}: that role could switch the "
            "record's append-only trigger off and rewrite the record unseen, so no instance serves as it. Serve as "
            f"the instances' role instead, a member of {DATABASE_WRITER} that owns nothing (`lexicon` in "
            "docs/operations.md); the database's owner is for `lexicon event init`, `upgrade` and `move` alone"
        )


def check_database(settings: Settings) -> None:
    """StartError when the role a service of every event of a database connects as could switch the
    record's guard off (`refuse_guard_holder`). A database that cannot be asked now is no refusal,
    as for its events (service.federation): each event's app asks again as it opens its event."""
    try:
        holder = may_alter_guard(str(settings.event))
    except StorageError:
        return
    except NotAnEvent as error:  # no postgresql extra: no event of it could ever be served (was a traceback)
        raise start_error(error) from None
    refuse_guard_holder(settings.event, holder)


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
    nothing migrated, no lock taken) before the app is made: a backup copy, or an event pinned to
    a lexicon none of the files to serve is."""
    try:
        db = open_event(settings.event, readonly=True)
        try:
            refuse_guard_holder(settings.event, db.may_alter_guard())
            event = served(settings, db.event())
        finally:
            db.close()
    except REFUSALS as error:
        raise start_error(error) from None
    if event.pin is not None and not _may_serve(settings, event.pin):
        raise not_served(event, event.pin, settings.files or ())


def _may_serve(settings: Settings, pin: Pin) -> bool:
    """Whether the files this instance is to load may hold the pinned lexicon. Of LEXICON_FILES,
    one has its checksum (a file that cannot be read is left to the app's refusal, which names
    it). Of the defaults, which `lexicon serve` builds after this check, one has its id: a file
    of another id cannot have its checksum, which covers the header."""
    if settings.files is None:
        from build_tools.manifest import load_manifest  # as service.registry reads it

        try:
            manifest = load_manifest(settings.manifest, settings.home, settings.data_home)
        except LexiconError:  # said by the build of the defaults, next
            return True
        return any(entry.id == pin.id for entry in manifest.entries)
    for path in settings.files:
        try:
            with open(path, "rb") as file:
                if hashlib.file_digest(file, "sha256").hexdigest() == pin.checksum:
                    return True
        except OSError:
            return True
    return False
