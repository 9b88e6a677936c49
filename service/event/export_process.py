"""An export's rows made in a process of its own, at the lowest CPU priority, and streamed back
through a pipe: the worker that answers the director only relays bytes, and its verdicts keep
the CPU.

Reading, checking and writing a 50,000-row record takes seconds of CPU. Made in the worker, a
slice at a time between verdicts, it still held each verdict that arrived during a slice, and
on a laptop's two cores it took the CPU the other worker's verdicts needed (the recorded
challenge's p99 was 3.8 times its p99 without an export: `python -m bench record`). Here a
child process (`python -m service.event.export_process`, `os.nice(19)`: the system runs it only
when the verdicts leave the CPU idle) opens the event to read only (an event file only if it is
still the one the worker serves, by its device and inode, else it stops as below) (a SQLite reader in WAL mode
does not hold up the writer; PostgreSQL's readers never do), makes the rows after the first
slice with the same functions as the worker's first slice (`part`, `slices`), the same bytes,
and writes them to its standard output. The worker reads that pipe cooperatively (in a gevent
worker, gevent's subprocess; elsewhere, a thread of the request's own) and sends each chunk as
it comes: the pipe's buffer is the backpressure, so a slow download holds the child, not memory.

Where the event is (a file's path, or a database URL with its password) and what to export
go through the child's standard input, never its arguments (which `ps` shows). The child exits
1 when a row cannot be read (its standard error names only the error's kind and the last row
written): the worker then ends the answer without its last chunk, as before, and the download
fails rather than looking whole. A download abandoned ends the child at once.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from tournament import ExportFilter, Record, RecordFilter, csv_part

from ..registry import dumps
from .record_types import RecordInfo

CHUNK = 64 * 1024  # bytes read from the pipe at a time (a pipe's buffer on Linux)

log = logging.getLogger("service")


def part(
    fmt: str, rows: Sequence[Record], intact: dict[int, bool], first: bool, filter: ExportFilter, unshown: dict
) -> bytes:
    """The bytes of a slice of rows in an export (CSV with its header line when `first`, each
    row saying the export's filter and its mark, `unshown`: EventStore.unshown_seconds; the JSON
    array's members, after a comma unless `first`, the filter said once beside them): whole, an
    export is the same bytes."""
    if fmt == "csv":
        return csv_part(rows, intact, header=first, filter=filter, unshown=unshown).encode("utf-8")
    members = b",".join(dumps(RecordInfo.of(r, intact[r.seq], unshown)) for r in rows)
    return members if first else b"," + members


def slices(db, number: int | None, table: str | None, device_id: int | None, upto: int, after: int, size: int):
    """The rows that fit the filters, numbered above `after` and up to `upto`, `size` at a time,
    each slice with its rows' check."""
    while True:
        rows = list(db.records(RecordFilter(number, table, device_id, upto + 1, after, size)))
        if not rows:
            return
        yield rows, db.intact_rows(rows)
        if len(rows) < size:
            return
        after = rows[-1].seq


def file_identity(location: str | os.PathLike) -> list[int] | None:
    """The device and inode of the event file at `location` now (None for a database's URL, which
    names one event wherever it is read; [0, 0], which no file has, when there is no file): the
    child reads its rows only from the file the worker serves, never from another put at its path."""
    if not isinstance(location, os.PathLike):
        return None
    try:
        status = os.stat(location)
    except OSError:
        return [0, 0]
    return [status.st_dev, status.st_ino]


class FileReplaced(RuntimeError):
    """The file at the event's path is not the one the worker serves (moved, deleted or replaced)."""


class ExportStopped(RuntimeError):
    """The process making an export's rows stopped before their end: the answer is cut short."""


def rows_elsewhere(ask: dict) -> Iterator[bytes]:
    """The bytes of an export's rows after `ask["after"]` (see `main` for `ask`), made by a child
    process; ExportStopped when it fails. Closing the iterator ends the child."""
    import service

    root = str(Path(service.__file__).resolve().parent.parent)  # where this package is imported from
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    said_file = tempfile.TemporaryFile()
    child = subprocess.Popen(  # the module's attribute, looked up now: gevent's once monkey-patched
        [sys.executable, "-m", "service.event.export_process"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=said_file,  # a file, not a pipe: a child saying much could never block on it
        bufsize=0,
        env=env,
    )
    try:
        child.stdin.write(json.dumps(ask).encode("utf-8"))
        child.stdin.close()
        while chunk := child.stdout.read(CHUNK):
            yield chunk
            _let_others_run()
        status = child.wait()
        said_file.seek(0)
        said = said_file.read().decode("utf-8", "replace").strip()
        if status != 0:
            log.warning("export stopped", extra={"fields": {"exit": child.returncode, "said": said[-200:]}})
            raise ExportStopped(f"the process making the export stopped: {said[-200:] or child.returncode}")
    finally:
        if child.poll() is None:  # abandoned (the download closed) or failed: end it now
            child.kill()
            child.wait()
        for pipe in (child.stdin, child.stdout, said_file):  # stdin too: the child may have died first
            pipe.close()


def _let_others_run() -> None:
    """In a gevent worker, the next chunk waits until the worker's loop has nothing else to do:
    the judges' verdicts first, an export's bytes only in between; elsewhere each request has
    its own thread, and nothing waits on this one."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("socket"):
        import gevent

        gevent.idle()


def main() -> int:
    """The child: `ask` on standard input, a JSON object of `location` (the event's file or
    database URL), `fmt` (csv, json), `round`, `table`, `device` (the filters, null for any),
    `after` and `upto` (the rows numbered above the one and up to the other), `slice` (rows
    at a time) and `file` (the served file's device and inode, or null for a database); the rows' bytes on standard output, as the worker would have made them."""
    # Ctrl-C's SIGINT, which its worker ignores (service/gunicorn_conf.py) and so passes on ignored,
    # ends it as before: an export of a service stopped has nobody to go to
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if hasattr(os, "nice"):
        os.nice(19)  # only when the verdicts leave the CPU idle
    ask = json.loads(sys.stdin.buffer.read())
    from tournament import open_event

    written = ask["after"]
    try:
        served = ask.get("file")
        if served is not None and file_identity(Path(ask["location"])) != served:
            raise FileReplaced(ask["location"])
        db = open_event(ask["location"], readonly=True)
        try:
            if served is not None and file_identity(Path(ask["location"])) != served:  # replaced meanwhile
                raise FileReplaced(ask["location"])
            out, unshown = sys.stdout.buffer, db.unshown_seconds()
            for rows, intact in slices(
                db, ask["round"], ask["table"], ask["device"], ask["upto"], ask["after"], ask["slice"]
            ):
                asked = ExportFilter(ask["round"], ask["table"], ask["device"])
                out.write(part(ask["fmt"], rows, intact, first=False, filter=asked, unshown=unshown))
                written = rows[-1].seq
            out.flush()
        finally:
            db.close()
    except BrokenPipeError:  # the worker stopped reading: the download was abandoned
        return 1
    except Exception as error:  # any failure cuts the answer short; the worker says so
        print(f"{type(error).__name__} after row {written}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
