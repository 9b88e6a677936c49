"""`lexicon event backup EVENT.db COPY.db`: a copy of an event's file, safe while the service writes.

Copying the file with `cp` while the service runs can catch it half-written (and misses what
is still in its `-wal` file); SQLite's online backup API copies a consistent snapshot instead,
page by page, without stopping the service's writes for long. The copy is then opened and
checked (SQLite's integrity check, and the record's chain) before it takes its name, so a copy
that has its name is a whole one. It never replaces a file: a backup is not where a mistake
should overwrite yesterday's.

The partial copy holds the director's password hash: it is created readable by its owner alone
(0600, exclusively) before SQLite writes a page to it, never widened by the umask first. It takes
its name with a hard link (never over a file made meanwhile); FAT and exFAT, the file systems of
most USB sticks, have no hard links (EPERM), so there its bytes are copied into a file created
exclusively under that name instead. The copy and its folder are synced before "wrote" is printed:
a stick pulled out after that message holds the backup.

Restoring is copying it back with the service stopped: `cp COPY.db EVENT.db` (the copy has no
`-wal` file beside it; remove an old `EVENT.db-wal` and `EVENT.db-shm` first), then start it.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

import click

from tournament import TournamentError, open_event

from .common import BadInput, echo_err
from .event import EVENT_FILE, RecordBroken, _open

NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP}  # what link() says where there are none


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
    named = False  # whether COPY.db is ours to remove if the copy fails
    try:
        os.close(_create(partial))  # 0600 from its first byte; SQLite fills the empty file
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        target = sqlite3.connect(partial)
        try:
            source.backup(target, pages=256)  # steps: the service's writers are not held up meanwhile
            target.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal beside it
        finally:
            target.close()
            source.close()
        ok = sqlite3.connect(partial).execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            raise BadInput(f"the copy of {path} fails SQLite's integrity check ({ok}); nothing kept")
        db = open_event(partial, readonly=True)
        try:
            state = db.chain_state(wait=True)
        finally:
            db.close()
        _sync(partial)
        try:
            os.link(partial, copy)  # the name only now, and never over a file made meanwhile
            named = True
        except OSError as error:
            if error.errno not in NO_HARD_LINKS:
                raise
            _copy_exclusively(partial, copy)  # FAT, exFAT: an exclusive copy instead
            named = True
        _sync(copy.parent)
    except FileExistsError:
        raise BadInput(f"{copy} already exists: a backup never overwrites a file; choose another name") from None
    except (sqlite3.Error, TournamentError, OSError) as error:
        if named:
            copy.unlink(missing_ok=True)
        raise BadInput(f"cannot back up {path} to {copy}: {error}") from None
    finally:
        for leftover in (partial, Path(f"{partial}-journal"), Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
    head = f"last record {state.last}, hash {state.last_hash}" if state.last else "no records yet"
    echo_err(f"wrote {copy}: a checked copy of {path}; {head}")
    if state.broken is not None:
        raise RecordBroken(f"{copy}: the record in it does not verify, as in {path}: {state.broken}")


def _create(path: Path) -> int:
    """A new file only its owner may read (it will hold the password hash), opened to write;
    FileExistsError if there is one."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)


def _copy_exclusively(partial: Path, copy: Path) -> None:
    """The partial's bytes into a new file named `copy`, synced; never over a file there, and
    removed again if the copy fails half-way."""
    fd = _create(copy)
    try:
        with os.fdopen(fd, "wb") as target, open(partial, "rb") as source:
            shutil.copyfileobj(source, target)
            target.flush()
            os.fsync(target.fileno())
    except BaseException:
        copy.unlink(missing_ok=True)
        raise


def _sync(path: Path) -> None:
    """fsync a file, or a folder (its entries: the copy's name)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
