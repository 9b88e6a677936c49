"""`lexicon event backup EVENT.db|URL COPY.db`: a copy of an event's file, or of an event in a
database, into a file, safe while the service writes; `lexicon event restore COPY.db EVENT.db|URL`:
that copy made a live event again, in a file or a database.

An event in a database is copied by tournament/transfer.py (one snapshot read, written into the
new file, read back the same before it takes its name), as `lexicon event move` does (move.py):
the copy holds the same record, last record and hash, and verifies alone. A database is backed
up whole by pg_dump; this is one event of it, in a file a hall's laptop can serve once restored.

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

from tournament import (
    Copied,
    CopyRefused,
    MovedSince,
    TournamentError,
    check_restorable,
    copy_event,
    make_live,
    mark_copy,
    open_event,
    shown_location,
    stamp,
    utc_now,
)

from .common import BadInput, echo_err
from .event import EVENT_FILE, EVENT_LOCATION, RecordBroken, _open
from .speech import language, records, say, say_in

NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP}  # what link() says where there are none


@click.command()
@click.argument("path", metavar="EVENT.db|URL", type=EVENT_LOCATION)
@click.argument("copy", metavar="COPY.db", type=EVENT_LOCATION)
def backup(path: Path | str, copy: Path | str) -> None:
    """Copy an event, consistent even while the service writes to it, into a file, and check the copy.

    EVENT.db|URL: an event file, or an event in a PostgreSQL database named by its URL
    (postgresql://USER@HOST:PORT/DATABASE?event=ID); either way the copy is an event file that
    verifies alone, with the same last record and hash. Never overwrites COPY.db. The copy is
    marked as one: the service does not serve it; `lexicon event restore COPY.db NEW.db` (or a
    database's URL instead of NEW.db) makes a live event of it (with the original stopped).

    Exit codes: 0 copied and checked; 1 copied, but the record in it does not verify (as in the
    event: a faithful copy); 2 bad input (not an event, COPY.db already there or a database's URL,
    a directory that cannot be written), nothing written.
    """
    if isinstance(copy, str):
        raise BadInput(
            f"{shown_location(copy)}: a backup is an event file (COPY.db), not an event in a database: a "
            "database is backed up whole by pg_dump, and `lexicon event move` copies an event into one"
        )
    if copy.exists() or copy.is_symlink():
        raise BadInput(f"{copy} already exists: a backup never overwrites a file; choose another name")
    if not copy.parent.is_dir():
        raise BadInput(f"cannot write {copy}: no directory {copy.parent}")
    if isinstance(path, str):
        _backup_of_database(path, copy)
        return
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
        _name(partial, copy)
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
    _wrote_backup(path, copy, (state.last, state.last_hash) if state.last else None, original, state.broken)


def _wrote_backup(path, copy: Path, head: tuple[int, str] | None, original: str, broken) -> None:
    shown = shown_location(path)
    said = say("backup.head", seq=head[0], hash=head[1]) if head else say("backup.empty")
    echo_err(say("backup.wrote", copy=copy, location=shown, head=said, original=original))
    if broken is not None:
        raise RecordBroken(f"{copy}: the record in it does not verify, as in {shown}: {broken}")


def _backup_of_database(url: str, copy: Path) -> None:
    """`event backup` of an event in a database: the event read in one snapshot, written into a new
    file, read back and checked (transfer.py), marked as a copy of the event's identity."""
    copied = copy_into(url, copy, "backup")
    _wrote_backup(url, copy, copied.head, copied.file.copy_of, copied.broken)


def copy_into(source: Path | str, target: Path | str, kind: str) -> Copied:
    """tournament.copy_event into `target`, never over anything there: an event in a database is
    made in one transaction; a file is written under a partial name (0600), read back whole, synced,
    and only then named (a hard link, or an exclusive copy on FAT) and its folder synced. Nothing is
    left at `target` when it fails: BadInput (exit 2), or RecordBroken (exit 1) when the source's
    record does not verify and a move is refused for it."""
    shown, into = shown_location(source), shown_location(target)
    verb = {"backup": "back up", "move": "move", "restore": "restore"}[kind]
    if isinstance(target, str):
        try:
            return copy_event(source, target, kind)
        except CopyRefused as error:
            raise (RecordBroken if error.broken else BadInput)(str(error)) from None
        except TournamentError as error:
            raise BadInput(f"cannot {verb} {shown} to {into}: {error}") from None
    if target.exists() or target.is_symlink():
        raise BadInput(f"{target} already exists: a {kind} never overwrites a file; choose another name")
    if not target.parent.is_dir():
        raise BadInput(f"cannot write {target}: no directory {target.parent}")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    named = False

    def name() -> None:  # before a move marks its source: the event is at `target` first
        nonlocal named
        if kind == "backup":
            conn = sqlite3.connect(partial)
            try:
                conn.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal beside it
            finally:
                conn.close()
        _sync(partial)
        _name(partial, target)
        named = True
        _sync(target.parent)

    try:
        copied = copy_event(source, partial, kind, made=name)
    except FileExistsError:
        raise BadInput(f"{target} already exists: a {kind} never overwrites a file; choose another name") from None
    except CopyRefused as error:
        if named and isinstance(error, MovedSince):  # the source changed meanwhile: the copy lacks it
            target.unlink(missing_ok=True)
            raise BadInput(
                f"{shown} changed after it was copied (an instance still serves it): {target} was removed and "
                f"{shown} stays the event's live copy; stop every instance that serves it, and move it again"
            ) from None
        raise (RecordBroken if error.broken else BadInput)(str(error)) from None
    except (sqlite3.Error, TournamentError, OSError) as error:
        if named:
            target.unlink(missing_ok=True)
        raise BadInput(f"cannot {verb} {shown} to {target}: {error}") from None
    finally:
        for leftover in (partial, *(Path(f"{partial}-{end}") for end in ("journal", "wal", "shm"))):
            leftover.unlink(missing_ok=True)
    return copied


@click.command()
@click.argument("copy", metavar="COPY.db", type=EVENT_FILE)
@click.argument("live", metavar="EVENT.db|URL", type=EVENT_LOCATION)
def restore(copy: Path, live: Path | str) -> None:
    """Make a backup copy a live event again, EVENT.db, with an identity of its own.

    EVENT.db|URL: a new event file, or a new event in a PostgreSQL database named by its URL
    (postgresql://USER@HOST:PORT/DATABASE?event=ID), its record checked against the copy's. COPY.db
    stays as it is (a copy). Run it only once the event COPY.db was made from is served no more:
    two live copies of one event served at once split its record (so never into the database that
    holds that event, which a service of every event of it serves: refused). Then serve EVENT.db or the URL
    (LEXICON_EVENT=… lexicon serve). Never overwrites an event.

    Exit codes: 0 restored; 2 COPY.db is not an event file or not a backup copy, EVENT.db (or
    the database's event) is there already, or the database holds the event copied (or the event
    itself live under another id), nothing written.
    """
    if isinstance(live, str):
        _open(copy).close()  # an event file, or a sentence and exit 2
        copied = copy_into(copy, live, "restore")
        source = copied.source_file
        echo_err(
            say(
                "restore.copy",
                location=shown_location(live),
                identity=copied.file.identity,
                copy=copy,
                original=source.copy_of,
                made=source.copied,
                head=_head(copied, language()),
            )
        )
        return
    if live.exists() or live.is_symlink():
        raise BadInput(f"{live} already exists: a restore never overwrites a file; choose another name")
    if not live.parent.is_dir():
        raise BadInput(f"cannot write {live}: no directory {live.parent}")
    db = _open(copy)  # an event file, or a sentence and exit 2
    try:
        before = db.event().file
    finally:
        db.close()
    try:
        check_restorable(before, str(copy))
    except CopyRefused as error:
        raise BadInput(str(error)) from None
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
        _name(partial, live)
        _sync(live.parent)
    except FileExistsError:
        raise BadInput(f"{live} already exists: a restore never overwrites a file; choose another name") from None
    except (sqlite3.Error, ValueError, OSError) as error:
        raise BadInput(f"cannot restore {copy} to {live}: {error}") from None
    finally:
        for leftover in (partial, Path(f"{partial}-journal")):
            leftover.unlink(missing_ok=True)
    said = say("restore.file", location=live, identity=identity, copy=copy, original=before.copy_of, made=before.copied)
    echo_err(said)


def _head(copied: Copied, chosen: str) -> str:
    """The record copied, as a message says it: its last record and hash, the same in both."""
    if copied.head is None:
        return say_in(chosen, "backup.empty")
    said = records(copied.records, chosen)
    return say_in(chosen, "restore.head", records=said, seq=copied.head[0], hash=copied.head[1])


def _name(partial: Path, final: Path) -> None:
    """Give the whole, synced partial file its name, never over a file made meanwhile
    (FileExistsError): a hard link, or on FAT and exFAT (no hard links) an exclusive copy."""
    try:
        os.link(partial, final)
    except OSError as error:
        if error.errno not in NO_HARD_LINKS:
            raise
        _copy_exclusively(partial, final)


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
