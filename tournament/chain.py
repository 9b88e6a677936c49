"""The record's chain: each row's canonical bytes, its hash, and checking a whole record.

The canonical bytes of a row are its fields as one JSON object: keys sorted, no white space
(separators `,` and `:`), non-ASCII characters as themselves, encoded in UTF-8. The fields are
those of the row's format (FIELDS) plus `format` itself; `words` and `tiles` are arrays of
strings, `valid`, `offline` and `shown_valid` are `true`/`false`, absent values are `null`,
numbers are integers and times are strings (stamps.stamp): no floats, so every JSON library that sorts keys
writes the same bytes. `prev` is among the fields, so a row's hash covers the row before it:

    hash(row n) = SHA-256(canonical(row n)),   row n's prev = hash(row n-1),   row 1's prev = GENESIS

Editing any field of row n changes hash(row n), which no longer matches the hash stored with
it; rewriting that hash too breaks row n+1's prev; deleting row n leaves a gap in the numbers.
What a chain alone cannot show is the last rows removed or rewritten together: the head hash
written on paper when a round closes (stored with the round as well) covers that.

>>> canonical_bytes({"b": "Ç", "a": [1, None, True]})
b'{"a":[1,null,true],"b":"\\xc3\\x87"}'
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Iterable, Mapping

import msgspec

from .entry import SECOND_FIELDS, Entry, Record
from .errors import TournamentError
from .integrity import Break

GENESIS = "0" * 64

_COMMON = (
    "seq",
    "time",
    "round",
    "device_id",
    "device_name",
    "role",
    "table",
    "lexicon_id",
    "lexicon_version",
    "lexicon_checksum",
    "notation",
    "words",
    "tiles",
    "valid",
    "prev",
)
FIELDS = {
    1: _COMMON,  # schema 1: tournament mode
    2: _COMMON + ("idempotency_key", "offline", "device_time"),  # schema 2: devices that judge offline
}
FIELDS[3] = FIELDS[2] + SECOND_FIELDS  # schema 4: the second opinion shown with the verdict
FIELDS[4] = FIELDS[3] + ("shown_round",)  # schema 9: the round an offline verdict's phone showed
FIELDS[5] = FIELDS[4] + ("shown_valid",)  # file schema 12: the verdict it showed (shown_round may be null)
_OWN = ("seq", "time", "round", "prev")  # a row's fields that are not its entry's
# Each format's fields read from the entry, and one getter of them all (in the write lock, a row at a time)
_OF_ENTRY = {format: tuple(name for name in names if name not in _OWN) for format, names in FIELDS.items()}
_ENTRY_VALUES = {format: operator.attrgetter(*names) for format, names in _OF_ENTRY.items()}


class MalformedRow(TournamentError, ValueError):
    """A stored row that cannot be read back as a record: it was changed by hand."""

    def __init__(self, seq: int, reason: str):
        super().__init__(f"record {seq}: {reason}")
        self.seq = seq
        self.reason = reason


# One encoder for every row: `json.dumps` with these arguments builds a new one at each call, which
# was a tenth of a full verification's time; the bytes are the same.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# msgspec's encoder, keys sorted, writes these very bytes for the values a row holds (str, int, bool,
# None, lists of str, a dict of them), in a seventh of the time: tests/tournament/test_chain.py
# compares the two over every code point and many rows. It refuses a str subclass and a lone
# surrogate, which the standard library's then writes as before; a float, which a row never
# holds (and which the two would write differently), never reaches it (`_hashed`).
_FAST = msgspec.json.Encoder(order="sorted")


def canonical_text(value: object) -> str:
    """The canonical JSON of `value`, as text (a stored `words` or `tiles` column is compared with it)."""
    return _ENCODER.encode(value)


def canonical_bytes(value: object) -> bytes:
    return canonical_text(value).encode("utf-8")


def canonical_words(words: Iterable[str]) -> str:
    """canonical_text of a list of words (a row's `words` and `tiles` columns), written faster."""
    try:
        return _FAST.encode(words).decode("utf-8")
    except (TypeError, ValueError):  # a str subclass, a lone surrogate: as canonical_text writes it
        return canonical_text(list(words))


def fields_of(record: Record) -> dict[str, object]:
    """The row's fields that its hash covers, by its format."""
    return _fields(record.seq, record.time, record.round, record.entry, record.prev, record.format)


def _fields(seq: int, time: str, round: int | None, entry: Entry, prev: str, format: int) -> dict[str, object]:
    """fields_of a row of these values (`seal` hashes one before its Record is made)."""
    try:
        names = _OF_ENTRY[format]
    except KeyError:
        raise MalformedRow(seq, f"unknown row format {format!r}") from None
    if format < 2 and (entry.idempotency_key is not None or entry.offline or entry.device_time):
        raise MalformedRow(seq, f"a format {format} row has offline fields")
    if format < 3 and entry.second_lexicon_id is not None:
        raise MalformedRow(seq, f"a format {format} row has a second opinion")
    if (format == 4 and entry.shown_round is None) or (format < 4 and entry.shown_round is not None):
        raise MalformedRow(seq, f"a format {format} row {'has no' if format == 4 else 'has a'} shown round")
    if (format == 5) != (entry.shown_valid is not None):
        raise MalformedRow(seq, f"a format {format} row {'has no' if format == 5 else 'has a'} shown verdict")
    fields = dict(zip(names, _ENTRY_VALUES[format](entry), strict=True))
    fields["words"], fields["tiles"] = list(entry.words), list(entry.tiles)
    fields.update(seq=seq, time=time, round=round, prev=prev, format=format)
    return fields


_ROUND = (int, type(None))


def _digest(fields: dict) -> str:
    """The hex SHA-256 of a row's canonical bytes: the hash a row is sealed with and checked by."""
    return hashlib.sha256(_hashed(fields)).hexdigest()


def _hashed(fields: dict) -> bytes:
    """canonical_bytes of a row's fields, by msgspec's encoder (`_FAST`) when it writes the same bytes:
    the entry's values are checked (entry.check_entry: no float among them), and the row's own are
    of the types the record writes (a Record read from an export may hold anything)."""
    if (
        type(fields["seq"]) is int
        and type(fields["format"]) is int
        and type(fields["time"]) is str
        and type(fields["prev"]) is str
        and type(fields["round"]) in _ROUND
    ):
        try:
            return _FAST.encode(fields)
        except (TypeError, ValueError):  # a str subclass, a lone surrogate: the standard library's answer
            pass
    return canonical_bytes(fields)


def row_hash(record: Record) -> str:
    """The hex SHA-256 of the row's canonical bytes (its stored `hash` is not among them)."""
    return _digest(fields_of(record))


def seal(seq: int, time: str, round_number: int | None, entry: Entry, prev: str, format: int) -> Record:
    """The row to store: its fields and the hash that covers them."""
    return Record(
        seq, time, round_number, entry, prev, _digest(_fields(seq, time, round_number, entry, prev, format)), format
    )


def verify_chain(
    records: Iterable[Record],
    anchors: Iterable[tuple[int, int, str]] = (),
    after: tuple[int, str] = (0, GENESIS),
    finals: Mapping[int, int] | None = None,
) -> Break | None:
    """The first row of a whole record, in order, that does not chain; None when all do.

    `records` may raise MalformedRow while it is read: that row is the break. `anchors` are
    the heads kept when rounds closed, (round, row number, hash): a row that no longer has the
    hash it had then, or a head row that is gone, is a break too (the last rows of a chain can
    be rewritten together; a head kept elsewhere shows it). `after` is the row already verified
    (its number and hash) that `records` continue from: verifying a growing record again costs
    only its new rows. `finals` are the rounds whose head is final, by number, with that head's
    row number: a row filed in such a round after its head is a break (the service files a
    verdict that arrives then outside rounds: the sheet's head covers its round).
    """
    finals = finals or {}
    heads: dict[int, tuple[int, str]] = {seq: (number, digest) for number, seq, digest in anchors}
    expected, prev = after[0] + 1, after[1]
    try:
        for record in records:
            if record.seq != expected:
                if record.seq > expected:
                    gone = (
                        f"record {expected}"
                        if record.seq == expected + 1
                        else f"records {expected} to {record.seq - 1}"
                    )
                    return Break.of(
                        "deleted",
                        record.seq,
                        f"{gone} before it is missing (deleted)",
                        first=expected,
                        last=record.seq - 1,
                    )
                return Break.of("order", record.seq, f"out of order after record {expected - 1}", after=expected - 1)
            if record.prev != prev:
                return Break.of(
                    "link",
                    record.seq,
                    f"does not chain to record {expected - 1}: "
                    "its previous-row hash differs (one of the two was changed)",
                    after=expected - 1,
                )
            if row_hash(record) != record.hash:
                return Break.of("changed", record.seq, "its contents do not match its hash (it was changed)")
            if record.round in finals and record.seq > finals[record.round]:
                return after_final(record, finals[record.round])
            if record.seq in heads and heads[record.seq][1] != record.hash:
                return Break.of(
                    "head-rewritten",
                    record.seq,
                    f"round {heads[record.seq][0]} closed at this record with hash "
                    f"{heads[record.seq][1]}; it now has another (it was rewritten)",
                    round=heads[record.seq][0],
                )
            expected, prev = expected + 1, record.hash
    except MalformedRow as error:
        return Break.of("malformed", error.seq, error.reason)
    beyond = [seq for seq in heads if seq >= expected]
    if beyond:
        number, _ = heads[max(beyond)]
        return Break.of(
            "head-deleted",
            expected,
            f"{missing(expected, max(beyond))}: round {number} closed at record {max(beyond)} (deleted)",
            first=expected,
            last=max(beyond),
            round=number,
            head=max(beyond),
        )
    return None


def after_final(record: Record, head: int) -> Break:
    """The break of a row filed in its round after that round's head, record `head`, was final."""
    return Break.of(
        "after-final",
        record.seq,
        f"it is filed in round {record.round} after that round's head, record {head}, was final "
        "(a verdict arriving then is filed outside rounds): it was added by hand",
        round=record.round,
        head=head,
    )


def missing(first: int, last: int) -> str:
    """`record 6 is missing`, `records 6 to 9 are missing`."""
    return f"record {first} is missing" if first == last else f"records {first} to {last} are missing"


def verified_deleted(last: int, verified: int) -> Break:
    """The break of a record that ends at `last` before the row `verified` this process had
    verified (its last rows deleted): each store's verification (stores/*/verification.py)."""
    return Break.of(
        "verified-deleted",
        last + 1,
        f"{missing(last + 1, verified)}: this service had verified the record up to {verified} (deleted)",
        first=last + 1,
        last=verified,
        verified=verified,
    )


def edited_since(seq: int) -> Break:
    """The break of row `seq`, changed after this process had verified it: each store's verification."""
    return Break.of(
        "edited",
        seq,
        f"row {seq} changed after this service had verified it (a row is never changed): the record was edited by hand",
    )


def row_intact(record: Record, prev_hash: str | None) -> bool:
    """Whether one row is as it was recorded: its contents match its hash and it chains to the
    hash of the row before it (`prev_hash`: None when that row is missing)."""
    expected = GENESIS if record.seq == 1 else prev_hash
    try:
        return expected is not None and record.prev == expected and row_hash(record) == record.hash
    except MalformedRow:
        return False
