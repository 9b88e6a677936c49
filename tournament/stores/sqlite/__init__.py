"""The event in one SQLite file (the standard library's sqlite3): the default store.

| module | what it holds |
|---|---|
| `connection.py` | the file: connections, the write lock, transactions, and why SQLite is set up so |
| `tables.py` | the storage interface's row operations, in SQL |
| `schema.py` | the file's schema and its migrations (PRAGMA user_version) |
| `verification.py` | the record verified while the service runs (data_version, triggers, fingerprints) |
| `outside.py` | the note each write leaves in the lock file: a write from outside told from the service's own |
| `identity.py` | the file's identity: one event, one live file; a backup is a copy until restored |
"""

from .connection import BUSY_SECONDS, SYNCHRONOUS, SQLiteStorage

__all__ = ["BUSY_SECONDS", "SYNCHRONOUS", "SQLiteStorage"]
