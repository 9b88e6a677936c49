"""One event's rounds' rows in the database: each round's opening and closing, the record's head
it kept when it closed, the devices it waits for and when its head became final (rounds.py's rows).

Its own module because a round's row is the record's anchor: the head it keeps is what an appeal
checks the record against (record_rows.py holds the rows it anchors), and unlike those rows it is
written again as the round closes and as the devices it waits for come back. CURRENT_ROUND is
also what store.py's write() reads with the event's lock, in the lock's round trip (tables.py's
PostgresTx.held).
"""

from __future__ import annotations

from ...model import Round
from ...rows import decode_round, pending_of

ROUND_COLUMNS = "number, opened, closed, head_seq, head_hash, pending, final"
CURRENT_ROUND = f"SELECT {ROUND_COLUMNS} FROM rounds WHERE event_id = %s AND closed IS NULL"


class RoundReads:
    """The View's reads of the rounds (tables.py's PostgresView: `conn`, `event_id`, `_one`, `_all`)."""

    def round(self, number: int) -> Round | None:
        row = self._one(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE event_id = %s AND number = %s", (number,))
        return None if row is None else decode_round(row)

    def current_round(self) -> Round | None:
        row = self._one(CURRENT_ROUND)
        return None if row is None else decode_round(row)

    def rounds(self) -> list[Round]:
        return [
            decode_round(r)
            for r in self._all(f"SELECT {ROUND_COLUMNS} FROM rounds WHERE event_id = %s ORDER BY number")
        ]

    def last_round_number(self) -> int:
        return self._one("SELECT COALESCE(MAX(number), 0) FROM rounds WHERE event_id = %s")[0]

    def heads(self) -> list[tuple[int, int | None, str | None]]:
        return self._all(
            "SELECT number, head_seq, head_hash FROM rounds WHERE event_id = %s AND closed IS NOT NULL ORDER BY number"
        )

    def final_heads(self) -> dict[int, int]:
        return dict(
            self._all(
                "SELECT number, head_seq FROM rounds WHERE event_id = %s AND closed IS NOT NULL "
                "AND pending IS NULL AND head_seq IS NOT NULL"
            )
        )


class RoundWrites:
    """The Tx's writes of the rounds (tables.py's PostgresTx)."""

    def add_round(self, number: int, opened: str) -> None:
        self._do("INSERT INTO rounds (event_id, number, opened) VALUES (%s, %s, %s)", (number, opened))

    def close_round(self, number: int, closed: str, head: tuple[int, str], pending: tuple[int, ...] | None) -> None:
        self.conn.execute(
            "UPDATE rounds SET closed = %s, head_seq = %s, head_hash = %s, pending = %s WHERE event_id = %s AND number = %s",
            (closed, *head, pending_of(pending), self.event_id, number),
        )

    def set_pending(self, number: int, pending: tuple[int, ...]) -> None:
        self.conn.execute(
            "UPDATE rounds SET pending = %s WHERE event_id = %s AND number = %s",
            (pending_of(pending), self.event_id, number),
        )

    def set_final(self, number: int, head: tuple[int, str], final: str) -> None:
        self.conn.execute(
            "UPDATE rounds SET head_seq = %s, head_hash = %s, pending = NULL, final = %s "
            "WHERE event_id = %s AND number = %s",
            (*head, final, self.event_id, number),
        )
