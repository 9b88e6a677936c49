"""An event copied whole into a new store: moved between a file and a database either way
(`lexicon event move`), an event in a database backed up to a file (`lexicon event backup`), a
backup restored into a database (`lexicon event restore`).

The copy goes through the storage interface (storage.py), so it works between any two stores:
one consistent View of the source is read whole, and the new event is created and filled in one
transaction of the target's store (`create(…, file=, fill=)`), which commits only once the target,
read back in that transaction, holds exactly what was read: the same record row for row (so the
same hashes, byte for byte, and the same head), the same break if the source's record has one,
the same rounds with their heads, devices, tokens, contacts, refused offline verdicts and director.
Nothing of the target is left when anything fails. The source is only read.

What a copy carries is what the event is, and what keeps it working for its people:

- the event (name, lexicon, creation, pinned lexicon: `/readyz`'s `event` is the same), the
  director's password hash (the director signs in with the same password), every device with its
  id, name, role, table and token hash, paired or revoked (a phone that reaches the new store at
  the same address goes on judging; at another address its pairing, kept by the browser per
  address, is not there: the director pairs it again, the same device), each device's last
  contact and its offline verdicts refused, per reason, with every refused one's key
  (refused_offline.py: the director's only word that its phone showed players a verdict the
  record lacks, and what keeps an online challenge of such a play off the record), the rounds
  with their heads and what they wait for, the whole record with its rows' marks (a second
  opinion their phone never showed: unshown_second.py);
- not what belongs to a session or an address of the old place, each of which starts afresh:
  the director's sessions and login links (sign in again), pairing codes (a new one is a click),
  wrong-password counts and lockouts, the addresses' play budgets, and the notes of devices
  answered by another copy of the event (`splits`, about the old store's copies).

Its identity (one event, one live file: stores/sqlite/identity.py) depends on what it is for:

- a **move** is a new live copy: a new identity of its own, the source's kept as `restored_from`,
  so that a device that was answered by the source is answered by the target as the same event,
  and one answered by the target is refused by the source (409 `event-file-split`) if the source
  is served again. A backup copy is not moved (it is restored); a record that does not verify is
  not moved (a new live event would carry the break on). Once the target has committed, the
  source is marked `moved` to the target's identity (under its write lock, only if it still holds
  exactly what was copied): from then on every write of the event's rules to the source refuses
  (errors.EventMoved, keeper.py), on every instance that serves it, so a phone still paired with the
  source records nothing there. A source already moved is not moved again.
- a **backup** keeps the source's identity and is marked `copy_of` it: not served until restored.
- a **restore** is of a backup copy only: a new identity, the copy's kept as `restored_from`.

A restore or a move into a database never makes a second live copy of an event that database
holds live (a service of every event would serve both): refused when it holds the event the copy
was made from or a copy made live from it (`_refuse_beside`), or, whatever identities the copy
passed through, the event itself under another id (`_refuse_twin`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from .chain import MalformedRow, verify_chain
from .entry import Record
from .errors import TournamentError
from .integrity import Break
from .model import Device, Event, EventFile, NewEvent, RefusedOffline, Round, new_identity
from .stamps import Clock, stamp, utc_now
from .storage import View
from .store import open_storage, storage_kind
from .stores.postgres.location import shown_location

Kind = Literal["move", "backup", "restore"]
KINDS: tuple[Kind, ...] = ("move", "backup", "restore")
BATCH = 1_000  # record rows inserted at a time


class CopyRefused(TournamentError):
    """The source cannot be copied so (a backup moved, a live event restored, a record that does
    not verify moved, a row that cannot be read), or the copy did not come out whole: nothing was
    written. `broken`: the source record's break, when that is why."""

    def __init__(self, message: str, broken: Break | None = None):
        super().__init__(message)
        self.broken = broken


class MovedSince(CopyRefused):
    """The target of a move was made whole, but the source changed after its copy was read: the
    source is not marked moved (it stays the live copy), and the target is to be removed."""


@dataclass(frozen=True)
class Whole:
    """Everything a copy carries, from one consistent look at an event."""

    event: Event
    director: tuple[str, str]
    devices: tuple[Device, ...]
    tokens: dict[int, str]
    contacts: dict[int, object]
    refused: dict[int, dict[str, RefusedOffline]]
    refused_keys: frozenset[tuple[int, str, str]]
    unshown: dict[int, tuple[str | None, str]]
    rounds: tuple[Round, ...]
    records: tuple[Record, ...]
    broken: Break | None

    @property
    def head(self) -> tuple[int, str] | None:
        """The last record's number and hash, None when there is none."""
        return (self.records[-1].seq, self.records[-1].hash) if self.records else None

    def same_event(self, other: Whole) -> bool:
        """Whether `other` holds what this holds (its identity and schema aside)."""
        return replace(self, event=_bare(self.event)) == replace(other, event=_bare(other.event))


