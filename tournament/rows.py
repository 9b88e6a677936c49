"""The record's rows as any store keeps them: the columns, and reading a stored row back strictly
(or writing one). A store gives its rows here as tuples of Python values in RECORD_COLUMNS order.

A row is read exactly as it was written or not at all: a wrong type, text that is not UTF-8 or
words not in canonical JSON can only be an edit by hand, and `decode_record` names the row
(MalformedRow) instead of guessing, so `verify` and the console say the record was tampered with.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import msgspec

from .chain import MalformedRow, canonical_words
from .entry import SECOND_FIELDS, Entry, Record
from .errors import Unreadable, shown
from .model import Device, RecordFilter, Round

_SECOND = ", ".join(SECOND_FIELDS)
RECORD_COLUMNS = (
    'seq, time, round, device_id, device_name, role, "table", lexicon_id, lexicon_version, '
    "lexicon_checksum, notation, words, tiles, valid, prev, hash, format, idempotency_key, "
    "offline, device_time, " + _SECOND + ", shown_round, shown_valid"
)
DEVICE_COLUMNS = 'id, name, role, "table", created, paired, revoked'
REFUSED_COLUMNS = "count, key, shown_round, device_time, time"  # model.RefusedOffline's fields, in order


class Undecodable(str):
    """Stored text that is not UTF-8 (only an edit by hand makes one): shown with U+FFFD, and
    never read as a field of a record, which must be exactly `str`."""


# A stored array of words is read as exactly that: msgspec stops at the first value that is no
# string, so an edited array nested a hundred thousand deep is refused at its second `[`. The
# standard library's parser recursed into it until RecursionError, and a garbage collection that
# ran a finalizer down there found the limit too, and lost that finalizer's work.
_WORDS = msgspec.json.Decoder(list[str])


def _json_list(text: object, seq: int, name: str) -> tuple[str, ...]:
    """A stored array of words, which must be in canonical form: any other spelling was an edit."""
    if type(text) is not str:
        raise MalformedRow(seq, f"{name} is not UTF-8 text: {shown(text)}")
    try:
        value = _WORDS.decode(text)
    except msgspec.ValidationError:
        raise MalformedRow(seq, f"{name} is not a list of words: {shown(text)}") from None
    except msgspec.DecodeError:
        raise MalformedRow(seq, f"{name} is not JSON: {shown(text)}") from None
    if canonical_words(value) != text:
        raise MalformedRow(seq, f"{name} is not written canonically: {shown(text)}")
    return tuple(value)


def _flag(value: object, seq: int, name: str) -> bool:
    if type(value) is not int or value not in (0, 1):
        raise MalformedRow(seq, f"{name} is {value!r}, not 0 or 1")
    return value == 1


def _typed(value: object, kinds: tuple[type, ...], seq: int, name: str) -> object:
    if type(value) in kinds:  # exactly: Undecodable, a str of its own type, is never among them
        return value
    if isinstance(value, Undecodable):
        raise MalformedRow(seq, f"{name} is not UTF-8 text: {value!r}")
    raise MalformedRow(seq, f"{name} is {value!r}, of the wrong type")


def decode_record(row: Sequence[object]) -> Record:
    """A stored row (in RECORD_COLUMNS order) as a Record, read strictly: MalformedRow otherwise."""
    (
        seq,
        time,
        round_number,
        device_id,
        device_name,
        role,
        table,
        lexicon_id,
        lexicon_version,
        lexicon_checksum,
        notation,
        words,
        tiles,
        valid,
        prev,
        hash_,
        format_,
        key,
        offline,
        device_time,
        second_id,
        second_version,
        second_checksum,
        second_valid,
        shown_round,
        shown_valid,
    ) = row
    if type(seq) is not int:
        raise MalformedRow(-1, f"a row number is {seq!r}")
    text, maybe_text, maybe_int = (str,), (str, type(None)), (int, type(None))
    try:
        entry = Entry(
            lexicon_id=_typed(lexicon_id, text, seq, "lexicon_id"),
            lexicon_version=_typed(lexicon_version, text, seq, "lexicon_version"),
            lexicon_checksum=_typed(lexicon_checksum, text, seq, "lexicon_checksum"),
            notation=_typed(notation, text, seq, "notation"),
            words=_json_list(words, seq, "words"),
            tiles=_json_list(tiles, seq, "tiles"),
            valid=_flag(valid, seq, "valid"),
            device_id=_typed(device_id, maybe_int, seq, "device_id"),
            device_name=_typed(device_name, maybe_text, seq, "device_name"),
            role=_typed(role, maybe_text, seq, "role"),
            table=_typed(table, maybe_text, seq, "table"),
            idempotency_key=_typed(key, maybe_text, seq, "idempotency_key"),
            offline=_flag(offline, seq, "offline"),
            device_time=_typed(device_time, maybe_text, seq, "device_time"),
            second_lexicon_id=_typed(second_id, maybe_text, seq, "second_lexicon_id"),
            second_lexicon_version=_typed(second_version, maybe_text, seq, "second_lexicon_version"),
            second_lexicon_checksum=_typed(second_checksum, maybe_text, seq, "second_lexicon_checksum"),
            second_valid=None if second_valid is None else _flag(second_valid, seq, "second_valid"),
            shown_round=_typed(shown_round, maybe_int, seq, "shown_round"),
            shown_valid=None if shown_valid is None else _flag(shown_valid, seq, "shown_valid"),
        )
    except ValueError as error:
        if isinstance(error, MalformedRow):
            raise
        raise MalformedRow(seq, str(error)) from None
    return Record(
        seq,
        _typed(time, text, seq, "time"),
        _typed(round_number, maybe_int, seq, "round"),
        entry,
        _typed(prev, text, seq, "prev"),
        _typed(hash_, text, seq, "hash"),
        _typed(format_, (int,), seq, "format"),
    )


def decode_device(row: Sequence[object]) -> Device:
    return Device(*row)


def decode_round(row: Sequence[object]) -> Round:
    """A stored round (SELECT *: a file of an older schema read as it is has fewer columns)."""
    number, opened, closed, head_seq, head_hash, *later = row
    pending, final = (*later, None, None)[:2]
    if pending is not None:
        try:
            ids = json.loads(pending)
        except (TypeError, ValueError, RecursionError):
            ids = None
        if not isinstance(ids, list) or not all(type(i) is int for i in ids):
            raise Unreadable(f"rounds.pending of round {number}")
        pending = tuple(ids)
    return Round(number, opened, closed, head_seq, head_hash, pending, final)


def pending_of(pending: tuple[int, ...] | None) -> str | None:
    """A round's `pending` (the devices it waits for) as a store keeps it: what decode_round reads back."""
    return None if pending is None else json.dumps(list(pending))


