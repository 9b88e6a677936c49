"""An event in a PostgreSQL database, for a federation's service: many events in one database, served
by instances on several machines (docs/operations.md, "A federation's service").

| module | what it holds |
|---|---|
| `schema.py` | the tables of every event, their migrations, and what the database enforces |
| `tables.py` | the storage interface's row operations (tournament/storage.py), for one event |
| `location.py` | the URL: the database and the event it names (no psycopg: read before the store is) |
| `store.py` | the store: the event's write lock, transactions, errors |
| `holders.py` | who could switch the record's append-only guard off: the roles the service never serves as |
| `connections.py` | where connections come from, and which thread waits on them (a gevent worker's loop never) |
| `verification.py` | the record's state while the service runs: the rows added in the look, the whole record off it |

Only `location.py` is imported with the package: `store.py` (and psycopg, the `postgresql` extra's)
only when a location is a `postgresql://` URL, so an event file, `make run` and a hall's laptop
need none of it.
"""

from __future__ import annotations

from .location import is_url, parse

__all__ = ["is_url", "parse"]