def _bare(event: Event) -> Event:
    return replace(event, schema_version=0, file=None)


def read_whole(view: View, location: str) -> Whole:
    """Everything a copy carries, from `view`; CopyRefused for a row that cannot be read back."""
    try:
        records = tuple(view.records())
    except MalformedRow as error:
        raise CopyRefused(
            f"{location}: {error}: a row edited by hand cannot be copied row by row (`lexicon records verify` names it)"
        ) from None
    anchors = [head for head in view.heads() if head[1] is not None and head[1] > 0]
    return Whole(
        event=view.event(),
        director=tuple(view.director()),
        devices=tuple(view.devices()),
        tokens=view.tokens(),
        contacts=view.contacts(),
        refused=view.refused_offline_all(),
        refused_keys=view.refused_keys(),
        unshown=view.unshown_seconds(),
        rounds=tuple(view.rounds()),
        records=records,
        broken=verify_chain(records, anchors, finals=view.final_heads()),
    )


@dataclass(frozen=True)
class Copied:
    """What a copy made: the target's identity and marks, the source's, and the record copied."""

    file: EventFile
    source_file: EventFile | None
    records: int
    head: tuple[int, str] | None
    broken: Break | None


def copy_event(
    source: str | os.PathLike,
    target: str | os.PathLike,
    kind: Kind,
    clock: Clock = utc_now,
    made: Callable[[], None] | None = None,
) -> Copied:
    """Copy the event at `source` (any store, read only) whole into a new event at `target` (any
    store; nothing there yet: EventExists otherwise), as a `kind` of copy (see the module's
    docstring). Nothing is written at `target` unless the whole copy is there and read back the
    same; the source is never changed. CopyRefused (or EventExists, NotAnEvent, StorageError), each
    naming the location, when nothing was written. `made`: called once the target has committed,
    before a move marks the source (a file's caller names the file there); MovedSince after it."""
    if kind not in KINDS:
        raise ValueError(f"a copy is one of {', '.join(KINDS)}, not {kind!r}")
    shown, into = shown_location(source), shown_location(target)
    kind_of_target = storage_kind(target)  # before reading: a URL that needs the extra is said first
    storage = open_storage(source, readonly=True)
    try:
        with storage.read() as view:
            whole = read_whole(view, shown)
    finally:
        storage.close()
    before = whole.event.file
    file = _identity(kind, before, whole.broken, shown, clock)
    pin, (password_hash, _) = whole.event.pin, whole.director
    event = whole.event

    def fill(tx) -> None:
        if kind == "restore":
            _refuse_beside(tx.copied_beside(before.identity), into)
        source = None if before is None else before.identity  # a move's source in this store: not beside
        _refuse_twin(tx.live_twin(event.name, event.created, password_hash, source), event, into)
        _fill(tx, whole, into)
        again = read_whole(tx, into)
        if not whole.same_event(again) or again.event.file != file:
            raise CopyRefused(f"{into}: the copy read back differs from {shown}; nothing was written")

    kind_of_target.create(target, NewEvent(event.name, event.lexicon, event.created, password_hash, pin, file), fill)
    if made is not None:
        made()
    if kind == "move":
        _mark_moved(source, whole, file.identity, shown, into, clock)
    return Copied(file, before, len(whole.records), whole.head, whole.broken)


def _mark_moved(source: str | os.PathLike, whole: Whole, to: str, shown: str, into: str, clock: Clock) -> None:
    """Mark the source moved to the target's identity `to`, under its write lock and only if it
    still holds what was copied; MovedSince (the target kept, the source not marked) otherwise."""
    storage = open_storage(source)
    try:
        with storage.write() as tx:
            if not whole.same_event(read_whole(tx, shown)):
                raise MovedSince(
                    f"{shown} changed after it was copied (something recorded, paired or a round opened or "
                    f"closed there meanwhile: an instance still serves it): {into} lacks it, so {shown} is not "
                    f"marked moved and goes on being the event's live copy; remove {into}, stop every instance "
                    "that serves the event, and move it again"
                )
            tx.set_moved(stamp(clock()), to)
    finally:
        storage.close()


def _identity(kind: Kind, before: EventFile | None, broken: Break | None, shown: str, clock: Clock) -> EventFile:
    """The target's identity and marks, or CopyRefused when the source cannot be copied so."""
    copy_of = None if before is None else before.copy_of
    if kind == "backup":  # a moved source's copy keeps its mark: the event lives on where it went
        identity = before.identity if before is not None else new_identity()
        moved = (None, None) if before is None else (before.moved, before.moved_to)
        return EventFile(identity, copy_of=identity, copied=stamp(clock()), moved=moved[0], moved_to=moved[1])
    if kind == "restore":
        check_restorable(before, shown)
    if kind == "move" and copy_of is not None:
        raise CopyRefused(
            f"{shown} is a backup copy of the event's file {copy_of}, not a live event: `lexicon event restore` "
            "makes a live event of it (in a file or a database), once the original is served no more"
        )
    if kind == "move" and before is not None and before.moved is not None:
        raise CopyRefused(
            f"{shown} was moved already (at {before.moved}, to the event's file {before.moved_to}): it records "
            "nothing more; move the event from where it was moved to"
        )
    if kind == "move" and broken is not None:
        raise CopyRefused(
            f"{shown}: the record does not verify ({broken}): a move would carry the break into a new live "
            "event; nothing was written (`lexicon event backup` keeps a faithful copy, `lexicon records export` "
            "its rows)",
            broken,
        )
    return EventFile(new_identity(), restored_from=None if before is None else before.identity)


