"""Rounds: at most one open; closing one keeps the record's head (number and hash) with it.

A judge's phone may hold verdicts it gave offline when a round closes. Closing names the judges'
devices that have not been in touch for IN_TOUCH (no request in `contacts`, no recorded verdict):
they may hold some. While any of them has not synced since (told the service it holds none: `synced`),
or until the director confirms (`confirm_round`), the round's head is not final: then it is taken
again, the record's last row at that moment, so that the head written on the round's sheet
covers the verdicts of the round filed after it closed (docs/tournament.md, "Closing a round").
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from .chain import GENESIS
from .connection import SQLiteFile, on_writer, storage_errors
from .errors import RoundError, Unreadable
from .model import MAX_NUMBER, Round, read_stamp, stamp
from .rows import decode_round

IN_TOUCH = timedelta(minutes=1)  # a judge's device silent longer than this may hold offline verdicts


def _head(conn) -> tuple[int, str]:
    """The record's last row now: its number and hash (0 and GENESIS when it has none)."""
    head = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    return head if head else (0, GENESIS)


def _silent_judges(conn, now: datetime) -> list[int]:
    """The paired, unrevoked judges' devices with no request (`contacts`) and no recorded verdict
    in the last IN_TOUCH. The stored times are parsed (`read_stamp`), never compared as text: one
    edited by hand, unreadable or later than now, counts as no contact (its device is waited for)."""

    def moment(time: object, where: str) -> datetime | None:
        try:
            when = read_stamp(time, where)
        except Unreadable:
            return None
        return when if when <= now else None

    silent = []
    for device_id, contact, verdict in conn.execute(
        "SELECT id, (SELECT time FROM contacts WHERE device_id = devices.id), "
        "(SELECT time FROM records WHERE device_id = devices.id ORDER BY seq DESC LIMIT 1) "
        "FROM devices WHERE role = 'judge' AND paired IS NOT NULL AND revoked IS NULL ORDER BY id"
    ):
        times = [
            when for when in (moment(contact, "contacts.time"), moment(verdict, "records.time")) if when is not None
        ]
        if not times or max(times) < now - IN_TOUCH:
            silent.append(device_id)
    return silent


class Rounds(SQLiteFile):
    """The event's rounds, in the event file."""

    @storage_errors
    @on_writer
    def open_round(self, number: int | None = None) -> Round:
        """Open round `number` (default: the next one). At most one round is open."""
        if number is not None and (type(number) is not int or not 0 < number <= MAX_NUMBER):
            raise ValueError(f"a round's number is a whole number from 1 to {MAX_NUMBER}, not {number!r}")
        with self._write() as conn:
            current = conn.execute("SELECT number FROM rounds WHERE closed IS NULL").fetchone()
            if current is not None:
                raise RoundError(f"round {current[0]} is open: close it first")
            if number is None:
                number = conn.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM rounds").fetchone()[0]
                if number > MAX_NUMBER:
                    raise RoundError(f"no round is numbered after {MAX_NUMBER}: give the number of the round")
            elif conn.execute("SELECT 1 FROM rounds WHERE number = ?", (number,)).fetchone():
                raise RoundError(f"round {number} was already played")
            conn.execute("INSERT INTO rounds (number, opened) VALUES (?, ?)", (number, stamp(self._now())))
        return self.round(number)

    @storage_errors
    @on_writer
    def close_round(self) -> Round:
        """Close the open round, keeping the record's head (number and hash) with it."""
        with self._write() as conn:
            current = conn.execute("SELECT number FROM rounds WHERE closed IS NULL").fetchone()
            if current is None:
                raise RoundError("no round is open")
            now = self._now()
            silent = _silent_judges(conn, now)
            conn.execute(
                "UPDATE rounds SET closed = ?, head_seq = ?, head_hash = ?, pending = ? WHERE number = ?",
                (stamp(now), *_head(conn), json.dumps(silent) if silent else None, current[0]),
            )
        return self.round(current[0])

    @storage_errors
    @on_writer
    def confirm_round(self, number: int) -> Round:
        """The director's word that a closed round's head is final although devices it waited for
        have not synced: the head is taken again now. RoundError for a round not waiting."""
        with self._write() as conn:
            row = conn.execute("SELECT closed, pending FROM rounds WHERE number = ?", (number,)).fetchone()
            if row is None or row[0] is None or row[1] is None:
                state = "is not played" if row is None else "is open" if row[0] is None else "has its head final"
                raise RoundError(f"round {number} {state}: nothing to confirm")
            self._final(conn, number)
        return self.round(number)

    @storage_errors
    @on_writer
    def synced(self, device_id: int) -> None:
        """A device says it holds no offline verdict: every closed round that waited for it stops
        waiting for it (its head final once it waits for no one)."""
        with self._write() as conn:
            for number, pending in conn.execute(
                "SELECT number, pending FROM rounds WHERE pending IS NOT NULL"
            ).fetchall():
                left = [device for device in json.loads(pending) if device != device_id]
                if not left:
                    self._final(conn, number)
                elif len(left) < len(json.loads(pending)):
                    conn.execute("UPDATE rounds SET pending = ? WHERE number = ?", (json.dumps(left), number))

    @storage_errors
    def awaited(self) -> frozenset[int]:
        """The devices some closed round still waits for."""
        rows = self._conn().execute("SELECT pending FROM rounds WHERE pending IS NOT NULL").fetchall()
        return frozenset(device for (pending,) in rows for device in json.loads(pending))

    def _final(self, conn, number: int) -> None:
        conn.execute(
            "UPDATE rounds SET head_seq = ?, head_hash = ?, pending = NULL, final = ? WHERE number = ?",
            (*_head(conn), stamp(self._now()), number),
        )

    @storage_errors
    def round(self, number: int) -> Round | None:
        if not 0 < number <= MAX_NUMBER:  # no such round, and SQLite refuses a number past 64 bits
            return None
        row = self._conn().execute("SELECT * FROM rounds WHERE number = ?", (number,)).fetchone()
        return None if row is None else decode_round(row)

    @storage_errors
    def current_round(self) -> Round | None:
        row = self._conn().execute("SELECT * FROM rounds WHERE closed IS NULL").fetchone()
        return None if row is None else decode_round(row)

    @storage_errors
    def rounds(self) -> list[Round]:
        return [decode_round(r) for r in self._conn().execute("SELECT * FROM rounds ORDER BY number")]
