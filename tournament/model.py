"""What an event stores, as plain values: the event and its lexicon's pin, devices, rounds, and
the director's login.

These are the types the HTTP layer and the CLI see; no storage detail leaks into them, so a
server database can stand behind the same types later. Beside them, each its own module: a
verdict to record and the record's row (entry.py), what a verification finds (integrity.py), and
how a time is written, as a string (stamps.py).
"""

from __future__ import annotations

import secrets
import unicodedata
from dataclasses import dataclass

ROLES = ("judge", "table", "lookup")


# The largest device id, record number or round number an event takes or gives: the largest whole
# number a JavaScript page (the console, the judge's page) reads exactly, and well inside SQLite's
# 64-bit integers, which refuse a larger Python int (OverflowError) rather than find nothing.
# A number beyond it names no device, record or round; a round cannot be numbered past it.
MAX_NUMBER = 2**53 - 1


# Characters drawn as nothing (Unicode's default-ignorable code points that are not format
# characters, which `_INVISIBLE_CATEGORIES` covers): fillers, variation selectors, the combining
# grapheme joiner. "Mesa 12" with one of them added looks like "Mesa 12" in the console and the record.
_INVISIBLE = frozenset(
    (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, *range(0x180B, 0x1810), *range(0xFE00, 0xFE10))
) | frozenset(range(0xE0100, 0xE01F0))
_INVISIBLE_CATEGORIES = ("Cf",)  # format characters: zero-width spaces and joiners, direction marks, BOM


def invisible(c: str) -> bool:
    """Whether a character is drawn as nothing (a zero-width space, a BOM, a variation selector)."""
    return ord(c) in _INVISIBLE or unicodedata.category(c) in _INVISIBLE_CATEGORIES


def visible(text: str) -> str:
    """The text without its characters drawn as nothing."""
    return "".join(c for c in text if not invisible(c))


@dataclass(frozen=True)
class Pin:
    """The one lexicon an event judges with, by its whole file's checksum: every instance that
    serves the event must serve these very bytes (docs/tournament.md, "The event's lexicon")."""

    id: str
    version: str
    checksum: str
    file: str | None  # where it was found when pinned: what to add to LEXICON_FILES
    pinned: str  # when
    by: str  # 'init' (`lexicon event init`) or 'start' (an older event, at its first start)
    # the list's language ('es'), which closes the lookups of a service's events of that language
    # while the event plays a round (service.federation.OtherRounds), whether or not that service
    # knows the list; None: pinned before the event file's schema 15 (PostgreSQL's 6) kept it, until
    # an instance that serves the list starts the event (service.event.pin)
    language: str | None


@dataclass(frozen=True)
class PinnedEvent:
    """An event of a database and the lexicon it is pinned to, for a service of them all to tell
    which it cannot serve (tournament.store.pinned_events)."""

    event_id: str
    lexicon_id: str
    version: str
    checksum: str
    language: str | None  # Pin.language
    opened: str | None  # when its open round was opened (the record's form, UTC); None: no round open

    @property
    def round_open(self) -> bool:
        return self.opened is not None


@dataclass(frozen=True)
class Event:
    name: str
    lexicon: str | None  # default lexicon id or language ('ca'); None: the service's default
    created: str
    schema_version: int
    pin: Pin | None = None  # None: no lexicon named, or an older event not yet started
    file: EventFile | None = None  # None: an older file, read only


@dataclass(frozen=True)
class EventFile:
    """The event file's own identity (16 hex digits, random), which no copy of it shares once
    served: a backup is marked `copy_of` the identity it copies (when: `copied`) until `lexicon
    event restore` gives it an identity of its own (`restored_from`: the copy's). A source that
    `lexicon event move` copied is marked `moved` (when) `moved_to` the copy's identity: it records
    nothing more (errors.EventMoved), so a phone still paired with it cannot split the record."""

    identity: str
    copy_of: str | None = None
    copied: str | None = None
    restored_from: str | None = None
    moved: str | None = None
    moved_to: str | None = None


