"""A verdict to record (`Entry`), checked whole before anything is written, and the row it
becomes (`Record`): the record's row formats, the fields of a second opinion, and the checks that
refuse what could not be a verdict, quoting the value.

Apart from the event's other values (model.py): an entry is checked field by field, on the
recorded challenge's path (EntryForm says why it checks a device's shared fields once), and the
row formats are the chain's (chain.FIELDS) and the export's; the devices, rounds and the event
itself need none of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, fields

from lexicon.alphabet import NOTATIONS
from lexicon.board import MAX_WORDS, MIN_WORDS
from lexicon.tokenizer import tokenizer

from .model import MAX_NUMBER, ROLES, Device
from .stamps import parse_stamp

FORMAT = 2  # the record row format written today for a verdict alone (see chain.FIELDS)...
SECOND_FORMAT = 3  # ...and for one shown with a second opinion (LEXICON_SECOND)
ROUND_FORMAT = 4  # ...and for a verdict given offline whose phone said the round it showed
SHOWN_FORMAT = 5  # ...and for one whose phone said the verdict it showed (`shown_valid`)
# An entry's second opinion, all four or none: named once here for the chain, the export and the API
SECOND_FIELDS = ("second_lexicon_id", "second_lexicon_version", "second_lexicon_checksum", "second_valid")


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
    # (format 5) a verdict given offline: the joint verdict its phone showed, which is `valid`
    # (another is never recorded); None on an offline row: the phone did not say (an older
    # page), so what the players saw is not on the record, and every reader marks it (shown.py)
    shown_valid: bool | None = None

    @property
    def format(self) -> int:
        """The row format that holds this entry: the lowest one with all its fields."""
        if self.shown_valid is not None:
            return SHOWN_FORMAT
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
# in a str pattern (tests/tournament/test_entry.py compares them over every code point); one
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
        shown_valid: bool | None = None,
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
            shown_valid=shown_valid,
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
    if entry.shown_valid is not None and (entry.shown_valid is not entry.valid or not entry.offline):
        raise ValueError(
            "shown_valid is the verdict an offline verdict's phone showed, which is the one recorded "
            f"(valid {entry.valid!r}, offline {entry.offline!r}): not {entry.shown_valid!r}"
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