def record_filter(placeholder: str, which: RecordFilter) -> tuple[list[str], str, list[object], bool]:
    """What a store's `records` selects by (storage.View.records), in its `placeholder` (`?`, `%s`):
    the conditions, the ORDER BY and LIMIT that follow them, their values in order, and whether
    the rows come newest first (a limit without `after`: the last rows), to be put back in order."""
    conditions, values = [], []
    for test, value in (
        ("round =", which.round),
        ('"table" =', which.table),
        ("device_id =", which.device_id),
        ("seq <", which.before),
        ("seq >", which.after),
    ):
        if value is not None:
            conditions.append(f"{test} {placeholder}")
            values.append(value)
    newest_first = which.limit is not None and which.after is None
    tail = " ORDER BY seq DESC" if newest_first else " ORDER BY seq"
    if which.limit is not None:
        tail += f" LIMIT {placeholder}"
        values.append(which.limit)
    return conditions, tail, values, newest_first


def row_of(record: Record) -> tuple[object, ...]:
    """A record as the values of an INSERT, in RECORD_COLUMNS order."""
    e = record.entry
    return (
        record.seq,
        record.time,
        record.round,
        e.device_id,
        e.device_name,
        e.role,
        e.table,
        e.lexicon_id,
        e.lexicon_version,
        e.lexicon_checksum,
        e.notation,
        canonical_words(e.words),
        canonical_words(e.tiles),
        int(e.valid),
        record.prev,
        record.hash,
        record.format,
        e.idempotency_key,
        int(e.offline),
        e.device_time,
        e.second_lexicon_id,
        e.second_lexicon_version,
        e.second_lexicon_checksum,
        None if e.second_valid is None else int(e.second_valid),
        e.shown_round,
        None if e.shown_valid is None else int(e.shown_valid),
    )
