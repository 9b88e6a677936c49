"""Writes to the event file from outside the service, told from its own: a note in the lock file.

The console's look compares the fingerprints of the rows verified again (a sweep, verification.py)
only when something other than the service wrote to the event file: a sweep of 50,000 rows costs
about a second of the processor, and the service itself writes every few seconds (each device's
last contact, every verdict, in every worker). SQLite's `PRAGMA data_version` moves for every
other connection's commit, the service's other workers' and threads' included, and not at all for
bytes written into the file's pages without SQLite. So every service write (any process: every
writer takes the lock file first, `connection._write`) leaves a note in the lock file
(`EVENT.db-lock`), taken while it still holds that lock: the size, modification time (ns) and
inode of the event file and of its write-ahead log just after its COMMIT. Before it commits, inside
its transaction (no other writer can commit then), it compares the files with the note: any
difference is a write from outside since the service's last one, and the note says so (`outside`)
until a sweep finds the rows as verified (`settle`). Between its COMMIT and the note another
program could commit: the writer's own connection's `data_version`, which moves only for other
connections' commits, read before and after, shows it, and the note says `outside` then too. The
files are read for the note before that second `data_version`, not after it: a commit from outside
between the two reads would be in the files noted as the service's own, and never swept.

A look (any worker) compares the files with the note: the same and no `outside` said, nothing but
the service wrote since; otherwise a sweep is due. A sweep that finds a row changed writes its
number in the note (`edited`): every worker says the same break, whichever answers the console.
A program that rewrites the note to match its edit is still met by the full verification every
five minutes, which compares the fingerprints of the rows it verified before (verification.py).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, replace
from pathlib import Path

SIZE = 200  # bytes of the note, padded: one pwrite, read whole
MAGIC = "lexicon-note-1"


def signature(path: Path) -> tuple[int, ...]:
    """(size, modification time in ns, inode) of the event file and of its write-ahead log (zeros
    for a log that is not there)."""
    return files(path)[1]


def files(path: Path) -> tuple[tuple[int, int] | None, tuple[int, ...]]:
    """The event file's identity (device, inode; None: no file there) and `signature`: one stat of
    each file, so a write checks the file's identity (connection.py) with the stat it notes."""
    found: list[int] = []
    identity = None
    for name in (path, f"{path}-wal"):  # a str: a Path of it built on every write cost more than its stat
        try:
            status = os.stat(name)
        except FileNotFoundError:
            found += [0, 0, 0]
            continue
        if identity is None and name is path:
            identity = status.st_dev, status.st_ino
        found += [status.st_size, status.st_mtime_ns, status.st_ino]
    return identity, tuple(found)


@dataclass(frozen=True)
class Note:
    """The files as the service's last write left them, whether something else wrote since,
    and the first row a sweep found changed (0: none)."""

    files: tuple[int, ...]
    outside: bool = False
    edited: int = 0

    def text(self) -> bytes:
        line = " ".join([MAGIC, str(int(self.outside)), str(self.edited), *map(str, self.files)])
        return line.encode("ascii").ljust(SIZE)

    @classmethod
    def parse(cls, data: bytes) -> Note | None:
        """The note, or None for none (an empty lock file, an older program's) or one half written."""
        return _parsed(data)

    @classmethod
    def _parse(cls, data: bytes) -> Note | None:
        try:
            magic, outside, edited, *files = data.decode("ascii").split()
            if magic != MAGIC or len(files) != 6 or outside not in ("0", "1"):
                return None
            return cls(tuple(int(n) for n in files), outside == "1", int(edited))
        except ValueError:
            return None


_last: tuple[bytes, Note | None] = (b"", None)  # the note last written or read here, as bytes and parsed


def _parsed(data: bytes) -> Note | None:
    """Note.parse of `data`, kept for the last note written or read in this process: every write
    reads the note back, nearly always the bytes its process wrote last (a Note is frozen: one is
    shared safely; one tuple, read and replaced whole, is shared by threads without a lock)."""
    global _last
    last = _last
    if data == last[0]:
        return last[1]
    note = Note._parse(data)
    _last = (data, note)
    return note


def read(fd: int) -> Note | None:
    try:
        return Note.parse(os.pread(fd, SIZE, 0))
    except OSError:
        return None


def write(fd: int, note: Note) -> None:
    """Write the note (the caller holds the lock file); an error leaves the last one, harmlessly:
    the next look finds the files differ from it and sweeps."""
    global _last
    text = note.text()
    with contextlib.suppress(OSError):
        os.pwrite(fd, text, 0)
        _last = (text, note)


def after_commit(fd: int, before: tuple[int, ...], after: tuple[int, ...], gap: bool) -> None:
    """Note the files as this commit left them (`after`, read just after its COMMIT). `before`: the
    files inside the transaction, before it committed; `gap`: another connection committed between
    this COMMIT and now, read after `after` (a commit between the COMMIT and that read moved
    `after` with it, and is said from outside; one after the read changes the files from the note)."""
    last = read(fd)
    outside = last is None or last.outside or last.files != before or gap
    write(fd, Note(after, outside, 0 if last is None else last.edited))


def edited(fd: int, seq: int) -> None:
    """A sweep found row `seq` changed (the caller holds the lock file): said by every worker."""
    last = read(fd) or Note((0,) * 6, True)
    if last.edited == 0 or seq < last.edited:
        write(fd, replace(last, edited=seq, outside=True))


def settle(fd: int, path: Path, seen: Note | None, files: tuple[int, ...]) -> bool:
    """A sweep found the rows as verified, reading after the look saw `files` and `seen`: unless
    anything changed since (the caller holds the lock file), the files are noted as they are and
    nothing said from outside. Whether it was."""
    if read(fd) != seen or signature(path) != files:
        return False
    write(fd, Note(files, False, 0 if seen is None else seen.edited))
    return True
