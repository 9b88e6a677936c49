"""The record's endpoints (the director only): `GET /v1/records`, a page of rows or an export
of every row that fits the filters (JSON or CSV, as a file named for what it holds), and
`GET /v1/records/<seq>`, one row; each row with whether it is intact, and the chain's state.

An export is sent as it is made, EXPORT_SLICE rows at a time (read, checked, written): its first
slice here, read before the answer starts, so that a record that cannot be read is a refusal, not
a file cut short; the rest by a process of its own at the lowest CPU priority, whose bytes the
worker only relays (export_process: a 50,000-row record takes seconds of CPU to check and write,
which in the worker held its verdicts and, on two cores, the other worker's; `python -m bench
record`). It holds the rows there were when it began (later ones are left for the next export).
A row that cannot be read further on ends the answer without its
last chunk: the download fails, it is never a shorter file that looks whole.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import msgspec
from flask import Blueprint, Response, request

from lexicon.errors import show_word
from tournament import MAX_NUMBER, ExportFilter, RecordFilter, unknown_round

from ..api import NO_STORE
from ..decoding import SLIP
from ..director import console_language
from ..event_members import SlipTable
from ..problems import AGAIN_SOON, Problem
from ..registry import dumps
from .bodies import json_response
from .export_process import file_identity, part, rows_elsewhere, slices
from .http import Tournament
from .record_types import RECORDS_MAX, RECORDS_PAGE, ChainInfo, FilterInfo, RecordInfo, RecordList

EXPORT_SLICE = 50  # rows read, checked and written at a time by an export (a few milliseconds)


# The words of an export's file name, in the console's languages: what a director downloads is named
# in the language the console speaks to them (Catalan: `…-registre.csv`, `…-ronda-3-taula-12.csv`).
EXPORT_WORDS = {
    "es": {"event": "evento", "record": "registro", "round": "ronda", "table": "mesa", "device": "dispositivo"},
    "ca": {"event": "torneig", "record": "registre", "round": "ronda", "table": "taula", "device": "dispositiu"},
}


def export_name(
    event: str,
    fmt: str,
    round: int | None = None,
    table: str | None = None,
    device: int | None = None,
    language: str = "es",
) -> str:
    """An export's file name, in `language`: the event's, then what it was filtered by, and the
    format's extension.

    >>> export_name("Open de Lleida 2026", "csv", 3, "12")
    'open-de-lleida-2026-ronda-3-mesa-12.csv'
    >>> export_name("Ç!", "json")
    'c-registro.json'
    >>> export_name("Obert de Lleida 2026", "csv", table="12", device=2, language="ca")
    'obert-de-lleida-2026-taula-12-dispositiu-2.csv'
    >>> export_name("!", "csv", language="ca")
    'torneig-registre.csv'
    """
    import unicodedata

    words = EXPORT_WORDS[language]
    plain = unicodedata.normalize("NFKD", event).encode("ascii", "ignore").decode().lower()
    parts = ["-".join(re.findall(r"[a-z0-9]+", plain)) or words["event"]]
    for word, value in (("round", round), ("table", table), ("device", device)):
        if value is not None:
            parts.append(f"{words[word]}-{'-'.join(re.findall(r'[a-z0-9]+', str(value).lower())) or 'x'}")
    if len(parts) == 1:
        parts.append(words["record"])
    return "-".join(parts) + "." + fmt


def content_disposition(name: str) -> str:
    """`attachment` with the name as ASCII (export_name's are)."""
    return f'attachment; filename="{name}"'


RECORDS_PARAMETERS = ("round", "table", "device", "format", "limit", "before", "after")


def _int_arg(name: str) -> int | None:
    values = request.args.getlist(name)
    if not values:
        return None
    # ASCII digits only: str.isdigit() also takes '²' (which int() refuses) and other scripts' digits
    if (
        len(values) > 1
        or not (values[0].isascii() and values[0].isdigit())
        or len(values[0]) > len(str(MAX_NUMBER))
        or not 0 < int(values[0]) <= MAX_NUMBER
    ):
        raise Problem(
            "invalid-request",
            f"{name} is a whole number from 1 to {MAX_NUMBER}, not {show_word(values[-1])}",
            parameter=name,
        )
    return int(values[0])


def _table_arg() -> str | None:
    """The `table` filter, as a row's table is written (a slip's, SlipTable; a table device's is
    printable, within the same length): a value no row can hold is refused naming it, rather
    than matching nothing or, with a NUL, which PostgreSQL refuses in text, failing the store.
    Given twice, refused as a number given twice is (_int_arg): the first alone would answer as if
    for both."""
    values = request.args.getlist("table")
    if len(values) > 1:
        shown = ", ".join(show_word(value) for value in values[:3])
        raise Problem("invalid-request", f"table is given once, not {len(values)} times ({shown})", parameter="table")
    table = (values or [None])[0] or None
    if table is not None:
        try:
            msgspec.convert(table, SlipTable)
        except msgspec.ValidationError:
            raise Problem(
                "invalid-request", f"table is {SLIP['table']}, not {show_word(table)}", parameter="table"
            ) from None
    return table


def register_records(bp: Blueprint, tournament: Tournament) -> None:
    """The record's routes on the tournament blueprint (service.event.routes)."""
    db = tournament.db

    @bp.get("/v1/records")
    def records() -> Response:
        tournament.director()
        for name in request.args:
            if name not in RECORDS_PARAMETERS:
                raise Problem(
                    "invalid-request",
                    f"unknown parameter {name!r}; known: {', '.join(RECORDS_PARAMETERS)}",
                    parameter=name,
                )
        number, device_id = _int_arg("round"), _int_arg("device")
        refused = unknown_round(db, number)  # as `lexicon records export --round`: a typo, not an empty round
        if refused is not None:
            raise Problem("invalid-request", refused, parameter="round")
        table = _table_arg()
        fmt = request.args.get("format", "json")
        if fmt not in ("json", "csv"):
            raise Problem("invalid-request", f"format is json or csv, not {show_word(fmt)}", parameter="format")
        before, after, limit = _int_arg("before"), _int_arg("after"), _int_arg("limit")
        paged = "format" not in request.args  # an export (format=) is the whole record, as filtered
        if not paged and (before, after, limit) != (None, None, None):
            raise Problem(
                "invalid-request",
                "an export (format=) holds every row that fits the filters: leave out before, after and limit",
                parameter="format",
            )
        if before is not None and after is not None:
            raise Problem(
                "invalid-request", "ask for the rows before a number or after one, not both", parameter="after"
            )
        if limit is not None and limit > RECORDS_MAX:
            raise Problem("invalid-request", f"limit is at most {RECORDS_MAX}, not {limit}", parameter="limit")
        if not paged:
            response = _export(tournament, fmt, number, table, device_id)
            response.headers["Content-Disposition"] = content_disposition(  # a file: named for what it holds,
                export_name(
                    tournament.name, fmt, number, table, device_id, console_language()
                )  # in the console's words
            )
            return response
        limit = limit or RECORDS_PAGE
        page = RecordFilter(number, table, device_id, before, after, limit + 1)  # one more: is there more?
        rows = list(db.records(page))
        more = len(rows) > limit
        rows = (rows[1:] if after is None else rows[:-1]) if more else rows
        intact, chain, unshown = db.intact_rows(rows), db.chain_state(), db.unshown_seconds()
        return json_response(
            RecordList(
                tournament.name,
                number,
                [RecordInfo.of(r, intact[r.seq], unshown) for r in rows],
                ChainInfo.of(chain, db.moved()),
                more,
            )
        )

    @bp.get("/v1/records/<int:seq>")
    def record(seq: int) -> Response:
        tournament.director()
        found = db.record(seq)
        if found is None:
            raise Problem("unknown-record", f"there is no record {seq}")
        return json_response(RecordInfo.of(found, db.intact_rows([found])[found.seq], db.unshown_seconds()))


def _export(tournament: Tournament, fmt: str, number: int | None, table: str | None, device_id: int | None) -> Response:
    """Every row that fits the filters, as CSV or JSON (the bytes of a RecordList): the first
    slice made here, before the answer starts, and the rest by a process of its own (export_process)."""
    db = tournament.db
    location = tournament.settings.event
    if db.replaced():  # the rows after the first slice would come from the file now at the path
        why = tournament.unready() or "the event file was replaced"
        raise Problem.later("record-unavailable", f"{why}; ask again in {AGAIN_SOON} s", AGAIN_SOON)
    served = file_identity(location)  # the child reads only the file this worker serves
    chain = db.chain_state()
    rows, intact = next(slices(db, number, table, device_id, chain.last, 0, EXPORT_SLICE), ([], {}))
    asked = ExportFilter(number, table, device_id)  # said in the export, as `lexicon records export` says it
    first = part(
        fmt, rows, intact, first=True, filter=asked, unshown=db.unshown_seconds()
    )  # before the answer starts: a refusal if unreadable
    ask = {
        "location": os.fspath(location),
        "file": served,
        "fmt": fmt,
        "round": number,
        "table": table,
        "device": device_id,
        "after": rows[-1].seq if rows else 0,
        "upto": chain.last,
        "slice": EXPORT_SLICE,
    }
    head, tail = b"", b""
    if fmt == "json":
        listed = RecordList(tournament.name, number, [], ChainInfo.of(chain), False, FilterInfo.of(asked))
        head, tail = dumps(listed).split(b'"records":[]')
        head, tail = head + b'"records":[', b"]" + tail

    def parts() -> Iterator[bytes]:
        yield head + first
        if len(rows) == EXPORT_SLICE:  # more rows than the first slice may fit
            yield from rows_elsewhere(ask)
        if tail:
            yield tail

    content_type = "text/csv; charset=utf-8" if fmt == "csv" else "application/json"
    headers = [("Cache-Control", NO_STORE), ("X-Content-Type-Options", "nosniff")]
    return Response(parts(), 200, headers, content_type=content_type)


__all__ = ["RECORDS_PARAMETERS", "content_disposition", "export_name", "register_records"]
