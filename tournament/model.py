"""What an event stores, as plain values: the event, devices, rounds, and the record's rows.

These are the types the HTTP layer and the CLI see; no storage detail leaks into them, so a
server database can stand behind the same types later. Times are UTC, written as ISO 8601 with
microseconds and a `Z` (`2026-11-22T10:31:07.120034Z`): a string, so that the canonical bytes
of a row never depend on how a database or a language prints a float or a time zone.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, fields
from datetime import UTC, datetime

from lexicon.alphabet import NOTATIONS
from lexicon.board import MAX_WORDS, MIN_WORDS
from lexicon.tokenizer import tokenizer

from .errors import Unreadable

ROLES = ("judge", "table", "lookup")
FORMAT = 2  # the record row format written today for a verdict alone (see chain.FIELDS)...
SECOND_FORMAT = 3  # ...and for one shown with a second opinion (LEXICON_SECOND)
ROUND_FORMAT = 4  # ...and for a verdict given offline whose phone said the round it showed
# An entry's second opinion, all four or none: named once here for the chain, the export and the API
SECOND_FIELDS = ("second_lexicon_id", "second_lexicon_version", "second_lexicon_checksum", "second_valid")

Clock = Callable[[], datetime]

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


def utc_now() -> datetime:
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """A UTC time as the record writes it.

    >>> stamp(datetime(2026, 11, 22, 10, 31, 7, 120034, tzinfo=UTC))
    '2026-11-22T10:31:07.120034Z'
    """
    if moment.tzinfo is None:
        raise ValueError(f"time {moment!r} has no time zone; the record is in UTC")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_stamp(text: str) -> datetime:
    """The inverse of `stamp`.

    >>> parse_stamp('2026-11-22T10:31:07.120034Z').isoformat()
    '2026-11-22T10:31:07.120034+00:00'

    ASCII digits only, as `stamp` writes: strptime alone reads a year in any decimal digits.
    """
    if not text.isascii():
        raise ValueError(f"time {text!r} is not a UTC time like 2026-11-22T10:31:07.120034Z: ASCII digits only")
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def read_stamp(text: object, where: str) -> datetime:
    """A time stored in the event file, read strictly: `Unreadable` (naming `where`, never the
    value) for anything `stamp` did not write. Every stored time read on a request path comes
    through here, so an edited file is a refusal the HTTP layer names, not a traceback.

    >>> read_stamp('garbage', 'records.time of row 3')
    Traceback (most recent call last):
    ...
    tournament.errors.Unreadable: records.time of row 3 in the event file cannot be read back: it was edited by hand
    """
    if type(text) is not str:
        raise Unreadable(where)
    try:
        return parse_stamp(text)
    except ValueError:
        raise Unreadable(where) from None


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


@dataclass(frozen=True)
class PinnedEvent:
    """An event of a database and the lexicon it is pinned to, for a service of them all to tell
    which it cannot serve (tournament.store.pinned_events)."""

    event_id: str
    lexicon_id: str
    version: str
    checksum: str
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
class Entry:
    """One verdict to record: what the players were told, never which word failed.

    The store adds the row number, the time, the open round and the chain. `table` comes from
    the device or the slip fields of the page; `tiles` are the words in engine notation
    (`CA[RR]O`), one per word. `idempotency_key` makes a verdict sent twice (an offline
    device sending its queue again) one row; `device_time` is the device's clock when it gave
    the verdict offline. The `second_*` fields are the second opinion the players were shown
    beside the verdict (LEXICON_SECOND): its lexicon and its joint verdict, all four or none.
    """

    lexicon_id: str
    lexicon_version: str
    lexicon_checksum: str
    notation: str
    words: tuple[str, ...]
    tiles: tuple[str, ...]
    valid: bool
    device_id: int | None = None
    device_name: str | None = None
    role: str | None = None
    table: str | None = None
    idempotency_key: str | None = None
    offline: bool = False
    device_time: str | None = None
    second_lexicon_id: str | None = None
    second_lexicon_version: str | None = None
    second_lexicon_checksum: str | None = None
    second_valid: bool | None = None
    # (format 4) a verdict given offline: the round its phone showed with it (0: none), where the
    # record files it if that round was open at `device_time` (else outside rounds: the mark
    # says why); None: the phone did not say (an older page), filed as any verdict
    shown_round: int | None = None

    @property
    def format(self) -> int:
        """The row format that holds this entry: the lowest one with all its fields."""
        if self.shown_round is not None:
            return ROUND_FORMAT
        return FORMAT if self.second_lexicon_id is None else SECOND_FORMAT

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", tuple(self.words))
        object.__setattr__(self, "tiles", tuple(self.tiles))
        check_entry(self)

    @classmethod
    def for_device(cls, device: Device | None, **fields) -> Entry:
        """An entry carrying the device's id, name, role and (unless given) table."""
        if device is not None:
            fields.setdefault("table", device.table)
            fields.update(device_id=device.id, device_name=device.name, role=device.role)
        return cls(**fields)


