"""The event in one SQLite file (the standard library's sqlite3): the default store.

| module | what it holds |
|---|---|
| `connection.py` | the file: connections, transactions, the file's own check before a write, and why SQLite is set up so |
| `durability.py` | write-ahead logging and synchronous=FULL, and the store failed when the disk fails a write or a sync |
| `write_lock.py` | the write lock across processes: the lock file's `flock`, tried until BUSY_SECONDS, a starving writer let in next |
| `tables.py` | the storage interface's View and Tx, in SQL: each concept's row operations below, put together |
| `event_rows.py` | the event's rows and its director's: the pin, the file's marks, sessions, login links, wrong passwords |
| `device_rows.py` | the devices' rows: pairing codes, last contacts, splits, refused offline verdicts |
| `round_rows.py` | the rounds' rows: opened, closed, the heads they keep, when each is final |
| `record_rows.py` | the record's rows: appended, read back strictly, by key, counted; the play budget |
| `schema.py` | the file's schema and its migrations (PRAGMA user_version) |
| `verification.py` | the record verified while the service runs: when a look verifies the rows added, when the whole record, off the request path |
| `progress.py` | what this process verified, and the one verification off the request path at a time |
| `fingerprints.py` | the verified rows' fingerprints, compared again (a sweep) when the file was written from outside |
| `guards.py` | what a verification reads besides the rows: the append-only triggers, the rounds' heads |
| `outside.py` | the note each write leaves in the lock file: a write from outside told from the service's own |
| `identity.py` | the file's identity: one event, one live file; a backup is a copy until restored |
"""

from .connection import BUSY_SECONDS, SYNCHRONOUS, SQLiteStorage

__all__ = ["BUSY_SECONDS", "SYNCHRONOUS", "SQLiteStorage"]
