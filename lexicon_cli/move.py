"""`lexicon event move SOURCE TARGET`: an event copied whole between a file and a database, either
way (or file to file, database to database), verified, as a new live copy of the event.

A hall's event is handed to the federation (file to database), and a federation's event taken to
a hall with no internet (database to file). The copy is tournament/transfer.py's: the source read
in one snapshot, never changed; the target made in one transaction (a database) or under a partial
name, then named (a file), and kept only once read back with the same record (same last record,
same hash), rounds, devices and director. The target has an identity of its own, the source's
noted as the one it was restored from, so the event's paired devices take it as the same event,
and a device answered by the target is refused by the source if the source is ever served again.
"""

from __future__ import annotations

from pathlib import Path

import click

from tournament import shown_location

from .backup import _head, copy_into
from .common import BadInput, echo_err
from .event import EVENT_LOCATION


@click.command()
@click.argument("source", metavar="SOURCE", type=EVENT_LOCATION)
@click.argument("target", metavar="TARGET", type=EVENT_LOCATION)
def move(source: Path | str, target: Path | str) -> None:
    """Copy an event whole between a file and a database, either way, as its new live copy.

    SOURCE and TARGET are each an event file or an event in a PostgreSQL database named by its URL,
    postgresql://USER@HOST:PORT/DATABASE?event=ID. TARGET must not exist: it is made whole or not
    at all, and kept only once its record reads back the same, with the same last record and hash.
    It carries the event, its director's password, its devices (paired phones that reach it at the
    same address go on judging), rounds and record; not the director's sessions, pairing codes or
    lockouts. It has an identity of its own. SOURCE is only read, and kept: stop every instance
    serving it before the move (one on this laptop is seen, and the move refused), and serve only
    TARGET after it (docs/operations.md, "A federation's service").

    Exit codes: 0 moved and verified; 1 the record in SOURCE does not verify (nothing written:
    `lexicon event backup` keeps a faithful copy); 2 bad input (SOURCE not an event, a backup
    copy or served on this laptop, TARGET there already), nothing written.
    """
    _not_served_here(source)
    copied = copy_into(source, target, "move")
    before = copied.source_file
    echo_err(
        f"moved {shown_location(source)} to {shown_location(target)}: {_head(copied)}, verified; "
        f"the event's live copy now, file {copied.file.identity}"
        + (f" (moved from file {before.identity})" if before is not None else "")
    )
    echo_err(f"{shown_location(source)} is kept as it was: serve only {shown_location(target)} from now on")


def _not_served_here(source: Path | str) -> None:
    """BadInput when a `lexicon serve` of SOURCE runs on this laptop: a verdict it recorded after
    the move's snapshot would be in SOURCE alone. (Instances on other machines cannot be seen from
    here: docs/operations.md says to stop them first.)"""
    from service.reloading import running_addresses

    try:
        running = running_addresses()
    except OSError:  # no folder of this user's own to look in: as if none ran
        return
    served = shown_location(source) if isinstance(source, str) else str(Path(source).resolve())
    ports = sorted(port for _, port, event in running if event == served)
    if ports:
        raise BadInput(
            f"{shown_location(source)} is served on this laptop (`lexicon serve` on port "
            f"{', '.join(map(str, ports))}): stop it before moving the event, or a verdict recorded "
            "after the move would be in it alone; nothing written"
        )
