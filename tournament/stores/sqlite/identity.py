"""The event file's identity: one event, one live file.

A copy of the event file served beside it (a backup started as a second instance behind the same
front end) would split the record: the same record numbers for different verdicts, each file
verifying on its own. So each file has an identity of its own (schema 8, table `file`), which
`/readyz` shows, and a backup (`lexicon event backup`) is marked as a copy of the identity it
copies: the service does not serve it (StartError, exit 2) until `lexicon event restore` makes it
a live file, with a new identity of its own and the copy's noted as `restored_from`. Two
instances then never show one identity for two files.
"""

from __future__ import annotations

import sqlite3

from ...errors import NotAnEvent
from ...model import new_identity
from .schema import migrate


def mark_copy(conn: sqlite3.Connection, when: str) -> str:
    """Mark the event file `conn` writes to (a backup being made, of a file of any schema: the
    copy is brought up to this one first) as a copy of its identity, made at `when`: the
    identity it copies. One transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        migrate(conn)
        row = conn.execute("SELECT identity FROM file WHERE id = 1").fetchone()
        if row is None:
            raise NotAnEvent("the copy has no file identity")
        conn.execute("UPDATE file SET copy_of = identity, copied = ? WHERE id = 1", (when,))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return row[0]


def make_live(conn: sqlite3.Connection) -> str:
    """Make the copy `conn` writes to (a file being restored from a backup) a live event file,
    with a new identity, the copy's kept as `restored_from`: its new identity. ValueError when it
    is no copy. One transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        old, copy_of = conn.execute("SELECT identity, copy_of FROM file WHERE id = 1").fetchone()
        if copy_of is None:
            raise ValueError("it is no backup copy (`lexicon event backup` makes one): nothing to restore")
        identity = new_identity()
        conn.execute(
            "UPDATE file SET identity = ?, restored_from = ?, copy_of = NULL, copied = NULL WHERE id = 1",
            (identity, old),
        )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return identity
