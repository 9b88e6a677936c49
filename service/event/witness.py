"""The devices as witnesses of the event's file: one event, one live file.

Each event file has an identity (tournament/stores/sqlite/identity.py) and a backup is served only once
restored with one of its own; but a file copied by other means (`cp`, a disk image) keeps its
identity, and two instances behind one front end, each writing its own copy, would give the same
record numbers to different verdicts. The service alone cannot see the other file; the devices
can: a paired device's page remembers the file that first answered it (`EventInfo.file`), and
the key of its last recorded verdict, and sends both with every verdict it asks to record
(`event_file`, `last_key`), an offline one too (as they were when it was judged). This file
records nothing, and shows no verdict, when:

- the device names another file, unless it is the one this file was restored from (`lexicon
  event restore`: the device then takes this file's identity from its next answer), or
- the device names this file, or the one it was restored from, but its last recorded verdict is
  not in it: a copy served beside it, or an older copy (a `cp`, or an older backup restored)
  served in its place, and the record lost what a judge was shown (the device keeps the identity
  it knew). A verdict's `last_key` is looked up inside the write that would record it
  (tournament/record.py), so that checking it costs no transaction of its own.

Each refusal is a 409 `event-file-split`, and a note for the console (the `splits` table): the
device, the file it had seen and this one. Its page's heartbeat (GET /v1/event?file=) is noted the
same way, without a refusal, so that the console shows a device answered by two files before its
next verdict. What no device can see (two files each answering devices that never meet the other)
is said in docs/tournament.md.
"""

from __future__ import annotations

import logging
import re
import time

import msgspec
from msgspec import UNSET

from lexicon.errors import show_word
from tournament import Device, StorageError

from ..decoding import SLIP
from ..event_members import EVENT_FILE, LastKey
from ..problems import Problem
from .refusals import storage_problem

log = logging.getLogger("service")

# A split noted for the console is a hint: written again when the device says the same after a
# minute, and when it says something else at once, up to NOTES times in NOTES_SECONDS a worker.
# A page's heartbeat is not rate-limited, and each note is a write of the event (its fsync, in the
# lock every verdict waits for) and a line in the log: a phone naming a new missing key at every
# heartbeat must not be a write at every one. A device paired again is noted afresh at once.
SAME_AGAIN = 60
NOTES, NOTES_SECONDS = 3, 15


class Witness:
    """This file's side: the devices' word checked against it, each split noted once a worker."""

    def __init__(self, db, file):
        self.db, self.file = db, file  # the store, and its EventFile
        # per device: the split noted last in this worker (and the device's pairing: paired again, it
        # starts afresh), and when it noted the last few (`_due`)
        self.noted: dict[int, tuple[tuple, tuple[float, ...]]] = {}

    def other(self, seen: str | None) -> bool:
        """Whether `seen` names another file than this one and the one it was restored from."""
        return seen is not None and seen not in (self.file.identity, self.file.restored_from)

    def check(self, device: Device | None, seen: str | None, last: str | None, refuse: bool = True) -> bool:
        """Check what a device says it saw (`seen`: a file's identity; `last`: its last recorded
        verdict's key) against this file, `last` in a read of its own (a heartbeat's: a verdict's
        is checked in its write, record.py); a split is noted for the console and, when `refuse`,
        refused. Whether it is one."""
        if self.other(seen):
            missing = None
        elif last is not None and not self._holds(last):
            missing = last
        else:
            return False
        refusal = self.split(device, seen, missing)
        if refuse:
            raise refusal
        return True

    def split(self, device: Device | None, seen: str | None, missing: str | None) -> Problem:
        """A split, noted for the console (a few times a minute a worker at most: NOTES), and its refusal (409
        `event-file-split`: nothing is recorded). `missing`: the device's last key, not in this file."""
        file = self.file
        seen = seen or file.identity
        now = time.monotonic()
        said = (seen, missing, device and device.paired)
        if device is not None and self._due(device.id, said, now):
            try:
                self.db.note_split(device.id, seen, file.identity, missing)
                kept = self._since_paired(device.id, said)
                recent = () if kept is None else kept[1]
                self.noted[device.id] = (said, (*[t for t in recent if now - t < NOTES_SECONDS], now))
            except StorageError:  # a hint for the console: the refusal stands without it
                pass
            log.warning(
                "a device was answered by another file of the event",
                extra={"fields": {"device": device.id, "seen": seen, "served": file.identity}},
            )
        if missing is None:
            what = f"it was answered by the event file {seen}, and this instance serves {file.identity}"
        elif seen == file.identity:
            what = f"its last recorded verdict is not in this event file ({file.identity}), though it has the same identity"
        else:  # restored from the file the device knew, but from an older copy of it
            what = (
                f"its last recorded verdict is not in this event file ({file.identity}), restored from an "
                f"older copy of the event file {seen}"
            )
        return Problem(
            "event-file-split",
            f"this device was answered by another copy of the event's file ({what}): two files are served "
            "for one event, which splits the record, so nothing is recorded and no verdict is given; tell the director",
        )

    def _due(self, device_id: int, said: tuple, now: float) -> bool:
        """Whether a split a device says is noted now (see NOTES): never noted, or paired again
        since, at once; the same as noted last, after SAME_AGAIN; another, while fewer than NOTES
        were noted in the last NOTES_SECONDS."""
        kept = self._since_paired(device_id, said)
        if kept is None:
            return True
        noted, times = kept
        if noted == said:
            return now - times[-1] > SAME_AGAIN
        return sum(now - t < NOTES_SECONDS for t in times) < NOTES

    def _since_paired(self, device_id: int, said: tuple) -> tuple[tuple, tuple[float, ...]] | None:
        """What this worker noted of the device (the split, the times) since its pairing `said`
        names; None when nothing, or only before it was paired again."""
        kept = self.noted.get(device_id)
        return None if kept is None or kept[0][2] != said[2] else kept

    def _holds(self, last: str) -> bool:
        """Whether the record holds `last`; a store that fails is the 503 an append's failure is
        (`record-unavailable`), wherever this is asked (a challenge's view, a heartbeat)."""
        try:
            return self.db.holds(last)
        except StorageError as error:
            raise storage_problem(error) from None


def heard(args) -> tuple[str | None, str | None]:
    """The file and last key a page's heartbeat (GET /v1/event) says its device saw."""
    seen, last = args.get("event_file"), args.get("last_key")
    if seen is not None and not re.match(EVENT_FILE, seen):
        raise Problem(
            "invalid-request",
            f"event_file is an event file's identity, 16 hex digits, not {show_word(seen)}",
            parameter="event_file",
        )
    if last is not None and not _is_key(last):
        raise Problem("invalid-request", f"last_key is {SLIP['last_key']}, not {show_word(last)}", parameter="last_key")
    return seen, last


def _is_key(last: str) -> bool:
    """Whether the heartbeat's `last_key` is one, by the type a challenge's body holds it in
    (LastKey): a key the page sends in both is taken or refused alike."""
    try:
        msgspec.convert(last, LastKey)
    except msgspec.ValidationError:
        return False
    return True


def said(slip) -> tuple[str | None, str | None]:
    """The file and last key a challenge's body (one play's, or a batch's) says its device saw."""
    seen, last = getattr(slip, "event_file", UNSET), getattr(slip, "last_key", UNSET)
    return (None if seen is UNSET else seen), (None if last is UNSET else last)


__all__ = ["Witness", "heard", "said"]
