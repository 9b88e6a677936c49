"""The rounds' rows in the event file: each round's opening and closing, the record's head it
kept when it closed, the devices it waits for and when its head became final (rounds.py's rows).

Its own module because a round's row is the record's anchor: the head it keeps is what an appeal
checks the record against (record_rows.py holds the rows it anchors), and unlike those rows it is
written again as the round closes and as the devices it waits for come back. A file of an older
schema has fewer columns in it, so every read here takes the whole row (`SELECT *`) and rows.py's
decode_round fills what it lacks.
"""

from __future__ import annotations

from ...model import Round
from ...rows import decode_round, pending_of
from .guards import final_heads


class RoundReads:
    """The View's reads of the rounds (tables.py's SQLiteView: `conn`, `_one`)."""

    __slots__ = ()

    def round(self, number: int) -> Round | None:
        row = self._one("SELECT * FROM rounds WHERE number = ?", (number,))
        return None if row is None else decode_round(row)

    def current_round(self) -> Round | None:
        row = self._one("SELECT * FROM rounds WHERE closed IS NULL")
        return None if row is None else decode_round(row)

    def rounds(self) -> list[Round]:
        return [decode_round(r) for r in self.conn.execute("SELECT * FROM rounds ORDER BY number")]

    def last_round_number(self) -> int:
        return self._one("SELECT COALESCE(MAX(number), 0) FROM rounds")[0]

    def heads(self) -> list[tuple[int, int | None, str | None]]:
        return self.conn.execute(
            "SELECT number, head_seq, head_hash FROM rounds WHERE closed IS NOT NULL ORDER BY number"
        ).fetchall()

    def final_heads(self) -> dict[int, int]:
        return final_heads(self.conn)


class RoundWrites:
    """The Tx's writes of the rounds (tables.py's SQLiteTx)."""

    __slots__ = ()

    def add_round(self, number: int, opened: str) -> None:
        self.conn.execute("INSERT INTO rounds (number, opened) VALUES (?, ?)", (number, opened))

    def close_round(self, number: int, closed: str, head: tuple[int, str], pending: tuple[int, ...] | None) -> None:
        self.conn.execute(
            "UPDATE rounds SET closed = ?, head_seq = ?, head_hash = ?, pending = ? WHERE number = ?",
            (closed, *head, pending_of(pending), number),
        )

    def set_pending(self, number: int, pending: tuple[int, ...]) -> None:
        self.conn.execute("UPDATE rounds SET pending = ? WHERE number = ?", (pending_of(pending), number))

    def set_final(self, number: int, head: tuple[int, str], final: str) -> None:
        self.conn.execute(
            "UPDATE rounds SET head_seq = ?, head_hash = ?, pending = NULL, final = ? WHERE number = ?",
            (*head, final, number),
        )
