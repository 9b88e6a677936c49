"""The event's lexicon, pinned by checksum when the service starts (docs/tournament.md, "The
event's lexicon"): every instance of one event judges with the very same bytes."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from build_tools.report import as_typed
from tournament import EventMoved, Pin, stamp, utc_now

from ..registry import LexiconNotServed, Registry

log = logging.getLogger("service")


def pin_lexicon(db, event, registry: Registry) -> Pin:
    """The event's lexicon, pinned by checksum (docs/tournament.md, "The event's lexicon"); a
    StartError (LexiconNotServed), naming the file to add to LEXICON_FILES, when this instance does not serve it.

    An event made by `event init --lexicon` is pinned then. An older one, with only a name (`es`),
    or one made without a lexicon (this service's default, the first default lexicon it serves),
    is pinned now, at its first start, to what that name is here, and the pin is written in the
    event file: every instance started after it must serve the same bytes. Two instances
    starting at once both try; the first write wins and the other checks against it."""
    from ..registry import StartError

    pin = event.pin
    if pin is None:
        # an event made without --lexicon judges with this service's default lexicon (the one the
        # page opens on): pinned at its first start as any other, so every verdict uses one list
        default = next((item for item in registry.served if item.default), None)
        found = default if event.lexicon is None else registry.find(event.lexicon)
        if found is None:
            raise StartError(
                f"LEXICON_EVENT: the event {event.name!r} judges with {event.lexicon!r}, which is not "
                f"served here: add its compiled file to LEXICON_FILES"
            )
        disk = registry.files.get(found.id)
        pin = db.pin_lexicon(
            Pin(
                found.id,
                found.identity.version,
                found.identity.checksum,
                None if disk is None else str(disk.path.resolve()),
                stamp(utc_now()),
                "start",
                found.language,
            )
        )
        log.info("event lexicon pinned", extra={"fields": {"lexicon": pin.id, "checksum": pin.checksum, "by": pin.by}})
    found = registry.by_checksum(pin.checksum)
    if found is None:
        raise not_served(event, pin, (disk.path for disk in registry.files.values()))
    if pin.language is None:
        pin = _with_language(db, pin, found.language)
    return pin


def _with_language(db, pin: Pin, language: str) -> Pin:
    """A pin kept without its list's language (before it was kept: Pin.language), given it by
    this instance, which serves those very bytes: from then on a round of the event closes the
    lookups of its language on a service that does not know the list (service.federation). An
    event moved elsewhere records nothing here, this neither: its pin stays as it is."""
    try:
        pin = db.pin_lexicon(replace(pin, language=language))
    except EventMoved:
        return pin
    log.info("event lexicon's language kept", extra={"fields": {"lexicon": pin.id, "language": pin.language}})
    return pin


def not_served(event, pin: Pin, listed: Iterable[Path] = ()) -> LexiconNotServed:
    """The refusal of an event whose pinned lexicon this instance does not serve: at the app's
    start, and before `lexicon serve` says where to go (service.event.opening.check). `listed`:
    the files this instance serves; when the pinned file's path is one of them, its bytes changed
    (a new release built over it), and "add it to LEXICON_FILES" would send the operator in a
    circle: they are told to put the event's file back, and where a new release goes."""
    file = None if pin.file is None else as_typed(pin.file)  # read from the event: a terminal shows it as it is
    if pin.file and _resolved(pin.file) in {_resolved(path) for path in listed} - {None}:
        where = (
            f"{file}, which this instance reads, holds other bytes now (a new list built over it?): put the "
            f"event's file back there (checksum {pin.checksum}) and serve a new release from a file and "
            "an id of its own"
        )
    else:
        where = f"add {file or 'its compiled file'} to LEXICON_FILES, the very same file on every instance of the event"
    lexicon = f"{pin.id} {pin.version} (checksum {pin.checksum[:12]}…"
    return LexiconNotServed(
        f"LEXICON_EVENT: the event {event.name!r} judges with {lexicon}, pinned at {pin.by}), which this "
        f"instance does not serve: {where}",
        f"this event judges with {lexicon}), which this service does not serve",
    )


def _resolved(path: str | Path) -> Path | None:
    """The file a path names, links followed; None for a path no file could have (a NUL in it, a
    loop of links), as an event's pinned path edited by hand may be: a refusal, never a traceback."""
    try:
        return Path(path).resolve()
    except (OSError, ValueError, RuntimeError):
        return None