# White space in a word: the characters for which str.isspace() is true, which is what `\s` matches
# in a str pattern (tests/tournament/test_model.py compares them over every code point); one
# regular expression instead of a generator per character, most of reading a record back.
_SPACE = re.compile(r"\s")


class EntryForm:
    """Entries that share their lexicon, notation, device and second opinion's lexicon, as the
    verdicts one device asks of one lexicon do: those fields are checked once, when the form is
    made (`_check_shared`), and each entry's own, its play's, when it is made (`_check_own`):
    check_entry's very rules, each field checked as an Entry made whole checks it.

    Why: an Entry made whole runs its frozen dataclass's __init__ (a field at a time, through
    object.__setattr__) and checks all its fields, about 7 µs of the event loop's CPU for each
    recorded verdict, most of it for the fields a device's verdicts share; an entry made from a
    form costs about a third of that. Its fields are set in the instance's __dict__, all of them
    (the shared ones, every default among them, then the entry's own), which is what the
    dataclass's __init__ leaves there, so it equals, hashes and reads back as the Entry made whole."""

    __slots__ = ("_shared", "_table")

    def __init__(
        self,
        device: Device | None,
        lexicon_id: str,
        lexicon_version: str,
        lexicon_checksum: str,
        notation: str,
        second_lexicon_id: str | None = None,
        second_lexicon_version: str | None = None,
        second_lexicon_checksum: str | None = None,
    ) -> None:
        # every field, in the dataclass's order (as its __init__ leaves them), its default if any
        shared = {field.name: None if field.default is MISSING else field.default for field in fields(Entry)}
        shared.update(
            lexicon_id=lexicon_id,
            lexicon_version=lexicon_version,
            lexicon_checksum=lexicon_checksum,
            notation=notation,
            second_lexicon_id=second_lexicon_id,
            second_lexicon_version=second_lexicon_version,
            second_lexicon_checksum=second_lexicon_checksum,
        )
        if device is not None:  # as Entry.for_device
            shared.update(device_id=device.id, device_name=device.name, role=device.role)
        self._table = None if device is None else device.table  # unless the entry's own is given
        probe = object.__new__(Entry)
        probe.__dict__.update(shared)
        _check_shared(probe)
        self._shared = shared

    def __call__(
        self,
        words: Sequence[str],
        tiles: Sequence[str],
        valid: bool,
        idempotency_key: str | None = None,
        offline: bool = False,
        device_time: str | None = None,
        shown_round: int | None = None,
        second_valid: bool | None = None,
        table: str | None = None,
    ) -> Entry:
        """One entry of this form: a play's fields (`table`: the device's unless given)."""
        entry = object.__new__(Entry)
        values = entry.__dict__
        values.update(self._shared)
        values.update(
            words=tuple(words),
            tiles=tuple(tiles),
            valid=valid,
            idempotency_key=idempotency_key,
            offline=offline,
            device_time=device_time,
            shown_round=shown_round,
            second_valid=second_valid,
            table=self._table if table is None else table,
        )
        _check_own(entry)
        return entry


