"""The record's endpoints (the director only): `GET /v1/records`, a page of rows or an export
of every row that fits the filters (JSON or CSV, as a file named for what it holds), and
`GET /v1/records/<seq>`, one row; each row with whether it is intact, and the chain's state.
"""

from __future__ import annotations

import re

from flask import Blueprint, Response, request

from lexicon.errors import show_word
from tournament import MAX_NUMBER, export_records

from ..api import respond
from ..problems import Problem
from .api_types import RECORDS_MAX, RECORDS_PAGE, ChainInfo, RecordInfo, RecordList
from .bodies import json_response
from .http import Tournament


def export_name(
    event: str, fmt: str, round: int | None = None, table: str | None = None, device: int | None = None
) -> str:
    """An export's file name: the event's, then what it was filtered by, and the format's extension.

    >>> export_name("Open de Lleida 2026", "csv", 3, "12")
    'open-de-lleida-2026-ronda-3-mesa-12.csv'
    >>> export_name("Ç!", "json")
    'c-registro.json'
    """
    import unicodedata

    plain = unicodedata.normalize("NFKD", event).encode("ascii", "ignore").decode().lower()
    parts = ["-".join(re.findall(r"[a-z0-9]+", plain)) or "evento"]
    for word, value in (("ronda", round), ("mesa", table), ("dispositivo", device)):
        if value is not None:
            parts.append(f"{word}-{'-'.join(re.findall(r'[a-z0-9]+', str(value).lower())) or 'x'}")
    if len(parts) == 1:
        parts.append("registro")
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
        table = request.args.get("table") or None
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
        if paged:
            limit = limit or RECORDS_PAGE
            rows = list(db.records(number, table, device_id, before, after, limit + 1))  # one more: is there more?
            more = len(rows) > limit
            rows = (rows[1:] if after is None else rows[:-1]) if more else rows
        else:
            rows, more = list(db.records(number, table, device_id)), False
        intact, chain = db.intact_rows(rows), db.chain_state()
        if fmt == "csv":
            response = respond(
                export_records(rows, "csv", intact=intact).encode("utf-8"), content_type="text/csv; charset=utf-8"
            )
        else:
            response = json_response(
                RecordList(
                    tournament.name, number, [RecordInfo.of(r, intact[r.seq]) for r in rows], ChainInfo.of(chain), more
                )
            )
        if "format" in request.args:  # asked for as a file: named for what it holds
            response.headers["Content-Disposition"] = content_disposition(
                export_name(tournament.name, fmt, number, table, device_id)
            )
        return response

    @bp.get("/v1/records/<int:seq>")
    def record(seq: int) -> Response:
        tournament.director()
        found = db.record(seq)
        if found is None:
            raise Problem("unknown-record", f"there is no record {seq}")
        return json_response(RecordInfo.of(found, db.intact_rows([found])[found.seq]))


__all__ = ["RECORDS_PARAMETERS", "content_disposition", "export_name", "register_records"]
