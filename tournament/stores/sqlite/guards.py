"""What a verification of the record reads besides its rows: the append-only triggers as schema.py
makes them (an edit by hand drops or changes them first), the file's schema version, and the heads
the closed rounds kept (verification.py, fingerprints.py).
"""

from __future__ import annotations

import sqlite3

from .schema import MIGRATIONS, statements

GUARDS = ("records_append_only_update", "records_append_only_delete")  # schema.py's triggers


def _words(sql: str) -> str:
    return " ".join(sql.rstrip().rstrip(";").split())


# Each trigger as schema.py creates it: one present under its name but saying something else
# (`WHEN 0`, another message) guards nothing.
GUARD_SQL = {
    name: _words(statement)
    for script in MIGRATIONS
    for statement in statements(script)
    for name in GUARDS
    if _words(statement).startswith(f"CREATE TRIGGER {name} ")
}


def guarded(conn: sqlite3.Connection) -> tuple[bool, int]:
    """Whether both triggers are there as schema.py makes them, and the file's schema version."""
    present = dict(
        conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?)", GUARDS).fetchall()
    )
    guarded = all(_words(present.get(name) or "") == GUARD_SQL[name] for name in GUARDS)
    return guarded, conn.execute("PRAGMA schema_version").fetchone()[0]


def heads_after(conn: sqlite3.Connection, after: int, upto: int | None) -> list[tuple[int, int, str]]:
    """The heads kept when rounds closed, for the rows after `after` (up to `upto`; None: all)."""
    sql = "SELECT number, head_seq, head_hash FROM rounds WHERE closed IS NOT NULL AND head_seq > ?"
    args: tuple = (after,)
    if upto is not None:
        sql, args = sql + " AND head_seq <= ?", (after, upto)
    return conn.execute(sql + " ORDER BY number", args).fetchall()


def final_heads(conn: sqlite3.Connection) -> dict[int, int]:
    """The closed rounds whose head is final (no phone waited for), by number: their head's row
    number. A file of a schema before 9 (read as it is) has no `pending`: every head was final."""
    final = {}
    for row in conn.execute("SELECT * FROM rounds WHERE closed IS NOT NULL"):
        if (len(row) < 6 or row[5] is None) and type(row[3]) is int and type(row[0]) is int:
            final[row[0]] = row[3]
    return final