def check_entry(entry: Entry) -> None:
    """Refuse what could not be a verdict, quoting the value: nothing half-formed is recorded.
    In two parts, which an EntryForm checks apart: an entry's own fields, then those the entries
    of one device and lexicon share."""
    _check_own(entry)
    _check_shared(entry)


def _check_own(entry: Entry) -> None:
    """The play's: its words and tiles, verdict, idempotency key, slip table, offline time and
    round, and its second opinion's verdict (all four of the second opinion's fields, or none)."""
    if not MIN_WORDS <= len(entry.words) <= MAX_WORDS:
        raise ValueError(f"a play has {MIN_WORDS} to {MAX_WORDS} words, not {len(entry.words)}")
    if len(entry.tiles) != len(entry.words):
        raise ValueError(f"{len(entry.words)} words but {len(entry.tiles)} tile spellings")
    for word in (*entry.words, *entry.tiles):
        if not isinstance(word, str) or not word or _SPACE.search(word):
            raise ValueError(f"a recorded word is a non-empty string without spaces, not {word!r}")
    optional = (entry.table, entry.idempotency_key, entry.device_time)
    _check_texts((*entry.words, *entry.tiles, *(t for t in optional if t is not None)))
    if not isinstance(entry.valid, bool) or not isinstance(entry.offline, bool):
        raise ValueError("valid and offline are true or false")
    *second, second_valid = (getattr(entry, name) for name in SECOND_FIELDS)
    if (*second, second_valid).count(None) not in (0, 4):
        raise ValueError(
            "a second opinion has its lexicon's id, version and checksum and its verdict, "
            f"all four or none, not {(*second, second_valid)!r}"
        )
    if second_valid is not None and not isinstance(second_valid, bool):
        raise ValueError(f"second_valid is true, false or None, not {second_valid!r}")
    if entry.shown_round is not None and (
        type(entry.shown_round) is not int
        or not 0 <= entry.shown_round <= MAX_NUMBER
        or not entry.offline
        or entry.device_time is None
    ):
        raise ValueError(
            f"shown_round is the round an offline verdict's phone showed, 0 to {MAX_NUMBER}, "
            f"only with offline and its device_time: not {entry.shown_round!r}"
        )
    if entry.device_time is not None:
        try:
            parse_stamp(entry.device_time)
        except ValueError:
            raise ValueError(
                f"device_time {entry.device_time!r} is not a UTC time like 2026-11-22T10:31:07.120034Z"
            ) from None


def _check_shared(entry: Entry) -> None:
    """What the entries of one device, lexicon, notation and second opinion's lexicon share."""
    second = (entry.second_lexicon_id, entry.second_lexicon_version, entry.second_lexicon_checksum)
    optional = (entry.device_name, *second)
    _check_texts(
        (entry.lexicon_id, entry.lexicon_version, entry.lexicon_checksum, *(t for t in optional if t is not None))
    )
    if entry.device_id is not None and (type(entry.device_id) is not int):
        raise ValueError(f"device id {entry.device_id!r} is not a number")
    if entry.notation not in NOTATIONS:
        raise ValueError(f"notation {entry.notation!r} is not one of {', '.join(NOTATIONS)}")
    if entry.role is not None and entry.role not in ROLES:
        raise ValueError(f"role {entry.role!r} is not one of {', '.join(ROLES)}")


def _check_texts(texts: Sequence[object]) -> None:
    for text in texts:
        if not isinstance(text, str) or not text:
            raise ValueError(f"{text!r} is not text (an absent value is None, never '')")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{text!r} is not valid Unicode text") from None


def engine_tiles(language: str, words: Sequence[str], notation: str = "spelling") -> tuple[str, ...]:
    """The words of a play in engine tile notation, as the record keeps them beside the words typed.

    >>> engine_tiles('es', ['carro', 'Chico'])
    ('CA[RR]O', '[CH]ICO')
    """
    tokens = tokenizer(language, notation)
    return tuple(tokens.alphabet.engine_text(key) for key in tokens.keys(words))


