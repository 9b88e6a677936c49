"""`lexicon event backup EVENT.db COPY.db`: a copy of an event's file, safe while the service writes.

Copying the file with `cp` while the service runs can catch it half-written (and misses what
is still in its `-wal` file); SQLite's online backup API copies a consistent snapshot instead,
page by page, without stopping the service's writes for long. The copy is then opened and
checked (SQLite's integrity check, and the record's chain) before it takes its name, so a copy
that has its name is a whole one. It never replaces a file: a backup is not where a mistake
should overwrite yesterday's.

Restoring is copying it back with the service stopped: `cp COPY.db EVENT.db` (the copy has no
`-wal` file beside it; remove an old `EVENT.db-wal` and `EVENT.db-shm` first), then start it.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import click

from tournament import TournamentError, open_event

from .common import BadInput, echo_err
from .event import EVENT_FILE, RecordBroken, _open


@click.command()
@click.argument("path", metavar="EVENT.db", type=EVENT_FILE)
@click.argument("copy", metavar="COPY.db", type=EVENT_FILE)
def backup(path: Path, copy: Path) -> None:
    """Copy an event's file, consistent even while the service writes to it, and check the copy.

    Never overwrites COPY.db. To restore, stop the service and copy COPY.db back over EVENT.db
    (removing EVENT.db-wal and EVENT.db-shm, if any, first).

    Exit codes: 0 copied and checked; 1 copied, but the record in it does not verify (as in the
    event's file: a faithful copy); 2 bad input (not an event file, COPY.db already there, a
    directory that cannot be written), nothing written.
    """
    if copy.exists() or copy.is_symlink():
        raise BadInput(f"{copy} already exists: a backup never overwrites a file; choose another name")
    if not copy.parent.is_dir():
        raise BadInput(f"cannot write {copy}: no directory {copy.parent}")
    _open(path).close()  # an event file, or a sentence and exit 2
    partial = copy.with_name(f".{copy.name}.partial-{os.getpid()}")
    try:
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        target = sqlite3.connect(partial)
        try:
            source.backup(target, pages=256)  # steps: the service's writers are not held up meanwhile
            target.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal beside it
        finally:
            target.close()
            source.close()
        os.chmod(partial, 0o600)  # the director's password hash is in it
        ok = sqlite3.connect(partial).execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            raise BadInput(f"the copy of {path} fails SQLite's integrity check ({ok}); nothing kept")
        db = open_event(partial, readonly=True)
        try:
            state = db.chain_state()
        finally:
            db.close()
        os.link(partial, copy)  # the name only now, and never over a file made meanwhile
    except FileExistsError:
        raise BadInput(f"{copy} already exists: a backup never overwrites a file; choose another name") from None
    except (sqlite3.Error, TournamentError, OSError) as error:
        raise BadInput(f"cannot back up {path} to {copy}: {error}") from None
    finally:
        for leftover in (partial, Path(f"{partial}-journal"), Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
    head = f"last record {state.last}, hash {state.last_hash}" if state.last else "no records yet"
    echo_err(f"wrote {copy}: a checked copy of {path}; {head}")
    if state.broken is not None:
        raise RecordBroken(f"{copy}: the record in it does not verify, as in {path}: {state.broken}")