def _refuse_beside(found: tuple[str, bool, str | None] | None, into: str) -> None:
    """CopyRefused when the database a copy is restored into holds the event it was made from (live,
    or moved away: it lives on where it went) or a copy of it made live already (`found`, from
    Tx.copied_beside): a service of every event serves each event of its database for as long as
    its row stays, which the instances' role cannot delete, so the restored copy would be a second
    live copy of the event beside it, the same devices' tokens answered at two addresses, each
    giving its own record numbers."""
    if found is None:
        return
    event_id, itself, moved = found
    if itself:
        what = f"the event this copy was made from, event={event_id}" + (
            f", moved at {moved} (the event lives on where it went)" if moved else ", live"
        )
    else:
        what = f"a live copy of the event made from it already (moved in or restored), event={event_id}"
    raise CopyRefused(
        f"{into}: the database holds {what}, and a service of the database serves every event in it: a restored "
        "copy beside it would be a second live copy of the event, each giving its own record numbers; nothing was "
        "written (restore it into another database, served instead of this one, or into a file)"
    )


def _refuse_twin(found: str | None, event: Event, into: str) -> None:
    """CopyRefused when the database a copy is restored or moved into holds the event live under
    another id (`found`, from Tx.live_twin): its name, creation and director's password the same,
    whatever identities the copies passed through (a backup restored into a file, that file moved
    in; a backup of that file restored), which copied_beside cannot follow. A service of every event
    serves each event of its database, so the copy would be a second live copy beside it."""
    if found is None:
        return
    raise CopyRefused(
        f"{into}: the database holds the same event live, event={found} (made {event.created} as {event.name!r}, with "
        "the same director's password), and a service of the database serves every event in it: this copy beside it "
        "would be a second live copy of the event, each giving its own record numbers; nothing was written (serve "
        "this copy from a file or another database instead, or move the event from where it is live)"
    )


def check_restorable(file: EventFile | None, shown: str) -> None:
    """CopyRefused unless the copy whose marks are `file` may be made a live event again: a backup
    copy (`lexicon event backup`), and not of a file whose event was moved, which lives on where it
    went (a live event made of it would be a second one beside that)."""
    if file is None or file.copy_of is None:
        raise CopyRefused(f"{shown} is no backup copy (`lexicon event backup` makes one): nothing to restore")
    if file.moved is not None:
        raise CopyRefused(
            f"{shown} is a copy of file {file.copy_of}, moved at {file.moved} to the event's file {file.moved_to}: "
            "the event lives on there, and a live event made of this copy would be a second one beside it; "
            "nothing was written (back up the event where it was moved to, and restore that copy once it is "
            "served no more)"
        )


def _fill(tx, whole: Whole, into: str) -> None:
    """Write `whole` into the new event's transaction `tx`, exactly as read."""
    tx.set_director(*whole.director)
    for device in whole.devices:
        made = tx.add_device(device.name, device.role, device.table, device.created)
        if made != device.id:  # devices are never deleted: their ids run from 1 without a gap
            raise CopyRefused(f"{into}: device {device.id} ({device.name!r}) would be numbered {made}; nothing written")
        if device.id in whole.tokens:
            tx.set_token(device.id, whole.tokens[device.id], device.paired)
        if device.revoked is not None:
            tx.set_revoked(device.id, device.revoked)
    tx.put_contacts(dict(whole.contacts))
    for device_id, reasons in whole.refused.items():
        for reason, refused in reasons.items():
            tx.put_refused_offline(device_id, reason, refused)
    for device_id, key, reason in sorted(whole.refused_keys):
        tx.add_refused_key(device_id, key, reason)
    for played in whole.rounds:
        tx.add_round(played.number, played.opened)
        if played.closed is not None:
            head = (played.head_seq, played.head_hash)
            tx.close_round(played.number, played.closed, head, played.pending)
            if played.final is not None:
                tx.set_final(played.number, head, played.final)
    for start in range(0, len(whole.records), BATCH):
        tx.insert_records(whole.records[start : start + BATCH])
    for seq, (device_time, time) in whole.unshown.items():
        tx.add_unshown_second(seq, device_time, time)