@dataclass(frozen=True)
class Record:
    """One stored row of the record, as stored: `seq` is the number written on the slip."""

    seq: int
    time: str
    round: int | None
    entry: Entry
    prev: str  # hex SHA-256 of the previous row's canonical bytes (chain.GENESIS for row 1)
    hash: str  # hex SHA-256 of this row's canonical bytes
    format: int = FORMAT


# Every way the record can be found broken, and the numbers each names besides the row: a page
# says a break in its reader's language from these (the `reason` is English, for tools and logs).
BREAK_KINDS: dict[str, tuple[str, ...]] = {
    "deleted": ("first", "last"),  # rows first to last before this one are missing
    "order": ("after",),  # this row comes out of order after row `after`
    "link": ("after",),  # its previous-row hash is not row `after`'s hash
    "changed": (),  # its contents do not match its hash
    "malformed": (),  # a field was edited into something no service writes
    "first": (),  # (an export) the first row does not start the chain
    "head-rewritten": ("round",),  # round `round` closed at this row, with another hash then
    "head-deleted": ("first", "last", "round", "head"),  # rows first to last gone; round closed at `head`
    "verified-deleted": ("first", "last", "verified"),  # rows gone this service had verified
    "edited": (),  # a row this service had verified changed since
    "paper-short": ("first", "last"),  # (an export) rows up to the head written on paper are not in it
    "paper-hash": (),  # the hash at the head written on paper differs
    "after-final": ("round", "head"),  # filed in round `round` after its head, row `head`, was final
    "outside-filter": (),  # (an export) not of the round, table or device the export says it holds
}


@dataclass(frozen=True)
class Break:
    """The first row of the record that does not chain, and why: `reason` a sentence (English, for
    tools and logs), `kind` one of BREAK_KINDS and `facts` its numbers, for a page to say it in
    its reader's language."""

    seq: int
    reason: str
    kind: str = "changed"
    facts: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, kind: str, seq: int, reason: str, **facts: int) -> Break:
        assert set(facts) == set(BREAK_KINDS[kind]), (kind, facts)
        return cls(seq, reason, kind, tuple(sorted(facts.items())))

    def __str__(self) -> str:
        return f"record {self.seq}: {self.reason}"


@dataclass(frozen=True)
class ChainState:
    """How much of the record is verified: rows 1 to `verified` chain from the start, and the
    first row that does not (`broken`), if any. `last` and `last_hash`: the record's head now.
    `checking`: a verification of every row runs (its result shows once it ends; until then
    `verified` is what was verified before, below `last` when rows were added or the row verified
    last changed); `checked`: when the last one ended. `guarded`: the append-only triggers are in
    place (false: removed, which only an edit of the file by hand does). `failed`: the last
    verification of every row could not be completed (it is tried again later). `replaced`: the
    file at the event's path is not the one the service opened (moved, deleted or replaced):
    what is verified is the file served, which no one will read, and no verdict can be recorded."""

    last: int  # the last row's number; 0: no rows yet
    last_hash: str
    verified: int
    broken: Break | None
    checking: bool = False
    checked: str | None = None  # a UTC time (stamp); None: no verification of every row yet
    guarded: bool = True
    failed: bool = False
    replaced: bool = False  # the file at the event's path is not the one served: nothing can be recorded

    @property
    def intact(self) -> bool:
        """The record as it is now verified up to its last row with no break, its triggers in
        place: not while a verification runs, failed, or found the triggers gone."""
        return (
            self.broken is None
            and self.verified == self.last
            and not self.checking
            and self.guarded
            and not self.failed
            and not self.replaced
        )


@dataclass(frozen=True)
class Login:
    """The answer to a director's password: `ok`, or refused; `retry_after` seconds while locked."""

    ok: bool
    locked: bool = False
    retry_after: int = 0
    failures: int = 0  # wrong passwords since the last success or lock
