"""Rounds: at most one open; closing one keeps the record's head (number and hash) with it."""

from __future__ import annotations

from .chain import GENESIS
from .connection import SQLiteFile, on_writer, storage_errors
from .errors import RoundError
from .model import MAX_NUMBER, Round, stamp
from .rows import decode_round


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
            head = conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
            head_seq, head_hash = head if head else (0, GENESIS)
            conn.execute(
                "UPDATE rounds SET closed = ?, head_seq = ?, head_hash = ? WHERE number = ?",
                (stamp(self._now()), head_seq, head_hash, current[0]),
            )
        return self.round(current[0])

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
