"""The record as CSV or JSON, for the director, an appeal committee, or a federation.

Both carry every field of every row, the chain included (`prev`, `hash`, `format`), so that an
export can be checked again away from the service: `read_export` reads either back into the
rows it came from, and chain.verify_chain checks a whole-record export.

CSV (RFC 4180: rows end in CRLF, fields quoted when needed): one row per record row, the
columns of COLUMNS; `words` and `tiles` are the words separated by spaces (a recorded word never
holds one); `valid`, `second_valid` and `offline` are `true` or `false`; an absent value is an
empty cell (a recorded text is never empty). The `second_*` columns (the second opinion shown,
since schema 4) are absent from older exports, which `read_export` still reads. A text cell that a spreadsheet would run as a formula (starting
with = + - @, a tab or a carriage return) or that starts with ' gets a leading ', which
`read_export` removes: a device's name or table typed as `=HYPERLINK(...)` stays text.
JSON: `{"event": NAME, "round": N or null, "records": [{COLUMN: value, ...}, ...]}` with
`words` and `tiles` as arrays.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Iterable

from .model import SECOND_FIELDS, Entry, Record

FORMATS = ("csv", "json")
COLUMNS = ("seq", "time", "round", "table", "device_id", "device_name", "role", "lexicon_id",
           "lexicon_version", "lexicon_checksum", "notation", "words", "tiles", "valid", *SECOND_FIELDS, "offline",
           "device_time", "idempotency_key", "format", "prev", "hash")
_BEFORE_SECOND = tuple(name for name in COLUMNS if name not in SECOND_FIELDS)  # exports of schemas 1 to 3
_INTS = {"seq", "round", "device_id", "format"}
_BOOLS = {"valid", "offline", "second_valid"}
_LISTS = {"words", "tiles"}
_TOP = {"seq", "time", "round", "prev", "hash", "format"}
_FORMULA = ("=", "+", "-", "@", "\t", "\r", "'")  # and ' itself, so that reading back is exact


def as_dict(record: Record) -> dict[str, object]:
    e = record.entry
    values = {name: getattr(e, name) for name in COLUMNS if name not in _TOP}
    values.update(seq=record.seq, time=record.time, round=record.round, prev=record.prev,
                  hash=record.hash, format=record.format, words=list(e.words), tiles=list(e.tiles))
    return {name: values[name] for name in COLUMNS}


def from_dict(values: dict[str, object]) -> Record:
    entry = Entry(**{name: values.get(name) for name in COLUMNS if name not in _TOP})
    return Record(values["seq"], values["time"], values["round"], entry, values["prev"], values["hash"],
                  values["format"])


def _cell(name: str, value: object) -> str:
    if value is None:
        return ""
    if name in _BOOLS:
        return "true" if value else "false"
    text = " ".join(value) if name in _LISTS else str(value)
    return "'" + text if name not in _INTS and text.startswith(_FORMULA) else text


def _uncell(name: str, text: str) -> object:
    if name not in _INTS and name not in _BOOLS and text.startswith("'"):
        text = text[1:]
    if name in _LISTS:
        return tuple(text.split(" "))
    if name in _BOOLS:
        if text == "" and name == "second_valid":
            return None
        if text not in ("true", "false"):
            raise ValueError(f"{name} is {text!r}, not true or false")
        return text == "true"
    if text == "":
        return None
    return int(text) if name in _INTS else text


def export(records: Iterable[Record], format: str = "csv", event: str | None = None,
           round: int | None = None) -> str:
    """The rows as CSV or JSON text (see the module's docstring)."""
    if format == "csv":
        out = io.StringIO()
        writer = csv.writer(out)  # RFC 4180: CRLF ends a row, so a lone CR or LF in a field is quoted
        writer.writerow(COLUMNS)
        for record in records:
            row = as_dict(record)
            writer.writerow([_cell(name, row[name]) for name in COLUMNS])
        return out.getvalue()
    if format == "json":
        rows = [as_dict(record) for record in records]
        return json.dumps({"event": event, "round": round, "records": rows}, ensure_ascii=False, indent=1) + "\n"
    raise ValueError(f"an export's format is one of {', '.join(FORMATS)}, not {format!r}")


def read_export(text: str, format: str) -> list[Record]:
    """The rows of an export, as they were recorded; ValueError naming the line or row otherwise."""
    if format == "csv":
        reader = csv.reader(io.StringIO(text, newline=""))
        header = tuple(next(reader, None) or ())
        if header not in (COLUMNS, _BEFORE_SECOND):
            raise ValueError(f"not a record export: its columns are {list(header)!r}")
        records = []
        for line, cells in enumerate(reader, 2):
            try:
                if len(cells) != len(header):
                    raise ValueError(f"{len(cells)} cells, not {len(header)}")
                records.append(from_dict({n: _uncell(n, c) for n, c in zip(header, cells, strict=True)}))
            except (ValueError, TypeError) as error:
                raise ValueError(f"line {line}: {error}") from None
        return records
    if format == "json":
        document = json.loads(text)
        records = []
        for index, row in enumerate(document["records"], 1):
            try:
                row = dict(row, words=tuple(row["words"]), tiles=tuple(row["tiles"]))
                records.append(from_dict(row))
            except (KeyError, ValueError, TypeError) as error:
                raise ValueError(f"row {index}: {error}") from None
        return records
    raise ValueError(f"an export's format is one of {', '.join(FORMATS)}, not {format!r}")
