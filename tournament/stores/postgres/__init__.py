"""An event in a PostgreSQL database, for a federation's service: many events in one database, served
by instances on several machines (docs/operations.md, "A federation's service").

| module | what it holds |
|---|---|
| `schema.py` | the tables of every event, their migrations, and what the database enforces |
| `tables.py` | the storage interface's View and Tx (tournament/storage.py), for one event: each concept's row operations below, put together, and what the write transaction read with the event's lock |
| `event_rows.py` | the event's rows and its director's: the pin, the event's marks, sessions, login links, wrong passwords |
| `device_rows.py` | the devices' rows: pairing codes, last contacts, splits, refused offline verdicts |
| `round_rows.py` | the rounds' rows: opened, closed, the heads they keep, when each is final |
| `record_rows.py` | the record's rows: appended, read back strictly, by key, counted; the play budget |
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
