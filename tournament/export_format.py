"""The record as CSV or JSON, for the director, an appeal committee, or a federation.

Both carry every field of every row, the chain included (`prev`, `hash`, `format`), so that an
export can be checked again away from the service: `read_export` reads either back into the
rows it came from, and chain.verify_chain checks a whole-record export.

CSV (RFC 4180: rows end in CRLF, fields quoted when needed): one row per record row, the
columns of COLUMNS; `words` and `tiles` are the words separated by spaces (a recorded word never
holds one); `valid`, `second_valid`, `offline` and `shown_valid` are `true` or `false`; an
absent value is an empty cell (a recorded text is never empty). The `second_*` columns (the
second opinion shown, since schema 4), `shown_round` (since schema 9: the round an offline
verdict's phone showed, 0 for none; beside `round`, where the record filed it, `device_time`,
when the phone judged, and `time`, when the record received it) and `shown_valid` (since schema
12: the verdict an offline verdict's phone showed; empty on an offline row: not known, see
shown.py) are absent from older exports, which `read_export` still reads. A text cell that
a spreadsheet might run as a formula, or that starts with ', gets a leading ', which `read_export`
removes: a device's name, table or idempotency key sent as `=HYPERLINK(...)` stays text. A cell
might run when it starts with a tab or a carriage return, or when its first character one can see
is = + - @ or a form of one (full-width `＝ ＋ － ＠`, small `﹦`, superscript `⁺`: NFKC's), after
any white space (spaces, line feeds, no-break spaces) and characters drawn as nothing (a
zero-width space, a BOM; model.invisible), which a spreadsheet may drop before it reads the cell.
JSON: `{"event": NAME, "round": N or null, "broken": null, "records": [{COLUMN: value, ...}, ...]}`
with `words` and `tiles` as arrays.

An export made by the service or `lexicon records export` also says what the exporter found:
a last column (a member in JSON) `intact`, `true` for a row as it was recorded (its contents
match its hash and it chains to the row before it) and `false` otherwise, and in JSON `broken`,
the first row of the whole record that does not chain (`{"seq": N, "reason": TEXT}`) or null.
They are the exporter's word; `lexicon records verify EXPORT` checks the rows themselves.
Since exports said it, the filter they were asked for follows (export_filter: the column `filter`
after `intact`, the member `filter` in JSON); `read_export_filter` reads it back, None for an
export that does not say it. And since the event's store marks them (schema 17), the online rows
whose second opinion their phone never showed (unshown_second.py): the column `second_not_shown`
after `filter`, a member of each row in JSON, the time the phone showed the verdict alone, empty
(null) for a row as recorded. A mark beside the row, not a field of it: `read_export` reads the
rows without it, and their hashes are the same.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections.abc import Iterable, Mapping

from .entry import SECOND_FIELDS, Entry, Record
from .errors import shown
from .export_filter import FILTER, ExportFilter
from .integrity import Break
from .model import invisible

FORMATS = ("csv", "json")
COLUMNS = (
    "seq",
    "time",
    "round",
    "table",
    "device_id",
    "device_name",
    "role",
    "lexicon_id",
    "lexicon_version",
    "lexicon_checksum",
    "notation",
    "words",
    "tiles",
    "valid",
    *SECOND_FIELDS,
    "offline",
    "device_time",
    "shown_round",
    "shown_valid",
    "idempotency_key",
    "format",
    "prev",
    "hash",
)
_BEFORE_VERDICT = tuple(name for name in COLUMNS if name != "shown_valid")  # exports of schemas 9 to 11
_BEFORE_SHOWN = tuple(name for name in _BEFORE_VERDICT if name != "shown_round")  # exports of schemas 4 to 8
_BEFORE_SECOND = tuple(name for name in _BEFORE_SHOWN if name not in SECOND_FIELDS)  # exports of schemas 1 to 3
INTACT = "intact"  # the exporter's check of each row, after the chain's columns
UNSHOWN = "second_not_shown"  # the store's mark of a row whose second opinion was never shown, after the filter
_HEADERS = (
    COLUMNS,
    COLUMNS + (INTACT,),
    COLUMNS + (INTACT, FILTER),
    COLUMNS + (INTACT, FILTER, UNSHOWN),
    _BEFORE_VERDICT,
    _BEFORE_VERDICT + (INTACT,),
    _BEFORE_VERDICT + (INTACT, FILTER),
    _BEFORE_SHOWN,
    _BEFORE_SHOWN + (INTACT,),
    _BEFORE_SECOND,
)
_INTS = {"seq", "round", "device_id", "format", "shown_round"}
_BOOLS = {"valid", "offline", "second_valid", "shown_valid", INTACT}
_MAYBE_BOOLS = {"second_valid", "shown_valid"}  # an empty cell: none
_LISTS = {"words", "tiles"}
_TOP = {"seq", "time", "round", "prev", "hash", "format"}
_FORMULA = ("\t", "\r", "'")  # and ' itself, so that reading back is exact
_SIGNS = frozenset("=+-@")  # what starts a formula, as NFKC writes each of its forms


def as_dict(record: Record) -> dict[str, object]:
    e = record.entry
    values = {name: getattr(e, name) for name in COLUMNS if name not in _TOP}
    values.update(
        seq=record.seq,
        time=record.time,
        round=record.round,
        prev=record.prev,
        hash=record.hash,
        format=record.format,
        words=list(e.words),
        tiles=list(e.tiles),
    )
    return {name: values[name] for name in COLUMNS}


def from_dict(values: dict[str, object]) -> Record:
    entry = Entry(**{name: values.get(name) for name in COLUMNS if name not in _TOP})
    return Record(
        values["seq"], values["time"], values["round"], entry, values["prev"], values["hash"], values["format"]
    )


def _cell(name: str, value: object) -> str:
    if value is None:
        return ""
    if name in _BOOLS:
        return "true" if value else "false"
    text = " ".join(value) if name in _LISTS else str(value)
    return "'" + text if name not in _INTS and _may_run(text) else text


def _may_run(text: str) -> bool:
    """Whether a spreadsheet might run the cell as a formula (or its leading ' would be lost).

    >>> [_may_run(t) for t in ("Mesa 7", "=1+1", " =1", "\\n+1", "\\u00a0-1", "\\u200b@A1", "\\ufeff=1", "＝1", "'x")]
    [False, True, True, True, True, True, True, True, True]
    """
    first = text[:1]
    if "!" <= first <= "~" and first not in "=+-@'":  # nearly every cell: a visible ASCII character first
        return False
    if text.startswith(_FORMULA):
        return True
    for c in text:
        if c.isspace() or invisible(c) or unicodedata.category(c) == "Cc":
            continue
        return unicodedata.normalize("NFKC", c)[:1] in _SIGNS
    return False


def _uncell(name: str, text: str) -> object:
    if name not in _INTS and name not in _BOOLS and text.startswith("'"):
        text = text[1:]
    if name in _LISTS:
        return tuple(text.split(" "))
    if name in _BOOLS:
        if text == "" and name in _MAYBE_BOOLS:
            return None
        if text not in ("true", "false"):
            raise ValueError(f"{name} is {text!r}, not true or false")
        return text == "true"
    if text == "":
        return None
    return int(text) if name in _INTS else text


def export(
    records: Iterable[Record],
    format: str = "csv",
    event: str | None = None,
    round: int | None = None,
    intact: Mapping[int, bool] | None = None,
    broken: Break | None = None,
    filter: ExportFilter | None = None,
    unshown: Mapping[int, tuple[str | None, str]] | None = None,
) -> str:
    """The rows as CSV or JSON text (see the module's docstring); `intact`, each row's check by
    its number, adds the `intact` column, `broken` is the whole record's first break, `filter`
    (with `intact`) what the export was asked for, and `unshown` (with `filter`) the store's
    marks of rows whose second opinion was never shown (EventStore.unshown_seconds)."""

    def row_of(record: Record) -> dict[str, object]:
        row = as_dict(record)
        if intact is not None:
            row[INTACT] = intact[record.seq]
        if unshown is not None:
            row[UNSHOWN] = unshown_at(unshown, record.seq)
        return row

    if format == "csv":
        return csv_part(records, intact, header=True, filter=filter, unshown=unshown)
    if format == "json":
        rows = [row_of(record) for record in records]
        document = {"event": event, "round": round}
        if filter is not None:
            document[FILTER] = filter.as_json()
        if intact is not None:
            document["broken"] = None if broken is None else {"seq": broken.seq, "reason": broken.reason}
        document["records"] = rows
        return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    raise ValueError(f"an export's format is one of {', '.join(FORMATS)}, not {format!r}")


def csv_part(
    records: Iterable[Record],
    intact: Mapping[int, bool] | None = None,
    header: bool = False,
    filter: ExportFilter | None = None,
    unshown: Mapping[int, tuple[str | None, str]] | None = None,
) -> str:
    """Rows of a CSV export (with the header line first when `header`): an export written in
    parts, a slice of rows at a time, is the same text as one written whole. `filter` goes
    with `intact`: the exporter's word on what it holds, beside its word on each row; `unshown`
    with `filter`: the store's marks (`export`)."""
    columns = COLUMNS if intact is None else COLUMNS + (INTACT,) + ((FILTER,) if filter is not None else ())
    if filter is not None and unshown is not None:
        columns += (UNSHOWN,)
    out = io.StringIO()
    writer = csv.writer(out)  # RFC 4180: CRLF ends a row, so a lone CR or LF in a field is quoted
    if header:
        writer.writerow(columns)
    for record in records:
        row = as_dict(record)
        if intact is not None:
            row[INTACT] = intact[record.seq]
        if filter is not None:
            row[FILTER] = filter.cell()
        if unshown is not None:
            row[UNSHOWN] = unshown_at(unshown, record.seq)
        writer.writerow([_cell(name, row[name]) for name in columns])
    return out.getvalue()


def unshown_at(unshown: Mapping[int, tuple[str | None, str]], seq: int) -> str | None:
    """A row's mark as an export says it: when its phone showed its verdict without the second
    opinion (unshown_second.py), or when the service learned it if the phone gave no time; None
    for a row as recorded."""
    mark = unshown.get(seq)
    return None if mark is None else mark[0] or mark[1]


def read_export(text: str, format: str) -> list[Record]:
    """The rows of an export, as they were recorded; ValueError naming the line or row otherwise."""
    return read_export_filter(text, format)[0]


def read_export_filter(text: str, format: str) -> tuple[list[Record], ExportFilter | None]:
    """The rows of an export and the filter it says it was asked for (None: it says none; a
    CSV export without rows says none either); ValueError naming the line or row otherwise."""
    if format == "csv":
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            return _read_csv(reader)
        except csv.Error as error:  # a cell past the reader's limit (128 KiB): no export holds one
            raise ValueError(f"line {reader.line_num}: {error}") from None
    if format == "json":
        try:
            document = json.loads(text)
        except RecursionError:  # arrays nested past the parser's limit: no export is written so
            raise ValueError("its JSON is nested deeper than any export's") from None
        said = ExportFilter.of(document[FILTER]) if FILTER in document else None
        records = []
        for index, row in enumerate(document["records"], 1):
            try:
                row = dict(row, words=tuple(row["words"]), tiles=tuple(row["tiles"]))
                records.append(from_dict(row))
            except (KeyError, ValueError, TypeError) as error:
                raise ValueError(f"row {index}: {error}") from None
        return records, said
    raise ValueError(f"an export's format is one of {', '.join(FORMATS)}, not {format!r}")


def _read_csv(reader) -> tuple[list[Record], ExportFilter | None]:
    """The rows and the filter of a CSV export (read_export_filter), line by line from `reader`."""
    header = tuple(next(reader, None) or ())
    if header not in _HEADERS:
        raise ValueError(f"not a record export: its columns are {shown(list(header))}")
    records, said = [], None
    for line, cells in enumerate(reader, 2):
        try:
            if len(cells) != len(header):
                raise ValueError(f"{len(cells)} cells, not {len(header)}")
            values = {n: _uncell(n, c) for n, c in zip(header, cells, strict=True)}
            records.append(from_dict(values))
            if FILTER in values:
                cell = values[FILTER] or ""
                if said is None:
                    said = (cell, ExportFilter.parse(cell))
                elif cell != said[0]:
                    raise ValueError(f"its filter {shown(cell)} is not line 2's {shown(said[0])}")
        except (ValueError, TypeError) as error:
            raise ValueError(f"line {line}: {error}") from None
    return records, None if said is None else said[1]
