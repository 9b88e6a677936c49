"""`lexicon event backup EVENT.db COPY.db`: a copy of an event's file, safe while the service
writes; `lexicon event restore COPY.db`: that copy made the event's live file.

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

The copy is marked as a copy of the file's identity (tournament/stores/sqlite/identity.py): the service does
not serve it, so that a backup started beside the event's file can never split the record. To
restore it, with the original stopped for good: `lexicon event restore COPY.db NEW.db` writes a
live event file with an identity of its own (the one `/readyz` shows), the copy kept as it is;
then serve NEW.db.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

import click

from tournament import TournamentError, make_live, mark_copy, open_event, stamp, utc_now

from .common import BadInput, echo_err
from .event import EVENT_FILE, RecordBroken, _open

NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP}  # what link() says where there are none


@click.command()
@click.argument("path", metavar="EVENT.db", type=EVENT_FILE)
@click.argument("copy", metavar="COPY.db", type=EVENT_FILE)
def backup(path: Path, copy: Path) -> None:
    """Copy an event's file, consistent even while the service writes to it, and check the copy.

    Never overwrites COPY.db. The copy is marked as one: the service does not serve it; `lexicon
    event restore COPY.db NEW.db` makes a live event file of it (with the original stopped).

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
            original = mark_copy(target, stamp(utc_now()))  # served only once `lexicon event restore` made it live
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
    echo_err(
        f"wrote {copy}: a checked copy of {path}; {head}; marked as a copy of file {original}, "
        f"served only once restored (`lexicon event restore {copy} NEW.db`)"
    )
    if state.broken is not None:
        raise RecordBroken(f"{copy}: the record in it does not verify, as in {path}: {state.broken}")


@click.command()
@click.argument("copy", metavar="COPY.db", type=EVENT_FILE)
@click.argument("live", metavar="EVENT.db", type=EVENT_FILE)
def restore(copy: Path, live: Path) -> None:
    """Make a backup copy a live event file again, EVENT.db, with an identity of its own.

    COPY.db stays as it is (a copy). Run it only once the file COPY.db was made from is served no
    more: two files of one event served at once split its record. Then serve EVENT.db
    (LEXICON_EVENT=EVENT.db lexicon serve). Never overwrites EVENT.db.

    Exit codes: 0 restored; 2 COPY.db is not an event file or not a backup copy, or EVENT.db is
    there already, nothing written.
    """
    if live.exists() or live.is_symlink():
        raise BadInput(f"{live} already exists: a restore never overwrites a file; choose another name")
    if not live.parent.is_dir():
        raise BadInput(f"cannot write {live}: no directory {live.parent}")
    db = _open(copy)  # an event file, or a sentence and exit 2
    try:
        before = db.event().file
    finally:
        db.close()
    if before is None or before.copy_of is None:
        raise BadInput(f"{copy} is no backup copy (`lexicon event backup` makes one): nothing to restore")
    partial = live.with_name(f".{live.name}.partial-{os.getpid()}")
    try:
        with os.fdopen(_create(partial), "wb") as target, open(copy, "rb") as source:
            shutil.copyfileobj(source, target)  # a backup is one file, with no -wal beside it
        conn = sqlite3.connect(partial, isolation_level=None)
        try:
            identity = make_live(conn)
        finally:
            conn.close()
        _sync(partial)
        try:
            os.link(partial, live)  # the name only now, and never over a file made meanwhile
        except OSError as error:
            if error.errno not in NO_HARD_LINKS:
                raise
            _copy_exclusively(partial, live)
        _sync(live.parent)
    except FileExistsError:
        raise BadInput(f"{live} already exists: a restore never overwrites a file; choose another name") from None
    except (sqlite3.Error, ValueError, OSError) as error:
        raise BadInput(f"cannot restore {copy} to {live}: {error}") from None
    finally:
        for leftover in (partial, Path(f"{partial}-journal")):
            leftover.unlink(missing_ok=True)
    echo_err(
        f"wrote {live}: the event's live file, file {identity}, restored from {copy} (a copy of file "
        f"{before.copy_of} made {before.copied}); serve only this file of the event from now on"
    )


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