@dataclass(frozen=True)
class NewEvent:
    """What a store writes of a new event (the domain checked it): its row, its director's
    password hash, its pin, and its identity and marks (None: a new identity; a copy of an
    event's: transfer.py)."""

    name: str
    lexicon: str | None
    created: str
    password_hash: str
    pin: Pin | None
    file: EventFile | None = None


def new_identity() -> str:
    """An event file's or a database event's own identity: 16 hex digits, random, so that no two
    files made, restored or moved share one."""
    return secrets.token_hex(8)


@dataclass(frozen=True)
class Device:
    """A paired (or waiting to be paired) phone, table device or kiosk."""

    id: int
    name: str
    role: str  # one of ROLES
    table: str | None  # a `table` device's table ("12"); None for the others
    created: str
    paired: str | None  # when its pairing code was used; None: not yet paired
    revoked: str | None  # when the director revoked it; None: active

    @property
    def active(self) -> bool:
        return self.paired is not None and self.revoked is None


@dataclass(frozen=True)
class Round:
    number: int
    opened: str
    closed: str | None  # None: the open round
    head_seq: int | None = None  # the last record row when it closed (0: none), for the paper
    head_hash: str | None = None  # that row's hash: write it on the round's sheet
    # (schema 9) the judges' devices, by id, that had not been in touch for a minute when it
    # closed and have not synced since: they may hold its verdicts, so its head is not final
    # until they sync or the director confirms it (then None, and `final` says when)
    pending: tuple[int, ...] | None = None
    final: str | None = None  # when the head became final after waiting; None: at closing, or not yet

    @property
    def head_final(self) -> bool:
        return self.closed is not None and not self.pending


@dataclass(frozen=True)
class RecordFilter:
    """Which rows of the record a reader asks for: those of a round, a table and a device (None:
    any), numbered below `before` and above `after` (None: no bound); with `limit`, the last
    `limit` of them, or, with `after` given, the first `limit` (a page of the console's list, an
    export's slice, a verification's step); always in order of seq. One type from the caller to
    the store's SQL (rows.record_filter), so the six conditions are written once."""

    round: int | None = None
    table: str | None = None
    device_id: int | None = None
    before: int | None = None
    after: int | None = None
    limit: int | None = None

    @property
    def matches_nothing(self) -> bool:
        """Whether the round or device asked for cannot exist (a store may refuse a number past
        64 bits rather than find nothing)."""
        return any(value is not None and not 0 < value <= MAX_NUMBER for value in (self.round, self.device_id))


EVERY_ROW = RecordFilter()


@dataclass(frozen=True)
class Login:
    """The answer to a director's password: `ok`, or refused; `retry_after` seconds while locked."""

    ok: bool
    locked: bool = False
    retry_after: int = 0
    failures: int = 0  # wrong passwords since the last success or lock


@dataclass(frozen=True)
class RefusedOffline:
    """A device's offline verdicts refused as differing (refused_offline.py): how many, and the
    latest one's round as its phone showed it (0: none; None: the phone did not say), its phone's
    time and the service's."""

    count: int
    key: str  # the latest one's idempotency key: the same one sent again is not counted again
    shown_round: int | None
    device_time: str | None
    time: str


REFUSED_VERDICT = "verdict"  # the phone showed another verdict than the service gives with the same list
REFUSED_LEXICON = "lexicon"  # the phone judged with another list than the event's
REASONS = (REFUSED_VERDICT, REFUSED_LEXICON)  # why an offline verdict is refused (refused_offline.py)


@dataclass(frozen=True)
class OfflineRefusal:
    """An offline verdict of a request the record is to refuse (refused_offline.py), once the device's gap allows it
    a verdict: its place among the request's entries (whose key, shown round and phone's time
    are noted) and why (REASONS)."""

    index: int
    reason: str

    def __post_init__(self) -> None:
        if self.reason not in REASONS or type(self.index) is not int or self.index < 0:
            raise ValueError(f"an offline refusal is an entry's index and one of {REASONS}, not {self!r}")
